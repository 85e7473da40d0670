/* What check.c and seq_check.c share: the corpus mode (every record of the
 * files through compare(data, len, where)) and the argument handling of
 * both modes. */
#ifndef FEATC_TEST_CHECK_FILES_H
#define FEATC_TEST_CHECK_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_input.h>

#include "../unit/wire.h"

/* Returns the number of files that could not be read to their end. */
static inline long check_files(int nfiles, char **files,
                               void (*compare)(const void *data, size_t len, const char *where))
{
    long bad = 0;
    int i;
    for (i = 0; i < nfiles; i++) {
        fc_input in;
        fc_input_options opt;
        fc_record rec;
        int s;
        memset(&opt, 0, sizeof opt);
        opt.compression = FC_COMPRESSION_AUTO;
        s = fc_input_open(&in, files[i], &opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            char where[512];
            snprintf(where, sizeof where, "%s record %llu", files[i],
                     (unsigned long long)rec.index);
            compare(rec.data, rec.length, where);
        }
        if (s != FC_END) {
            fprintf(stderr, "%s: %s\n", files[i], in.err.message);
            bad++;
        }
        fc_input_close(&in);
    }
    return bad;
}

/* The two modes of a checker, shared by check.c and seq_check.c:
 *   TOOL corpus NAME FILE...     every record of the files
 *   TOOL random NAME SEED COUNT  COUNT records from gen (seeded by SEED
 *                                and salt)
 * Each record goes through compare.  Returns the number of files that could
 * not be read, or -1 (after the usage line) for bad arguments. */
static inline long check_run(int argc, char **argv, const char *tool,
                             void (*compare)(const void *data, size_t len, const char *where),
                             void (*gen)(wbuf *ex), unsigned long long *rng,
                             unsigned long long salt)
{
    if (argc < 4 || (strcmp(argv[1], "corpus") != 0 && argc < 5)) {
        fprintf(stderr, "usage: %s corpus NAME FILE... | %s random NAME SEED COUNT\n", tool,
                tool);
        return -1;
    }
    if (strcmp(argv[1], "corpus") == 0)
        return check_files(argc - 3, argv + 3, compare);
    {
        long i, count = atol(argv[4]);
        static wbuf ex;
        /* $FEATC_RANDOM_OUT: every record generated, framed (the Python
         * module's tests read them) */
        const char *keep = getenv("FEATC_RANDOM_OUT");
        FILE *all = keep != NULL && *keep != '\0' ? fopen(keep, "wb") : NULL;
        *rng = strtoull(argv[3], NULL, 10) * 2654435761u + salt;
        for (i = 0; i < count; i++) {
            char where[64];
            gen(&ex);
            if (all != NULL) {
                unsigned char *framed = (unsigned char *)malloc(ex.n + FC_RECORD_OVERHEAD);
                size_t k = framed != NULL ? fc_record_frame(framed, ex.n + FC_RECORD_OVERHEAD,
                                                            ex.b, ex.n)
                                          : 0;
                if (k == 0 || fwrite(framed, 1, k, all) != k) {
                    fprintf(stderr, "%s: cannot write %s\n", tool, keep);
                    exit(2);
                }
                free(framed);
            }
            snprintf(where, sizeof where, "random record %ld", i);
            compare(ex.b, ex.n, where);
        }
        if (all != NULL && fclose(all) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", tool, keep);
            exit(2);
        }
    }
    return 0;
}

#endif /* FEATC_TEST_CHECK_FILES_H */
