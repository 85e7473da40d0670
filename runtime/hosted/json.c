/* JSON of parsed records and batches, as the dump contract prints them
 * (docs/design.md), and the string escapes of JSON and protobuf text format
 * (fc_json.h). */
#include "featc/fc_json.h"

#include <math.h>
#include <string.h>

#include "wire.h"

size_t fc_json_float_chars(char *buf, float v)
{
    size_t n;
    if (v == 0 && signbit(v)) {
        memcpy(buf, "-0.0", 5); /* "-0" reads back as the integer 0 */
        return 4;
    }
    n = fc_float_shortest(buf, v);
    if (isnan(v) || isinf(v)) { /* a string: JSON has no such numbers */
        memmove(buf + 1, buf, n);
        buf[0] = '"';
        buf[n + 1] = '"';
        buf[n + 2] = '\0';
        return n + 2;
    }
    return n;
}

void fc_json_float(FILE *f, float v)
{
    char buf[FC_FLOAT_CHARS + 2];
    fwrite(buf, 1, fc_json_float_chars(buf, v), f);
}

/* The escapes of JSON and of protobuf's text format, one table: per byte,
 * JSON's class in bits 0-1 and the text format's in bits 2-3.  0: as it is;
 * 1: a two-character escape (JSON: \" \\ \b \f \n \r \t; text: \" \' \\ \n
 * \r \t); 2: JSON \u00XX, text octal \ooo (from 0x80, a UTF-8 sequence as
 * it is when the caller asks for text). */
#define ESC_JSON(c) (escapes[c] & 3u)
#define ESC_TEXT(c) (escapes[c] >> 2)
static const unsigned char escapes[256] = {
    10, 10, 10, 10, 10, 10, 10, 10,  9,  5,  5, 10,  9,  5, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
     0,  0,  5,  0,  0,  0,  0,  4,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  5,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0, 10,
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
    10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10};

