/* libFuzzer harness for the segment batcher (runtime/core/segment.c) with the
 * message generated from tests/specs/segment.feat, or (a configuration bit)
 * typed.feat's st, whose columns are typed tensors (`as`).
 *
 * The input is a program: 4 bytes of configuration (num_unroll, batch_size,
 * capacity, flags), then operations: insert a record (built valid from a
 * few bytes, then mutated by more), insert a struct whose counts the input
 * sets (bounds included), take a batch, save states (in any order, twice,
 * or an undeclared one), close.  Every piece of storage is its own
 * allocation of exactly its size, so ASan sees any overrun.
 *
 * Invariants: no crash; every status is one the API documents for that
 * call; at most capacity examples in flight; a batch holds batch_size
 * entries (fewer only after close with allow_small_batch), its keys are
 * "%05d_of_%05d:KEY" with KEY one in flight and the entries in insertion
 * order; an example's segments come out in order, one per batch at most,
 * and only after the previous batch's states were all saved; valid steps
 * never exceed num_unroll. */
/* test-specs: tests/specs/segment.feat tests/specs/typed.feat */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/wire.h"
#include "segment.h"
#include "typed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input {
    const uint8_t *p;
    size_t n;
} input;

static unsigned take(input *in)
{
    unsigned v;
    if (in->n == 0)
        return 0;
    v = in->p[0];
    in->p++;
    in->n--;
    return v;
}

static const char *const words[] = {"a", "bb", "", "dddd"};

/* The SequenceExample of ctx and lists into out (at most cap bytes), with
 * `flips` bytes xored from the input. */
static size_t seq_bytes(input *in, const wbuf *ctx, const wbuf *lists, size_t flips,
                        unsigned char *out, size_t cap)
{
    static wbuf ex;
    size_t k;
    ex.n = 0;
    w_len(&ex, 0x0A, ctx->b, ctx->n);
    w_len(&ex, 0x12, lists->b, lists->n);
    for (k = 0; k < flips && ex.n > 0; k++) {
        size_t at = (take(in) * 256u + take(in)) % ex.n;
        ex.b[at] ^= (unsigned char)take(in);
    }
    if (ex.n > cap)
        ex.n = cap;
    memcpy(out, ex.b, ex.n);
    return ex.n;
}

/* A valid record of n frames, then `flips` bytes xored from the input. */
static size_t make_record(input *in, unsigned char *out, size_t cap)
{
    static wbuf ctx, lists, f, fl, list;
    size_t n = take(in) % 48, t, k, flips = take(in) % 4;
    float x[3] = {1.5f, -2.0f, 0.25f};
    int64_t w;
    ctx.n = lists.n = 0;
    w_entry_bytes(&ctx, "id", words, 1);
    w_entry_bytes(&ctx, "tags", words, n % 5);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        f.n = 0;
        f_float_packed(&f, x, 3);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "x", &fl);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        w = (int64_t)t;
        f.n = 0;
        f_int64_packed(&f, &w, 1);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "w", &fl);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        f.n = list.n = 0;
        for (k = 0; k < t % 4; k++)
            w_len(&list, 0x0A, words[k], strlen(words[k]));
        w_len(&f, 0x0A, list.b, list.n);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "toks", &fl);
    return seq_bytes(in, &ctx, &lists, flips, out, cap);
}

/* A record of message st (typed.feat) of n frames, its values from the
 * input (some out of their `as` type's range, a short bytes value), then
 * `flips` bytes xored from the input. */
static size_t make_typed_record(input *in, unsigned char *out, size_t cap)
{
    static wbuf ctx, lists, f, fl, list;
    size_t n = take(in) % 16, t, k, flips = take(in) % 4;
    unsigned char raw[4];
    int64_t v[3];
    float x[3];
    const char *id = "k";
    ctx.n = lists.n = 0;
    w_entry_bytes(&ctx, "id", &id, 1);
    v[0] = (int64_t)take(in) * (take(in) % 8 == 0 ? 2 : 1);
    w_entry_int64(&ctx, "lab", v, 1);
    for (k = 0; k < 4; k++)
        raw[k] = (unsigned char)take(in);
    f.n = list.n = 0;
    w_len(&list, 0x0A, raw, 3 + take(in) % 2);
    w_len(&f, 0x0A, list.b, list.n);
    w_entry(&ctx, "raw", &f);
    for (k = 0; k < 3; k++)
        x[k] = (float)((int)take(in) - 128) * (take(in) % 8 == 0 ? 1000.0f : 0.5f);
    w_entry_float(&ctx, "hv", x, take(in) % 4);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        v[0] = (int64_t)take(in) - 128 - (take(in) % 16 == 0);
        f.n = 0;
        f_int64_packed(&f, v, 1);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "ids", &fl);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        for (k = 0; k < 3; k++)
            v[k] = (int64_t)take(in) * 257 + (take(in) % 16 == 0 ? 65536 : 0);
        f.n = 0;
        f_int64_packed(&f, v, t % 4);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "tok", &fl);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        f.n = list.n = 0;
        w_len(&list, 0x0A, raw, 4);
        w_len(&f, 0x0A, list.b, list.n);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "pix", &fl);
    fl.n = 0;
    for (t = 0; t < n; t++) {
        f.n = 0;
        f_float_packed(&f, x, 2);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "emb", &fl);
    return seq_bytes(in, &ctx, &lists, flips, out, cap);
}

