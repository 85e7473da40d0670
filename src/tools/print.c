/* Text-format and JSON printers for decoded records: see print.h. */
#include "print.h"

#include <stdlib.h>
#include <string.h>

/* Output gathered into a buffer and written in large pieces: one stdio call
 * per few kilobytes instead of several per value. */
typedef struct obuf {
    FILE *f;
    size_t n;
    char b[8192];
} obuf;

static void ob_flush(obuf *o)
{
    if (o->n > 0)
        fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

/* Room for want more bytes (want <= sizeof o->b). */
static char *ob_room(obuf *o, size_t want)
{
    if (o->n + want > sizeof o->b)
        ob_flush(o);
    return o->b + o->n;
}

static void ob_put(obuf *o, const char *s, size_t n)
{
    if (n > sizeof o->b / 2) {
        ob_flush(o);
        fwrite(s, 1, n, o->f);
        return;
    }
    memcpy(ob_room(o, n), s, n);
    o->n += n;
}

static void ob_str(obuf *o, const char *s)
{
    ob_put(o, s, strlen(s));
}

static void ob_char(obuf *o, char c)
{
    *ob_room(o, 1) = c;
    o->n++;
}

/* A float as the text format shows it (print_float) into o. */
static void ob_float(obuf *o, float v)
{
    char *b = ob_room(o, FC_FLOAT_CHARS + 2);
    size_t n = fc_float_shortest(b, v);
    if (strpbrk(b, ".en") == NULL) { /* not "inf", "nan" or already a float */
        b[n++] = '.';
        b[n++] = '0';
    }
    o->n += n;
}

void print_float(FILE *f, float v)
{
    obuf o;
    o.f = f;
    o.n = 0;
    ob_float(&o, v);
    ob_flush(&o);
}

/* A text-format string literal: C escapes for quotes, backslash and
 * controls; other bytes over 0x7e in octal, or as they are when utf8 (the
 * bytes are well-formed UTF-8).  Built in chunks: one stdio call per 500
 * bytes or so. */
static void text_literal(obuf *ob, const uint8_t *p, size_t n, int utf8)
{
    size_t i;
    ob_char(ob, '"');
    for (i = 0; i < n; i++) {
        uint8_t c = p[i];
        char *out = ob_room(ob, 4);
        size_t o = 0;
        switch (c) {
        case '\n': out[o++] = '\\'; out[o++] = 'n'; break;
        case '\r': out[o++] = '\\'; out[o++] = 'r'; break;
        case '\t': out[o++] = '\\'; out[o++] = 't'; break;
        case '"': out[o++] = '\\'; out[o++] = '"'; break;
        case '\'': out[o++] = '\\'; out[o++] = '\''; break;
        case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
        default:
            if ((c >= 0x20 && c < 0x7f) || (utf8 && c >= 0x80)) {
                out[o++] = (char)c;
            } else {
                out[o++] = '\\';
                out[o++] = (char)('0' + (c >> 6));
                out[o++] = (char)('0' + ((c >> 3) & 7));
                out[o++] = (char)('0' + (c & 7));
            }
        }
        ob->n += o;
    }
    ob_char(ob, '"');
}

/* An int64 in decimal, as %lld prints it. */
static void ob_int64(obuf *o, int64_t v)
{
    char digits[24];
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t d = 0;
    (void)ob_room(o, 24);
    do {
        digits[d++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        o->b[o->n++] = '-';
    while (d > 0)
        o->b[o->n++] = digits[--d];
}

void print_text_bytes(FILE *f, const uint8_t *p, size_t n)
{
    obuf o;
    o.f = f;
    o.n = 0;
    text_literal(&o, p, n, 0);
    ob_flush(&o);
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

static void text_value(obuf *o, const uint8_t *p, size_t n, const print_opts *po)
{
    int utf8;
    size_t show = print_value_shown(p, n, po, &utf8);
    text_literal(o, p, show, utf8);
    if (show < n) {
        char note[96];
        snprintf(note, sizeof note, "  # shortened: first %zu of %zu bytes", show, n);
        ob_str(o, note);
    }
}

void print_text_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po)
{
    obuf o;
    o.f = f;
    o.n = 0;
    text_value(&o, p, n, po);
    ob_flush(&o);
}

/* A JSON string: fc_json_string's, written straight to the stream. */
static void json_string(obuf *o, const uint8_t *p, size_t n, int utf8)
{
    ob_flush(o);
    fc_json_string(o->f, p, n, utf8);
}

static void json_value(obuf *o, const uint8_t *p, size_t n, const print_opts *po)
{
    int utf8;
    size_t show = print_value_shown(p, n, po, &utf8);
    if (show == n) {
        json_string(o, p, n, utf8);
        return;
    }
    ob_str(o, "{\"shortened\":");
    json_string(o, p, show, utf8);
    ob_str(o, ",\"bytes\":");
    ob_int64(o, (int64_t)n);
    ob_char(o, '}');
}

void print_json_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po)
{
    obuf o;
    o.f = f;
    o.n = 0;
    json_value(&o, p, n, po);
    ob_flush(&o);
}

static void indent(obuf *o, int depth)
{
    static const char spaces[] = "                ";
    size_t n = (size_t)depth * 2;
    ob_put(o, spaces, n < sizeof spaces - 1 ? n : sizeof spaces - 1);
}

static void text_feature(obuf *o, const FcPb__Feature *v, int depth, const print_opts *po)
{
    size_t i;
    switch (v->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST:
        indent(o, depth);
        ob_str(o, "bytes_list {\n");
        for (i = 0; i < v->bytes_list->n_value; i++) {
            indent(o, depth + 1);
            ob_str(o, "value: ");
            text_value(o, v->bytes_list->value[i].data, v->bytes_list->value[i].len, po);
            ob_char(o, '\n');
        }
        indent(o, depth);
        ob_str(o, "}\n");
        break;
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        indent(o, depth);
        ob_str(o, "float_list {\n");
        for (i = 0; i < v->float_list->n_value; i++) {
            indent(o, depth + 1);
            ob_str(o, "value: ");
            ob_float(o, v->float_list->value[i]);
            ob_char(o, '\n');
        }
        indent(o, depth);
        ob_str(o, "}\n");
        break;
    case FC_PB__FEATURE__KIND_INT64_LIST:
        indent(o, depth);
        ob_str(o, "int64_list {\n");
        for (i = 0; i < v->int64_list->n_value; i++) {
            indent(o, depth + 1);
            ob_str(o, "value: ");
            ob_int64(o, v->int64_list->value[i]);
            ob_char(o, '\n');
        }
        indent(o, depth);
        ob_str(o, "}\n");
        break;
    default:
        break; /* Feature{}: an empty value block */
    }
}

static void text_features(obuf *o, const char *name, const fc_fb_feature *v, size_t n,
                          const print_opts *po)
{
    size_t i;
    ob_str(o, name);
    ob_str(o, " {\n");
    for (i = 0; i < n; i++) {
        ob_str(o, "  feature {\n    key: ");
        text_literal(o, v[i].key, v[i].key_len, 0);
        ob_str(o, "\n    value {\n");
        text_feature(o, v[i].value, 3, po);
        ob_str(o, "    }\n  }\n");
    }
    ob_str(o, "}\n");
}

void print_fallback_text(FILE *f, const fc_fallback *fb, const print_opts *po)
{
    obuf o;
    size_t i, j;
    o.f = f;
    o.n = 0;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        if (fb->example->features != NULL)
            text_features(&o, "features", fb->features, fb->n_features, po);
        ob_flush(&o);
        return;
    }
    if (fb->sequence->context != NULL)
        text_features(&o, "context", fb->features, fb->n_features, po);
    if (fb->sequence->feature_lists != NULL) {
        ob_str(&o, "feature_lists {\n");
        for (i = 0; i < fb->n_feature_lists; i++) {
            const FcPb__FeatureList *l = fb->feature_lists[i].value;
            ob_str(&o, "  feature_list {\n    key: ");
            text_literal(&o, fb->feature_lists[i].key, fb->feature_lists[i].key_len, 0);
            ob_str(&o, "\n    value {\n");
            for (j = 0; j < l->n_feature; j++) {
                ob_str(&o, "      feature {\n");
                text_feature(&o, l->feature[j], 4, po);
                ob_str(&o, "      }\n");
            }
            ob_str(&o, "    }\n  }\n");
        }
        ob_str(&o, "}\n");
    }
    ob_flush(&o);
}

static void json_feature(obuf *o, const FcPb__Feature *v, const print_opts *po)
{
    size_t i;
    switch (v->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST:
        ob_str(o, "{\"bytes_list\":[");
        for (i = 0; i < v->bytes_list->n_value; i++) {
            if (i > 0)
                ob_char(o, ',');
            json_value(o, v->bytes_list->value[i].data, v->bytes_list->value[i].len, po);
        }
        ob_str(o, "]}");
        break;
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        ob_str(o, "{\"float_list\":[");
        for (i = 0; i < v->float_list->n_value; i++) {
            char *b = ob_room(o, FC_FLOAT_CHARS + 3);
            size_t k = 0;
            if (i > 0)
                b[k++] = ',';
            o->n += k + fc_json_float_chars(b + k, v->float_list->value[i]);
        }
        ob_str(o, "]}");
        break;
    case FC_PB__FEATURE__KIND_INT64_LIST:
        ob_str(o, "{\"int64_list\":[");
        for (i = 0; i < v->int64_list->n_value; i++) {
            if (i > 0)
                ob_char(o, ',');
            ob_int64(o, v->int64_list->value[i]);
        }
        ob_str(o, "]}");
        break;
    default:
        ob_str(o, "{}");
        break;
    }
}

static void json_features(obuf *o, const fc_fb_feature *v, size_t n, const print_opts *po)
{
    size_t i;
    ob_char(o, '{');
    for (i = 0; i < n; i++) {
        if (i > 0)
            ob_char(o, ',');
        json_string(o, v[i].key, v[i].key_len, 1);
        ob_char(o, ':');
        json_feature(o, v[i].value, po);
    }
    ob_char(o, '}');
}

void print_fallback_json(FILE *f, const fc_fallback *fb, const print_opts *po)
{
    obuf o;
    size_t i, j;
    o.f = f;
    o.n = 0;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        ob_str(&o, "\"type\":\"Example\",\"features\":");
        json_features(&o, fb->features, fb->n_features, po);
        ob_flush(&o);
        return;
    }
    ob_str(&o, "\"type\":\"SequenceExample\",\"context\":");
    json_features(&o, fb->features, fb->n_features, po);
    ob_str(&o, ",\"feature_lists\":{");
    for (i = 0; i < fb->n_feature_lists; i++) {
        const FcPb__FeatureList *l = fb->feature_lists[i].value;
        if (i > 0)
            ob_char(&o, ',');
        json_string(&o, fb->feature_lists[i].key, fb->feature_lists[i].key_len, 1);
        ob_str(&o, ":[");
        for (j = 0; j < l->n_feature; j++) {
            if (j > 0)
                ob_char(&o, ',');
            json_feature(&o, l->feature[j], po);
        }
        ob_char(&o, ']');
    }
    ob_char(&o, '}');
    ob_flush(&o);
}
