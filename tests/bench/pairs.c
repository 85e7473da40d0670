/* make bench's paired links: each link of the chain from a file's bytes to
 * a batch of tensors, every contender timed in turns in one process.
 *
 *   pairs NAME FILE B ROUNDS
 *
 * A round runs one pass of each contender, in the same order each round:
 *   parse    the generated per-record parse (the message's parse), the
 *            records framed and CRC-checked by fc_input over the file read
 *            into memory before the rounds (fc_input_open_mem)
 *   batch    fc_batch_parse (-DSEQ: fc_batch_parse_seq), batches of B,
 *            over the same records in memory, into columns bound once
 *            (VarLen as SparseTensor indices, the Python module's default)
 *   reader   fc_input over the file (fc_input_open: a file read whole is
 *            read(2) into its buffer), records framed and checked, nothing
 *            parsed
 *   file     the batch path over the file
 *   struct   the batch path in memory as before the direct path: each
 *            record parsed into the scratch struct, then copied out
 *            (md->batch_direct off; a SequenceExample has none: the same)
 * and, when FILE.gz exists (the same records, GZIP):
 *   inflate  ISA-L's isal_inflate alone over FILE.gz in memory into a
 *            64 KB buffer, member after member
 *   gzreader fc_input over FILE.gz (inflated by the runtime's inflater)
 *   gzbatch  the batch path over FILE.gz
 * The batch contenders take each batch's records with fc_input_gather (in
 * place: in memory, or kept in the reader's buffer; a short gather's
 * records copied into an arena).
 * The host's speed drifts by up to 1.6x between runs minutes apart, so a
 * ratio is taken round by round from the two passes that met the same
 * moment, and its median (min-max) over the rounds printed; so are each
 * contender's rate (MB/s of the file's bytes, FILE.gz's for the GZIP
 * ones).  Lines for scripts (tests/bench/chain.py):
 *   rate NAME CONTENDER MEDIAN MIN MAX
 *   ratio NAME LINK MEDIAN MIN MAX
 * Every pass also counts its records and values' checksum: a contender
 * that disagrees with the per-record parse fails the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/igzip_lib.h>
#include <sys/stat.h>

#include <featc/fc_input.h>

#include "clock.h"
#include "desc.h"

#define MAX_ROUNDS 101

enum { PARSE_MEM, BATCH_MEM, READER, FILE_BATCH, STRUCT_MEM, INFLATE, GZREADER, GZBATCH, GZAHEAD,
       GZBATCH_AHEAD, NCONT };
static const char *const names[NCONT] = {"parse",   "batch",   "reader",  "file",  "struct",
                                         "inflate", "gzreader", "gzbatch", "gzahead",
                                         "gzbatchahead"};

/* The links: rate of a over rate of b, round by round. */
static const struct link {
    const char *name;
    int a, b;
} links[] = {
    {"batch/parse", BATCH_MEM, PARSE_MEM},  {"file/batch", FILE_BATCH, BATCH_MEM},
    {"file/reader", FILE_BATCH, READER},    {"batch/struct", BATCH_MEM, STRUCT_MEM},
    {"gzreader/inflate", GZREADER, INFLATE},
    {"gzbatch/gzreader", GZBATCH, GZREADER}, {"gzahead/inflate", GZAHEAD, INFLATE},
    {"gzahead/gzreader", GZAHEAD, GZREADER}, {"gzbatchahead/gzbatch", GZBATCH_AHEAD, GZBATCH},
};

static const desc_t *md = &DESC;
static desc_t by_struct;      /* DESC without its direct batch path */
static const desc_t *batch_md; /* the one the batch contender in turn uses */
static fc_column *cols;
static fc_bytes *views;
static void *scratch;
static size_t bsize;
static unsigned char *arena;
static size_t arena_used, arena_cap;

/* What a pass saw: its records, and a sum over the columns' values
 * (the batch contenders) or the records' sizes (every contender). */
typedef struct seen {
    unsigned long long records, bytes;
} seen;

