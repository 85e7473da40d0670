/* The segment batcher: TensorFlow's SequenceQueueingStateSaver, single
 * threaded, over caller memory.  See featc/fc_segment.h.
 *
 * Every in-flight example sits in one slot.  After each batch every state is
 * saved before the next batch is taken, so at fc_seg_next every in-flight
 * example has exactly one ready segment (its next one): the ready set is the
 * in-flight list, kept in insertion order, and TensorFlow's rule (smallest
 * insertion indices first) is "the first batch_size of the list".
 */
#include "featc/fc_segment.h"

#include <string.h>

#include "wire.h"

#define NIL ((size_t)-1)

enum { PHASE_FREE = 0, PHASE_READY, PHASE_TAKEN, PHASE_FINISHING };

/* Values per batch entry (context) or per frame (list). */
static size_t per_entry(fc_kind kind, size_t elems, size_t max)
{
    return kind == FC_KIND_VARLEN ? max : elems;
}

/* A column's `as` (its typed tensor), or NULL. */
static const fc_field_as *field_as(const fc_field_desc *f)
{
    return f->extra != NULL ? f->extra->as : NULL;
}

static const fc_field_as *list_as(const fc_list_desc *l)
{
    return l->extra != NULL ? l->extra->as : NULL;
}

/* Bytes one value of a column takes in the struct and in the batch: the
 * typed tensor's (each value's elements) with `as`, else the type's. */
static size_t value_size(fc_type t, const fc_field_as *as)
{
    return as != NULL ? fc_as_size(as->type) * as->elems : fc_type_size(t);
}

/* Where a column's values are in the struct: its typed tensor with `as`. */
static size_t value_at(size_t offset, const fc_field_as *as)
{
    return as != NULL ? as->offset : offset;
}

static fc_msg arg_error(fc_error *err, int status)
{
    return fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
}

static int config_error(fc_error *err, const char *text)
{
    fc_msg m = arg_error(err, FC_ERR_ARG);
    fc_msg_str(&m, text);
    return FC_ERR_ARG;
}

static int check_config(const fc_seg_config *c, fc_error *err)
{
    size_t i, j;
    if (c == NULL || c->seq == NULL)
        return config_error(err, "segment batcher: no configuration or no message");
    if (c->num_unroll == 0)
        return config_error(err, "segment batcher: num_unroll must be at least 1");
    if (c->batch_size == 0)
        return config_error(err, "segment batcher: batch_size must be at least 1");
    if (c->capacity < c->batch_size) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "capacity must be larger or equal to batch_size (capacity ");
        fc_msg_u64(&m, c->capacity);
        fc_msg_str(&m, ", batch_size ");
        fc_msg_u64(&m, c->batch_size);
        fc_msg_str(&m, ")");
        return FC_ERR_ARG;
    }
    if (c->capacity >= NIL / 2 || c->num_unroll > ((size_t)1 << 30) ||
        c->batch_size > ((size_t)1 << 30) || c->key_max > ((size_t)1 << 20) ||
        c->batch_size > NIL / c->num_unroll)
        return config_error(err, "segment batcher: a size is out of range");
    if (c->nstates == 0 || c->states == NULL)
        return config_error(err, "initial_states may not be empty: at least one state variable "
                                 "is required to properly enqueue split sequences to run in "
                                 "separate iterations");
    if (c->nstates > FC_SEG_MAX_STATES)
        return config_error(err, "segment batcher: more than 32 states");
    if (c->seq->nlists == 0)
        return config_error(err, "segment batcher: the message has no feature lists to segment");
    for (i = 0; i < c->nstates; i++) {
        const fc_state_desc *st = &c->states[i];
        if (st->name == NULL || strchr(st->name, ':') != NULL) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "state name may not have a colon: '");
            fc_msg_str(&m, st->name != NULL ? st->name : "");
            fc_msg_str(&m, "'");
            return FC_ERR_ARG;
        }
        if ((st->type != FC_TYPE_FLOAT && st->type != FC_TYPE_INT64) ||
            st->offset + st->elems * fc_type_size(st->type) > c->states_size) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "segment batcher: state '");
            fc_msg_str(&m, st->name);
            fc_msg_str(&m, "' is not a float or int64 array inside the states struct");
            return FC_ERR_ARG;
        }
        for (j = 0; j < i; j++)
            if (strcmp(c->states[j].name, st->name) == 0) {
                fc_msg m = arg_error(err, FC_ERR_ARG);
                fc_msg_str(&m, "segment batcher: state '");
                fc_msg_str(&m, st->name);
                fc_msg_str(&m, "' declared twice");
                return FC_ERR_ARG;
            }
    }
    return FC_OK;
}

