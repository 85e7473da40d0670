/* make bench: nanopb, the fastest way it offers for this job, as an embedded
 * user would write it.  The map entries are callbacks (fc_example.options);
 * each entry is decoded by pb_decode with its key held in the entry and its
 * value a callback.  The value callback looks the key up: an unwanted
 * feature's bytes are skipped unread; a wanted one is decoded with nanopb's
 * stream functions straight into the struct (bytes as views into the record
 * buffer, packed floats with one pb_read). */
#include <stdlib.h>
#include <string.h>

#include <pb_decode.h>

#include "bench.h"
#include "fc_example.pb.h"

typedef struct nb_ctx {
    const bench_lookup *s;
    const bench_msg *b;
    int bad;
} nb_ctx;

static void *nb_prepare(const bench_msg *b)
{
    bench_lookup *s = (bench_lookup *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    bench_lookup_init(s, b);
    return s;
}

static int skip_rest(pb_istream_t *stream)
{
    return pb_read(stream, NULL, stream->bytes_left);
}

/* The values of one list (BytesList, FloatList or Int64List body) into
 * the slot; *n counts them. */
static int read_list(pb_istream_t *stream, int list, const bench_slot *slot, size_t *n)
{
    while (stream->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        if (!pb_decode_tag(stream, &wt, &tag, &eof))
            return 0;
        if (tag != 1) {
            if (!pb_skip_field(stream, wt))
                return 0;
            continue;
        }
        if (list == 1 && wt == PB_WT_STRING) {
            pb_istream_t sub;
            if (!pb_make_string_substream(stream, &sub))
                return 0;
            if (*n < slot->cap) {
                fc_bytes *v = (fc_bytes *)slot->values + *n;
                v->data = (const uint8_t *)sub.state;
                v->size = sub.bytes_left;
            }
            (*n)++;
            if (!skip_rest(&sub) || !pb_close_string_substream(stream, &sub))
                return 0;
        } else if (list == 2 && wt == PB_WT_STRING) {
            pb_istream_t sub;
            size_t k;
            if (!pb_make_string_substream(stream, &sub))
                return 0;
            k = sub.bytes_left / 4;
            if (sub.bytes_left % 4 != 0 || *n + k > slot->cap)
                return 0;
            if (!pb_read(&sub, (pb_byte_t *)((float *)slot->values + *n), k * 4))
                return 0;
            *n += k;
            if (!pb_close_string_substream(stream, &sub))
                return 0;
        } else if (list == 2 && wt == PB_WT_32BIT) {
            if (*n >= slot->cap || !pb_decode_fixed32(stream, (float *)slot->values + *n))
                return 0;
            (*n)++;
        } else if (list == 3 && wt == PB_WT_STRING) {
            pb_istream_t sub;
            if (!pb_make_string_substream(stream, &sub))
                return 0;
            while (sub.bytes_left) {
                uint64_t v;
                if (*n >= slot->cap || !pb_decode_varint(&sub, &v))
                    return 0;
                ((int64_t *)slot->values)[(*n)++] = (int64_t)v;
            }
            if (!pb_close_string_substream(stream, &sub))
                return 0;
        } else if (list == 3 && wt == PB_WT_VARINT) {
            uint64_t v;
            if (*n >= slot->cap || !pb_decode_varint(stream, &v))
                return 0;
            ((int64_t *)slot->values)[(*n)++] = (int64_t)v;
        } else {
            return 0;
        }
    }
    return 1;
}

/* A Feature message into the slot: its one list, of the slot's type. */
static int read_feature(pb_istream_t *stream, const bench_slot *slot)
{
    size_t n = 0;
    while (stream->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        pb_istream_t sub;
        if (!pb_decode_tag(stream, &wt, &tag, &eof))
            return 0;
        if (tag < 1 || tag > 3 || wt != PB_WT_STRING) {
            if (!pb_skip_field(stream, wt))
                return 0;
            continue;
        }
        if ((int)tag != (int)slot->type)
            return 0;
        n = 0;
        if (!pb_make_string_substream(stream, &sub) || !read_list(&sub, (int)tag, slot, &n) ||
            !pb_close_string_substream(stream, &sub))
            return 0;
    }
    return bench_slot_done(slot, n) == 0;
}

static bool feature_value(pb_istream_t *stream, const pb_field_t *field, void **arg)
{
    nb_ctx *c = (nb_ctx *)*arg;
    const fc_pb_FeatureEntry *e = (const fc_pb_FeatureEntry *)field->message;
    int f = bench_keys_find(&c->s->context, e->key.bytes, e->key.size);
    bench_slot slot;
    if (f < 0)
        return skip_rest(stream);
    bench_slot_feature(c->b, (size_t)f, &slot);
    if (!read_feature(stream, &slot)) {
        c->bad = 1;
        return false;
    }
    return true;
}

static bool feature_entry(pb_istream_t *stream, const pb_field_t *field, void **arg)
{
    fc_pb_FeatureEntry e;
    (void)field;
    e.key.size = 0;
    e.value.funcs.decode = feature_value;
    e.value.arg = *arg;
    return pb_decode_noinit(stream, fc_pb_FeatureEntry_fields, &e);
}

typedef struct nb_list_ctx {
    nb_ctx *c;
    size_t list;
    size_t frames;
} nb_list_ctx;

static bool list_value(pb_istream_t *stream, const pb_field_t *field, void **arg)
{
    nb_ctx *c = (nb_ctx *)*arg;
    const fc_pb_FeatureListEntry *e = (const fc_pb_FeatureListEntry *)field->message;
    int l = bench_keys_find(&c->s->lists, e->key.bytes, e->key.size);
    size_t t = 0;
    if (l < 0)
        return skip_rest(stream);
    while (stream->bytes_left) {
        pb_wire_type_t wt;
        uint32_t tag;
        bool eof;
        pb_istream_t sub;
        bench_slot slot;
        if (!pb_decode_tag(stream, &wt, &tag, &eof))
            return false;
        if (tag != 1 || wt != PB_WT_STRING) {
            if (!pb_skip_field(stream, wt))
                return false;
            continue;
        }
        if (bench_slot_frame(c->b, (size_t)l, t, &slot) != 0 ||
            !pb_make_string_substream(stream, &sub) || !read_feature(&sub, &slot) ||
            !pb_close_string_substream(stream, &sub)) {
            c->bad = 1;
            return false;
        }
        t++;
    }
    bench_set_frames(c->b, (size_t)l, t);
    return true;
}

static bool list_entry(pb_istream_t *stream, const pb_field_t *field, void **arg)
{
    fc_pb_FeatureListEntry e;
    (void)field;
    e.key.size = 0;
    e.value.funcs.decode = list_value;
    e.value.arg = *arg;
    return pb_decode_noinit(stream, fc_pb_FeatureListEntry_fields, &e);
}

static int nb_parse(void *state, const bench_msg *b, const uint8_t *data, size_t len,
                    const char **why)
{
    nb_ctx c;
    pb_istream_t stream = pb_istream_from_buffer(data, len);
    bool ok;
    c.s = (const bench_lookup *)state;
    c.b = b;
    c.bad = 0;
    if (b->md) {
        fc_pb_Example ex;
        memset(&ex, 0, sizeof ex);
        ex.features.feature.funcs.decode = feature_entry;
        ex.features.feature.arg = &c;
        ok = pb_decode_noinit(&stream, fc_pb_Example_fields, &ex);
    } else {
        fc_pb_SequenceExample ex;
        memset(&ex, 0, sizeof ex);
        ex.context.feature.funcs.decode = feature_entry;
        ex.context.feature.arg = &c;
        ex.feature_lists.feature_list.funcs.decode = list_entry;
        ex.feature_lists.feature_list.arg = &c;
        ok = pb_decode_noinit(&stream, fc_pb_SequenceExample_fields, &ex);
    }
    if (!ok) {
        *why = c.bad ? "a wanted feature has the wrong type or count" : PB_GET_ERROR(&stream);
        return -1;
    }
    return 0;
}

const bench_peer bench_peer_nanopb = {"nanopb", nb_prepare, nb_parse, free};
