/* Text-format and JSON printers for decoded records: see print.h. */
#include "print.h"

#include <stdlib.h>
#include <string.h>

/* Output gathered into a buffer and written in large pieces: one stdio call
 * per 16 KB instead of several per value. */
typedef print_out obuf;

void print_out_init(print_out *o, FILE *f)
{
    o->f = f;
    o->n = 0;
}

void print_out_flush(print_out *o)
{
    if (o->n > 0)
        fwrite(o->b, 1, o->n, o->f);
    o->n = 0;
}

#define ob_flush print_out_flush

/* Room for want more bytes (want <= sizeof o->b). */
static inline char *ob_room(obuf *o, size_t want)
{
    if (o->n + want > sizeof o->b)
        ob_flush(o);
    return o->b + o->n;
}

static void ob_put_slow(obuf *o, const char *s, size_t n)
{
    ob_flush(o);
    if (n > sizeof o->b / 2) {
        fwrite(s, 1, n, o->f);
        return;
    }
    memcpy(o->b, s, n);
    o->n = n;
}

/* Inline: most pieces are short literals, copied without a call. */
static inline void ob_put(obuf *o, const char *s, size_t n)
{
    if (o->n + n <= sizeof o->b) {
        memcpy(o->b + o->n, s, n);
        o->n += n;
        return;
    }
    ob_put_slow(o, s, n);
}

/* A string literal: its length known when compiled. */
#define OB_LIT(o, s) ob_put((o), (s), sizeof(s) - 1)

static void ob_char(obuf *o, char c)
{
    *ob_room(o, 1) = c;
    o->n++;
}

void print_out_put(print_out *o, const void *s, size_t n)
{
    ob_put(o, (const char *)s, n);
}

void print_out_u64(print_out *o, uint64_t v)
{
    char *b = ob_room(o, 24);
    if (v <= (uint64_t)INT64_MAX)
        o->n += fc_int64_chars(b, (int64_t)v);
    else
        o->n += (size_t)snprintf(b, 24, "%llu", (unsigned long long)v);
}

/* A float as protobuf's text format shows it in Python's print(example):
 * the shortest round-trip decimal, with ".0" after an integral value as
 * Python's repr writes it; nan, inf, -inf bare. */
static inline void ob_float(obuf *o, float v)
{
    char *b = ob_room(o, FC_FLOAT_CHARS);
    o->n += fc_float_point_chars(b, v);
}

/* A text-format string literal (fc_text_escape), gathered into ob. */
static void text_literal(obuf *ob, const uint8_t *p, size_t n, int utf8)
{
    size_t used;
    ob_char(ob, '"');
    for (;;) {
        char *b = ob_room(ob, 64);
        ob->n += fc_text_escape(b, sizeof ob->b - ob->n, p, n, &used, utf8);
        if (used == n)
            break; /* (p may be NULL when n is 0) */
        p += used;
        n -= used;
    }
    ob_char(ob, '"');
}

/* An int64 in decimal, as %lld prints it. */
static inline void ob_int64(obuf *o, int64_t v)
{
    o->n += fc_int64_chars(ob_room(o, FC_INT64_CHARS), v);
}

void print_text_bytes(FILE *f, const uint8_t *p, size_t n)
{
    obuf o;
    print_out_init(&o, f);
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
        ob_put(o, note, strlen(note));
    }
}

void print_text_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po)
{
    obuf o;
    print_out_init(&o, f);
    text_value(&o, p, n, po);
    ob_flush(&o);
}

/* A JSON string as fc_json_string writes it, gathered into o. */
static void json_string(obuf *o, const uint8_t *p, size_t n, int utf8)
{
    size_t used;
    ob_char(o, '"');
    for (;;) {
        char *b = ob_room(o, 64);
        o->n += fc_json_escape(b, sizeof o->b - o->n, p, n, &used, utf8);
        if (used == n)
            break; /* (p may be NULL when n is 0) */
        p += used;
        n -= used;
    }
    ob_char(o, '"');
}

void print_out_json_string(print_out *o, const void *p, size_t n, int utf8)
{
    json_string(o, (const uint8_t *)p, n, utf8);
}