static void reset(fc_segmenter *s)
{
    size_t i, cap = s->cfg.capacity;
    for (i = 0; i < cap; i++) {
        s->mem.slots[i].phase = PHASE_FREE;
        s->mem.slots[i].next = i + 1 < cap ? i + 1 : NIL;
        s->mem.slots[i].prev = NIL;
    }
    s->free_head = 0;
    s->head = s->tail = NIL;
    s->in_flight = 0;
    s->closed = 0;
    s->outstanding = 0;
    s->saved = 0;
    s->next_index = INT64_MIN;
    s->inserted = s->finished = s->batches = 0;
    s->out.size = 0;
}

int fc_seg_init(fc_segmenter *s, const fc_seg_config *cfg, const fc_seg_mem *mem,
                const fc_seg_out *out, fc_error *err)
{
    int rc = check_config(cfg, err);
    size_t i;
    if (rc != FC_OK)
        return rc;
    if (s == NULL || mem == NULL || out == NULL || mem->slots == NULL || mem->examples == NULL ||
        mem->states == NULL || mem->keys == NULL || (cfg->record_max > 0 && mem->records == NULL))
        return config_error(err, "segment batcher: storage missing");
    if (out->slot == NULL || out->key == NULL || out->next_key == NULL || out->key_text == NULL ||
        out->sequence == NULL || out->sequence_count == NULL || out->length == NULL ||
        out->total_length == NULL || out->insertion_index == NULL || out->lists == NULL ||
        (cfg->seq->ncontext > 0 && out->context == NULL) || out->states == NULL)
        return config_error(err, "segment batcher: output arrays missing");
    for (i = 0; i < cfg->seq->ncontext; i++) {
        const fc_field_desc *f = &cfg->seq->context[i];
        if (f->kind != FC_KIND_FIXED && f->kind != FC_KIND_VARLEN)
            return config_error(err,
                                "segment batcher: a context feature is not FixedLen or VarLen");
        if ((out->context[i].values == NULL && per_entry(f->kind, f->elems, f->max) > 0) ||
            (f->kind == FC_KIND_VARLEN && out->context[i].counts == NULL))
            return config_error(err, "segment batcher: a context output array is missing");
    }
    for (i = 0; i < cfg->seq->nlists; i++) {
        const fc_list_desc *l = &cfg->seq->lists[i];
        if ((out->lists[i].values == NULL && per_entry(l->kind, l->elems, l->max) > 0) ||
            (l->kind == FC_KIND_VARLEN && out->lists[i].counts == NULL))
            return config_error(err, "segment batcher: a feature list output array is missing");
    }
    for (i = 0; i < cfg->nstates; i++)
        if (out->states[i] == NULL)
            return config_error(err, "segment batcher: a state output array is missing");
    s->cfg = *cfg;
    s->mem = *mem;
    s->out = *out;
    reset(s);
    return FC_OK;
}

/* ------------------------------------------------------------ one block */

#define ALIGN 16u

typedef struct carver {
    unsigned char *base;   /* NULL: measure only */
    size_t used;
    int overflow;
} carver;

static void *carve(carver *c, size_t n, size_t count)
{
    size_t bytes, at;
    if (count != 0 && n > ((size_t)-1 - ALIGN) / count) {
        c->overflow = 1;
        return NULL;
    }
    bytes = n * count;
    at = (c->used + ALIGN - 1u) & ~(size_t)(ALIGN - 1u);
    if (at < c->used || bytes > (size_t)-1 - ALIGN - at) {
        c->overflow = 1;
        return NULL;
    }
    c->used = at + bytes;
    return c->base != NULL ? c->base + at : NULL;
}

