/* The corpus mode shared by check.c and seq_check.c: every record of the
 * files through compare(data, len, where).  Returns the number of files
 * that could not be read to their end. */
#ifndef FEATC_TEST_CHECK_FILES_H
#define FEATC_TEST_CHECK_FILES_H

#include <stdio.h>
#include <string.h>

#include <featc/fc_input.h>

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

#endif /* FEATC_TEST_CHECK_FILES_H */