size_t print_base64_chars(char *out, const uint8_t *p, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i, k = 0;
    for (i = 0; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[k++] = b64[v >> 18];
        out[k++] = b64[(v >> 12) & 63];
        out[k++] = b64[(v >> 6) & 63];
        out[k++] = b64[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0u);
        out[k++] = b64[v >> 18];
        out[k++] = b64[(v >> 12) & 63];
        out[k++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        out[k++] = '=';
    }
    return k;
}

/* "BASE64", in pieces of 3 KB (4 KB of text) through o. */
static void json_base64(obuf *o, const uint8_t *p, size_t n)
{
    ob_char(o, '"');
    while (n > 0) {
        size_t k = n < 3072 ? n : 3072;
        o->n += print_base64_chars(ob_room(o, 4096), p, k);
        p += k;
        n -= k;
    }
    ob_char(o, '"');
}

/* show bytes of a value as po's JSON form (print_opts' json_bytes); utf8:
 * the whole value is well-formed UTF-8 shown as text (print_value_shown) */
static void json_form(obuf *o, const uint8_t *p, size_t show, int utf8, const print_opts *po)
{
    if (po->json_bytes == PRINT_JSON_BASE64) {
        json_base64(o, p, show);
    } else if (po->json_bytes == PRINT_JSON_LATIN1 || utf8) {
        json_string(o, p, show, utf8);
    } else {
        OB_LIT(o, "{\"base64\":");
        json_base64(o, p, show);
        ob_char(o, '}');
    }
}

/* A bytes value under po in JSON, in po's form; shortened,
 * {"shortened":FORM,"bytes":L}, a UTF-8 value cut between characters. */
static void json_value(obuf *o, const uint8_t *p, size_t n, const print_opts *po)
{
    int utf8;
    print_opts shown = *po;
    size_t show;
    if (po->json_bytes == PRINT_JSON_TEXT)
        shown.utf8 = 1; /* cut a UTF-8 value between characters */
    else if (po->json_bytes == PRINT_JSON_BASE64)
        shown.utf8 = 0;
    show = print_value_shown(p, n, &shown, &utf8);
    if (show == n) {
        json_form(o, p, n, utf8, po);
        return;
    }
    OB_LIT(o, "{\"shortened\":");
    json_form(o, p, show, utf8, po);
    OB_LIT(o, ",\"bytes\":");
    ob_int64(o, (int64_t)n);
    ob_char(o, '}');
}

/* depth levels of indentation (at most 8), then what (a literal of at
 * most 16 bytes): one copy of a fixed 32 bytes, of which the line's are
 * kept. */
#define OB_INDENTED(o, depth, what)                                                               \
    do {                                                                                          \
        static const char line_[] = "                " what "                                ";   \
        size_t w_ = 2 * (size_t)(depth) < 16 ? 2 * (size_t)(depth) : 16;                          \
        char *b_ = ob_room((o), 32);                                                              \
        memcpy(b_, line_ + 16 - w_, 32);                                                          \
        (o)->n += w_ + sizeof(what) - 1;                                                          \
    } while (0)

static void text_feature(obuf *o, const fc_fb_value *v, int depth, const print_opts *po)
{
    size_t i;
    switch (v->kind) {
    case FC_FB_BYTES:
        OB_INDENTED(o, depth, "bytes_list {\n");
        for (i = 0; i < v->n; i++) {
            OB_INDENTED(o, depth + 1, "value: ");
            text_value(o, v->bytes[i].data, v->bytes[i].len, po);
            ob_char(o, '\n');
        }
        OB_INDENTED(o, depth, "}\n");
        break;
    case FC_FB_FLOAT:
        OB_INDENTED(o, depth, "float_list {\n");
        for (i = 0; i < v->n; i++) {
            /* "value: X\n", its room taken once */
            (void)ob_room(o, 32 + FC_FLOAT_CHARS + 3);
            OB_INDENTED(o, depth + 1, "value: ");
            ob_float(o, v->floats[i]);
            o->b[o->n++] = '\n';
        }
        OB_INDENTED(o, depth, "}\n");
        break;
    case FC_FB_INT64:
        OB_INDENTED(o, depth, "int64_list {\n");
        for (i = 0; i < v->n; i++) {
            (void)ob_room(o, 32 + FC_INT64_CHARS + 1);
            OB_INDENTED(o, depth + 1, "value: ");
            ob_int64(o, v->int64s[i]);
            o->b[o->n++] = '\n';
        }
        OB_INDENTED(o, depth, "}\n");
        break;
    default:
        break; /* Feature{}: an empty value block */
    }
}

static void text_features(obuf *o, const char *name, const fc_fb_feature *v, size_t n,
                          const print_opts *po)
{
    size_t i;
    ob_put(o, name, strlen(name));
    OB_LIT(o, " {\n");
    for (i = 0; i < n; i++) {
        OB_LIT(o, "  feature {\n    key: ");
        text_literal(o, v[i].key, v[i].key_len, 0);
        OB_LIT(o, "\n    value {\n");
        text_feature(o, v[i].value, 3, po);
        OB_LIT(o, "    }\n  }\n");
    }
    OB_LIT(o, "}\n");
}

void print_fallback_text_to(print_out *out, const fc_fallback *fb, const print_opts *po)
{
    size_t i, j;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        if (fb->has_features)
            text_features(out, "features", fb->features, fb->n_features, po);
        return;
    }
    if (fb->has_features)
        text_features(out, "context", fb->features, fb->n_features, po);
    if (fb->has_feature_lists) {
        OB_LIT(out, "feature_lists {\n");
        for (i = 0; i < fb->n_feature_lists; i++) {
            const fc_fb_feature_list *l = &fb->feature_lists[i];
            OB_LIT(out, "  feature_list {\n    key: ");
            text_literal(out, fb->feature_lists[i].key, fb->feature_lists[i].key_len, 0);
            OB_LIT(out, "\n    value {\n");
            for (j = 0; j < l->n_frames; j++) {
                OB_LIT(out, "      feature {\n");
                text_feature(out, &l->frames[j], 4, po);
                OB_LIT(out, "      }\n");
            }
            OB_LIT(out, "    }\n  }\n");
        }
        OB_LIT(out, "}\n");
    }
}

