/* make bench: protobuf-c, as a C user without featc would read a record:
 * unpack the whole message (protobuf-c's default allocator), walk the map
 * entries, find each wanted key in a hash table built once, copy the values
 * into the struct.  protobuf-c copies bytes values out of the record, so the
 * struct's views point into the unpacked message: it is freed when the next
 * record is parsed (or at the end), not before. */
#include <stdlib.h>

#include "bench.h"
#include "fc_example.pb-c.h"

typedef struct pbc_state {
    bench_lookup keys;
    FcPb__Example *example;         /* the last record unpacked */
    FcPb__SequenceExample *sequence;
} pbc_state;

static void pbc_release(pbc_state *s)
{
    if (s->example)
        fc_pb__example__free_unpacked(s->example, NULL);
    if (s->sequence)
        fc_pb__sequence_example__free_unpacked(s->sequence, NULL);
    s->example = NULL;
    s->sequence = NULL;
}

static void pbc_finish(void *state)
{
    pbc_release((pbc_state *)state);
    free(state);
}

static void *pbc_prepare(const bench_msg *b)
{
    pbc_state *s = (pbc_state *)calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    bench_lookup_init(&s->keys, b);
    return s;
}

static int put(const bench_slot *slot, const FcPb__Feature *v)
{
    size_t i;
    switch (v->kind_case) {
    case FC_PB__FEATURE__KIND_INT64_LIST:
        return bench_store(slot, FC_TYPE_INT64, v->int64_list->value, v->int64_list->n_value);
    case FC_PB__FEATURE__KIND_FLOAT_LIST:
        return bench_store(slot, FC_TYPE_FLOAT, v->float_list->value, v->float_list->n_value);
    case FC_PB__FEATURE__KIND_BYTES_LIST:
        if (slot->type != FC_TYPE_BYTES || v->bytes_list->n_value > slot->cap)
            return -1;
        for (i = 0; i < v->bytes_list->n_value; i++) {
            fc_bytes *dst = (fc_bytes *)slot->values + i;
            dst->data = v->bytes_list->value[i].data;
            dst->size = v->bytes_list->value[i].len;
        }
        return bench_slot_done(slot, v->bytes_list->n_value);
    default:
        return -1;
    }
}

static int put_features(const pbc_state *s, const bench_msg *b, const FcPb__Features *fs)
{
    size_t i;
    if (fs == NULL)
        return 0;
    for (i = 0; i < fs->n_feature; i++) {
        const FcPb__FeatureEntry *e = fs->feature[i];
        int f = bench_keys_find(&s->keys.context, e->key.data, e->key.len);
        bench_slot slot;
        if (f < 0 || e->value == NULL)
            continue;
        bench_slot_feature(b, (size_t)f, &slot);
        if (put(&slot, e->value) != 0)
            return -1;
    }
    return 0;
}

static int put_lists(const pbc_state *s, const bench_msg *b, const FcPb__FeatureLists *ls)
{
    size_t i, t;
    if (ls == NULL)
        return 0;
    for (i = 0; i < ls->n_feature_list; i++) {
        const FcPb__FeatureListEntry *e = ls->feature_list[i];
        int l = bench_keys_find(&s->keys.lists, e->key.data, e->key.len);
        size_t frames;
        if (l < 0 || e->value == NULL)
            continue;
        frames = e->value->n_feature;
        for (t = 0; t < frames; t++) {
            bench_slot slot;
            if (bench_slot_frame(b, (size_t)l, t, &slot) != 0 || put(&slot, e->value->feature[t]) != 0)
                return -1;
        }
        bench_set_frames(b, (size_t)l, frames);
    }
    return 0;
}

static int pbc_parse(void *state, const bench_msg *b, const uint8_t *data, size_t len,
                     const char **why)
{
    pbc_state *s = (pbc_state *)state;
    int rc;
    pbc_release(s);
    if (b->md) {
        FcPb__Example *ex = s->example = fc_pb__example__unpack(NULL, len, data);
        if (ex == NULL) {
            *why = "fc_pb__example__unpack failed";
            return -1;
        }
        rc = put_features(s, b, ex->features);
    } else {
        FcPb__SequenceExample *ex = s->sequence = fc_pb__sequence_example__unpack(NULL, len, data);
        if (ex == NULL) {
            *why = "fc_pb__sequence_example__unpack failed";
            return -1;
        }
        rc = put_features(s, b, ex->context);
        if (rc == 0)
            rc = put_lists(s, b, ex->feature_lists);
    }
    if (rc != 0)
        *why = "a wanted feature has the wrong type or count";
    return rc;
}

const bench_peer bench_peer_protobuf_c = {"protobuf-c", pbc_prepare, pbc_parse, pbc_finish};
