/* The JSON dump driver and printer: see fc_driver.h. */
#include "featc/fc_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "featc/fc_input.h"

void fc_json_float(FILE *f, float v)
{
    if (isnan(v))
        fputs("\"nan\"", f);
    else if (isinf(v))
        fputs(v < 0 ? "\"-inf\"" : "\"inf\"", f);
    else
        fprintf(f, "%.9g", (double)v);
}

void fc_json_string(FILE *f, const void *data, size_t n, int utf8)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if ((c >= 0x20 && c < 0x7f) || (utf8 && c >= 0x80))
                fputc(c, f);
            else
                fprintf(f, "\\u%04x", (unsigned)c);
            break;
        }
    }
    fputc('"', f);
}

void fc_json_bytes(FILE *f, const void *data, size_t n)
{
    fc_json_string(f, data, n, 0);
}

static void json_value(FILE *f, fc_type t, const unsigned char *base, size_t i)
{
    if (t == FC_TYPE_INT64) {
        int64_t v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fprintf(f, "%lld", (long long)v);
    } else if (t == FC_TYPE_FLOAT) {
        float v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_float(f, v);
    } else {
        fc_bytes v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_bytes(f, v.data, v.size);
    }
}

/* Values [*pos, ...) shaped by dims[level..rank). */
static void json_nested(FILE *f, fc_type t, unsigned rank, const size_t *dims,
                        const unsigned char *base, unsigned level, size_t *pos)
{
    size_t i;
    if (level == rank) {
        json_value(f, t, base, (*pos)++);
        return;
    }
    fputc('[', f);
    for (i = 0; i < dims[level]; i++) {
        if (i > 0)
            fputc(',', f);
        json_nested(f, t, rank, dims, base, level + 1, pos);
    }
    fputc(']', f);
}

/* values [from, from + n) as a flat list */
static void json_flat(FILE *f, fc_type t, const unsigned char *base, size_t from, size_t n)
{
    size_t k;
    fputc('[', f);
    for (k = 0; k < n; k++) {
        if (k > 0)
            fputc(',', f);
        json_value(f, t, base, from + k);
    }
    fputc(']', f);
}