size_t fc_json_escape(char *out, size_t room, const void *data, size_t n, size_t *used, int utf8)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)data;
    size_t i = 0, o = 0, u;
    while (i < n && o + 6 <= room) { /* the longest escape is 6 characters */
        uint8_t c = p[i];
        if (ESC_JSON(c) == 0) {
            /* a run of bytes as they are */
            size_t j = i + 1, end = n - i < room - o ? n : i + (room - o);
            while (j < end && ESC_JSON(p[j]) == 0)
                j++;
            memcpy(out + o, p + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        if (ESC_JSON(c) == 1) {
            out[o++] = '\\';
            out[o++] = c == '"' ? '"' : c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r'
                     : c == '\t' ? 't' : c == '\b' ? 'b' : 'f';
            i++;
            continue;
        }
        if (utf8 && c >= 0x80 && (u = fc_utf8_seq(p + i, n - i)) > 1) {
            memcpy(out + o, p + i, u);
            o += u;
            i += u;
            continue;
        }
        /* a control, or a byte as U+00XX; or, in text, a byte that is not
         * UTF-8 as a lone low surrogate, as Python's surrogateescape (PEP
         * 383) reads it, so that s.encode("utf-8", "surrogateescape") gives
         * the bytes back */
        memcpy(out + o, utf8 && c >= 0x80 ? "\\udc" : "\\u00", 4);
        out[o + 4] = hex[c >> 4];
        out[o + 5] = hex[c & 15];
        o += 6;
        i++;
    }
    *used = i;
    return o;
}

size_t fc_text_escape(char *out, size_t room, const void *data, size_t n, size_t *used, int utf8)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i = 0, o = 0;
    while (i < n && o + 4 <= room) { /* the longest escape is 4 characters */
        uint8_t c = p[i];
        if (ESC_TEXT(c) == 0 || (utf8 && c >= 0x80)) {
            /* a run of bytes as they are */
            size_t j = i + 1, end = n - i < room - o ? n : i + (room - o);
            while (j < end && (ESC_TEXT(p[j]) == 0 || (utf8 && p[j] >= 0x80)))
                j++;
            memcpy(out + o, p + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        out[o++] = '\\';
        if (ESC_TEXT(c) == 1) {
            out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c;
        } else {
            out[o++] = (char)('0' + (c >> 6));
            out[o++] = (char)('0' + ((c >> 3) & 7));
            out[o++] = (char)('0' + (c & 7));
        }
        i++;
    }
    *used = i;
    return o;
}

void fc_json_string(FILE *f, const void *data, size_t n, int utf8)
{
    const uint8_t *p = (const uint8_t *)data;
    char out[512]; /* written in chunks: one stdio call per 500 bytes or so */
    size_t o = 1, used;
    out[0] = '"';
    for (;;) {
        o += fc_json_escape(out + o, sizeof out - 1 - o, p, n, &used, utf8);
        if (used == n)
            break; /* (p may be NULL when n is 0) */
        p += used;
        n -= used;
        fwrite(out, 1, o, f);
        o = 0;
    }
    out[o++] = '"';
    fwrite(out, 1, o, f);
}

void fc_json_bytes(FILE *f, const void *data, size_t n)
{
    fc_json_string(f, data, n, 0);
}

/* Where the printers write, and how: bytes values as text (FC_JSON_UTF8)
 * or one code point per byte (the dump contract). */
typedef struct json_out {
    FILE *f;
    int utf8;
    int as;      /* a batch column of `as` values: their fc_as, else 0 */
} json_out;

/* The printers' target for the public FC_JSON_* flags. */
static json_out json_to(FILE *f, unsigned flags)
{
    json_out o;
    o.f = f;
    o.utf8 = (flags & FC_JSON_UTF8) != 0;
    o.as = 0;
    return o;
}

/* The float a float16's bits stand for (exactly). */
static float half_float(uint16_t h)
{
    unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    float v = e == 0 ? ldexpf((float)m, -24)
              : e == 31 ? (m != 0 ? NAN : INFINITY)
                        : ldexpf((float)(1024u + m), (int)e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* Element i of a column of `as` values: integers as integers, floats as
 * the JSON numbers of their values (float64 to 17 digits, which read back
 * to the same double). */
static void json_as_value(const json_out *o, const unsigned char *base, size_t i)
{
    FILE *f = o->f;
    const unsigned char *p = base + i * fc_as_size(o->as);
    char buf[FC_INT64_CHARS];
    int64_t v = 0;
    switch (o->as) {
    case FC_AS_INT8: { int8_t x; memcpy(&x, p, 1); v = x; break; }
    case FC_AS_UINT8: v = *p; break;
    case FC_AS_INT16: { int16_t x; memcpy(&x, p, 2); v = x; break; }
    case FC_AS_UINT16: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
    case FC_AS_INT32: { int32_t x; memcpy(&x, p, 4); v = x; break; }
    case FC_AS_INT64: memcpy(&v, p, 8); break;
    case FC_AS_FLOAT16: {
        uint16_t x;
        memcpy(&x, p, 2);
        fc_json_float(f, half_float(x));
        return;
    }
    case FC_AS_FLOAT32: {
        float x;
        memcpy(&x, p, 4);
        fc_json_float(f, x);
        return;
    }
    default: {
        double x;
        memcpy(&x, p, 8);
        if (x != x || x - x != 0.0)
            fc_json_float(f, (float)x); /* nan, inf, -inf as the floats print */
        else
            fprintf(f, "%.17g", x);
        return;
    }
    }
    fwrite(buf, 1, fc_int64_chars(buf, v), f);
}

static void json_value(const json_out *o, fc_type t, const unsigned char *base, size_t i)
{
    FILE *f = o->f;
    if (o->as != 0) {
        json_as_value(o, base, i);
        return;
    }
    if (t == FC_TYPE_INT64) {
        int64_t v;
        char buf[FC_INT64_CHARS];
        memcpy(&v, base + i * sizeof v, sizeof v);
        fwrite(buf, 1, fc_int64_chars(buf, v), f);
    } else if (t == FC_TYPE_FLOAT) {
        float v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_float(f, v);
    } else {
        fc_bytes v;
        memcpy(&v, base + i * sizeof v, sizeof v);
        fc_json_string(f, v.data, v.size, o->utf8);
    }
}

/* Values [*pos, ...) shaped by dims[level..rank). */
static void json_nested(const json_out *o, fc_type t, unsigned rank, const size_t *dims,
                        const unsigned char *base, unsigned level, size_t *pos)
{
    FILE *f = o->f;
    size_t i;
    if (level == rank) {
        json_value(o, t, base, (*pos)++);
        return;
    }
    fputc('[', f);
    for (i = 0; i < dims[level]; i++) {
        if (i > 0)
            fputc(',', f);
        json_nested(o, t, rank, dims, base, level + 1, pos);
    }
    fputc(']', f);
}

/* values [from, from + n) as a flat list */
static void json_flat(const json_out *o, fc_type t, const unsigned char *base, size_t from, size_t n)
{
    FILE *f = o->f;
    size_t k;
    fputc('[', f);
    for (k = 0; k < n; k++) {
        if (k > 0)
            fputc(',', f);
        json_value(o, t, base, from + k);
    }
    fputc(']', f);
}

/* One RaggedFeature's values and splits in a struct: an Example's or a
 * context's, or one frame of a feature list. */
typedef struct ragged_view {
    fc_type type;
    const fc_field_extra *x;
    const unsigned char *values;
    const unsigned char *splits[FC_MAX_RANK];
    size_t top; /* items of the outermost level */
} ragged_view;

/* The view of frame t (0 for a feature) whose values are at values and
 * count at count_at, frame stride max values. */
static void ragged_view_at(ragged_view *v, fc_type type, const fc_field_extra *x,
                           const unsigned char *m, size_t value_offset, size_t max,
                           size_t count, size_t t)
{
    unsigned q;
    v->type = type;
    v->x = x;
    v->values = m + value_offset + t * max * fc_type_size(type);
    for (q = 0; q < x->nparts; q++)
        v->splits[q] = m + x->parts[q].splits_offset +
                       t * (x->parts[q].max_rows + 1u) * (x->split64 ? 8u : 4u);
    v->top = x->nparts > 0 ? fc_load_size(m + x->parts[0].rows_offset + t * sizeof(size_t))
                           : count;
}

static int64_t split_at(const ragged_view *v, unsigned q, size_t k)
{
    if (v->x->split64) {
        int64_t w;
        memcpy(&w, v->splits[q] + k * 8, 8);
        return w;
    } else {
        int32_t w;
        memcpy(&w, v->splits[q] + k * 4, 4);
        return w;
    }
}

/* Items [from, to) of partition level q (the values past the last level)
 * as nested lists: a RaggedFeature as parse_single_example returns it. */
static void json_ragged(const json_out *o, const ragged_view *v, unsigned q, size_t from, size_t to)
{
    FILE *f = o->f;
    size_t k;
    if (q == v->x->nparts) {
        json_flat(o, v->type, v->values, from, to - from);
        return;
    }
    fputc('[', f);
    for (k = from; k < to; k++) {
        if (k > from)
            fputc(',', f);
        json_ragged(o, v, q + 1, (size_t)split_at(v, q, k), (size_t)split_at(v, q, k + 1));
    }
    fputc(']', f);
}

/* {"NAME":VALUE,...} of fields (an Example's features, a SequenceExample's
 * context). */
static void json_fields(const json_out *o, const fc_field_desc *fields, size_t n, const unsigned char *m)
{
    FILE *f = o->f;
    size_t i, k;
    int first = 1;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        const fc_field_desc *fd = &fields[i];
        const unsigned char *vals = m + fd->value_offset;
        size_t pos = 0, count = fd->kind != FC_KIND_FIXED ? fc_load_size(m + fd->count_offset) : 0;
        if (fd->extra->hidden)
            continue; /* read for a SparseFeature, not a feature of the spec */
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, fd->key, fd->key_len, 1);
        fputc(':', f);
        switch (fd->kind) {
        case FC_KIND_RAGGED: {
            ragged_view v;
            ragged_view_at(&v, fd->type, fd->extra, m, fd->value_offset, 0, count, 0);
            json_ragged(o, &v, 0, 0, v.top);
            break;
        }
        case FC_KIND_SPARSE: {
            /* parse_single_example's SparseTensor */
            const int64_t *ix = (const int64_t *)(const void *)(m + fd->extra->indices_offset);
            fputs("{\"indices\":[", f);
            for (k = 0; k < count; k++) {
                unsigned r;
                fputs(k > 0 ? ",[" : "[", f);
                for (r = 0; r < fd->rank; r++)
                    fprintf(f, "%s%lld", r > 0 ? "," : "", (long long)ix[k * fd->rank + r]);
                fputc(']', f);
            }
            fputs("],\"values\":", f);
            json_flat(o, fd->type, vals, 0, count);
            fputs(",\"dense_shape\":[", f);
            for (k = 0; k < fd->rank; k++)
                fprintf(f, "%s%zu", k > 0 ? "," : "", fd->dims[k]);
            fputs("]}", f);
            break;
        }
        case FC_KIND_FIXED:
            json_nested(o, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            break;
        case FC_KIND_VARLEN:
            json_flat(o, fd->type, vals, 0, count);
            break;
        default:
            fputc('[', f);
            for (k = 0; k < count; k++) {
                if (k > 0)
                    fputc(',', f);
                json_nested(o, fd->type, fd->rank, fd->dims, vals, 0, &pos);
            }
            fputc(']', f);
            break;
        }
    }
    fputc('}', f);
}

void fc_json_features_opt(FILE *f, const fc_message_desc *md, const void *msg, unsigned flags)
{
    json_out o = json_to(f, flags);
    json_fields(&o, md->fields, md->nfields, (const unsigned char *)msg);
}

void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg)
{
    fc_json_features_opt(f, md, msg, 0);
}

void fc_json_context_opt(FILE *f, const fc_seq_desc *sd, const void *msg, unsigned flags)
{
    json_out o = json_to(f, flags);
    json_fields(&o, sd->context, sd->ncontext, (const unsigned char *)msg);
}

void fc_json_context(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    fc_json_context_opt(f, sd, msg, 0);
}

void fc_json_feature_lists(FILE *f, const fc_seq_desc *sd, const void *msg)
{
    fc_json_feature_lists_opt(f, sd, msg, 0);
}

void fc_json_feature_lists_opt(FILE *f, const fc_seq_desc *sd, const void *msg, unsigned flags)
{
    const unsigned char *m = (const unsigned char *)msg;
    size_t j, t;
    int first = 1;
    json_out jo = json_to(f, flags);
    const json_out *o = &jo;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        const unsigned char *vals = m + l->value_offset;
        size_t frames = fc_load_size(m + l->frames_offset), pos = 0;
        if (l->extra != NULL && l->extra->hidden)
            continue; /* read for a RaggedFeature, not a feature of the spec */
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, l->key, l->key_len, 1);
        fputs(":[", f);
        for (t = 0; t < frames; t++) {
            if (t > 0)
                fputc(',', f);
            if (l->kind == FC_KIND_RAGGED) {
                ragged_view v;
                ragged_view_at(&v, l->type, l->extra, m, l->value_offset, l->max,
                               fc_load_size(m + l->count_offset + t * sizeof(size_t)), t);
                json_ragged(o, &v, 0, 0, v.top);
            } else if (l->kind == FC_KIND_VARLEN)
                json_flat(o, l->type, vals, t * l->max,
                          fc_load_size(m + l->count_offset + t * sizeof(size_t)));
            else
                json_nested(o, l->type, l->rank, l->dims, vals, 0, &pos);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

/* ------------------------------------------------------------ batches */

static void json_i64s(FILE *f, const int64_t *v, size_t n)
{
    size_t k;
    fputc('[', f);
    for (k = 0; k < n; k++) {
        if (k > 0)
            fputc(',', f);
        fprintf(f, "%lld", (long long)v[k]);
    }
    fputc(']', f);
}

static void json_shape(FILE *f, const fc_column *c)
{
    json_i64s(f, c->shape, c->rank);
}

/* {"shape":[...],"values":[...]} */
static void json_dense(const json_out *o, fc_type t, const fc_column *c)
{
    FILE *f = o->f;
    fputs("{\"shape\":", f);
    json_shape(f, c);
    fputs(",\"values\":", f);
    json_flat(o, t, (const unsigned char *)c->values, 0, c->nvalues);
    fputc('}', f);
}

/* A VarLen column: sparse {"indices","values","dense_shape"} or ragged
 * {"values","row_splits"} (for lists, the splits over frames then over
 * values). */
static void json_varlen(const json_out *o, fc_type t, const fc_column *c, unsigned width, int ragged)
{
    FILE *f = o->f;
    size_t k;
    if (ragged) {
        fputs("{\"values\":", f);
        json_flat(o, t, (const unsigned char *)c->values, 0, c->nvalues);
        fputs(",\"row_splits\":", f);
        if (width == 3) {
            fputc('[', f);
            json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
            fputc(',', f);
            json_i64s(f, c->inner_splits, c->nframes + 1);
            fputc(']', f);
        } else {
            json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
        }
        fputc('}', f);
        return;
    }
    fputs("{\"indices\":[", f);
    for (k = 0; k < c->nindices; k++) {
        if (k > 0)
            fputc(',', f);
        json_i64s(f, c->indices + k * width, width);
    }
    fputs("],\"values\":", f);
    json_flat(o, t, (const unsigned char *)c->values, 0, c->nvalues);
    fputs(",\"dense_shape\":", f);
    json_shape(f, c);
    fputc('}', f);
}

/* A RaggedFeature column: {"values","row_splits"}, the splits a list of
 * split lists (batch first) when it has partitions; for a feature list,
 * always a list: over frames, over each frame's top level, then one per
 * partition. */
static void json_batch_ragged(const json_out *o, fc_type type, const fc_field_extra *x, int list,
                              const fc_column *c)
{
    FILE *f = o->f;
    unsigned q;
    int nested = x->nparts > 0 || list;
    fputs("{\"values\":", f);
    json_flat(o, type, (const unsigned char *)c->values, 0, c->nvalues);
    fputs(",\"row_splits\":", f);
    if (nested)
        fputc('[', f);
    json_i64s(f, c->row_splits, (size_t)c->shape[0] + 1);
    if (list) {
        fputc(',', f);
        json_i64s(f, c->inner_splits, c->nframes + 1);
    }
    for (q = 0; q < x->nparts; q++) {
        fputc(',', f);
        json_i64s(f, c->part_splits[q], c->part_nsplits[q]);
    }
    if (nested)
        fputc(']', f);
    fputc('}', f);
}

static void json_batch_fields(const json_out *o, const fc_field_desc *fields, size_t n,
                              const fc_column *cols, int ragged)
{
    FILE *f = o->f;
    size_t i;
    int first = 1;
    fputc('{', f);
    for (i = 0; i < n; i++) {
        if (fields[i].extra->hidden)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, fields[i].key, fields[i].key_len, 1);
        fputc(':', f);
        {
            json_out typed = *o; /* the column holds the `as` values, if any */
            typed.as = fields[i].extra->as != NULL ? fields[i].extra->as->type : 0;
            if (fields[i].kind == FC_KIND_RAGGED)
                json_batch_ragged(&typed, fields[i].type, fields[i].extra, 0, &cols[i]);
            else if (fields[i].kind == FC_KIND_SPARSE)
                json_varlen(&typed, fields[i].type, &cols[i], fields[i].rank + 1, 0);
            else if (fields[i].kind == FC_KIND_VARLEN)
                json_varlen(&typed, fields[i].type, &cols[i], 2, ragged);
            else
                json_dense(&typed, fields[i].type, &cols[i]);
        }
    }
    fputc('}', f);
}

void fc_json_batch_features(FILE *f, const fc_message_desc *md, const fc_column *cols,
                            unsigned flags)
{
    json_out o = json_to(f, flags);
    json_batch_fields(&o, md->fields, md->nfields, cols, (flags & FC_JSON_RAGGED) != 0);
}

void fc_json_batch_context(FILE *f, const fc_seq_desc *sd, const fc_column *cols, unsigned flags)
{
    json_out o = json_to(f, flags);
    json_batch_fields(&o, sd->context, sd->ncontext, cols, (flags & FC_JSON_RAGGED) != 0);
}

void fc_json_batch_feature_lists(FILE *f, const fc_seq_desc *sd, const fc_column *cols,
                                 unsigned flags)
{
    size_t j;
    int first = 1, ragged = (flags & FC_JSON_RAGGED) != 0;
    json_out jo = json_to(f, flags);
    const json_out *o = &jo;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        if (l->extra != NULL && l->extra->hidden)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, l->key, l->key_len, 1);
        fputc(':', f);
        if (l->kind == FC_KIND_RAGGED) {
            json_batch_ragged(o, l->type, l->extra, 1, &cols[sd->ncontext + j]);
        } else {
            json_out typed = *o; /* the column holds the `as` values, if any */
            typed.as = l->extra != NULL && l->extra->as != NULL ? l->extra->as->type : 0;
            if (l->kind == FC_KIND_VARLEN)
                json_varlen(&typed, l->type, &cols[sd->ncontext + j], 3, ragged);
            else
                json_dense(&typed, l->type, &cols[sd->ncontext + j]);
        }
    }
    fputc('}', f);
}

/* TF's feature_list_lengths: the fixed-frame lists. */
void fc_json_batch_lengths(FILE *f, const fc_seq_desc *sd, const fc_column *cols)
{
    size_t j;
    int first = 1;
    fputc('{', f);
    for (j = 0; j < sd->nlists; j++) {
        const fc_column *c = &cols[sd->ncontext + j];
        if (sd->lists[j].kind != FC_KIND_FIXED)
            continue;
        if (!first)
            fputc(',', f);
        first = 0;
        fc_json_string(f, sd->lists[j].key, sd->lists[j].key_len, 1);
        fputc(':', f);
        json_i64s(f, c->lengths, (size_t)c->shape[0]);
    }
    fputc('}', f);
}
