/* The segment batcher (runtime/core/segment.c, generated from
 * tests/specs/segment.feat): TensorFlow's SequenceQueueingStateSaver
 * semantics, texts and the state-saving proof.
 *
 * The proof: a tiny Elman RNN run over every example in segments, with its
 * hidden state carried by the batcher from segment to segment, ends in the
 * same state, to the last bit, as the same RNN run over the whole example at
 * once; for random num_unroll, batch_size, capacity, allow_small_batch and
 * lengths (shorter than a segment, exact multiples, explicit lengths), with
 * examples inserted as structs and as records.  Along the way every batch is
 * checked against the examples: keys, next keys, indices, counts, lengths,
 * insertion indices, context, every frame and the zeros past the end, and
 * TensorFlow's order (the oldest examples in flight first). */
/* test-specs: tests/specs/segment.feat */
#include <featc/fc.h>

#include "harness.h"
#include "segment.h" /* generated: featc compile tests/specs/segment.feat */
#include "wire.h"

#include <featc/fc_segment_mt.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>

static fc_error err;

static int has_text(const char *text)
{
    if (strstr(err.message, text) != NULL)
        return 1;
    fprintf(stderr, "  message: %s\n  wanted:  %s\n", err.message, text);
    return 0;
}

/* ---- the model: h' = tanh(b + Wx x + Wh h) */

#define HID 4
static const float Wx[HID][3] = {
    {0.5f, -0.25f, 0.125f}, {-0.75f, 0.3f, 0.2f}, {0.1f, 0.9f, -0.4f}, {0.33f, 0.0f, -0.6f}};
static const float Wh[HID][HID] = {{0.2f, -0.1f, 0.05f, 0.3f},
                                   {0.0f, 0.4f, -0.2f, 0.1f},
                                   {-0.3f, 0.2f, 0.25f, -0.05f},
                                   {0.15f, -0.35f, 0.1f, 0.45f}};
static const float bias[HID] = {0.01f, -0.02f, 0.03f, 0.0f};

static void rnn_step(float h[HID], const float x[3])
{
    float a[HID];
    size_t i, j;
    for (i = 0; i < HID; i++) {
        float s = bias[i];
        for (j = 0; j < 3; j++)
            s += Wx[i][j] * x[j];
        for (j = 0; j < HID; j++)
            s += Wh[i][j] * h[j];
        a[i] = tanhf(s);
    }
    memcpy(h, a, sizeof a);
}

/* ---- examples */

static const char *const words[] = {"a", "bb", "ccc", "", "eeeee", "ff"};
static char ids[64][16];

/* Example e with n frames (x, w, toks): deterministic in e. */
static void make_example(seg_clip *m, unsigned e, size_t n)
{
    size_t t, k;
    seg_clip_init(m);
    snprintf(ids[e % 64], sizeof ids[0], "id-%u", e);
    m->id.data = (const uint8_t *)ids[e % 64];
    m->id.size = strlen(ids[e % 64]);
    m->label = (int64_t)e * 11 - 5;
    m->tags_count = e % 5;
    for (k = 0; k < m->tags_count; k++) {
        m->tags[k].data = (const uint8_t *)words[(e + k) % 6];
        m->tags[k].size = strlen(words[(e + k) % 6]);
    }
    for (k = 0; k < 4; k++)
        m->emb[k / 2][k % 2] = (float)e + 0.25f * (float)k;
    m->x_frames = m->w_frames = m->toks_frames = n;
    for (t = 0; t < n; t++) {
        for (k = 0; k < 3; k++)
            m->x[t][k] = (float)((e * 7 + t * 3 + k) % 17) / 8.0f - 1.0f;
        m->w[t] = (int64_t)(e * 1000 + t);
        m->toks_count[t] = (e + t) % 4;
        for (k = 0; k < m->toks_count[t]; k++) {
            m->toks[t][k].data = (const uint8_t *)words[(e + t + k) % 6];
            m->toks[t][k].size = strlen(words[(e + t + k) % 6]);
        }
    }
}

/* A bytes_list Feature of n views. */
static void f_views(wbuf *f, const fc_bytes *v, size_t n)
{
    wbuf list;
    size_t k;
    list.n = f->n = 0;
    for (k = 0; k < n; k++)
        w_len(&list, 0x0A, v[k].data, v[k].size);
    w_len(f, 0x0A, list.b, list.n);
}

/* The record of a struct (every feature written; label left out when it
 * equals the default, to exercise the default path). */
static size_t serialize(const seg_clip *m, wbuf *out)
{
    static wbuf ctx, lists, fl, f;
    size_t t;
    ctx.n = lists.n = out->n = 0;
    f_views(&f, &m->id, 1);
    w_entry(&ctx, "id", &f);
    if (m->label != 7)
        w_entry_int64(&ctx, "label", &m->label, 1);
    f_views(&f, m->tags, m->tags_count);
    w_entry(&ctx, "tags", &f);
    w_entry_float(&ctx, "emb", &m->emb[0][0], 4);
    fl.n = 0;
    for (t = 0; t < m->x_frames; t++) {
        f.n = 0;
        f_float_packed(&f, m->x[t], 3);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "x", &fl);
    fl.n = 0;
    for (t = 0; t < m->w_frames; t++) {
        f.n = 0;
        f_int64_packed(&f, &m->w[t], 1);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "w", &fl);
    fl.n = 0;
    for (t = 0; t < m->toks_frames; t++) {
        f_views(&f, m->toks[t], m->toks_count[t]);
        w_len(&fl, 0x0A, f.b, f.n);
    }
    w_entry(&lists, "toks", &fl);
    w_len(out, 0x0A, ctx.b, ctx.n);
    w_len(out, 0x12, lists.b, lists.n);
    return out->n;
}