size_t fc_seg_init_block(fc_segmenter *s, const fc_seg_config *cfg, void *mem, size_t size,
                         fc_error *err)
{
    carver c;
    fc_seg_mem m;
    fc_seg_out o;
    size_t i, b, u, pass, need = 0;
    int rc = check_config(cfg, err);
    if (rc != FC_OK)
        return 0;
    b = cfg->batch_size;
    u = cfg->num_unroll;
    for (pass = 0; pass < 2; pass++) {
        size_t misalign = mem != NULL ? (size_t)((uintptr_t)mem % ALIGN) : 0;
        c.base = pass == 0 ? NULL : (unsigned char *)mem + (misalign ? ALIGN - misalign : 0);
        if (pass == 1)
            memset(mem, 0, size);
        c.used = 0;
        c.overflow = 0;
        memset(&m, 0, sizeof m);
        memset(&o, 0, sizeof o);
        m.slots = (fc_seg_slot *)carve(&c, sizeof(fc_seg_slot), cfg->capacity);
        m.examples = carve(&c, cfg->seq->size, cfg->capacity);
        m.states = carve(&c, cfg->states_size, cfg->capacity);
        m.keys = (char *)carve(&c, cfg->key_max > 0 ? cfg->key_max : 1, cfg->capacity);
        if (cfg->record_max > 0)
            m.records = (unsigned char *)carve(&c, cfg->record_max, cfg->capacity);
        o.slot = (size_t *)carve(&c, sizeof(size_t), b);
        o.key = (fc_bytes *)carve(&c, sizeof(fc_bytes), b);
        o.next_key = (fc_bytes *)carve(&c, sizeof(fc_bytes), b);
        o.key_text = (char *)carve(&c, 2u * FC_SEG_KEY_TEXT(cfg->key_max), b);
        o.sequence = (size_t *)carve(&c, sizeof(size_t), b);
        o.sequence_count = (size_t *)carve(&c, sizeof(size_t), b);
        o.length = (size_t *)carve(&c, sizeof(size_t), b);
        o.total_length = (size_t *)carve(&c, sizeof(size_t), b);
        o.insertion_index = (int64_t *)carve(&c, sizeof(int64_t), b);
        o.context = (fc_seg_column *)carve(&c, sizeof(fc_seg_column), cfg->seq->ncontext);
        o.lists = (fc_seg_column *)carve(&c, sizeof(fc_seg_column), cfg->seq->nlists);
        o.states = (void **)carve(&c, sizeof(void *), cfg->nstates);
        for (i = 0; i < cfg->seq->ncontext; i++) {
            const fc_field_desc *f = &cfg->seq->context[i];
            size_t per = per_entry(f->kind, f->elems, f->max);
            void *v = carve(&c, value_size(f->type, field_as(f)) * per, b);
            size_t *n = f->kind == FC_KIND_VARLEN ? (size_t *)carve(&c, sizeof(size_t), b) : NULL;
            if (c.base != NULL) {
                o.context[i].values = v;
                o.context[i].counts = n;
            }
        }
        for (i = 0; i < cfg->seq->nlists; i++) {
            const fc_list_desc *l = &cfg->seq->lists[i];
            size_t per = per_entry(l->kind, l->elems, l->max);
            void *v = carve(&c, value_size(l->type, list_as(l)) * per, b * u);
            size_t *n = l->kind == FC_KIND_VARLEN ? (size_t *)carve(&c, sizeof(size_t), b * u)
                                                  : NULL;
            if (c.base != NULL) {
                o.lists[i].values = v;
                o.lists[i].counts = n;
            }
        }
        for (i = 0; i < cfg->nstates; i++) {
            void *v = carve(&c, fc_type_size(cfg->states[i].type) * cfg->states[i].elems, b);
            if (c.base != NULL)
                o.states[i] = v;
        }
        if (c.overflow) {
            fc_msg e = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&e, "segment batcher: the storage size overflows");
            return 0;
        }
        if (pass == 0) {
            need = c.used + ALIGN - 1u;
            if (mem == NULL || size < need) {
                fc_msg e = arg_error(err, FC_ERR_NO_MEMORY);
                fc_msg_str(&e, "segment batcher: the block holds ");
                fc_msg_u64(&e, size);
                fc_msg_str(&e, " bytes, the configuration needs ");
                fc_msg_u64(&e, need);
                return need;
            }
        }
    }
    if (fc_seg_init(s, cfg, &m, &o, err) != FC_OK)
        return 0;
    return need;
}

/* ------------------------------------------------------------ inserting */

static unsigned char *slot_example(const fc_segmenter *s, size_t slot)
{
    return (unsigned char *)s->mem.examples + slot * s->cfg.seq->size;
}

static unsigned char *slot_states(const fc_segmenter *s, size_t slot)
{
    return (unsigned char *)s->mem.states + slot * s->cfg.states_size;
}

static void msg_key(fc_msg *m, const void *key, size_t len)
{
    fc_msg_str(m, "\"");
    fc_msg_mem(m, key, len);
    fc_msg_str(m, "\"");
}

