/* The C batch API's rate on a corpus, for make bench's chain: the file
 * mapped, records framed and CRC-checked by the reader (inflated first for
 * a GZIP or ZLIB file, whose records are then copied into a batch arena,
 * as the Python reader does), batches of B parsed by fc_batch_parse (with
 * -DSEQ, fc_batch_parse_seq) into buffers bound once (VarLen as
 * SparseTensor indices, as the Python module's default).  Each pass is
 * timed from the file's open to its close (the mapping and unmapping too),
 * as a Python read() is.  Built per spec
 * with -include SPEC.h -DDESC=<message>_desc.
 *
 *   batch_rate FILE B REPS [arrow|mem]   prints the median MB/s (of the file's bytes)
 *
 * With mem, the file is read into memory once, before the passes, and each
 * pass reads it there (fc_input_open_mem): the batch path alone, beside the
 * per-record parse that bench.c times over memory too.
 *
 * With arrow, each batch is what an Arrow consumer gets: bound (VarLen as
 * row splits) into a new block, parsed, exported as an Arrow struct array
 * (fc_arrow_export: bytes copied, the block viewed) and released, which
 * frees the block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>

#include <featc/fc_arrow.h>
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

#ifdef SEQ
#define BIND fc_batch_bind_seq
#define PARSE fc_batch_parse_seq
#define NCOLS(d) ((d)->ncontext + (d)->nlists)
#define EXPORT(d, c, n, blk, out, err) fc_arrow_export(NULL, d, 0, c, n, blk, free, out, NULL, err)
typedef fc_seq_desc desc_t;
#else
#define BIND fc_batch_bind
#define PARSE fc_batch_parse
#define NCOLS(d) ((d)->nfields)
#define EXPORT(d, c, n, blk, out, err) fc_arrow_export(d, NULL, 0, c, n, blk, free, out, NULL, err)
typedef fc_message_desc desc_t;
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

/* The batch's records: views into the mapped file, or copies in arena
 * (a compressed file's records live in the reader's buffer only until the
 * next one). */
static unsigned char *arena;
static size_t arena_used, arena_cap;

static int keep(fc_bytes *v, const fc_input *in, const fc_record *rec)
{
    if (in->data != NULL && rec->data >= in->data && rec->data + rec->length <= in->data + in->size) {
        v->data = rec->data;
        v->size = rec->length;
        return 0;
    }
    if (arena_used + rec->length > arena_cap)
        return -1;
    memcpy(arena + arena_used, rec->data, rec->length);
    v->data = arena + arena_used;
    v->size = rec->length;
    arena_used += rec->length;
    return 0;
}

int main(int argc, char **argv)
{
    const desc_t *md = &DESC;
    size_t b, need, n;
    int reps, r, arrow, mem;
    fc_column *cols;
    fc_bytes *views;
    void *scratch, *block = NULL;
    double *rate, file_mb;
    unsigned char *image = NULL;
    fc_input_options opt;
    struct stat st;
    if (argc < 4 || argc > 5 || (b = (size_t)atol(argv[2])) == 0 ||
        (reps = atoi(argv[3])) <= 0 ||
        (argc == 5 && strcmp(argv[4], "arrow") != 0 && strcmp(argv[4], "mem") != 0)) {
        fprintf(stderr, "usage: %s FILE B REPS [arrow|mem]\n", argv[0]);
        return 64;
    }
    arrow = argc == 5 && strcmp(argv[4], "arrow") == 0;
    mem = argc == 5 && !arrow;
    if (stat(argv[1], &st) != 0) {
        perror(argv[1]);
        return 2;
    }
    file_mb = (double)st.st_size / 1e6;
    if (mem) {
        FILE *f = fopen(argv[1], "rb");
        image = (unsigned char *)malloc((size_t)st.st_size + 1);
        if (f == NULL || image == NULL || fread(image, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
            perror(argv[1]);
            return 2;
        }
        fclose(f);
    }
    need = BIND(md, NULL, b, FC_BATCH_SPARSE, NULL, 0);
    cols = (fc_column *)calloc(NCOLS(md) + 1, sizeof *cols);
    views = (fc_bytes *)calloc(b, sizeof *views);
    scratch = calloc(1, md->size);
    rate = (double *)calloc((size_t)reps, sizeof *rate);
    arena_cap = 64u << 20; /* a batch's records (the bench's are 20 MB files) */
    arena = (unsigned char *)malloc(arena_cap);
    if (posix_memalign(&block, FC_BATCH_ALIGN, need) != 0 || cols == NULL || views == NULL ||
        scratch == NULL || rate == NULL || arena == NULL)
        return 2;
    BIND(md, cols, b, FC_BATCH_SPARSE, block, need);
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    for (r = 0; r < reps; r++) {
        fc_input in;
        fc_record rec;
        fc_error err;
        double t0 = now(); /* from open to close, as a Python read() takes them */
        fc_status s = mem ? fc_input_open_mem(&in, argv[1], image, (size_t)st.st_size, &opt)
                          : fc_input_open(&in, argv[1], &opt);
        n = 0;
        arena_used = 0;
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            if (keep(&views[n++], &in, &rec) != 0) {
                fprintf(stderr, "%s: a batch over %zu bytes\n", argv[1], arena_cap);
                return 1;
            }
            if (n == b) {
                if (run_batch(md, cols, scratch, views, n, arrow, &err) != 0) {
                    fprintf(stderr, "%s: %s\n", argv[1], err.message);
                    return 1;
                }
                n = 0;
                arena_used = 0;
            }
        }
        if (s != FC_END || (n > 0 && run_batch(md, cols, scratch, views, n, arrow, &err) != 0)) {
            fprintf(stderr, "%s: read or parse failed\n", argv[1]);
            return 1;
        }
        fc_input_close(&in);
        rate[r] = file_mb / (now() - t0);
    }
    qsort(rate, (size_t)reps, sizeof *rate, cmp);
    printf("%.1f\n", rate[reps / 2]);
    free(block);
    free(image);
    return 0;
}