static int load(const char *path, unsigned char **data, size_t *size)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (f == NULL || stat(path, &st) != 0)
        return -1;
    *size = (size_t)st.st_size;
    *data = (unsigned char *)malloc(*size + 1);
    if (*data == NULL || fread(*data, 1, *size, f) != *size) {
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

static int flush(size_t n, seen *s)
{
    fc_error err;
    size_t j;
    if (n == 0)
        return 0;
    if (PARSE(batch_md, cols, scratch, views, n, &err) != FC_OK) {
        fprintf(stderr, "pairs: batch: %s\n", err.message);
        return -1;
    }
    for (j = 0; j < NCOLS(md); j++)
        s->bytes += cols[j].nvalues;
    arena_used = 0;
    return 0;
}

/* One pass of the fc_input contenders: 0 nothing parsed, 1 per record,
 * 2 batches, their records gathered in place (fc_input_gather; those of a
 * short gather copied into the arena). */
static int input_pass(const char *path, const unsigned char *image, size_t size, int how,
                      int ahead, seen *s)
{
    static fc_record recs[4096];
    fc_input in;
    fc_record rec;
    fc_error err;
    fc_input_options opt;
    fc_status st;
    size_t n = 0, got, k;
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    opt.inflate_ahead = ahead;
    st = image != NULL ? fc_input_open_mem(&in, path, image, size, &opt)
                       : fc_input_open(&in, path, &opt);
    arena_used = 0;
    if (how == 2) {
        while (st == FC_OK) {
            st = fc_input_gather(&in, recs, bsize - n, &got);
            for (k = 0; k < got; k++) {
                views[n + k].data = recs[k].data;
                views[n + k].size = recs[k].length;
            }
            s->records += got;
            n += got;
            if (st == FC_OK && n < bsize) { /* short: the next gather moves these */
                for (k = n - got; k < n; k++) {
                    if (arena_used + views[k].size > arena_cap)
                        return -1;
                    memcpy(arena + arena_used, views[k].data, views[k].size);
                    views[k].data = arena + arena_used;
                    arena_used += views[k].size;
                }
                continue;
            }
            if (flush(n, s) != 0)
                return -1;
            n = 0;
        }
    }
    while (how != 2 && st == FC_OK && (st = fc_input_next(&in, &rec)) == FC_OK) {
        s->records++;
        if (how == 1 && md->parse(scratch, rec.data, rec.length, &err) != FC_OK) {
            fprintf(stderr, "pairs: %s: parse: %s\n", path, err.message);
            return -1;
        }
    }
    if (st != FC_END) {
        fprintf(stderr, "pairs: %s: the read failed: %s\n", path, in.err.message);
        return -1;
    }
    fc_input_close(&in);
    return 0;
}

/* ISA-L alone over a GZIP file in memory, member after member. */
static int inflate_pass(const unsigned char *src, size_t len, seen *s)
{
    static struct inflate_state st; /* 87 KB: not on the stack */
    static unsigned char out[64 * 1024];
    isal_inflate_init(&st);
    st.crc_flag = ISAL_GZIP;
    st.next_in = (uint8_t *)(uintptr_t)src;
    st.avail_in = (uint32_t)len;
    for (;;) {
        st.next_out = out;
        st.avail_out = (uint32_t)sizeof out;
        if (isal_inflate(&st) != ISAL_DECOMP_OK)
            return -1;
        s->bytes += sizeof out - st.avail_out;
        if (st.block_state == ISAL_BLOCK_FINISH) {
            uint8_t *in = st.next_in;
            uint32_t left = st.avail_in;
            if (left == 0)
                return 0;
            isal_inflate_reset(&st);
            st.crc_flag = ISAL_GZIP;
            st.next_in = in;
            st.avail_in = left;
        } else if (st.avail_in == 0 && st.avail_out == sizeof out) {
            return -1;
        }
    }
}

static void summary(double *v, int n, double *med, double *lo, double *hi)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *med = v[n / 2];
    *lo = v[0];
    *hi = v[n - 1];
}