static void json_feature(obuf *o, const fc_fb_value *v, const print_opts *po)
{
    size_t i;
    switch (v->kind) {
    case FC_FB_BYTES:
        OB_LIT(o, "{\"bytes_list\":[");
        for (i = 0; i < v->n; i++) {
            if (i > 0)
                ob_char(o, ',');
            json_value(o, v->bytes[i].data, v->bytes[i].len, po);
        }
        OB_LIT(o, "]}");
        break;
    case FC_FB_FLOAT:
        OB_LIT(o, "{\"float_list\":[");
        for (i = 0; i < v->n; i++) {
            char *b = ob_room(o, FC_FLOAT_CHARS + 3);
            size_t k = 0;
            if (i > 0)
                b[k++] = ',';
            o->n += k + fc_json_float_chars(b + k, v->floats[i]);
        }
        OB_LIT(o, "]}");
        break;
    case FC_FB_INT64:
        OB_LIT(o, "{\"int64_list\":[");
        for (i = 0; i < v->n; i++) {
            if (i > 0)
                ob_char(o, ',');
            ob_int64(o, v->int64s[i]);
        }
        OB_LIT(o, "]}");
        break;
    default:
        OB_LIT(o, "{}");
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

void print_fallback_json_to(print_out *out, const fc_fallback *fb, const print_opts *po)
{
    size_t i, j;
    if (fb->kind == FC_PAYLOAD_EXAMPLE) {
        OB_LIT(out, "\"type\":\"Example\",\"features\":");
        json_features(out, fb->features, fb->n_features, po);
        return;
    }
    OB_LIT(out, "\"type\":\"SequenceExample\",\"context\":");
    json_features(out, fb->features, fb->n_features, po);
    OB_LIT(out, ",\"feature_lists\":{");
    for (i = 0; i < fb->n_feature_lists; i++) {
        const fc_fb_feature_list *l = &fb->feature_lists[i];
        if (i > 0)
            ob_char(out, ',');
        json_string(out, fb->feature_lists[i].key, fb->feature_lists[i].key_len, 1);
        OB_LIT(out, ":[");
        for (j = 0; j < l->n_frames; j++) {
            if (j > 0)
                ob_char(out, ',');
            json_feature(out, &l->frames[j], po);
        }
        ob_char(out, ']');
    }
    ob_char(out, '}');
}
