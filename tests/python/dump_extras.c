/* The C batch API's hash bucket ids and hot vectors, which the JSON
 * driver does not print, for tests/python/module_vs_driver.py --extras.
 * Built per spec with -include SPEC.h -DDESC=<message>_desc (and -DSEQ for
 * a sequence_example).
 *
 *   dump_extras B FILE...   batches of B records across the files, as the
 *                           module reads them; per batch one JSON line:
 *                           {"KEY/buckets":[ids],"KEY/one_hot":[bits],...}
 *                           (floats as their uint32 bits), or
 *                           {"error":true} for a batch that fails. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_batch.h>
#include <featc/fc_json.h>
#include <featc/fc_input.h>

#ifndef DESC
#error "build with -DDESC=<generated message>_desc"
#endif

#ifdef SEQ
static const fc_seq_desc *sd = &DESC;
#define NCOLS (sd->ncontext + sd->nlists)
#define SIZE (sd->size)
#else
static const fc_message_desc *md = &DESC;
#define NCOLS (md->nfields)
#define SIZE (md->size)
#endif

static int first;

static void key(const char *k, size_t n, const char *suffix)
{
    char buf[1024];
    if (n + strlen(suffix) >= sizeof buf)
        exit(2);
    memcpy(buf, k, n);
    memcpy(buf + n, suffix, strlen(suffix));
    if (!first)
        putchar(',');
    first = 0;
    fc_json_string(stdout, buf, n + strlen(suffix), 1);
    putchar(':');
}

static void i64s(const int64_t *v, size_t n)
{
    size_t i;
    putchar('[');
    for (i = 0; i < n; i++)
        printf("%s%" PRId64, i > 0 ? "," : "", v[i]);
    putchar(']');
}

static void bits(const float *v, size_t n)
{
    size_t i;
    putchar('[');
    for (i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        printf("%s%" PRIu32, i > 0 ? "," : "", u);
    }
    putchar(']');
}

static void extras(const char *k, size_t klen, const fc_field_extra *x, const fc_column *c,
                   int list)
{
    if (x == NULL || x->hash_buckets == 0 || x->hidden)
        return;
    key(k, klen, "/buckets");
    i64s(c->buckets, c->nvalues);
    if (list || c->hot == NULL)
        return;
    if (x->hot == FC_HOT_ONE) {
        key(k, klen, "/one_hot");
        bits(c->hot, c->nvalues * x->hash_buckets);
    } else if (x->hot == FC_HOT_MULTI) {
        key(k, klen, "/multi_hot");
        bits(c->hot, (size_t)c->shape[0] * x->hash_buckets);
    }
}

static void flush(fc_column *cols, void *scratch, const fc_bytes *views, size_t n)
{
    fc_error err;
    size_t i;
#ifdef SEQ
    int rc = fc_batch_parse_seq(sd, cols, scratch, views, n, &err);
#else
    int rc = fc_batch_parse(md, cols, scratch, views, n, &err);
#endif
    if (rc != FC_OK) {
        puts("{\"error\":true}");
        return;
    }
    first = 1;
    putchar('{');
#ifdef SEQ
    for (i = 0; i < sd->ncontext; i++)
        extras(sd->context[i].key, sd->context[i].key_len, sd->context[i].extra, &cols[i], 0);
    for (i = 0; i < sd->nlists; i++)
        extras(sd->lists[i].key, sd->lists[i].key_len, sd->lists[i].extra,
               &cols[sd->ncontext + i], 1);
#else
    for (i = 0; i < md->nfields; i++)
        extras(md->fields[i].key, md->fields[i].key_len, md->fields[i].extra, &cols[i], 0);
#endif
    puts("}");
}

int main(int argc, char **argv)
{
    size_t b, n = 0, used = 0, cap = 1 << 20, i, need;
    unsigned char *data = (unsigned char *)malloc(cap);
    size_t *off, *len;
    fc_bytes *views;
    fc_column *cols = (fc_column *)calloc(NCOLS + 1, sizeof *cols);
    void *scratch = calloc(1, SIZE), *block = NULL;
    fc_input_options opt;
    int k;
    if (argc < 3 || (b = (size_t)atol(argv[1])) == 0) {
        fprintf(stderr, "usage: %s B FILE...\n", argv[0]);
        return 64;
    }
#ifdef SEQ
    need = fc_batch_bind_seq(sd, NULL, b, FC_BATCH_SPARSE, NULL, 0);
#else
    need = fc_batch_bind(md, NULL, b, FC_BATCH_SPARSE, NULL, 0);
#endif
    if (posix_memalign(&block, FC_BATCH_ALIGN, need > 0 ? need : 1) != 0)
        block = NULL;
    off = (size_t *)calloc(b, sizeof *off);
    len = (size_t *)calloc(b, sizeof *len);
    views = (fc_bytes *)calloc(b, sizeof *views);
    if (data == NULL || cols == NULL || scratch == NULL || block == NULL || off == NULL ||
        len == NULL || views == NULL)
        return 2;
#ifdef SEQ
    fc_batch_bind_seq(sd, cols, b, FC_BATCH_SPARSE, block, need);
#else
    fc_batch_bind(md, cols, b, FC_BATCH_SPARSE, block, need);
#endif
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    for (k = 2; k < argc; k++) {
        fc_input in;
        fc_record rec;
        fc_status s = fc_input_open(&in, argv[k], &opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            while (used + rec.length > cap) {
                cap *= 2;
                if ((data = (unsigned char *)realloc(data, cap)) == NULL)
                    return 2;
            }
            memcpy(data + used, rec.data, rec.length);
            off[n] = used;
            len[n++] = rec.length;
            used += rec.length;
            if (n == b) {
                for (i = 0; i < n; i++) {
                    views[i].data = data + off[i];
                    views[i].size = len[i];
                }
                flush(cols, scratch, views, n);
                n = used = 0;
            }
        }
        fc_input_close(&in);
        if (s != FC_END) {
            fprintf(stderr, "%s: %s: read error\n", argv[0], argv[k]);
            return 2;
        }
    }
    if (n > 0) {
        for (i = 0; i < n; i++) {
            views[i].data = data + off[i];
            views[i].size = len[i];
        }
        flush(cols, scratch, views, n);
    }
    return fflush(stdout) == 0 ? 0 : 2;
}
