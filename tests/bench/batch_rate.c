/* The C batch API's rate on a corpus, for make bench's Python rows: the
 * file mapped, records framed and CRC-checked by the reader, batches of B
 * parsed by fc_batch_parse into buffers bound once (VarLen as SparseTensor
 * indices, as the Python module's default).  Built per spec with
 * -include SPEC.h -DDESC=<message>_desc.
 *
 *   batch_rate FILE B REPS   prints the median MB/s (of the file's bytes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <featc/fc_batch.h>
#include <featc/fc_input.h>

#ifndef DESC
#error "build with -DDESC=<generated message>_desc"
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const fc_message_desc *md = &DESC;
    size_t b, need, n;
    int reps, r;
    fc_column *cols;
    fc_bytes *views;
    void *scratch, *block = NULL;
    double *rate;
    fc_input_options opt;
    if (argc != 4 || (b = (size_t)atol(argv[2])) == 0 || (reps = atoi(argv[3])) <= 0) {
        fprintf(stderr, "usage: %s FILE B REPS\n", argv[0]);
        return 64;
    }
    need = fc_batch_bind(md, NULL, b, FC_BATCH_SPARSE, NULL, 0);
    cols = (fc_column *)calloc(md->nfields + 1, sizeof *cols);
    views = (fc_bytes *)calloc(b, sizeof *views);
    scratch = calloc(1, md->size);
    rate = (double *)calloc((size_t)reps, sizeof *rate);
    if (posix_memalign(&block, FC_BATCH_ALIGN, need) != 0 || cols == NULL || views == NULL ||
        scratch == NULL || rate == NULL)
        return 2;
    fc_batch_bind(md, cols, b, FC_BATCH_SPARSE, block, need);
    memset(&opt, 0, sizeof opt);
    for (r = 0; r < reps; r++) {
        fc_input in;
        fc_record rec;
        fc_error err;
        fc_status s = fc_input_open(&in, argv[1], &opt);
        double t0 = now();
        n = 0;
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            views[n].data = rec.data; /* in place: a mapped, uncompressed file */
            views[n++].size = rec.length;
            if (n == b) {
                if (fc_batch_parse(md, cols, scratch, views, n, &err) != FC_OK) {
                    fprintf(stderr, "%s: %s\n", argv[1], err.message);
                    return 1;
                }
                n = 0;
            }
        }
        if (s != FC_END || (n > 0 && fc_batch_parse(md, cols, scratch, views, n, &err) != FC_OK)) {
            fprintf(stderr, "%s: read or parse failed\n", argv[1]);
            return 1;
        }
        rate[r] = (double)in.size / 1e6 / (now() - t0);
        fc_input_close(&in);
    }
    qsort(rate, (size_t)reps, sizeof *rate, cmp);
    printf("%.1f\n", rate[reps / 2]);
    free(block);
    return 0;
}