/* The segment key "%05d_of_%05d:KEY" into dst (FC_SEG_KEY_TEXT bytes). */
static size_t put_num5(char *dst, size_t v)
{
    char tmp[24];
    size_t n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (n + k < 5) {
        dst[k] = '0';
        k++;
    }
    while (n > 0)
        dst[k++] = tmp[--n];
    return k;
}

static size_t segment_key(char *dst, size_t seq, size_t count, const char *key, size_t len)
{
    size_t n = put_num5(dst, seq);
    memcpy(dst + n, "_of_", 4);
    n += 4;
    n += put_num5(dst + n, count);
    dst[n++] = ':';
    memcpy(dst + n, key, len);
    n += len;
    dst[n] = '\0';
    return n;
}

/* The checks of a struct about to enter: every count within its bound (the
 * struct is the caller's; its counts index our copies), the lists' lengths
 * (TensorFlow's _padding / pad=False rules), the length argument.  On
 * success *padded and *length are set. */
static int check_example(const fc_segmenter *s, const void *example, const void *key,
                         size_t key_len, size_t *length, size_t *padded, fc_error *err)
{
    const unsigned char *ex = (const unsigned char *)example;
    const fc_seq_desc *sd = s->cfg.seq;
    size_t u = s->cfg.num_unroll, i, t, frames = 0, p;
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *f = &sd->context[i];
        if (f->kind == FC_KIND_VARLEN && fc_load_size(ex + f->count_offset) > f->max) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "example ");
            msg_key(&m, key, key_len);
            fc_msg_str(&m, ": context feature ");
            fc_msg_str(&m, f->c_name);
            fc_msg_str(&m, " holds more values than its bound");
            return FC_ERR_ARG;
        }
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        size_t n = fc_load_size(ex + l->frames_offset);
        int bad = n > l->max_frames;
        if (!bad && l->kind == FC_KIND_VARLEN)
            for (t = 0; t < n; t++)
                if (fc_load_size(ex + l->count_offset + t * sizeof(size_t)) > l->max)
                    bad = 1;
        if (bad) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "example ");
            msg_key(&m, key, key_len);
            fc_msg_str(&m, ": feature list ");
            fc_msg_str(&m, l->c_name);
            fc_msg_str(&m, " holds more frames or values than its bounds");
            return FC_ERR_ARG;
        }
        if (s->cfg.unpadded && (n == 0 || n % u != 0)) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "Tensor ");
            fc_msg_mem(&m, l->key, l->key_len);
            fc_msg_str(&m, " first dimension should be a multiple of: ");
            fc_msg_u64(&m, u);
            fc_msg_str(&m, ", but saw value: ");
            fc_msg_u64(&m, n);
            fc_msg_str(&m, ". Consider setting pad=True. (example ");
            msg_key(&m, key, key_len);
            fc_msg_str(&m, ", declared `unpadded`)");
            return FC_ERR_ARG;
        }
        if (i == 0)
            frames = n;
    }
    for (i = 1; i < sd->nlists; i++) {
        if (fc_load_size(ex + sd->lists[i].frames_offset) != frames) {
            fc_msg m = arg_error(err, FC_ERR_ARG);
            fc_msg_str(&m, "All sequence lengths must match, but received lengths: [");
            for (t = 0; t < sd->nlists; t++) {
                if (t > 0)
                    fc_msg_str(&m, " ");
                fc_msg_u64(&m, fc_load_size(ex + sd->lists[t].frames_offset));
            }
            fc_msg_str(&m, "] (example ");
            msg_key(&m, key, key_len);
            fc_msg_str(&m, ": feature list ");
            fc_msg_mem(&m, sd->lists[0].key, sd->lists[0].key_len);
            fc_msg_str(&m, " has ");
            fc_msg_u64(&m, frames);
            fc_msg_str(&m, " frames, ");
            fc_msg_mem(&m, sd->lists[i].key, sd->lists[i].key_len);
            fc_msg_str(&m, " has ");
            fc_msg_u64(&m, fc_load_size(ex + sd->lists[i].frames_offset));
            fc_msg_str(&m, ")");
            return FC_ERR_ARG;
        }
    }
    p = frames + (u - frames % u) % u;
    if (p == 0) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "Tensor padded_length should be a multiple of: ");
        fc_msg_u64(&m, u);
        fc_msg_str(&m, ", but saw value: 0. Consider setting pad=True. (example ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, " has no frames: an example needs at least one step)");
        return FC_ERR_ARG;
    }
    if (*length == FC_SEG_LENGTH_FRAMES) {
        *length = frames;
    } else if (*length > p) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "Input length should be <= than length from sequences: ");
        fc_msg_u64(&m, *length);
        fc_msg_str(&m, " vs. ");
        fc_msg_u64(&m, p);
        fc_msg_str(&m, " (example ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, ")");
        return FC_ERR_ARG;
    }
    *padded = p;
    return FC_OK;
}