static int same_bytes(fc_bytes a, fc_bytes b)
{
    return a.size == b.size && (a.size == 0 || memcmp(a.data, b.data, a.size) == 0);
}

static int is_zero(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        if (c[i] != 0)
            return 0;
    return 1;
}

/* ---- the generated, typed batcher (U 4, B 3, capacity 5) */

static seg_clip_segmenter S;
static seg_clip E[16];

static void init_typed(void)
{
    fc_error_clear(&err);
    CHECK(seg_clip_seg_init(&S, &err) == FC_OK);
}

static int ins(unsigned e, size_t frames, size_t length)
{
    char key[16];
    make_example(&E[e], e, frames);
    snprintf(key, sizeof key, "k%u", e);
    fc_error_clear(&err);
    return seg_clip_seg_insert(&S, key, strlen(key), &E[e], length, NULL, &err);
}

static int save_all(void)
{
    int rc = seg_clip_seg_save_h(&S, &S.batch.state.h[0][0], &err);
    if (rc == FC_OK)
        rc = seg_clip_seg_save_state(&S, SEG_CLIP_STATE_STEPS, S.batch.state.steps, &err);
    return rc;
}

static int key_is(fc_bytes k, const char *text)
{
    if (k.size == strlen(text) && memcmp(k.data, text, k.size) == 0 && k.data[k.size] == '\0')
        return 1;
    fprintf(stderr, "  key: %.*s\n  wanted: %s\n", (int)k.size, (const char *)k.data, text);
    return 0;
}

/* Keys, next keys, indices, counts, lengths for one example of 10 frames
 * (3 segments of 4: lengths 4, 4, 2) and one of 4 (one segment). */
static void test_keys_and_lengths(void)
{
    size_t s;
    init_typed();
    CHECK(ins(0, 10, FC_SEG_LENGTH_FRAMES) == FC_OK);
    CHECK(ins(1, 4, FC_SEG_LENGTH_FRAMES) == FC_OK);
    CHECK(ins(2, 3, 2) == FC_OK); /* length 2 of 3 frames (padded 4) */
    for (s = 0; s < 3; s++) {
        CHECK(seg_clip_seg_next(&S, &err) == (s == 0 ? FC_OK : FC_AGAIN));
        if (s > 0)
            break;
        CHECK(S.batch.size == 3);
        CHECK(key_is(S.batch.key[0], "00000_of_00003:k0"));
        CHECK(key_is(S.batch.next_key[0], "00001_of_00003:k0"));
        CHECK(key_is(S.batch.key[1], "00000_of_00001:k1"));
        CHECK(key_is(S.batch.next_key[1], "STOP:k1"));
        CHECK(key_is(S.batch.key[2], "00000_of_00001:k2"));
        CHECK(S.batch.sequence[0] == 0 && S.batch.sequence_count[0] == 3);
        CHECK(S.batch.length[0] == 4 && S.batch.total_length[0] == 10);
        CHECK(S.batch.length[1] == 4 && S.batch.total_length[1] == 4);
        CHECK(S.batch.length[2] == 2 && S.batch.total_length[2] == 2);
        CHECK(S.batch.insertion_index[0] == INT64_MIN);
        CHECK(S.batch.insertion_index[2] == INT64_MIN + 2);
        CHECK(S.batch.example[1] == &S.examples[S.batch.slot[1]]);
        CHECK(S.batch.example[1]->w[3] == 1003);
        /* frame 3 of example 2 is real data past its length; nothing after */
        CHECK(S.batch.sequences.w[2][2] == 2002);
        CHECK(save_all() == FC_OK);
    }
    /* one example left in flight: no full batch until more come or close */
    CHECK(fc_seg_in_flight(&S.core) == 1);
    CHECK(has_text("1 of 3 examples in flight: insert more or close"));
    CHECK(S.batch.size == 0);
    seg_clip_seg_close(&S);
    CHECK(seg_clip_seg_next(&S, &err) == FC_ERR_INCOMPLETE);
    CHECK(has_text("Barrier 'clip' is closed and has insufficient elements (requested 3, total "
                   "size 1): the remaining segments of 1 example (the oldest \"k0\", at segment "
                   "1 of 3) cannot fill a batch; declare allow_small_batch to receive them"));
    CHECK(S.batch.size == 0);
}

