/* The C batch API's rate on a corpus, for make bench (python_bench.py's C
 * rate, chain.py's Arrow pairs): records framed and CRC-checked by
 * fc_input (a whole file read by read(2), inflated first for a GZIP or ZLIB
 * file), copied into a batch arena as the Python reader does, batches of B
 * parsed by fc_batch_parse (with -DSEQ, fc_batch_parse_seq) into buffers
 * bound once (VarLen as SparseTensor indices, as the Python module's
 * default).  Each pass is timed from the file's open to its close, as a
 * Python read() is.  Built per spec with -include SPEC.h
 * -DDESC=<message>_desc.  (tests/bench/pairs.c times the links: the batch
 * path over memory against the per-record parse, and so on.)
 *
 *   batch_rate FILE B REPS [arrow|pair]   prints the median MB/s (of the file's bytes)
 *
 * With arrow, each batch is what an Arrow consumer gets: bound (VarLen as
 * row splits) into a new block, parsed, exported as an Arrow struct array
 * (fc_arrow_export: bytes copied, the block viewed) and released, which
 * frees the block.
 *
 * With pair, each pass of the batch path is followed by one of arrow's, and
 * it prints both medians and the median of the passes' arrow/batch ratios:
 * on a shared machine, whose speed drifts from one run to the next, a ratio
 * of neighbouring passes is the steadier figure.
 *
 * Built with -shared -fPIC as BUILD/bench/batch_rate_NAME.so, it is the C
 * side of chain.py's py1/batch link: batch_rate_pass(FILE, B) is one pass
 * (the buffers bound at the first call), its seconds or -1, called by
 * ctypes in turns with the Python module's read() in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>

#include <featc/fc_arrow.h>
#include <featc/fc_input.h>

#include "clock.h"
#include "desc.h"

#ifdef SEQ
#define EXPORT(d, c, n, blk, out, err) fc_arrow_export(NULL, d, 0, c, n, blk, free, out, NULL, err)
#else
#define EXPORT(d, c, n, blk, out, err) fc_arrow_export(d, NULL, 0, c, n, blk, free, out, NULL, err)
#endif

/* One batch of n records: into the bound columns, or (arrow) into a new
 * block exported and released.  0, or -1 with err set. */
static int run_batch(const desc_t *md, fc_column *cols, void *scratch, const fc_bytes *views,
                     size_t n, int arrow, fc_error *err)
{
    void *blk = NULL;
    size_t need;
    struct ArrowArray out;
    if (!arrow)
        return PARSE(md, cols, scratch, views, n, err) == FC_OK ? 0 : -1;
    need = BIND(md, NULL, n, FC_BATCH_RAGGED | FC_BATCH_PACKED, NULL, 0);
    if (posix_memalign(&blk, FC_ARROW_ALIGN, need) != 0)
        return -1;
    BIND(md, cols, n, FC_BATCH_RAGGED | FC_BATCH_PACKED, blk, need);
    if (PARSE(md, cols, scratch, views, n, err) != FC_OK ||
        EXPORT(md, cols, n, blk, &out, err) != FC_OK) {
        free(blk);
        return -1;
    }
    out.release(&out);
    return 0;
}

/* The batch's records, copied into arena (a record lives in the reader's
 * buffer only until the next one). */
static unsigned char *arena;
static size_t arena_used, arena_cap;

static int keep(fc_bytes *v, const fc_record *rec)
{
    if (arena_used + rec->length > arena_cap)
        return -1;
    memcpy(arena + arena_used, rec->data, rec->length);
    v->data = arena + arena_used;
    v->size = rec->length;
    arena_used += rec->length;
    return 0;
}

/* What every pass shares. */
static const desc_t *md = &DESC;
static fc_column *cols;
static fc_bytes *views;
static void *scratch;
/* One pass over the file, in batches of b; its seconds, from the open to
 * the close, or -1 with the error printed. */