/* closed, key length, capacity: the checks that come before any copying. */
static int admit(const fc_segmenter *s, const void *key, size_t key_len, fc_error *err)
{
    if (s->closed) {
        fc_msg m = arg_error(err, FC_ERR_CLOSED);
        fc_msg_str(&m, "the state saver is closed: example ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, " was not inserted");
        return FC_ERR_CLOSED;
    }
    if (key == NULL && key_len > 0)
        return config_error(err, "segment batcher: key is NULL");
    if (key_len > s->cfg.key_max) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "example key ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, " is ");
        fc_msg_u64(&m, key_len);
        fc_msg_str(&m, " bytes, longer than the declared key max ");
        fc_msg_u64(&m, s->cfg.key_max);
        return FC_ERR_ARG;
    }
    if (s->free_head == NIL) {
        fc_msg m = arg_error(err, FC_AGAIN);
        fc_msg_str(&m, "capacity reached: ");
        fc_msg_u64(&m, s->cfg.capacity);
        fc_msg_str(&m, " examples in flight; take a batch and save its states, then insert ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, " again");
        return FC_AGAIN;
    }
    return FC_OK;
}

/* Duplicate keys in flight: TensorFlow's barrier refuses the second insert
 * of a segment key ("Key ... already has a value for component ..."). */
static int check_duplicate(const fc_segmenter *s, const void *key, size_t key_len, size_t count,
                           fc_error *err)
{
    size_t i;
    for (i = s->head; i != NIL; i = s->mem.slots[i].next) {
        const fc_seg_slot *sl = &s->mem.slots[i];
        if (sl->key_len == key_len &&
            (key_len == 0 || memcmp(s->mem.keys + i * s->cfg.key_max, key, key_len) == 0)) {
            char text[64];
            fc_msg m = arg_error(err, FC_ERR_ARG);
            size_t n = segment_key(text, 0, count, "", 0);
            fc_msg_str(&m, "Key ");
            fc_msg_mem(&m, text, n);
            fc_msg_mem(&m, key, key_len);
            fc_msg_str(&m, " already has a value in the state saver: example ");
            msg_key(&m, key, key_len);
            fc_msg_str(&m, " is still in flight (inserted as example ");
            fc_msg_u64(&m, (uint64_t)(sl->insertion_index - INT64_MIN));
            fc_msg_str(&m, ", at segment ");
            fc_msg_u64(&m, sl->sequence);
            fc_msg_str(&m, " of ");
            fc_msg_u64(&m, sl->count);
            fc_msg_str(&m, "); keys must be unique among the examples in flight");
            return FC_ERR_ARG;
        }
    }
    return FC_OK;
}

static void commit(fc_segmenter *s, size_t slot, const void *key, size_t key_len, size_t length,
                   size_t padded, const void *initial)
{
    fc_seg_slot *sl = &s->mem.slots[slot];
    s->free_head = sl->next;
    sl->phase = PHASE_READY;
    sl->insertion_index = s->next_index++;
    sl->sequence = 0;
    sl->count = padded / s->cfg.num_unroll;
    sl->length = length;
    sl->key_len = key_len;
    if (key_len > 0)
        memcpy(s->mem.keys + slot * s->cfg.key_max, key, key_len);
    if (initial != NULL)
        memcpy(slot_states(s, slot), initial, s->cfg.states_size);
    else
        memset(slot_states(s, slot), 0, s->cfg.states_size);
    sl->next = NIL;
    sl->prev = s->tail;
    if (s->tail != NIL)
        s->mem.slots[s->tail].next = slot;
    else
        s->head = slot;
    s->tail = slot;
    s->in_flight++;
    s->inserted++;
}

int fc_seg_insert(fc_segmenter *s, const void *key, size_t key_len, const void *example,
                  size_t length, const void *initial, fc_error *err)
{
    size_t padded = 0, slot;
    int rc;
    if (example == NULL)
        return config_error(err, "segment batcher: example is NULL");
    if ((rc = admit(s, key, key_len, err)) != FC_OK)
        return rc;
    if ((rc = check_example(s, example, key, key_len, &length, &padded, err)) != FC_OK)
        return rc;
    if ((rc = check_duplicate(s, key, key_len, padded / s->cfg.num_unroll, err)) != FC_OK)
        return rc;
    slot = s->free_head;
    memcpy(slot_example(s, slot), example, s->cfg.seq->size);
    if ((rc = fc_ex_as_fields(s->cfg.seq->context, s->cfg.seq->ncontext, slot_example(s, slot),
                              1, err)) != FC_OK ||
        (rc = fc_seq_as_lists(s->cfg.seq->lists, s->cfg.seq->nlists, slot_example(s, slot),
                              err)) != FC_OK)
        return rc; /* the slot stays free */
    commit(s, slot, key, key_len, length, padded, initial);
    return FC_OK;
}

int fc_seg_insert_record(fc_segmenter *s, const void *key, size_t key_len, const void *record,
                         size_t len, size_t length, const void *initial, fc_error *err)
{
    size_t padded = 0, slot;
    unsigned char *copy;
    int rc;
    if (s->cfg.record_max == 0)
        return config_error(err, "segment batcher: no record store (declare `record max N`)");
    if (record == NULL && len > 0)
        return config_error(err, "segment batcher: record is NULL");
    if ((rc = admit(s, key, key_len, err)) != FC_OK)
        return rc;
    if (len > s->cfg.record_max) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "example ");
        msg_key(&m, key, key_len);
        fc_msg_str(&m, ": record of ");
        fc_msg_u64(&m, len);
        fc_msg_str(&m, " bytes is larger than the declared record max ");
        fc_msg_u64(&m, s->cfg.record_max);
        return FC_ERR_ARG;
    }
    slot = s->free_head;
    copy = s->mem.records + slot * s->cfg.record_max;
    if (len > 0)
        memcpy(copy, record, len);
    if ((rc = s->cfg.seq->parse(slot_example(s, slot), copy, len, err)) != FC_OK)
        return rc;
    if ((rc = check_example(s, slot_example(s, slot), key, key_len, &length, &padded, err)) !=
        FC_OK)
        return rc;
    if ((rc = check_duplicate(s, key, key_len, padded / s->cfg.num_unroll, err)) != FC_OK)
        return rc;
    commit(s, slot, key, key_len, length, padded, initial);
    return FC_OK;
}

