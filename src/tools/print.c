/* Text-format and JSON printers for decoded records: see print.h. */
#include "print.h"

#include <stdlib.h>
#include <string.h>

void print_float(FILE *f, float v)
{
    char buf[FC_FLOAT_CHARS];
    size_t n = fc_float_shortest(buf, v);
    fwrite(buf, 1, n, f);
    if (strpbrk(buf, ".en") == NULL) /* not "inf", "nan" or already a float */
        fputs(".0", f);
}

/* A text-format string literal: C escapes for quotes, backslash and
 * controls; other bytes over 0x7e in octal, or as they are when utf8 (the
 * bytes are well-formed UTF-8). */
static void text_literal(FILE *f, const uint8_t *p, size_t n, int utf8)
{
    size_t i;
    fputc('"', f);
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        switch (c) {
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '"': fputs("\\\"", f); break;
        case '\'': fputs("\\'", f); break;
        case '\\': fputs("\\\\", f); break;
        default:
            if ((c >= 0x20 && c < 0x7f) || (utf8 && c >= 0x80))
                fputc(c, f);
            else
                fprintf(f, "\\%03o", (unsigned)c);
        }
    }
    fputc('"', f);
}

void print_text_bytes(FILE *f, const uint8_t *p, size_t n)
{
    text_literal(f, p, n, 0);
}

size_t print_value_shown(const uint8_t *p, size_t n, const print_opts *po, int *utf8)
{
    size_t show = po->max_bytes != 0 && n > po->max_bytes ? po->max_bytes : n;
    *utf8 = po->utf8 && fc_utf8_valid(p, n);
    if (*utf8)
        while (show < n && show > 0 && (p[show] & 0xc0) == 0x80)
            show--; /* not inside a character */
    return show;
}

void print_text_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po)
{
    int utf8;
    size_t show = print_value_shown(p, n, po, &utf8);
    text_literal(f, p, show, utf8);
    if (show < n)
        fprintf(f, "  # shortened: first %zu of %zu bytes", show, n);
}

void print_json_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po)
{
    int utf8;
    size_t show = print_value_shown(p, n, po, &utf8);
    if (show == n) {
        fc_json_string(f, p, n, utf8);
        return;
    }
    fputs("{\"shortened\":", f);
    fc_json_string(f, p, show, utf8);
    fprintf(f, ",\"bytes\":%zu}", n);
}

static void indent(FILE *f, int depth)
{
    int i;
    for (i = 0; i < depth; i++)
        fputs("  ", f);
}

static void text_feature(FILE *f, const FcPb__Feature *v, int depth, const print_opts *po)
{
    size_t i;
    switch (v->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST:
        indent(f, depth);
        fputs("bytes_list {\n", f);
        for (i = 0; i < v->bytes_list->n_value; i++) {
            indent(f, depth + 1);
            fputs("value: ", f);
            print_text_value(f, v->bytes_list->value[i].data, v->bytes_list->value[i].len, po);
            fputc('\n', f);
        }
        indent(f, depth);
        fputs("}\n", f);
        break;
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        indent(f, depth);
        fputs("float_list {\n", f);
        for (i = 0; i < v->float_list->n_value; i++) {
            indent(f, depth + 1);
            fputs("value: ", f);
            print_float(f, v->float_list->value[i]);
            fputc('\n', f);
        }
        indent(f, depth);
        fputs("}\n", f);
        break;
    case FC_PB__FEATURE__KIND_INT64_LIST:
        indent(f, depth);
        fputs("int64_list {\n", f);
        for (i = 0; i < v->int64_list->n_value; i++) {
            indent(f, depth + 1);
            fprintf(f, "value: %lld\n", (long long)v->int64_list->value[i]);
        }
        indent(f, depth);
        fputs("}\n", f);
        break;
    default:
        break; /* Feature{}: an empty value block */
    }
}