static double one_pass(const char *path, size_t b, int arrow)
{
    fc_input in;
    fc_record rec;
    fc_error err;
    fc_input_options opt;
    size_t n = 0;
    double t0 = now(); /* from open to close, as a Python read() takes them */
    fc_status s;
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    s = fc_input_open(&in, path, &opt);
    arena_used = 0;
    while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
        if (keep(&views[n++], &rec) != 0) {
            fprintf(stderr, "%s: a batch over %zu bytes\n", path, arena_cap);
            return -1;
        }
        if (n == b) {
            if (run_batch(md, cols, scratch, views, n, arrow, &err) != 0) {
                fprintf(stderr, "%s: %s\n", path, err.message);
                return -1;
            }
            n = 0;
            arena_used = 0;
        }
    }
    if (s != FC_END || (n > 0 && run_batch(md, cols, scratch, views, n, arrow, &err) != 0)) {
        fprintf(stderr, "%s: read or parse failed\n", path);
        return -1;
    }
    fc_input_close(&in);
    return now() - t0;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void *block;
static size_t bound_b, need;

/* The buffers for batches of b, bound once: 0, or -1 out of memory. */
static int setup(size_t b)
{
    if (bound_b == b)
        return 0;
    if (bound_b != 0)
        return -1; /* (one batch size a process) */
    need = BIND(md, NULL, b, FC_BATCH_SPARSE, NULL, 0);
    cols = (fc_column *)calloc(NCOLS(md) + 1, sizeof *cols);
    views = (fc_bytes *)calloc(b, sizeof *views);
    scratch = calloc(1, md->size);
    arena_cap = 64u << 20; /* a batch's records (the bench's are 20 MB files) */
    arena = (unsigned char *)malloc(arena_cap);
    if (posix_memalign(&block, FC_BATCH_ALIGN, need) != 0 || cols == NULL || views == NULL ||
        scratch == NULL || arena == NULL)
        return -1;
    BIND(md, cols, b, FC_BATCH_SPARSE, block, need);
    bound_b = b;
    return 0;
}

double batch_rate_pass(const char *path, long b); /* (for ctypes: no header) */

double batch_rate_pass(const char *path, long b)
{
    if (b <= 0 || setup((size_t)b) != 0)
        return -1;
    return one_pass(path, (size_t)b, 0);
}

int main(int argc, char **argv)
{
    size_t b;
    int reps, r, arrow, pair;
    double *rate, *rate2, *ratio, file_mb;
    const char *mode = argc == 5 ? argv[4] : "";
    struct stat st;
    if (argc < 4 || argc > 5 || (b = (size_t)atol(argv[2])) == 0 ||
        (reps = atoi(argv[3])) <= 0 ||
        (argc == 5 && strcmp(mode, "arrow") != 0 && strcmp(mode, "pair") != 0)) {
        fprintf(stderr, "usage: %s FILE B REPS [arrow|pair]\n", argv[0]);
        return 64;
    }
    arrow = strcmp(mode, "arrow") == 0;
    pair = strcmp(mode, "pair") == 0;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 2;
    }
    file_mb = (double)st.st_size / 1e6;
    rate = (double *)calloc((size_t)reps, sizeof *rate);
    rate2 = (double *)calloc((size_t)reps, sizeof *rate2);
    ratio = (double *)calloc((size_t)reps, sizeof *ratio);
    if (setup(b) != 0 || rate == NULL || rate2 == NULL || ratio == NULL)
        return 2;
    for (r = 0; r < reps; r++) {
        /* (pair: a batch pass, then an Arrow pass, so that both meet the
         * same moment of a shared machine; their ratio pass by pass) */
        double t = one_pass(argv[1], b, arrow), t2 = 0;
        if (t < 0)
            return 1;
        if (pair) {
            if ((t2 = one_pass(argv[1], b, 1)) < 0)
                return 1;
            rate2[r] = file_mb / t2;
            ratio[r] = t / t2;
            BIND(md, cols, b, FC_BATCH_SPARSE, block, need); /* (arrow bound cols anew) */
        }
        rate[r] = file_mb / t;
    }
    if (pair) /* batch, Arrow, and the median of the passes' Arrow/batch */
        printf("%.1f %.1f %.3f\n", median(rate, reps), median(rate2, reps), median(ratio, reps));
    else
        printf("%.1f\n", median(rate, reps));
    free(block);
    return 0;
}