/* ------------------------------------------------------------ batches */

static void copy_context(const fc_segmenter *s, size_t i, const unsigned char *ex)
{
    const fc_seq_desc *sd = s->cfg.seq;
    size_t f;
    for (f = 0; f < sd->ncontext; f++) {
        const fc_field_desc *d = &sd->context[f];
        size_t ts = value_size(d->type, field_as(d)), at = value_at(d->value_offset, field_as(d));
        unsigned char *dst = (unsigned char *)s->out.context[f].values;
        if (per_entry(d->kind, d->elems, d->max) == 0) {
            if (d->kind == FC_KIND_VARLEN)
                s->out.context[f].counts[i] = 0;
        } else if (d->kind == FC_KIND_VARLEN) {
            size_t n = fc_load_size(ex + d->count_offset);
            dst += i * d->max * ts;
            if (n > 0)
                memcpy(dst, ex + at, n * ts);
            memset(dst + n * ts, 0, (d->max - n) * ts);
            s->out.context[f].counts[i] = n;
        } else {
            memcpy(dst + i * d->elems * ts, ex + at, d->elems * ts);
        }
    }
}

static void copy_lists(const fc_segmenter *s, size_t i, const unsigned char *ex, size_t seq)
{
    const fc_seq_desc *sd = s->cfg.seq;
    size_t u = s->cfg.num_unroll, j, t;
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t ts = value_size(l->type, list_as(l)), at = value_at(l->value_offset, list_as(l));
        size_t frames = fc_load_size(ex + l->frames_offset);
        size_t per = per_entry(l->kind, l->elems, l->max) * ts;
        unsigned char *dst = (unsigned char *)s->out.lists[j].values;
        if (per == 0) {
            if (l->kind == FC_KIND_VARLEN)
                for (t = 0; t < u; t++)
                    s->out.lists[j].counts[i * u + t] = 0;
            continue;
        }
        dst += i * u * per;
        for (t = 0; t < u; t++, dst += per) {
            size_t f = seq * u + t, n = 0;
            if (f < frames) {
                n = l->kind == FC_KIND_VARLEN
                        ? fc_load_size(ex + l->count_offset + f * sizeof(size_t))
                        : l->elems;
                if (n > 0)
                    memcpy(dst, ex + at + f * per, n * ts);
            }
            memset(dst + n * ts, 0, per - n * ts);
            if (l->kind == FC_KIND_VARLEN)
                s->out.lists[j].counts[i * u + t] = n;
        }
    }
}