/* Bytes per value of a column in a batch: its typed tensor's with `as`. */
static size_t value_bytes(fc_type t, const fc_field_extra *x)
{
    if (x != NULL && x->as != NULL)
        return fc_as_size(x->as->type) * x->as->elems;
    return t == FC_TYPE_BYTES ? sizeof(fc_bytes) : t == FC_TYPE_FLOAT ? 4 : 8;
}

#define MAXEX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char rec[1 << 16];
    static seg_clip m;
    static ty_st tm;
    fc_seg_config c;
    int typed;
    fc_segmenter s;
    fc_seg_mem mem;
    fc_seg_out out;
    fc_seg_column *cols;
    fc_error err;
    input in;
    size_t i, b, u, cap, ncols, ops = 0, inserted = 0;
    size_t seen[MAXEX];         /* segments handed out, per insertion number */
    size_t flight[MAXEX], nflight = 0;
    int out_batch = 0, rc;
    unsigned saved = 0;
    void *blocks[64];
    size_t nblocks = 0;
    in.p = data;
    in.n = size;
    typed = size > 3 && (data[3] & 4) != 0;
    c = typed ? ty_st_seg_config : seg_clip_seg_config;
    ncols = c.seq->ncontext + c.seq->nlists;
    c.num_unroll = 1 + take(&in) % 9;
    c.batch_size = 1 + take(&in) % 5;
    c.capacity = c.batch_size + take(&in) % 5;
    {
        unsigned fl = take(&in);
        c.allow_small_batch = (int)(fl & 1);
        c.unpadded = (int)((fl >> 1) & 1);
    }
    b = c.batch_size;
    u = c.num_unroll;
    cap = c.capacity;