static size_t load_size(const unsigned char *p)
{
    size_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* {"NAME":VALUE,...} of fields (an Example's features, a SequenceExample's
 * context). */
static void json_fields(FILE *f, const fc_field_desc *fields, size_t n, const unsigned char *m)
{
    size_t i, k;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        const fc_field_desc *fd = &fields[i];
        const unsigned char *vals = m + fd->value_offset;
        size_t pos = 0, count = fd->kind != FC_KIND_FIXED ? load_size(m + fd->count_offset) : 0;
        if (i > 0)
            fputc(',', f);
        fc_json_bytes(f, fd->key, fd->key_len);
        fputc(':', f);
        switch (fd->kind) {
        case FC_KIND_FIXED:
            json_nested(f, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            break;
        case FC_KIND_VARLEN:
            json_flat(f, fd->type, vals, 0, count);
            break;
        default:
            fputc('[', f);
            for (k = 0; k < count; k++) {
                if (k > 0)
                    fputc(',', f);
                json_nested(f, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            }
            fputc(']', f);
            break;
        }
    }
    fputc('}', f);
}

void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg)
{
    json_fields(f, md->fields, md->nfields, (const unsigned char *)msg);
}

void fc_json_context(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    json_fields(f, sd->context, sd->ncontext, (const unsigned char *)msg);
}

void fc_json_feature_lists(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    const unsigned char *m = (const unsigned char *)msg;
    size_t j, t;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        const unsigned char *vals = m + l->value_offset;
        size_t frames = load_size(m + l->frames_offset), pos = 0;
        if (j > 0)
            fputc(',', f);
        fc_json_bytes(f, l->key, l->key_len);
        fputs(":[", f);
        for (t = 0; t < frames; t++) {
            if (t > 0)
                fputc(',', f);
            if (l->kind == FC_KIND_VARLEN)
                json_flat(f, l->type, vals, t * l->max,
                          load_size(m + l->count_offset + t * sizeof(size_t)));
            else
                json_nested(f, l->type, l->rank, l->dims, vals, 0, &pos);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

/* What the driver loop needs to know of a message kind. */
typedef struct driver_kind {
    size_t size;
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    const fc_message_desc *md;
    const fc_seq_desc *sd;
} driver_kind;

static void print_record(const driver_kind *k, uint64_t n, const void *msg)
{
    printf("{\"record\":%llu,", (unsigned long long)n);
    if (k->md != NULL) {
        fputs("\"features\":", stdout);
        fc_json_features(stdout, k->md, msg);
    } else {
        fputs("\"context\":", stdout);
        fc_json_context(stdout, k->sd, msg);
        fputs(",\"feature_lists\":", stdout);
        fc_json_feature_lists(stdout, k->sd, msg);
    }
    fputs("}\n", stdout);
}

static int usage(const char *prog, const char *what)
{
    fprintf(stderr, "%s: %s\n", prog, what);
    fprintf(stderr,
            "usage: %s [--compression=auto|none|zlib|gzip] [--crc=verify|skip|none] FILE...\n"
            "Prints one JSON object per record (\"-\" reads standard input).\n",
            prog);
    return 64;
}

static int driver_run(int argc, char **argv, const driver_kind *k)
{
    const char *prog = argc > 0 ? argv[0] : "driver";
    fc_input_options opt;
    int i, files = 0, rc = 0, opts_done = 0;
    uint64_t n = 0;
    void *msg;
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    opt.crc_policy = FC_CRC_VERIFY;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || a[0] != '-' || strcmp(a, "-") == 0) {
            files++;
            continue;
        }
        if (strcmp(a, "--") == 0)
            opts_done = 1;
        else if (strncmp(a, "--compression=", 14) == 0) {
            if (fc_input_parse_compression(a + 14, &opt.compression) != 0)
                return usage(prog, "unknown compression");
        } else if (strncmp(a, "--crc=", 6) == 0) {
            if (fc_input_parse_crc(a + 6, &opt.crc_policy) != 0)
                return usage(prog, "unknown CRC policy");
        } else
            return usage(prog, "unknown option");
    }
    if (files == 0)
        return usage(prog, "no input files");
    msg = calloc(1, k->size);
    if (msg == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 2;
    }
    opts_done = 0;
    for (i = 1; i < argc; i++) {
        const char *path = argv[i];
        fc_input in;
        fc_record rec;
        int s;
        if (!opts_done && path[0] == '-' && strcmp(path, "-") != 0) {
            if (strcmp(path, "--") == 0)
                opts_done = 1;
            continue;
        }
        s = fc_input_open(&in, path, &opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            fc_error err;
            fc_error_clear(&err);
            if (k->parse(msg, rec.data, rec.length, &err) == FC_OK) {
                print_record(k, n, msg);
            } else {
                char text[FC_ERROR_MSG_SIZE + 256];
                snprintf(text, sizeof text, "record %llu (offset %llu of %s): %s",
                         (unsigned long long)rec.index, (unsigned long long)rec.offset, path,
                         err.message);
                printf("{\"record\":%llu,\"error\":", (unsigned long long)n);
                fc_json_bytes(stdout, text, strlen(text));
                fputs("}\n", stdout);
                if (rc == 0)
                    rc = 1;
            }
            n++;
        }
        if (s != FC_END) {
            fflush(stdout);
            fprintf(stderr, "%s: %s: %s\n", prog, path, in.err.message);
            rc = 2;
        }
        fc_input_close(&in);
    }
    free(msg);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing standard output\n", prog);
        return 2;
    }
    return rc;
}

int fc_driver_main(int argc, char **argv, const fc_message_desc *md)
{
    driver_kind k;
    k.size = md->size;
    k.parse = md->parse;
    k.md = md;
    k.sd = NULL;
    return driver_run(argc, argv, &k);
}

int fc_driver_seq_main(int argc, char **argv, const fc_seq_desc *sd)
{
    driver_kind k;
    k.size = sd->size;
    k.parse = sd->parse;
    k.md = NULL;
    k.sd = sd;
    return driver_run(argc, argv, &k);
}