static void text_features(FILE *f, const char *name, const fc_fb_feature *v, size_t n,
                          const print_opts *po)
{
    size_t i;
    fprintf(f, "%s {\n", name);
    for (i = 0; i < n; i++) {
        fputs("  feature {\n    key: ", f);
        print_text_bytes(f, v[i].key, v[i].key_len);
        fputs("\n    value {\n", f);
        text_feature(f, v[i].value, 3, po);
        fputs("    }\n  }\n", f);
    }
    fputs("}\n", f);
}

void print_fallback_text(FILE *f, const fc_fallback *fb, const print_opts *po)
{
    size_t i, j;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        if (fb->example->features != NULL)
            text_features(f, "features", fb->features, fb->n_features, po);
        return;
    }
    if (fb->sequence->context != NULL)
        text_features(f, "context", fb->features, fb->n_features, po);
    if (fb->sequence->feature_lists == NULL)
        return;
    fputs("feature_lists {\n", f);
    for (i = 0; i < fb->n_feature_lists; i++) {
        const FcPb__FeatureList *l = fb->feature_lists[i].value;
        fputs("  feature_list {\n    key: ", f);
        print_text_bytes(f, fb->feature_lists[i].key, fb->feature_lists[i].key_len);
        fputs("\n    value {\n", f);
        for (j = 0; j < l->n_feature; j++) {
            fputs("      feature {\n", f);
            text_feature(f, l->feature[j], 4, po);
            fputs("      }\n", f);
        }
        fputs("    }\n  }\n", f);
    }
    fputs("}\n", f);
}

static void json_feature(FILE *f, const FcPb__Feature *v, const print_opts *po)
{
    size_t i;
    switch (v->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST:
        fputs("{\"bytes_list\":[", f);
        for (i = 0; i < v->bytes_list->n_value; i++) {
            if (i > 0)
                fputc(',', f);
            print_json_value(f, v->bytes_list->value[i].data, v->bytes_list->value[i].len, po);
        }
        fputs("]}", f);
        break;
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        fputs("{\"float_list\":[", f);
        for (i = 0; i < v->float_list->n_value; i++) {
            if (i > 0)
                fputc(',', f);
            fc_json_float(f, v->float_list->value[i]);
        }
        fputs("]}", f);
        break;
    case FC_PB__FEATURE__KIND_INT64_LIST:
        fputs("{\"int64_list\":[", f);
        for (i = 0; i < v->int64_list->n_value; i++)
            fprintf(f, i > 0 ? ",%lld" : "%lld", (long long)v->int64_list->value[i]);
        fputs("]}", f);
        break;
    default:
        fputs("{}", f);
        break;
    }
}

static void json_features(FILE *f, const fc_fb_feature *v, size_t n, const print_opts *po)
{
    size_t i;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        if (i > 0)
            fputc(',', f);
        fc_json_string(f, v[i].key, v[i].key_len, 1);
        fputc(':', f);
        json_feature(f, v[i].value, po);
    }
    fputc('}', f);
}

void print_fallback_json(FILE *f, const fc_fallback *fb, const print_opts *po)
{
    size_t i, j;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        fputs("\"type\":\"Example\",\"features\":", f);
        json_features(f, fb->features, fb->n_features, po);
        return;
    }
    fputs("\"type\":\"SequenceExample\",\"context\":", f);
    json_features(f, fb->features, fb->n_features, po);
    fputs(",\"feature_lists\":{", f);
    for (i = 0; i < fb->n_feature_lists; i++) {
        const FcPb__FeatureList *l = fb->feature_lists[i].value;
        if (i > 0)
            fputc(',', f);
        fc_json_string(f, fb->feature_lists[i].key, fb->feature_lists[i].key_len, 1);
        fputs(":[", f);
        for (j = 0; j < l->n_feature; j++) {
            if (j > 0)
                fputc(',', f);
            json_feature(f, l->feature[j], po);
        }
        fputc(']', f);
    }
    fputc('}', f);
}
