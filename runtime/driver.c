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
static void json_nested(FILE *f, const fc_field_desc *fd, const unsigned char *base,
                        unsigned level, size_t *pos)
{
    size_t i;
    if (level == fd->rank) {
        json_value(f, fd->type, base, (*pos)++);
        return;
    }
    fputc('[', f);
    for (i = 0; i < fd->dims[level]; i++) {
        if (i > 0)
            fputc(',', f);
        json_nested(f, fd, base, level + 1, pos);
    }
    fputc(']', f);
}

void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg)
{
    const unsigned char *m = (const unsigned char *)msg;
    size_t i, k;
    fputc('{', f);
    for (i = 0; i < md->nfields; i++) {
        const fc_field_desc *fd = &md->fields[i];
        const unsigned char *vals = m + fd->value_offset;
        size_t pos = 0, count = 0;
        if (i > 0)
            fputc(',', f);
        fc_json_bytes(f, fd->key, fd->key_len);
        fputc(':', f);
        if (fd->kind != FC_KIND_FIXED)
            memcpy(&count, m + fd->count_offset, sizeof count);
        switch (fd->kind) {
        case FC_KIND_FIXED:
            json_nested(f, fd, vals, 0, &pos);
            break;
        case FC_KIND_VARLEN:
            fputc('[', f);
            for (k = 0; k < count; k++) {
                if (k > 0)
                    fputc(',', f);
                json_value(f, fd->type, vals, k);
            }
            fputc(']', f);
            break;
        default:
            fputc('[', f);
            for (k = 0; k < count; k++) {
                if (k > 0)
                    fputc(',', f);
                json_nested(f, fd, vals, 0, &pos);
            }
            fputc(']', f);
            break;
        }
    }
    fputc('}', f);
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

int fc_driver_main(int argc, char **argv, const fc_message_desc *md)
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
    msg = calloc(1, md->size);
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
            if (md->parse(msg, rec.data, rec.length, &err) == FC_OK) {
                printf("{\"record\":%llu,\"features\":", (unsigned long long)n);
                fc_json_features(stdout, md, msg);
                fputs("}\n", stdout);
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
