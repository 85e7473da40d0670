/* make bench: slots, key tables and the checksum the contenders share. */
#include <string.h>

#include "bench.h"
#include "wire.h" /* fc_type_size, fc_load_size: struct access shared with the runtime */

static const fc_field_desc *feature_desc(const bench_msg *b, size_t f)
{
    return b->md ? &b->md->fields[f] : &b->sd->context[f];
}

void bench_slot_feature(const bench_msg *b, size_t f, bench_slot *s)
{
    const fc_field_desc *fd = feature_desc(b, f);
    char *m = (char *)b->out;
    s->type = fd->type;
    s->values = m + fd->value_offset;
    if (fd->kind == FC_KIND_VARLEN) {
        s->cap = fd->max;
        s->exact = 0;
        s->count = (size_t *)(void *)(m + fd->count_offset);
    } else {
        s->cap = s->exact = fd->elems;
        s->count = NULL;
    }
}

int bench_slot_frame(const bench_msg *b, size_t l, size_t t, bench_slot *s)
{
    const fc_list_desc *ld = &b->sd->lists[l];
    char *m = (char *)b->out;
    if (t >= ld->max_frames)
        return -1;
    s->type = ld->type;
    if (ld->kind == FC_KIND_VARLEN) {
        s->values = m + ld->value_offset + t * ld->max * fc_type_size(ld->type);
        s->cap = ld->max;
        s->exact = 0;
        s->count = (size_t *)(void *)(m + ld->count_offset) + t;
    } else {
        s->values = m + ld->value_offset + t * ld->elems * fc_type_size(ld->type);
        s->cap = s->exact = ld->elems;
        s->count = NULL;
    }
    return 0;
}

int bench_slot_done(const bench_slot *s, size_t n)
{
    if (n > s->cap || (s->count == NULL && n != s->exact))
        return -1;
    if (s->count)
        *s->count = n;
    return 0;
}

void bench_set_frames(const bench_msg *b, size_t l, size_t frames)
{
    memcpy((char *)b->out + b->sd->lists[l].frames_offset, &frames, sizeof frames);
}

int bench_store(const bench_slot *s, fc_type t, const void *values, size_t n)
{
    if (t != s->type || n > s->cap)
        return -1;
    memcpy(s->values, values, n * fc_type_size(t));
    return bench_slot_done(s, n);
}

static uint32_t key_hash(const void *key, size_t len)
{
    const unsigned char *p = (const unsigned char *)key;
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

void bench_keys_init(bench_keys *k, const bench_msg *b, int lists)
{
    size_t i, n = lists ? b->sd->nlists : b->md ? b->md->nfields : b->sd->ncontext;
    memset(k, 0, sizeof *k);
    for (i = 0; i < n; i++) {
        const char *key = lists ? b->sd->lists[i].key : feature_desc(b, i)->key;
        size_t len = lists ? b->sd->lists[i].key_len : feature_desc(b, i)->key_len;
        uint32_t h = key_hash(key, len) & 511u;
        while (k->key[h] != NULL)
            h = (h + 1) & 511u;
        k->key[h] = key;
        k->len[h] = len;
        k->index[h] = (int)i;
    }
}

void bench_lookup_init(bench_lookup *l, const bench_msg *b)
{
    bench_keys_init(&l->context, b, 0);
    if (b->sd)
        bench_keys_init(&l->lists, b, 1);
}

int bench_keys_find(const bench_keys *k, const void *key, size_t len)
{
    uint32_t h = key_hash(key, len) & 511u;
    while (k->key[h] != NULL) {
        if (k->len[h] == len && memcmp(k->key[h], key, len) == 0)
            return k->index[h];
        h = (h + 1) & 511u;
    }
    return -1;
}

uint64_t bench_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdu;
}

static uint64_t sum_values(uint64_t h, fc_type t, const void *values, size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++) {
        if (t == FC_TYPE_INT64) {
            h = bench_mix(h, (uint64_t)((const int64_t *)values)[i]);
        } else if (t == FC_TYPE_FLOAT) {
            uint32_t u;
            memcpy(&u, (const float *)values + i, 4);
            h = bench_mix(h, u);
        } else {
            const fc_bytes *v = (const fc_bytes *)values + i;
            h = bench_mix(h, v->size);
            for (j = 0; j < v->size; j++)
                h = h * 31u + v->data[j];
        }
    }
    return h;
}

static uint64_t sum_feature(uint64_t h, const fc_field_desc *fd, const char *m)
{
    size_t n = fd->elems;
    if (fd->kind == FC_KIND_VARLEN) {
        n = fc_load_size(m + fd->count_offset);
        h = bench_mix(h, n);
    }
    return sum_values(h, fd->type, m + fd->value_offset, n);
}

uint64_t bench_checksum(const bench_msg *b)
{
    const char *m = (const char *)b->out;
    uint64_t h = 1;
    size_t i, t;
    if (b->md) {
        for (i = 0; i < b->md->nfields; i++)
            h = sum_feature(h, &b->md->fields[i], m);
        return h;
    }
    for (i = 0; i < b->sd->ncontext; i++)
        h = sum_feature(h, &b->sd->context[i], m);
    for (i = 0; i < b->sd->nlists; i++) {
        const fc_list_desc *ld = &b->sd->lists[i];
        size_t frames = fc_load_size(m + ld->frames_offset);
        h = bench_mix(h, frames);
        for (t = 0; t < frames; t++) {
            if (ld->kind == FC_KIND_VARLEN) {
                size_t n = fc_load_size(m + ld->count_offset + t * sizeof(size_t));
                h = bench_mix(h, n);
                h = sum_values(h, ld->type, m + ld->value_offset + t * ld->max * fc_type_size(ld->type),
                               n);
            } else {
                h = sum_values(h, ld->type,
                               m + ld->value_offset + t * ld->elems * fc_type_size(ld->type),
                               ld->elems);
            }
        }
    }
    return h;
}