/* Context in every segment, frames and the zeros past the end. */
static void test_segment_contents(void)
{
    size_t i, t, k, s;
    init_typed();
    CHECK(ins(3, 6, FC_SEG_LENGTH_FRAMES) == FC_OK);
    CHECK(ins(4, 9, FC_SEG_LENGTH_FRAMES) == FC_OK);
    CHECK(ins(5, 1, FC_SEG_LENGTH_FRAMES) == FC_OK);
    for (s = 0; s < 2; s++) {
        CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
        for (i = 0; i < S.batch.size; i++) {
            const seg_clip *m = &E[3 + i];
            CHECK(same_bytes(S.batch.context.id[i], m->id));
            CHECK(S.batch.context.label[i] == m->label);
            CHECK(S.batch.context.tags_count[i] == m->tags_count);
            for (k = 0; k < 4; k++) {
                if (k < m->tags_count)
                    CHECK(same_bytes(S.batch.context.tags[i][k], m->tags[k]));
                else
                    CHECK(S.batch.context.tags[i][k].data == NULL);
                CHECK(S.batch.context.emb[i][k / 2][k % 2] == m->emb[k / 2][k % 2]);
            }
            for (t = 0; t < 4; t++) {
                size_t f = S.batch.sequence[i] * 4 + t;
                if (f < m->x_frames) {
                    CHECK(memcmp(S.batch.sequences.x[i][t], m->x[f], sizeof m->x[f]) == 0);
                    CHECK(S.batch.sequences.w[i][t] == m->w[f]);
                    CHECK(S.batch.sequences.toks_count[i][t] == m->toks_count[f]);
                    for (k = 0; k < m->toks_count[f]; k++)
                        CHECK(same_bytes(S.batch.sequences.toks[i][t][k], m->toks[f][k]));
                } else {
                    CHECK(is_zero(S.batch.sequences.x[i][t], sizeof S.batch.sequences.x[i][t]));
                    CHECK(S.batch.sequences.w[i][t] == 0);
                    CHECK(S.batch.sequences.toks_count[i][t] == 0);
                    CHECK(is_zero(S.batch.sequences.toks[i][t],
                                  sizeof S.batch.sequences.toks[i][t]));
                }
            }
        }
        if (s == 0) {
            CHECK(S.batch.size == 3);
            CHECK(save_all() == FC_OK);
            /* example 5 (one segment) finished: two left */
            CHECK(fc_seg_in_flight(&S.core) == 2);
            seg_clip_seg_close(&S);
            S.core.cfg.allow_small_batch = 1;
        } else {
            CHECK(S.batch.size == 2); /* a small final batch */
            CHECK(S.batch.sequence[0] == 1 && S.batch.sequence[1] == 1);
            CHECK(save_all() == FC_OK);
        }
    }
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK); /* example 4's third segment */
    CHECK(S.batch.size == 1 && S.batch.sequence[0] == 2 && S.batch.length[0] == 1);
    CHECK(key_is(S.batch.next_key[0], "STOP:k4"));
    CHECK(save_all() == FC_OK);
    CHECK(seg_clip_seg_next(&S, &err) == FC_END);
    CHECK(S.batch.size == 0);
}

/* States: the initial values for segment 0, the saved ones after; saves of
 * a finished example are ignored; the protocol's errors. */
static void test_state_protocol(void)
{
    seg_clip_states init;
    size_t i;
    init_typed();
    CHECK(seg_clip_seg_next(&S, &err) == FC_AGAIN);
    CHECK(seg_clip_seg_save_h(&S, &S.batch.state.h[0][0], &err) == FC_ERR_STATE);
    CHECK(has_text("save_state(\"h\"): no batch is out (call next first)"));
    for (i = 0; i < 3; i++) {
        char key[8];
        make_example(&E[i], (unsigned)i, i == 0 ? 4 : 8);
        memset(&init, 0, sizeof init);
        init.h[0] = (float)i + 0.5f;
        init.steps = 100 * (int64_t)i;
        snprintf(key, sizeof key, "s%u", (unsigned)i);
        CHECK(seg_clip_seg_insert(&S, key, 2, &E[i], FC_SEG_LENGTH_FRAMES, &init, &err) ==
              FC_OK);
    }
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
    for (i = 0; i < 3; i++) {
        CHECK(S.batch.state.h[i][0] == (float)i + 0.5f);
        CHECK(S.batch.state.steps[i] == 100 * (int64_t)i);
        S.batch.state.h[i][1] = -(float)i;
        S.batch.state.steps[i] += 4;
    }
    CHECK(seg_clip_seg_next(&S, &err) == FC_ERR_STATE);
    CHECK(has_text("save_state(\"h\") was not called for batch 0: a segment is handed out only "
                   "after the states of the one before it were saved"));
    CHECK(seg_clip_seg_save_h(&S, &S.batch.state.h[0][0], &err) == FC_OK);
    CHECK(seg_clip_seg_save_h(&S, &S.batch.state.h[0][0], &err) == FC_ERR_STATE);
    CHECK(has_text("save_state(\"h\"): already saved for batch 0"));
    CHECK(seg_clip_seg_next(&S, &err) == FC_ERR_STATE);
    CHECK(has_text("save_state(\"steps\") was not called for batch 0"));
    CHECK(fc_seg_save_state(&S.core, 2, S.batch.state.steps, &err) == FC_ERR_ARG);
    CHECK(has_text("state was not declared: #2"));
    CHECK(fc_seg_find_state(&S.core, "steps") == SEG_CLIP_STATE_STEPS);
    CHECK(fc_seg_find_state(&S.core, "lstm") == -1);
    CHECK(seg_clip_seg_save_state(&S, SEG_CLIP_STATE_STEPS, S.batch.state.steps, &err) == FC_OK);
    /* example 0 finished (one segment); 1 and 2 come back with saved states */
    CHECK(fc_seg_in_flight(&S.core) == 2);
    seg_clip_seg_close(&S);
    S.core.cfg.allow_small_batch = 1;
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
    CHECK(S.batch.size == 2);
    for (i = 0; i < 2; i++) {
        CHECK(S.batch.sequence[i] == 1);
        CHECK(S.batch.state.h[i][0] == (float)(i + 1) + 0.5f);
        CHECK(S.batch.state.h[i][1] == -(float)(i + 1));
        CHECK(S.batch.state.steps[i] == 100 * (int64_t)(i + 1) + 4);
    }
    CHECK(save_all() == FC_OK);
    CHECK(seg_clip_seg_next(&S, &err) == FC_END);
}