static int too_few(const fc_segmenter *s, fc_error *err)
{
    const fc_seg_slot *first = &s->mem.slots[s->head];
    fc_msg m = arg_error(err, FC_ERR_INCOMPLETE);
    fc_msg_str(&m, "Barrier '");
    fc_msg_str(&m, s->cfg.seq->name);
    fc_msg_str(&m, "' is closed and has insufficient elements (requested ");
    fc_msg_u64(&m, s->cfg.batch_size);
    fc_msg_str(&m, ", total size ");
    fc_msg_u64(&m, s->in_flight);
    fc_msg_str(&m, "): the remaining segments of ");
    fc_msg_u64(&m, s->in_flight);
    fc_msg_str(&m, s->in_flight == 1 ? " example" : " examples");
    fc_msg_str(&m, " (the oldest ");
    msg_key(&m, s->mem.keys + s->head * s->cfg.key_max, first->key_len);
    fc_msg_str(&m, ", at segment ");
    fc_msg_u64(&m, first->sequence);
    fc_msg_str(&m, " of ");
    fc_msg_u64(&m, first->count);
    fc_msg_str(&m, ") cannot fill a batch; declare allow_small_batch to receive them");
    return FC_ERR_INCOMPLETE;
}

static const char *first_unsaved(const fc_segmenter *s)
{
    size_t i;
    for (i = 0; i < s->cfg.nstates; i++)
        if (!(s->saved & (1u << i)))
            return s->cfg.states[i].name;
    return "";
}

int fc_seg_next(fc_segmenter *s, fc_error *err)
{
    size_t take, i, slot, k = FC_SEG_KEY_TEXT(s->cfg.key_max);
    if (s->outstanding) {
        fc_msg m = arg_error(err, FC_ERR_STATE);
        fc_msg_str(&m, "save_state(\"");
        fc_msg_str(&m, first_unsaved(s));
        fc_msg_str(&m, "\") was not called for batch ");
        fc_msg_u64(&m, s->batches - 1u);
        fc_msg_str(&m, ": a segment is handed out only after the states of the one before "
                       "it were saved");
        return FC_ERR_STATE;
    }
    if (s->in_flight >= s->cfg.batch_size) {
        take = s->cfg.batch_size;
    } else if (!s->closed) {
        fc_msg m = arg_error(err, FC_AGAIN);
        s->out.size = 0;
        fc_msg_u64(&m, s->in_flight);
        fc_msg_str(&m, " of ");
        fc_msg_u64(&m, s->cfg.batch_size);
        fc_msg_str(&m, " examples in flight: insert more or close");
        return FC_AGAIN;
    } else if (s->in_flight == 0) {
        fc_msg m = arg_error(err, FC_END);
        fc_msg_str(&m, "the state saver is closed and every segment was handed out");
        s->out.size = 0;
        return FC_END;
    } else if (s->cfg.allow_small_batch) {
        take = s->in_flight;
    } else {
        s->out.size = 0;
        return too_few(s, err);
    }
    for (i = 0, slot = s->head; i < take; i++, slot = s->mem.slots[slot].next) {
        fc_seg_slot *sl = &s->mem.slots[slot];
        const char *key = s->mem.keys + slot * s->cfg.key_max;
        char *kt = s->out.key_text + i * 2u * k;
        size_t j, n, u = s->cfg.num_unroll, rest;
        const unsigned char *ex = slot_example(s, slot);
        const unsigned char *st = slot_states(s, slot);
        s->out.slot[i] = slot;
        n = segment_key(kt, sl->sequence, sl->count, key, sl->key_len);
        s->out.key[i].data = (const uint8_t *)kt;
        s->out.key[i].size = n;
        if (sl->sequence + 1u < sl->count) {
            n = segment_key(kt + k, sl->sequence + 1u, sl->count, key, sl->key_len);
        } else {
            memcpy(kt + k, "STOP:", 5);
            memcpy(kt + k + 5, key, sl->key_len);
            n = 5 + sl->key_len;
            kt[k + n] = '\0';
        }
        s->out.next_key[i].data = (const uint8_t *)(kt + k);
        s->out.next_key[i].size = n;
        s->out.sequence[i] = sl->sequence;
        s->out.sequence_count[i] = sl->count;
        rest = sl->length > u * sl->sequence ? sl->length - u * sl->sequence : 0;
        s->out.length[i] = rest < u ? rest : u;
        s->out.total_length[i] = sl->length;
        s->out.insertion_index[i] = sl->insertion_index;
        copy_context(s, i, ex);
        copy_lists(s, i, ex, sl->sequence);
        for (j = 0; j < s->cfg.nstates; j++) {
            const fc_state_desc *d = &s->cfg.states[j];
            size_t bytes = d->elems * fc_type_size(d->type);
            memcpy((unsigned char *)s->out.states[j] + i * bytes, st + d->offset, bytes);
        }
        sl->phase = sl->sequence + 1u < sl->count ? PHASE_TAKEN : PHASE_FINISHING;
    }
    s->out.size = take;
    s->outstanding = 1;
    s->saved = 0;
    s->batches++;
    return FC_OK;
}