#define ALLOC(ptr, bytes)                                                       \
    do {                                                                        \
        blocks[nblocks] = malloc((bytes) > 0 ? (bytes) : 1);                    \
        (ptr) = blocks[nblocks++];                                              \
    } while (0)
    memset(&mem, 0, sizeof mem);
    memset(&out, 0, sizeof out);
    ALLOC(mem.slots, cap * sizeof(fc_seg_slot));
    ALLOC(mem.examples, cap * c.seq->size);
    ALLOC(mem.states, cap * c.states_size);
    ALLOC(mem.keys, cap * c.key_max);
    ALLOC(mem.records, cap * c.record_max);
    ALLOC(out.slot, b * sizeof(size_t));
    ALLOC(out.key, b * sizeof(fc_bytes));
    ALLOC(out.next_key, b * sizeof(fc_bytes));
    ALLOC(out.key_text, b * 2 * FC_SEG_KEY_TEXT(c.key_max));
    ALLOC(out.sequence, b * sizeof(size_t));
    ALLOC(out.sequence_count, b * sizeof(size_t));
    ALLOC(out.length, b * sizeof(size_t));
    ALLOC(out.total_length, b * sizeof(size_t));
    ALLOC(out.insertion_index, b * sizeof(int64_t));
    ALLOC(cols, ncols * sizeof(fc_seg_column));
    memset(cols, 0, ncols * sizeof(fc_seg_column));
    for (i = 0; i < ncols; i++) {
        int list = i >= c.seq->ncontext;
        const fc_field_desc *f = list ? NULL : &c.seq->context[i];
        const fc_list_desc *l = list ? &c.seq->lists[i - c.seq->ncontext] : NULL;
        size_t per = list ? (l->kind == FC_KIND_VARLEN ? l->max : l->elems)
                          : (f->kind == FC_KIND_VARLEN ? f->max : f->elems);
        size_t ts = list ? value_bytes(l->type, l->extra) : value_bytes(f->type, f->extra);
        size_t rows = list ? b * u : b;
        ALLOC(cols[i].values, rows * per * ts);
        if (list ? l->kind == FC_KIND_VARLEN : f->kind == FC_KIND_VARLEN)
            ALLOC(cols[i].counts, rows * sizeof(size_t));
    }
    out.context = cols;
    out.lists = cols + c.seq->ncontext;
    ALLOC(out.states, c.nstates * sizeof(void *));
    for (i = 0; i < c.nstates; i++)
        ALLOC(out.states[i], b * c.states[i].elems * fc_type_size(c.states[i].type));
    if (fc_seg_init(&s, &c, &mem, &out, &err) != FC_OK)
        abort();
    while (in.n > 0 && ops++ < 200) {
        unsigned op = take(&in) % 8;
        char key[8];
        size_t klen;
        snprintf(key, sizeof key, "k%u", take(&in) % 24);
        klen = strlen(key);
        if (op <= 2) { /* insert a record */
            size_t len = typed ? make_typed_record(&in, rec, sizeof rec)
                               : make_record(&in, rec, sizeof rec);
            size_t length = take(&in) % 4 == 0 ? (size_t)take(&in) % 64 : FC_SEG_LENGTH_FRAMES;
            rc = fc_seg_insert_record(&s, key, klen, rec, len, length, NULL, &err);
            if (rc != FC_OK && rc != FC_AGAIN && rc != FC_ERR_ARG && rc != FC_ERR_PARSE &&
                rc != FC_ERR_CLOSED)
                abort();
        } else if (op == 3 && typed) { /* a parsed struct, a frame's value from the input */
            size_t len = make_typed_record(&in, rec, sizeof rec), t = take(&in) % 16;
            if (ty_st_parse(&tm, rec, len, &err) != FC_OK)
                continue;
            if (t < TY_ST_IDS_FRAMES_MAX)
                tm.ids[t] = (int64_t)take(&in) - 128 - (take(&in) % 4 == 0 ? 256 : 0);
            rc = fc_seg_insert(&s, key, klen, &tm, FC_SEG_LENGTH_FRAMES, NULL, &err);
            if (rc != FC_OK && rc != FC_AGAIN && rc != FC_ERR_ARG && rc != FC_ERR_PARSE &&
                rc != FC_ERR_CLOSED)
                abort();
        } else if (op == 3) { /* insert a struct with counts from the input */
            size_t n = take(&in) % 48;
            seg_clip_init(&m);
            m.x_frames = n;
            m.w_frames = take(&in) % 4 == 0 ? (size_t)take(&in) % 48 : n;
            m.toks_frames = n;
            m.tags_count = take(&in) % 6;
            for (i = 0; i < n && i < SEG_CLIP_TOKS_FRAMES_MAX; i++)
                m.toks_count[i] = take(&in) % 8 == 0 ? 4 : i % 3;
            rc = fc_seg_insert(&s, key, klen, &m, FC_SEG_LENGTH_FRAMES, NULL, &err);
            if (rc != FC_OK && rc != FC_AGAIN && rc != FC_ERR_ARG && rc != FC_ERR_CLOSED)
                abort();
        } else if (op <= 5) { /* take a batch */
            size_t before = fc_seg_in_flight(&s);
            rc = fc_seg_next(&s, &err);
            if (rc == FC_ERR_STATE) {
                if (!out_batch)
                    abort();
                continue;
            }
            if (out_batch)
                abort(); /* a batch while states are unsaved */
            if (rc == FC_AGAIN) {
                if (s.closed || before >= b)
                    abort();
                continue;
            }
            if (rc == FC_END || rc == FC_ERR_INCOMPLETE) {
                if (!s.closed || (rc == FC_END) != (before == 0) ||
                    (rc == FC_ERR_INCOMPLETE && (before >= b || c.allow_small_batch)))
                    abort();
                continue;
            }
            if (rc != FC_OK || s.out.size == 0 || s.out.size > b ||
                (s.out.size < b && !(s.closed && c.allow_small_batch && s.out.size == before)))
                abort();
            for (i = 0; i < s.out.size; i++) {
                size_t e = (size_t)(s.out.insertion_index[i] - INT64_MIN);
                if (e >= MAXEX || i >= nflight || flight[i] != e || s.out.sequence[i] != seen[e] ||
                    s.out.sequence[i] >= s.out.sequence_count[i] || s.out.length[i] > u ||
                    s.out.key[i].size < 13 || s.out.key[i].data[5] != '_')
                    abort();
                seen[e]++;
            }
            out_batch = 1;
            saved = 0;
        } else if (op == 6) { /* save a state: any, twice, or undeclared */
            size_t st = take(&in) % (c.nstates + 1);
            rc = fc_seg_save_state(&s, st, s.out.states[st < c.nstates ? st : 0], &err);
            if (st == c.nstates) {
                if (rc != FC_ERR_ARG)
                    abort();
            } else if (!out_batch || (saved & (1u << st))) {
                if (rc != FC_ERR_STATE)
                    abort();
            } else {
                if (rc != FC_OK)
                    abort();
                saved |= 1u << st;
                if (saved == (1u << c.nstates) - 1u) {
                    size_t k = 0;
                    out_batch = 0;
                    for (i = 0; i < nflight; i++) {
                        size_t e = flight[i];
                        int done = 0;
                        size_t j;
                        for (j = 0; j < s.out.size; j++)
                            if ((size_t)(s.out.insertion_index[j] - INT64_MIN) == e &&
                                s.out.sequence[j] + 1 == s.out.sequence_count[j])
                                done = 1;
                        if (!done)
                            flight[k++] = e;
                    }
                    nflight = k;
                }
            }
        } else {
            fc_seg_close(&s);
        }
        /* new insertions join the flight list in order */
        while (inserted < s.inserted && inserted < MAXEX) {
            seen[inserted] = 0;
            flight[nflight++] = inserted++;
        }
        if (fc_seg_in_flight(&s) != nflight || nflight > cap)
            abort();
    }
    for (i = 0; i < nblocks; i++)
        free(blocks[i]);
    return 0;
}