/* Capacity: the most examples in flight; FC_AGAIN changes nothing. */
static void test_capacity(void)
{
    unsigned e;
    init_typed();
    for (e = 0; e < 5; e++)
        CHECK(ins(e, 4 * (e + 1), FC_SEG_LENGTH_FRAMES) == FC_OK);
    CHECK(ins(5, 4, FC_SEG_LENGTH_FRAMES) == FC_AGAIN);
    CHECK(has_text("capacity reached: 5 examples in flight; take a batch and save its states, "
                   "then insert \"k5\" again"));
    CHECK(fc_seg_in_flight(&S.core) == 5 && S.core.inserted == 5);
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
    CHECK(ins(5, 4, FC_SEG_LENGTH_FRAMES) == FC_AGAIN); /* k0 not finished until saved */
    CHECK(save_all() == FC_OK);
    CHECK(ins(5, 4, FC_SEG_LENGTH_FRAMES) == FC_OK); /* k0 (one segment) left */
    CHECK(ins(6, 4, FC_SEG_LENGTH_FRAMES) == FC_AGAIN);
    /* TF's order: the oldest first, so k1 and k2 come before k3 */
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
    CHECK(key_is(S.batch.key[0], "00001_of_00002:k1"));
    CHECK(key_is(S.batch.key[1], "00001_of_00003:k2"));
    CHECK(key_is(S.batch.key[2], "00000_of_00004:k3"));
    CHECK(save_all() == FC_OK);
}

/* TensorFlow's testStateSaverProcessesExamplesInOrder: examples of two
 * segments each come out batch_size at a time, both segments of a group of
 * examples in two adjacent batches, in insertion order. */
static void test_in_order(void)
{
    size_t step, i;
    init_typed();
    for (step = 0; step < 20; step++) {
        if (step % 2 == 0)
            for (i = 0; i < 3; i++)
                CHECK(ins((unsigned)(step / 2 * 3 + i) % 16, 8, FC_SEG_LENGTH_FRAMES) == FC_OK);
        CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
        for (i = 0; i < 3; i++) {
            CHECK(S.batch.insertion_index[i] ==
                  INT64_MIN + (int64_t)(step / 2 * 3 + i));
            CHECK(S.batch.sequence[i] == step % 2);
        }
        CHECK(save_all() == FC_OK);
    }
    CHECK(fc_seg_in_flight(&S.core) == 0);
}