int main(int argc, char **argv)
{
    static double t[NCONT][MAX_ROUNDS];
    const char *name, *path;
    char gz[4096];
    unsigned char *image = NULL, *gzimage = NULL;
    size_t size = 0, gzsize = 0, need, k, ncont;
    void *block = NULL;
    seen ref = {0, 0};
    int rounds, r, c, have_gz;
    if (argc != 5 || (bsize = (size_t)atol(argv[3])) == 0 || bsize > 4096 ||
        (rounds = atoi(argv[4])) < 3 ||
        rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: pairs NAME FILE B ROUNDS (B up to 4096, 3 to %d rounds)\n", MAX_ROUNDS);
        return 64;
    }
    name = argv[1];
    path = argv[2];
    snprintf(gz, sizeof gz, "%s.gz", path);
    if (load(path, &image, &size) != 0) {
        perror(path);
        return 2;
    }
    have_gz = load(gz, &gzimage, &gzsize) == 0;
    ncont = have_gz ? NCONT : INFLATE;
    by_struct = *md;
#ifndef SEQ
    by_struct.batch_direct = NULL;
#endif
    need = BIND(md, NULL, bsize, FC_BATCH_SPARSE, NULL, 0);
    cols = (fc_column *)calloc(NCOLS(md) + 1, sizeof *cols);
    views = (fc_bytes *)calloc(bsize, sizeof *views);
    scratch = calloc(1, md->size);
    arena_cap = 64u << 20;
    arena = (unsigned char *)malloc(arena_cap);
    if (posix_memalign(&block, FC_BATCH_ALIGN, need) != 0 || cols == NULL || views == NULL ||
        scratch == NULL || arena == NULL)
        return 2;
    BIND(md, cols, bsize, FC_BATCH_SPARSE, block, need);
    for (r = -1; r < rounds; r++) { /* (round -1: a warm-up, not counted) */
        seen batch_seen = {0, 0};
        for (c = 0; c < (int)ncont; c++) {
            seen s = {0, 0};
            double t0 = now();
            batch_md = c == STRUCT_MEM ? &by_struct : md;
            int rc = c == PARSE_MEM  ? input_pass(path, image, size, 1, 0, &s)
                     : c == BATCH_MEM || c == STRUCT_MEM ? input_pass(path, image, size, 2, 0, &s)
                     : c == READER    ? input_pass(path, NULL, 0, 0, 0, &s)
                     : c == FILE_BATCH ? input_pass(path, NULL, 0, 2, 0, &s)
                     : c == INFLATE   ? inflate_pass(gzimage, gzsize, &s)
                     : c == GZREADER  ? input_pass(gz, NULL, 0, 0, 0, &s)
                     : c == GZBATCH   ? input_pass(gz, NULL, 0, 2, 0, &s)
                     : c == GZAHEAD   ? input_pass(gz, NULL, 0, 0, 1, &s)
                                      : input_pass(gz, NULL, 0, 2, 1, &s);
            double dt = now() - t0;
            if (rc != 0)
                return 1;
            if (r >= 0)
                t[c][r] = dt;
            /* the same records everywhere, the same values in every batch */
            if (c == PARSE_MEM)
                ref = s;
            else if (c != INFLATE && s.records != ref.records) {
                fprintf(stderr, "pairs: %s: %s read %llu records, parse %llu\n", name,
                        names[c], s.records, ref.records);
                return 1;
            }
            if (c == BATCH_MEM)
                batch_seen = s;
            else if ((c == FILE_BATCH || c == STRUCT_MEM || c == GZBATCH || c == GZBATCH_AHEAD) &&
                     s.bytes != batch_seen.bytes) {
                fprintf(stderr, "pairs: %s: %s's batches hold %llu values, batch's %llu\n",
                        name, names[c], s.bytes, batch_seen.bytes);
                return 1;
            }
        }
    }
    printf("\n%s: %llu records; %d rounds, one pass of each contender a round, in turns; "
           "MB/s of the file's bytes (GZIP: of FILE.gz's), median (min-max)\n",
           name, ref.records, rounds);
    for (c = 0; c < (int)ncont; c++) {
        double v[MAX_ROUNDS], med, lo, hi, mb = (double)(c >= INFLATE ? gzsize : size) / 1e6;
        for (r = 0; r < rounds; r++)
            v[r] = mb / t[c][r];
        summary(v, rounds, &med, &lo, &hi);
        printf("  %-9s %9.1f (%.1f-%.1f)\n", names[c], med, lo, hi);
        printf("rate %s %s %.1f %.1f %.1f\n", name, names[c], med, lo, hi);
    }
    for (k = 0; k < sizeof links / sizeof links[0]; k++) {
        double v[MAX_ROUNDS], med, lo, hi;
        if ((size_t)links[k].a >= ncont)
            continue;
        for (r = 0; r < rounds; r++) /* rates: a's over b's, from the same round */
            v[r] = t[links[k].b][r] / t[links[k].a][r];
        summary(v, rounds, &med, &lo, &hi);
        printf("  %-17s %.2f (%.2f-%.2f)\n", links[k].name, med, lo, hi);
        printf("ratio %s %s %.3f %.3f %.3f\n", name, links[k].name, med, lo, hi);
    }
    free(block);
    free(image);
    free(gzimage);
    free(arena);
    return 0;
}