static void release(fc_segmenter *s, size_t slot)
{
    fc_seg_slot *sl = &s->mem.slots[slot];
    if (sl->prev != NIL)
        s->mem.slots[sl->prev].next = sl->next;
    else
        s->head = sl->next;
    if (sl->next != NIL)
        s->mem.slots[sl->next].prev = sl->prev;
    else
        s->tail = sl->prev;
    sl->phase = PHASE_FREE;
    sl->prev = NIL;
    sl->next = s->free_head;
    s->free_head = slot;
    s->in_flight--;
    s->finished++;
}

int fc_seg_save_state(fc_segmenter *s, size_t state, const void *values, fc_error *err)
{
    const fc_state_desc *d;
    size_t i, bytes;
    if (state >= s->cfg.nstates) {
        fc_msg m = arg_error(err, FC_ERR_ARG);
        fc_msg_str(&m, "state was not declared: #");
        fc_msg_u64(&m, state);
        return FC_ERR_ARG;
    }
    d = &s->cfg.states[state];
    if (!s->outstanding) {
        fc_msg m = arg_error(err, FC_ERR_STATE);
        fc_msg_str(&m, "save_state(\"");
        fc_msg_str(&m, d->name);
        fc_msg_str(&m, "\"): no batch is out (call next first)");
        return FC_ERR_STATE;
    }
    if (s->saved & (1u << state)) {
        fc_msg m = arg_error(err, FC_ERR_STATE);
        fc_msg_str(&m, "save_state(\"");
        fc_msg_str(&m, d->name);
        fc_msg_str(&m, "\"): already saved for batch ");
        fc_msg_u64(&m, s->batches - 1u);
        return FC_ERR_STATE;
    }
    if (values == NULL && s->out.size > 0)
        return config_error(err, "segment batcher: state values are NULL");
    bytes = d->elems * fc_type_size(d->type);
    for (i = 0; i < s->out.size; i++) {
        size_t slot = s->out.slot[i];
        if (s->mem.slots[slot].phase == PHASE_TAKEN)
            memmove(slot_states(s, slot) + d->offset, (const unsigned char *)values + i * bytes,
                    bytes);
    }
    s->saved |= 1u << state;
    if (s->saved == (s->cfg.nstates >= 32 ? 0xffffffffu : (1u << s->cfg.nstates) - 1u)) {
        for (i = 0; i < s->out.size; i++) {
            size_t slot = s->out.slot[i];
            fc_seg_slot *sl = &s->mem.slots[slot];
            if (sl->phase == PHASE_FINISHING) {
                release(s, slot);
            } else {
                sl->sequence++;
                sl->phase = PHASE_READY;
            }
        }
        s->outstanding = 0;
    }
    return FC_OK;
}

int fc_seg_find_state(const fc_segmenter *s, const char *name)
{
    size_t i;
    for (i = 0; i < s->cfg.nstates; i++)
        if (strcmp(s->cfg.states[i].name, name) == 0)
            return (int)i;
    return -1;
}

void fc_seg_close(fc_segmenter *s)
{
    s->closed = 1;
}

size_t fc_seg_in_flight(const fc_segmenter *s)
{
    return s->in_flight;
}