/* The examples TensorFlow rejects, each with its text; nothing changes. */
static void test_rejected_examples(void)
{
    static seg_clip m;
    char longkey[40];
    init_typed();
    make_example(&m, 1, 6);
    m.w_frames = 5;
    CHECK(seg_clip_seg_insert(&S, "a", 1, &m, FC_SEG_LENGTH_FRAMES, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("All sequence lengths must match, but received lengths: [6 5 6] (example "
                   "\"a\": feature list x has 6 frames, w has 5)"));
    make_example(&m, 1, 0);
    CHECK(seg_clip_seg_insert(&S, "a", 1, &m, FC_SEG_LENGTH_FRAMES, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("Tensor padded_length should be a multiple of: 4, but saw value: 0. Consider "
                   "setting pad=True. (example \"a\" has no frames: an example needs at least "
                   "one step)"));
    make_example(&m, 1, 6);
    CHECK(seg_clip_seg_insert(&S, "a", 1, &m, 9, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("Input length should be <= than length from sequences: 9 vs. 8 (example "
                   "\"a\")"));
    CHECK(seg_clip_seg_insert(&S, "a", 1, &m, 8, NULL, &err) == FC_OK); /* up to padded */
    CHECK(seg_clip_seg_insert(&S, "a", 1, &m, 8, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("Key 00000_of_00002:a already has a value in the state saver: example \"a\" "
                   "is still in flight (inserted as example 0, at segment 0 of 2); keys must be "
                   "unique among the examples in flight"));
    memset(longkey, 'k', sizeof longkey);
    CHECK(seg_clip_seg_insert(&S, longkey, 17, &m, 8, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("is 17 bytes, longer than the declared key max 16"));
    m.toks_count[2] = 4; /* past the bound: a struct that did not come from the parser */
    CHECK(seg_clip_seg_insert(&S, "b", 1, &m, 8, NULL, &err) == FC_ERR_ARG);
    CHECK(has_text("feature list toks holds more frames or values than its bounds"));
    CHECK(fc_seg_in_flight(&S.core) == 1 && S.core.inserted == 1);
    seg_clip_seg_close(&S);
    make_example(&m, 2, 4);
    CHECK(seg_clip_seg_insert(&S, "c", 1, &m, 8, NULL, &err) == FC_ERR_CLOSED);
    CHECK(has_text("the state saver is closed: example \"c\" was not inserted"));
}

/* A key comes back once its example finished (TF: capacity smaller than
 * the number of examples when keys are reused). */
static void test_key_reuse(void)
{
    unsigned round;
    init_typed();
    for (round = 0; round < 3; round++) {
        CHECK(ins(0, 4, FC_SEG_LENGTH_FRAMES) == FC_OK);
        CHECK(ins(1, 4, FC_SEG_LENGTH_FRAMES) == FC_OK);
        CHECK(ins(2, 4, FC_SEG_LENGTH_FRAMES) == FC_OK);
        CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
        CHECK(save_all() == FC_OK);
    }
    CHECK(S.core.finished == 9);
}

/* Records: copied into the example's store and parsed there, so the bytes
 * outlive the caller's buffer; parse errors and oversize records change
 * nothing. */
static void test_records(void)
{
    static wbuf rec;
    static seg_clip m;
    size_t len;
    init_typed();
    make_example(&m, 9, 5);
    len = serialize(&m, &rec);
    CHECK(seg_clip_seg_insert_record(&S, "r", 1, rec.b, len, FC_SEG_LENGTH_FRAMES, NULL, &err) ==
          FC_OK);
    memset(rec.b, 0xEE, len); /* the caller's buffer is gone */
    CHECK(seg_clip_seg_insert_record(&S, "bad", 3, "\x0a\x05", 2, FC_SEG_LENGTH_FRAMES, NULL,
                                     &err) == FC_ERR_PARSE);
    CHECK(seg_clip_seg_insert_record(&S, "big", 3, rec.b, 2049, FC_SEG_LENGTH_FRAMES, NULL,
                                     &err) == FC_ERR_ARG);
    CHECK(has_text("record of 2049 bytes is larger than the declared record max 2048"));
    CHECK(fc_seg_in_flight(&S.core) == 1);
    seg_clip_seg_close(&S);
    S.core.cfg.allow_small_batch = 1;
    CHECK(seg_clip_seg_next(&S, &err) == FC_OK);
    CHECK(S.batch.size == 1);
    CHECK(same_bytes(S.batch.context.id[0], m.id));
    CHECK(S.batch.context.label[0] == m.label);
    CHECK(same_bytes(S.batch.sequences.toks[0][2][0], m.toks[2][0]) || m.toks_count[2] == 0);
    CHECK(S.batch.sequences.toks_count[0][3] == m.toks_count[3]);
    CHECK(S.batch.sequences.x[0][3][1] == m.x[3][1]);
}

/* Configuration errors, in TensorFlow's words where it has them. */
static void test_config_errors(void)
{
    fc_seg_config c = seg_clip_seg_config;
    fc_state_desc st[2];
    static unsigned char block[1 << 16];
    fc_segmenter s;
    c.capacity = 2;
    CHECK(fc_seg_init_block(&s, &c, block, sizeof block, &err) == 0);
    CHECK(has_text("capacity must be larger or equal to batch_size (capacity 2, batch_size 3)"));
    c = seg_clip_seg_config;
    c.nstates = 0;
    CHECK(fc_seg_init_block(&s, &c, block, sizeof block, &err) == 0);
    CHECK(has_text("initial_states may not be empty: at least one state variable is required to "
                   "properly enqueue split sequences to run in separate iterations"));
    c = seg_clip_seg_config;
    memcpy(st, c.states, sizeof st);
    st[1].name = "a:b";
    c.states = st;
    CHECK(fc_seg_init_block(&s, &c, block, sizeof block, &err) == 0);
    CHECK(has_text("state name may not have a colon: 'a:b'"));
    c = seg_clip_seg_config;
    c.num_unroll = 0;
    CHECK(fc_seg_init_block(&s, &c, block, sizeof block, &err) == 0);
    CHECK(has_text("num_unroll must be at least 1"));
    c = seg_clip_seg_config;
    CHECK(fc_seg_init_block(&s, &c, block, 100, &err) > 100);
    CHECK(err.status == FC_ERR_NO_MEMORY);
    CHECK(fc_seg_init_block(&s, &c, block + 1, sizeof block - 1, &err) > 0); /* unaligned */
    CHECK(err.status == FC_OK || err.status == FC_ERR_NO_MEMORY);
}

/* ---- the proof, with run-time parameters over one caller block */

#define NEX 40
typedef struct track {
    seg_clip m;
    size_t frames, length, padded, seen;
    float h0[HID], h[HID];
    int64_t steps;
    int done;
    char key[16];
} track;

static track T[NEX];

typedef struct prop_stats {
    size_t runs, examples, finished, short_ones, multiples, explicit_lengths, batches, small,
        incomplete;
} prop_stats;

/* The segmenter's block, kept from run to run and freed after the last. */
static unsigned char *prop_block;
static size_t prop_block_size;

/* One run with parameters drawn from seed. */
static void prop_run(unsigned long long seed, prop_stats *st)
{
    fc_seg_config c = seg_clip_seg_config;
    fc_segmenter s;
    static wbuf rec;
    size_t need, u, b, nex, next_ex = 0, order[NEX], norder = 0, i, t, k;
    int rc;
    h_rng_state = seed;
    u = c.num_unroll = 1 + (size_t)(h_rand() % 9);
    b = c.batch_size = 1 + (size_t)(h_rand() % 6);
    c.capacity = b + (size_t)(h_rand() % 6);
    c.allow_small_batch = (int)(h_rand() % 2);
    c.unpadded = h_rand() % 5 == 0;
    nex = (size_t)(h_rand() % NEX);
    need = fc_seg_init_block(&s, &c, NULL, 0, &err);
    if (need > prop_block_size) {
        free(prop_block);
        prop_block = (unsigned char *)malloc(need);
        prop_block_size = need;
    }
    CHECK(fc_seg_init_block(&s, &c, prop_block, need, &err) == need);
    st->runs++;
    for (i = 0; i < nex; i++) {
        track *tr = &T[i];
        size_t pick = (size_t)(h_rand() % 6);
        tr->frames = pick == 0 ? 1 : pick == 1 ? u : pick == 2 ? 2 * u : pick == 3 ? u - 1
                                                                      : 1 + (size_t)(h_rand() % 40);
        if (c.unpadded)
            tr->frames = u * (1 + (size_t)(h_rand() % (40 / u)));
        if (tr->frames == 0 || tr->frames > 40)
            tr->frames = 1 + (size_t)(h_rand() % 40);
        make_example(&tr->m, (unsigned)i, tr->frames);
        tr->padded = (tr->frames + u - 1) / u * u;
        tr->length = h_rand() % 3 == 0 ? (size_t)(h_rand() % (tr->padded + 1)) : tr->frames;
        for (k = 0; k < HID; k++)
            tr->h0[k] = tr->h[k] = (float)(h_rand() % 100) / 50.0f - 1.0f;
        tr->steps = (int64_t)i;
        tr->seen = 0;
        tr->done = 0;
        snprintf(tr->key, sizeof tr->key, "e%u", (unsigned)i);
        st->examples++;
        st->short_ones += tr->frames < u;
        st->multiples += tr->frames % u == 0;
        st->explicit_lengths += tr->length != tr->frames;
    }
    for (;;) {
        if (next_ex < nex) {
            track *tr = &T[next_ex];
            seg_clip_states init;
            memcpy(init.h, tr->h, sizeof init.h);
            init.steps = tr->steps;
            if (next_ex % 2 == 0) {
                size_t len = serialize(&tr->m, &rec);
                rc = fc_seg_insert_record(&s, tr->key, strlen(tr->key), rec.b, len,
                                          tr->length == tr->frames ? FC_SEG_LENGTH_FRAMES
                                                                   : tr->length,
                                          &init, &err);
            } else {
                rc = fc_seg_insert(&s, tr->key, strlen(tr->key), &tr->m, tr->length, &init, &err);
            }
            if (rc == FC_OK) {
                order[norder++] = next_ex++;
                continue;
            }
            CHECK_MSG(rc == FC_AGAIN, "insert %zu: %s", next_ex, err.message);
            CHECK(fc_seg_in_flight(&s) == c.capacity);
            if (rc != FC_AGAIN)
                return;
        } else {
            fc_seg_close(&s);
        }
        rc = fc_seg_next(&s, &err);
        if (rc == FC_END || rc == FC_ERR_INCOMPLETE) {
            CHECK(next_ex == nex);
            break;
        }
        CHECK_MSG(rc == FC_OK, "next: %s", err.message);
        if (rc != FC_OK)
            return;
        st->batches++;
        st->small += s.out.size < b;
        CHECK(s.out.size == b || (next_ex == nex && c.allow_small_batch && s.out.size == norder));
        for (i = 0; i < s.out.size; i++) {
            track *tr = &T[order[i]]; /* the oldest in flight, in order */
            size_t seq = tr->seen, cnt = tr->padded / u, len, e = order[i];
            char want[64];
            const float *x = (const float *)s.out.lists[0].values + (i * u) * 3;
            const int64_t *w = (const int64_t *)s.out.lists[1].values + i * u;
            const fc_bytes *toks = (const fc_bytes *)s.out.lists[2].values + (i * u) * 3;
            float *h = (float *)s.out.states[0] + i * HID;
            int64_t *steps = (int64_t *)s.out.states[1] + i;
            CHECK(s.out.insertion_index[i] == INT64_MIN + (int64_t)e);
            CHECK(s.out.sequence[i] == seq && s.out.sequence_count[i] == cnt);
            snprintf(want, sizeof want, "%05zu_of_%05zu:%s", seq, cnt, tr->key);
            CHECK(s.out.key[i].size == strlen(want) &&
                  memcmp(s.out.key[i].data, want, strlen(want)) == 0);
            if (seq + 1 < cnt)
                snprintf(want, sizeof want, "%05zu_of_%05zu:%s", seq + 1, cnt, tr->key);
            else
                snprintf(want, sizeof want, "STOP:%s", tr->key);
            CHECK(s.out.next_key[i].size == strlen(want) &&
                  memcmp(s.out.next_key[i].data, want, strlen(want)) == 0);
            len = tr->length > seq * u ? tr->length - seq * u : 0;
            if (len > u)
                len = u;
            CHECK(s.out.length[i] == len && s.out.total_length[i] == tr->length);
            CHECK(same_bytes(((const fc_bytes *)s.out.context[0].values)[i], tr->m.id));
            CHECK(((const int64_t *)s.out.context[1].values)[i] == tr->m.label);
            CHECK(s.out.context[2].counts[i] == tr->m.tags_count);
            for (k = 0; k < tr->m.tags_count; k++)
                CHECK(same_bytes(((const fc_bytes *)s.out.context[2].values)[i * 4 + k],
                                 tr->m.tags[k]));
            CHECK(memcmp((const float *)s.out.context[3].values + i * 4, tr->m.emb,
                         sizeof tr->m.emb) == 0);
            for (t = 0; t < u; t++) {
                size_t f = seq * u + t, n = s.out.lists[2].counts[i * u + t];
                if (f < tr->frames) {
                    CHECK(memcmp(x + t * 3, tr->m.x[f], sizeof tr->m.x[f]) == 0);
                    CHECK(w[t] == tr->m.w[f]);
                    CHECK(n == tr->m.toks_count[f]);
                    for (k = 0; k < n && k < 3; k++)
                        CHECK(same_bytes(toks[t * 3 + k], tr->m.toks[f][k]));
                } else {
                    CHECK(is_zero(x + t * 3, 3 * sizeof(float)) && w[t] == 0 && n == 0);
                }
                for (k = n; k < 3; k++)
                    CHECK(toks[t * 3 + k].data == NULL && toks[t * 3 + k].size == 0);
            }
            /* the state as saved after the previous segment, bit for bit */
            CHECK(memcmp(h, tr->h, sizeof tr->h) == 0);
            CHECK(*steps == tr->steps);
            for (t = 0; t < len; t++)
                rnn_step(h, x + t * 3);
            *steps += (int64_t)len;
            memcpy(tr->h, h, sizeof tr->h);
            tr->steps = *steps;
            tr->seen++;
        }
        /* states saved in a random order, written in place */
        if (h_rand() % 2) {
            CHECK(fc_seg_save_state(&s, 1, s.out.states[1], &err) == FC_OK);
            CHECK(fc_seg_save_state(&s, 0, s.out.states[0], &err) == FC_OK);
        } else {
            CHECK(fc_seg_save_state(&s, 0, s.out.states[0], &err) == FC_OK);
            CHECK(fc_seg_save_state(&s, 1, s.out.states[1], &err) == FC_OK);
        }
        for (i = 0, k = 0; i < norder; i++) {
            track *tr = &T[order[i]];
            if (tr->seen == tr->padded / u)
                tr->done = 1;
            else
                order[k++] = order[i];
        }
        norder = k;
        CHECK(fc_seg_in_flight(&s) == norder);
    }
    if (rc == FC_ERR_INCOMPLETE) {
        char want[64];
        CHECK(!c.allow_small_batch && norder > 0 && norder < b);
        snprintf(want, sizeof want, "(requested %zu, total size %zu)", b, norder);
        CHECK(has_text(want));
        st->incomplete += norder;
    } else {
        CHECK(norder == 0);
    }
    /* Every example is finished or reported; a finished one went through
     * every segment, and the segmented state is the whole-sequence state. */
    for (i = 0; i < nex; i++) {
        track *tr = &T[i];
        float h[HID];
        if (!tr->done) {
            for (k = 0; k < norder; k++)
                if (order[k] == i)
                    break;
            CHECK_MSG(k < norder, "example %zu neither finished nor reported", i);
            continue;
        }
        st->finished++;
        CHECK(tr->seen == tr->padded / u);
        CHECK(tr->steps == (int64_t)i + (int64_t)tr->length);
        memcpy(h, tr->h0, sizeof h);
        for (t = 0; t < tr->length && t < tr->frames; t++)
            rnn_step(h, tr->m.x[t]);
        for (; t < tr->length; t++) { /* steps past the frames see the zero padding */
            static const float zero[3] = {0, 0, 0};
            rnn_step(h, zero);
        }
        CHECK_MSG(memcmp(h, tr->h, sizeof h) == 0, "seed %llx example %zu: %a vs %a", seed, i,
                  (double)h[0], (double)tr->h[0]);
    }
}

static void test_segmented_equals_whole(void)
{
    prop_stats st;
    size_t runs;
    memset(&st, 0, sizeof st);
    for (runs = 0; runs < 400; runs++)
        prop_run(0x5e9d000000000000ull + runs * 7919u, &st);
    free(prop_block);
    prop_block = NULL;
    prop_block_size = 0;
    printf("segment: %zu runs, %zu examples (%zu shorter than one segment, %zu exact multiples, "
           "%zu with an explicit length), %zu finished bit-exact, %zu reported after "
           "close, %zu batches (%zu small)\n",
           st.runs, st.examples, st.short_ones, st.multiples, st.explicit_lengths, st.finished,
           st.incomplete, st.batches, st.small);
    CHECK(st.finished > 1000 && st.short_ones > 100 && st.multiples > 100 && st.small > 10 &&
          st.incomplete > 10);
}

/* ---- a producer thread and a consumer thread (fc_segment_mt.h) */

#define NMT 300
static seg_clip MT[NMT];
static float mt_h[NMT][HID];
static size_t mt_seen[NMT];
static int mt_done[NMT];

static void *producer(void *arg)
{
    fc_seg_mt *mt = (fc_seg_mt *)arg;
    fc_error e;
    size_t i;
    int bad = 0;
    for (i = 0; i < NMT; i++) {
        char key[16];
        int n = snprintf(key, sizeof key, "t%zu", i);
        if (fc_seg_mt_insert(mt, key, (size_t)n, &MT[i], FC_SEG_LENGTH_FRAMES, NULL, &e) != FC_OK)
            bad = 1;
    }
    fc_seg_mt_close(mt);
    return bad ? arg : NULL;
}

/* The producer inserts 300 examples, blocking whenever capacity is reached;
 * the consumer takes batches, blocking whenever too few are in flight, runs
 * the RNN and saves.  Every example finishes, its segments in order, with
 * the whole-sequence state. */
static void test_threads(void)
{
    fc_seg_config c = seg_clip_seg_config;
    static unsigned char block[1u << 22];
    static fc_segmenter s;
    fc_seg_mt mt;
    pthread_t th;
    void *res = NULL;
    size_t i, t, u = 5, finished = 0, batches = 0, need;
    int rc;
    c.num_unroll = u;
    c.batch_size = 4;
    c.capacity = 6;
    c.allow_small_batch = 1;
    need = fc_seg_init_block(&s, &c, NULL, 0, &err);
    CHECK(need <= sizeof block && fc_seg_init_block(&s, &c, block, need, &err) == need);
    for (i = 0; i < NMT; i++) {
        make_example(&MT[i], (unsigned)i, 1 + (i * 13) % 37);
        memset(mt_h[i], 0, sizeof mt_h[i]);
        mt_seen[i] = 0;
        mt_done[i] = 0;
    }
    CHECK(fc_seg_mt_init(&mt, &s) == FC_OK);
    CHECK(pthread_create(&th, NULL, producer, &mt) == 0);
    while ((rc = fc_seg_mt_next(&mt, &err)) == FC_OK) {
        batches++;
        for (i = 0; i < s.out.size; i++) {
            size_t e = (size_t)(s.out.insertion_index[i] - INT64_MIN);
            const float *x = (const float *)s.out.lists[0].values + i * u * 3;
            float *h = (float *)s.out.states[0] + i * HID;
            CHECK(e < NMT && s.out.sequence[i] == mt_seen[e]);
            if (e >= NMT)
                continue;
            CHECK(memcmp(h, mt_h[e], sizeof mt_h[e]) == 0);
            for (t = 0; t < s.out.length[i]; t++)
                rnn_step(h, x + t * 3);
            memcpy(mt_h[e], h, sizeof mt_h[e]);
            if (++mt_seen[e] == s.out.sequence_count[i])
                mt_done[e] = 1;
        }
        CHECK(fc_seg_mt_save_state(&mt, 0, s.out.states[0], &err) == FC_OK);
        CHECK(fc_seg_mt_save_state(&mt, 1, s.out.states[1], &err) == FC_OK);
    }
    CHECK(rc == FC_END);
    CHECK(pthread_join(th, &res) == 0 && res == NULL);
    fc_seg_mt_destroy(&mt);
    for (i = 0; i < NMT; i++) {
        float h[HID] = {0, 0, 0, 0};
        for (t = 0; t < MT[i].x_frames; t++)
            rnn_step(h, MT[i].x[t]);
        if (mt_done[i] && memcmp(h, mt_h[i], sizeof h) == 0)
            finished++;
    }
    CHECK_MSG(finished == NMT, "%zu of %d finished bit-exact", finished, NMT);
    CHECK(batches > 100);
}

int main(void)
{
    RUN(test_keys_and_lengths);
    RUN(test_segment_contents);
    RUN(test_state_protocol);
    RUN(test_capacity);
    RUN(test_in_order);
    RUN(test_rejected_examples);
    RUN(test_key_reuse);
    RUN(test_records);
    RUN(test_config_errors);
    RUN(test_segmented_equals_whole);
    RUN(test_threads);
    return harness_report("segment");
}
