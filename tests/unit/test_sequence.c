/* Behaviour of generated SequenceExample parsers on hand-built records: one
 * test per rule of TensorFlow's SequenceExample semantics and per
 * conformant / non-conformant pair of the SequenceExample documentation
 * (docs/semantics.md), through the code featc generates
 * for tests/specs/seqsem.feat. */
/* test-specs: tests/specs/seqsem.feat tests/specs/seqragged.feat */
#include <stdio.h>

#include <featc/fc_json.h>
#include <featc/fc_hash.h>

#include "harness.h"
#include "seqragged.h"
#include "seqsem.h"
#include "wire.h"

static seq_s msg;
static seq_a amsg;
static fc_error err;

/* ---- record building: a context map and a feature_lists map */

static wbuf ctx, lists, ex;

static void reset(void)
{
    ctx.n = lists.n = ex.n = 0;
}

static void ctx_add(const char *key, const wbuf *feature)
{
    w_entry(&ctx, key, feature);
}

/* A feature list of frames, each a Feature body. */
static void list_add(const char *key, const wbuf *frames, size_t n)
{
    static wbuf fl;
    size_t i;
    fl.n = 0;
    for (i = 0; i < n; i++)
        w_len(&fl, 0x0A, frames[i].b, frames[i].n);
    w_entry(&lists, key, &fl);
}

static void build(void)
{
    ex.n = 0;
    w_len(&ex, 0x0A, ctx.b, ctx.n);
    w_len(&ex, 0x12, lists.b, lists.n);
}

static int parse(void)
{
    build();
    fc_error_clear(&err);
    return seq_s_parse(&msg, ex.b, ex.n, &err);
}

static int has_text(const char *text)
{
    if (strstr(err.message, text) != NULL)
        return 1;
    fprintf(stderr, "  message: %s\n  wanted:  %s\n", err.message, text);
    return 0;
}

static void i64(wbuf *f, int64_t a)
{
    f->n = 0;
    f_int64_packed(f, &a, 1);
}

static void i64s(wbuf *f, const int64_t *v, size_t n)
{
    f->n = 0;
    f_int64_packed(f, v, n);
}

static void f32s(wbuf *f, const float *v, size_t n)
{
    f->n = 0;
    f_float_packed(f, v, n);
}

static void strs(wbuf *f, const char *const *v, size_t n)
{
    f->n = 0;
    f_bytes(f, v, n);
}

/* The base record: c = 5; fr = [[1], [2]]; v = [["a"], []]; vu = [[1,2], [3,4]]. */
static void base_context(void)
{
    static wbuf f;
    i64(&f, 5);
    ctx_add("c", &f);
}

static void base_lists(int skip_fr)
{
    static const int64_t one[1] = {1}, two[1] = {2}, a12[2] = {1, 2}, a34[2] = {3, 4};
    static const char *const a[1] = {"a"};
    static wbuf fr[2], v[2], vu[2];
    if (!skip_fr) {
        i64s(&fr[0], one, 1);
        i64s(&fr[1], two, 1);
        list_add("fr", fr, 2);
    }
    strs(&v[0], a, 1);
    v[1].n = 0; /* Feature{}: an empty frame */
    list_add("v", v, 2);
    i64s(&vu[0], a12, 2);
    i64s(&vu[1], a34, 2);
    list_add("vu", vu, 2);
}

static void base(void)
{
    reset();
    base_context();
    base_lists(0);
}

/* ------------------------------------------------------------------ tests */

static void test_valid_record(void)
{
    base();
    CHECK(parse() == FC_OK);
    CHECK(msg.c == 5);
    CHECK(msg.cd[0] == 1.0f && msg.cd[1] == 2.0f); /* default */
    CHECK(msg.cv_count == 0 && !seq_s_has(&msg, SEQ_S_CV));
    CHECK(msg.fr_frames == 2 && msg.fr[0] == 1 && msg.fr[1] == 2);
    CHECK(msg.fm_frames == 0 && !seq_s_has(&msg, SEQ_S_FM)); /* allow_missing */
    CHECK(msg.v_frames == 2 && msg.v_count[0] == 1 && msg.v_count[1] == 0);
    CHECK(msg.v[0][0].size == 1 && msg.v[0][0].data[0] == 'a');
    CHECK(msg.vu_frames == 2 && msg.vu[1][1] == 4);
    CHECK(seq_s_has(&msg, SEQ_S_C) && seq_s_has(&msg, SEQ_S_FR) && !seq_s_has(&msg, SEQ_S_CD));
}

/* The documentation's "a feature list may be missing; a present list may be
 * empty": fm (allow_missing) missing is empty; fr (required) missing fails;
 * fr present with no frames is fine. */
static void test_missing_vs_empty_lists(void)
{
    reset();
    base_context();
    base_lists(1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list 'fr' is required but could not be found.  Did "
                   "you mean to include it in feature_list_dense_missing_assumed_empty or "
                   "feature_list_dense_defaults?"));
    reset();
    base_context();
    base_lists(1);
    list_add("fr", NULL, 0); /* present, zero frames */
    list_add("fm", NULL, 0);
    CHECK(parse() == FC_OK);
    CHECK(msg.fr_frames == 0 && seq_s_has(&msg, SEQ_S_FR));
    CHECK(msg.fm_frames == 0 && seq_s_has(&msg, SEQ_S_FM));
    /* a VarLen list is empty when missing */
    reset();
    base_context();
    {
        wbuf fr[1];
        i64(&fr[0], 1);
        list_add("fr", fr, 1);
    }
    CHECK(parse() == FC_OK && msg.v_frames == 0 && msg.vu_frames == 0);
}

/* "All Features inside a FeatureList must share one type": a frame of
 * another type is an error naming the list and the frame. */
static void test_types_inside_a_list(void)
{
    static const float half = 0.5f;
    static wbuf fr[3];
    reset();
    base_context();
    base_lists(1);
    i64(&fr[0], 1);
    i64(&fr[1], 2);
    f32s(&fr[2], &half, 1);
    list_add("fr", fr, 3);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: fr, Index: 2.  Data types don't match. "
                   "Expected type: int64 (found a float_list at byte "));
}

/* "A feature key must have the same type in every example": the same list
 * as int64 in one record and float in the next; the second fails. */
static void test_types_across_records(void)
{
    static const float f = 1.5f;
    static wbuf fr[1];
    base();
    CHECK(parse() == FC_OK);
    reset();
    base_context();
    base_lists(1);
    f32s(&fr[0], &f, 1);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fr, Index: 0.  Data types don't match. Expected type: int64"));
}

/* Frame sizes: a fixed-shape list needs exactly its frame shape in every
 * frame; VarLen frames are free, unless the spec says uniform. */
static void test_frame_sizes(void)
{
    static const float v5[5] = {1, 2, 3, 4, 5};
    static const int64_t v3[3] = {1, 2, 3};
    static wbuf fm[2], vu[2];
    /* total 5 values: not a multiple of 2 */
    base();
    f32s(&fm[0], v5, 2);
    f32s(&fm[1], v5, 3);
    list_add("fm", fm, 2);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list 'fm' has an unexpected number of values.  Total values size: 5 "
                   "is not consistent with output shape: [?,2]"));
    /* total 4 = 2 frames of 2, but frame 0 has 1 value */
    base();
    f32s(&fm[0], v5, 1);
    f32s(&fm[1], v5, 3);
    list_add("fm", fm, 2);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Key: fm, Index: 0.  Number of values != expected.  values "
                   "size: 1 but output shape: [2] (at byte "));
    /* VarLen frames of 1 and 0 values (the base record) are fine; uniform ones are not */
    reset();
    base_context();
    {
        wbuf fr[1];
        i64(&fr[0], 1);
        list_add("fr", fr, 1);
    }
    i64s(&vu[0], v3, 3);
    i64s(&vu[1], v3, 2);
    list_add("vu", vu, 2);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: vu, Index: 1.  The spec declares the frames of this list "
                   "uniform, but frame 0 has 3 values and this frame 2"));
}

/* An empty frame (Feature{} or an empty list of the right type) is an empty
 * row of a VarLen list, and a count error in a fixed-shape list. */
static void test_empty_frames(void)
{
    static wbuf fr[2];
    base();
    CHECK(parse() == FC_OK && msg.v_count[1] == 0);
    reset();
    base_context();
    base_lists(1);
    i64(&fr[0], 1);
    fr[1].n = 0;
    list_add("fr", fr, 2);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Key: fr, Index: 1.  Number of values != expected.  values "
                   "size: 0 but output shape: []"));
    /* a 2-byte frame: an empty int64_list */
    reset();
    base_context();
    base_lists(1);
    fr[0].n = 0;
    w_byte(&fr[0], 0x1A);
    w_byte(&fr[0], 0x00);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Key: fr, Index: 0.  Number of values != expected.  values size: 0"));
    /* a 2-byte frame of another type: a type error */
    reset();
    base_context();
    base_lists(1);
    fr[0].n = 0;
    w_byte(&fr[0], 0x12);
    w_byte(&fr[0], 0x00);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fr, Index: 0.  Data types don't match. Expected type: int64"));
}

/* A frame of 1 byte, a FeatureList field that is not a Feature, bytes after
 * a frame's list: "Error in sequence feature". */
static void test_malformed_frames(void)
{
    static const int64_t one = 1;
    static wbuf fr[1];
    reset();
    base_context();
    base_lists(1);
    fr[0].n = 0;
    w_byte(&fr[0], 0x1A);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Error in sequence feature fr in example <unknown> (frame 0: a frame of 1 byte"));
    reset();
    base_context();
    base_lists(1);
    fr[0].n = 0;
    f_int64_packed(&fr[0], &one, 1);
    w_byte(&fr[0], 0x0A); /* what TF would read as one more, empty frame */
    w_byte(&fr[0], 0x00);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Error in sequence feature fr in example <unknown> (frame 0: a frame holds "
                   "bytes after its list"));
    {
        static wbuf bad;
        reset();
        base_context();
        bad.n = 0;
        w_byte(&bad, 0x10); /* a varint field in a FeatureList */
        w_byte(&bad, 0x01);
        w_entry(&lists, "fr", &bad);
        CHECK(parse() == FC_ERR_PARSE);
        CHECK(has_text("Error in sequence feature fr in example <unknown>"));
    }
}

/* A packed float run of 5 bytes in a frame: TensorFlow's sequence reader
 * fails on it (a type mismatch), unlike the Example path. */
static void test_packed_float_remainder(void)
{
    static wbuf fm[1];
    static const unsigned char run[5] = {0, 0, 0x80, 0x3f, 0};
    static wbuf list;
    base();
    list.n = 0;
    w_len(&list, 0x0A, run, 5);
    fm[0].n = 0;
    w_len(&fm[0], 0x12, list.b, list.n);
    list_add("fm", fm, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fm, Index: 0.  Data types don't match. Expected type: float "
                   "(malformed float_list: packed run length is not a multiple of 4"));
}

/* Context features: an empty Feature is present with no values (not
 * missing); FixedLen counts follow TF's two messages. */
static void test_context_rules(void)
{
    static const int64_t two[2] = {1, 2};
    static const float three[3] = {1, 2, 3}, one = 1;
    static const char *const four[4] = {"a", "b", "c", "d"};
    static wbuf f, e;
    e.n = 0;
    /* cv = Feature{}: present, no values */
    base();
    ctx_add("cv", &e);
    CHECK(parse() == FC_OK && seq_s_has(&msg, SEQ_S_CV) && msg.cv_count == 0);
    /* c = Feature{}: no default, so the max count 0 is not the shape's 1 */
    reset();
    ctx_add("c", &e);
    base_lists(0);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Inconsistent max number of elements for feature c: expected 1, but found 0"));
    /* c missing: the same first check fires */
    reset();
    base_lists(0);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Inconsistent max number of elements for feature c: expected 1, but found 0"));
    /* c with 2 values */
    reset();
    i64s(&f, two, 2);
    ctx_add("c", &f);
    base_lists(0);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Inconsistent max number of elements for feature c: expected 1, but found 2"));
    /* cd = Feature{} with a default: the default sets the max, the record has 0 */
    base();
    ctx_add("cd", &e);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Unexpected number of elements in example <unknown> (context feature cd has "
                   "0 values; its shape [2] needs 2"));
    /* cd with 1 value, 3 values */
    base();
    f32s(&f, &one, 1);
    ctx_add("cd", &f);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Unexpected number of elements in example <unknown>"));
    base();
    f32s(&f, three, 3);
    ctx_add("cd", &f);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Inconsistent max number of elements for feature cd: expected 2, but found 3"));
    /* a context feature of another type */
    base();
    f32s(&f, &one, 1);
    ctx_add("c", &f);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Context feature: c.  Data types don't match. Expected "
                   "type: int64 (found a float_list at byte "));
    /* the context VarLen bound */
    base();
    strs(&f, four, 4);
    ctx_add("cv", &f);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Context feature: cv.  Number of bytes values exceeds the bound declared in "
                   "the spec: 4 values but max 3"));
}

/* The last occurrence of a key wins, even when it is empty; context and
 * feature_lists blocks may repeat and are merged. */
static void test_last_duplicate_wins(void)
{
    static wbuf f, e, fr[1];
    e.n = 0;
    base();
    i64(&f, 9);
    ctx_add("c", &f);
    CHECK(parse() == FC_OK && msg.c == 9);
    base();
    ctx_add("c", &e); /* the empty one is last: c is present with no values */
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Inconsistent max number of elements for feature c: expected 1, but found 0"));
    /* a second feature_lists block replaces fr */
    base();
    build();
    lists.n = 0;
    i64(&fr[0], 7);
    list_add("fr", fr, 1);
    w_len(&ex, 0x12, lists.b, lists.n);
    fc_error_clear(&err);
    CHECK(seq_s_parse(&msg, ex.b, ex.n, &err) == FC_OK);
    CHECK(msg.fr_frames == 1 && msg.fr[0] == 7 && msg.v_frames == 2);
}

/* Map entries must be key then value, nothing else (unlike Example). */
static void test_map_entry_order(void)
{
    static wbuf f, entry;
    base();
    i64(&f, 1);
    entry.n = 0;
    w_len(&entry, 0x12, f.b, f.n);
    w_len(&entry, 0x0A, "c", 1);
    w_len(&ctx, 0x0A, entry.b, entry.n);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Invalid protocol message input, example id: <unknown> (map entry does not "
                   "start with its key"));
    base();
    entry.n = 0;
    w_len(&entry, 0x0A, "c", 1); /* a key without a value */
    w_len(&ctx, 0x0A, entry.b, entry.n);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Invalid protocol message input, example id: <unknown> (map entry key is not "
                   "followed by its value"));
}

static void test_unknown_fields_and_truncation(void)
{
    size_t cut, fails = 0;
    base();
    build();
    w_byte(&ex, 0x18); /* field 3, varint: skipped */
    w_byte(&ex, 0x05);
    fc_error_clear(&err);
    CHECK(seq_s_parse(&msg, ex.b, ex.n, &err) == FC_OK);
    base();
    build();
    for (cut = 0; cut < ex.n; cut++)
        if (seq_s_parse(&msg, ex.b, cut, &err) != FC_OK)
            fails++;
    /* every strict prefix fails: a cut inside a block is malformed, a cut
     * between blocks lacks the required list fr */
    CHECK_MSG(fails == ex.n, "%zu of %zu prefixes failed", fails, ex.n);
}

static void test_bounds(void)
{
    static const int64_t one[1] = {1};
    static const char *const three[3] = {"a", "b", "c"};
    static wbuf fr[5], v[1];
    size_t i;
    reset();
    base_context();
    base_lists(1);
    for (i = 0; i < 5; i++)
        i64s(&fr[i], one, 1);
    list_add("fr", fr, 5);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fr.  Number of frames exceeds the bound declared in the spec: "
                   "5 frames but max 4 (at byte "));
    base();
    strs(&v[0], three, 3);
    list_add("v", v, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: v, Index: 0.  Number of bytes values exceeds the bound "
                   "declared in the spec: 3 values but max 2"));
}

/* TF's phases: context types, then frames, then context counts, then list
 * counts; featc's bounds last. */
static void test_error_precedence(void)
{
    static const float one = 1;
    static wbuf f, fr[1], vv[1];
    static const char *const three[3] = {"a", "b", "c"};
    /* a frame type error beats a context count error */
    reset();
    ctx_add("cd", (f32s(&f, &one, 1), &f));
    base_context();
    base_lists(1);
    f32s(&fr[0], &one, 1);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fr, Index: 0.  Data types don't match"));
    /* a context type error beats a frame type error */
    reset();
    ctx_add("c", &f); /* float */
    base_lists(1);
    list_add("fr", fr, 1);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Context feature: c.  Data types don't match"));
    /* TF's count error beats featc's bound */
    base();
    strs(&vv[0], three, 3);
    list_add("v", vv, 1);
    ctx_add("cd", &f);
    CHECK(parse() == FC_ERR_PARSE);
    CHECK(has_text("Unexpected number of elements in example <unknown>"));
}

/* The aligned policy: every present list has the same number of frames. */
static void test_aligned(void)
{
    static const int64_t one = 1;
    static const char *const a[1] = {"a"};
    static wbuf x[3], y[3];
    size_t i;
    for (i = 0; i < 3; i++) {
        i64(&x[i], (int64_t)i + one);
        strs(&y[i], a, 1);
    }
    reset();
    list_add("x", x, 2);
    list_add("y", y, 2);
    build();
    CHECK(seq_a_parse(&amsg, ex.b, ex.n, &err) == FC_OK && amsg.x_frames == 2);
    reset();
    list_add("x", x, 2);
    list_add("y", y, 3);
    build();
    CHECK(seq_a_parse(&amsg, ex.b, ex.n, &err) == FC_ERR_PARSE);
    CHECK(has_text("Feature lists 'x' and 'y' have 2 and 3 frames, but the spec declares the "
                   "feature lists aligned (at byte "));
    /* a missing list (y VarLen, z allow_missing) does not count */
    reset();
    list_add("x", x, 3);
    build();
    CHECK(seq_a_parse(&amsg, ex.b, ex.n, &err) == FC_OK && amsg.y_frames == 0);
}

static void test_init_and_desc(void)
{
    seq_s_init(&msg);
    CHECK(msg.cd[0] == 1.0f && msg.cd[1] == 2.0f && msg.c == 0);
    CHECK(seq_s_desc.ncontext == 3 && seq_s_desc.nlists == 4 && !seq_s_desc.aligned);
    CHECK(seq_a_desc.aligned && seq_a_desc.ncontext == 0);
    CHECK(SEQ_S_FR_FRAMES_MAX == 4 && SEQ_S_V_MAX == 2 && SEQ_S_FM_SIZE == 2);
    CHECK(seq_s_desc.lists[1].allow_missing && seq_s_desc.lists[3].uniform);
}


/* ------------------------------------------------------------------ RaggedFeature
 * tests/specs/seqragged.feat: RaggedFeatures in the context (as in an
 * Example) and in feature lists (each frame partitioned on its own, as
 * parse_single_sequence_example's RaggedTensor [T, (rows)..., (values)]). */

static sqr_s rmsg;

static int rparse(void)
{
    build();
    fc_error_clear(&err);
    return sqr_s_parse(&rmsg, ex.b, ex.n, &err);
}

static void ragged_base(void)
{
    static const int64_t c3[3] = {1, 2, 3}, cl[2] = {2, 1}, fl0[2] = {2, 1}, fl1[1] = {1};
    static const int64_t fi0[3] = {0, 0, 2}, fi1[1] = {1};
    static const float cv[3] = {1, 2, 3}, fv0[3] = {1, 2, 3}, fv1[1] = {4};
    static const char *const a[1] = {"a"}, *const bc[2] = {"b", "c"};
    static wbuf f, flat[3], fv[2], fl[2], fi[2];
    reset();
    i64s(&f, c3, 3);
    ctx_add("cflat", &f);
    f32s(&f, cv, 3);
    ctx_add("cv", &f);
    i64s(&f, cl, 2);
    ctx_add("cl", &f);
    strs(&flat[0], a, 1);
    flat[1].n = 0; /* Feature{}: an empty frame */
    strs(&flat[2], bc, 2);
    list_add("flat", flat, 3);
    f32s(&fv[0], fv0, 3);
    f32s(&fv[1], fv1, 1);
    list_add("fv", fv, 2);
    i64s(&fl[0], fl0, 2);
    i64s(&fl[1], fl1, 1);
    list_add("fl", fl, 2);
    i64s(&fi[0], fi0, 3);
    i64s(&fi[1], fi1, 1);
    list_add("fi", fi, 2);
}

static void test_ragged_context(void)
{
    static const int64_t bad[2] = {2, 2};
    static wbuf f;
    ragged_base();
    CHECK(rparse() == FC_OK);
    CHECK(rmsg.cflat_count == 3 && rmsg.cflat[2] == 3 && sqr_s_has(&rmsg, SQR_S_CFLAT));
    CHECK(rmsg.cpart_count == 3 && rmsg.cpart_rows0 == 2 && sqr_s_has(&rmsg, SQR_S_CPART));
    CHECK(rmsg.cpart_splits0[0] == 0 && rmsg.cpart_splits0[1] == 2 &&
          rmsg.cpart_splits0[2] == 3);
    /* missing: empty, not present */
    reset();
    CHECK(rparse() == FC_OK);
    CHECK(rmsg.cflat_count == 0 && rmsg.cpart_count == 0 && rmsg.cpart_rows0 == 0);
    CHECK(!sqr_s_has(&rmsg, SQR_S_CFLAT) && !sqr_s_has(&rmsg, SQR_S_CPART));
    CHECK(rmsg.flat_frames == 0 && rmsg.lens_frames == 0 && !sqr_s_has(&rmsg, SQR_S_LENS));
    /* lengths that overrun the values: what validate=True refuses */
    ragged_base();
    i64s(&f, bad, 2);
    ctx_add("cl", &f); /* the last occurrence wins */
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Context feature: cpart.  Feature cpart: values and partitions are not "
                   "aligned (row_lengths from key cl: a row length overruns the items at row 1)"));
    /* a context value of the wrong type: the hidden field's TF text */
    ragged_base();
    i64s(&f, bad, 2);
    ctx_add("cv", &f);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Context feature: cv.  Data types don't match. Expected "
                   "type: float"));
}

static void test_ragged_lists(void)
{
    ragged_base();
    CHECK(rparse() == FC_OK);
    /* no partitions: one row of values per frame */
    CHECK(rmsg.flat_frames == 3 && rmsg.flat_count[0] == 1 && rmsg.flat_count[1] == 0 &&
          rmsg.flat_count[2] == 2);
    CHECK(rmsg.flat[2][1].size == 1 && rmsg.flat[2][1].data[0] == 'c');
    /* row_lengths, int64 splits: [[[1,2],[3]], [[4]]] */
    CHECK(rmsg.lens_frames == 2 && rmsg.lens_rows0[0] == 2 && rmsg.lens_rows0[1] == 1);
    CHECK(rmsg.lens_splits0[0][0] == 0 && rmsg.lens_splits0[0][1] == 2 &&
          rmsg.lens_splits0[0][2] == 3 && rmsg.lens_splits0[1][1] == 1);
    CHECK(rmsg.lens[0][2] == 3.0f && rmsg.lens[1][0] == 4.0f && sqr_s_has(&rmsg, SQR_S_LENS));
    /* value_rowids over the same value list: [[[1,2],[],[3]], [[],[4]]] */
    CHECK(rmsg.ids_frames == 2 && rmsg.ids_rows0[0] == 3 && rmsg.ids_rows0[1] == 2);
    CHECK(rmsg.ids_splits0[0][1] == 2 && rmsg.ids_splits0[0][2] == 2 &&
          rmsg.ids_splits0[0][3] == 3 && rmsg.ids_splits0[1][1] == 0 &&
          rmsg.ids_splits0[1][2] == 1);
    /* the lists they read are not features of their own */
    {
        char json[2048];
        FILE *f = fmemopen(json, sizeof json, "w");
        CHECK(f != NULL);
        if (f != NULL) {
            fc_json_feature_lists(f, &sqr_s_desc, &rmsg);
            fclose(f);
            CHECK_CONTAINS(json, "\"flat\":[[\"a\"],[],[\"b\",\"c\"]]");
            CHECK_CONTAINS(json, "\"lens\":[[[1,2],[3]],[[4]]]");
            CHECK_CONTAINS(json, "\"ids\":[[[1,2],[],[3]],[[],[4]]]");
            CHECK_CONTAINS(json, "\"splits\":[],\"ids\"");
            CHECK(strstr(json, "\"fv\"") == NULL && strstr(json, "\"fl\"") == NULL);
        }
    }
}

static void test_ragged_list_partitions(void)
{
    static const int64_t v4[4] = {1, 2, 3, 4}, fs[3] = {0, 1, 2}, sv[3] = {7, 8, 9};
    static const int64_t st[2] = {0, 1}, lm[2] = {1, 3};
    static wbuf sp[1], fsw[1], svw[1], stw[1], lmw[1];
    reset();
    i64s(&sp[0], v4, 4);
    list_add("splits", sp, 1);
    i64s(&fsw[0], fs, 3);
    list_add("fs", fsw, 1);
    i64s(&svw[0], sv, 3);
    list_add("sv", svw, 1);
    i64s(&stw[0], st, 2);
    list_add("st", stw, 1);
    i64s(&lmw[0], lm, 2);
    list_add("lm", lmw, 1);
    CHECK(rparse() == FC_OK);
    /* row_splits over rows of uniform length 2: [[[[1,2]],[[3,4]]]] */
    CHECK(rmsg.splits_frames == 1 && rmsg.splits_rows1[0] == 2 && rmsg.splits_rows0[0] == 2);
    CHECK(rmsg.splits_splits1[0][1] == 2 && rmsg.splits_splits1[0][2] == 4);
    CHECK(rmsg.splits_splits0[0][1] == 1 && rmsg.splits_splits0[0][2] == 2);
    /* row_starts over row_limits: [[[[7]],[[8,9]]]] */
    CHECK(rmsg.starts_frames == 1 && rmsg.starts_rows1[0] == 2 && rmsg.starts_rows0[0] == 2);
    CHECK(rmsg.starts_splits1[0][1] == 1 && rmsg.starts_splits1[0][2] == 3);
    /* an odd count under a uniform row length */
    reset();
    i64s(&sp[0], v4, 3);
    list_add("splits", sp, 1);
    i64s(&fsw[0], fs, 2);
    list_add("fs", fsw, 1);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: splits, Index: 0.  Feature splits: values "
                   "and partitions are not aligned (uniform_row_length: items are not a "
                   "multiple of the row length: 3, 2)"));
}

static void test_ragged_list_errors(void)
{
    static const int64_t fl0[2] = {2, 1}, over[2] = {2, 2}, ids5[5] = {0, 0, 0, 1, 2};
    static const float fv5[5] = {1, 2, 3, 4, 5};
    static wbuf fl[2], fv[1], fi[1];
    /* frame 1 of the values has no frame of lengths */
    ragged_base();
    i64s(&fl[0], fl0, 2);
    list_add("fl", fl, 1);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: lens, Index: 1.  Feature lens: values and "
                   "partitions are not aligned (the value list fv has 2 frames, the partition "
                   "list fl has 1)"));
    /* frame 0's lengths overrun frame 0's values */
    ragged_base();
    i64s(&fl[0], over, 2);
    i64s(&fl[1], fl0, 1);
    list_add("fl", fl, 2);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: lens, Index: 0.  Feature lens: values and "
                   "partitions are not aligned (row_lengths from key fl: a row length overruns "
                   "the items at row 1)"));
    /* 5 values in a frame: the shared value list takes 6, and value_rowids
     * bound ids' 4 by their own list's bound */
    ragged_base();
    f32s(&fv[0], fv5, 5);
    list_add("fv", fv, 1);
    i64s(&fl[0], over, 2);
    list_add("fl", fl, 1);
    i64s(&fi[0], ids5, 5);
    list_add("fi", fi, 1);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Feature list: fi, Index: 0.  Number of int64 values exceeds the bound "
                   "declared in the spec: 5 values but max 4"));
    /* flat2 reads flat's list (3 values a frame) and takes 2 */
    ragged_base();
    {
        static const char *const abc[3] = {"a", "b", "c"};
        static wbuf flat[2];
        flat[0].n = 0;
        strs(&flat[1], abc, 3);
        list_add("flat", flat, 2);
    }
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: flat2, Index: 1.  Number of values exceeds "
                   "the bound declared in the spec: 3 values but max 2"));
    /* a value frame of the wrong type: TF's text for the list read */
    ragged_base();
    i64s(&fv[0], over, 2);
    list_add("fv", fv, 1);
    CHECK(rparse() == FC_ERR_PARSE);
    CHECK(has_text("Name: <unknown>, Feature list: fv, Index: 0.  Data types don't match. "
                   "Expected type: float"));
}

/* parse_sequence_example's layout: RaggedTensor [B, (T), (rows)..., (values)]
 * as values plus splits over the frames of the batch, over each frame's
 * rows, then over the values; a context RaggedFeature as in parse_example. */
static void test_ragged_batch(void)
{
    static unsigned char mem[SQR_S_BATCH_BYTES(3)], copies[3][512];
    static sqr_s scratch;
    fc_column cols[SQR_S_FIELD_COUNT];
    fc_bytes recs[3];
    const fc_column *lens = &cols[SQR_S_LENS], *cpart = &cols[SQR_S_CPART];
    const float *v;
    size_t i;
    CHECK(fc_batch_bind_seq(&sqr_s_desc, cols, 3, FC_BATCH_RAGGED, mem, sizeof mem) <=
          sizeof mem);
    for (i = 0; i < 3; i++) {
        if (i == 1)
            reset(); /* record 1: nothing at all */
        else
            ragged_base();
        build();
        memcpy(copies[i], ex.b, ex.n);
        recs[i].data = copies[i];
        recs[i].size = ex.n;
    }
    CHECK(fc_batch_parse_seq(&sqr_s_desc, cols, &scratch, recs, 3, &err) == FC_OK);
    v = (const float *)lens->values;
    CHECK(lens->nvalues == 8 && v[3] == 4.0f && v[4] == 1.0f && v[7] == 4.0f);
    CHECK(lens->row_splits[0] == 0 && lens->row_splits[1] == 2 && lens->row_splits[2] == 2 &&
          lens->row_splits[3] == 4);
    CHECK(lens->nframes == 4 && lens->inner_splits[1] == 2 && lens->inner_splits[2] == 3 &&
          lens->inner_splits[4] == 6);
    CHECK(lens->part_nsplits[0] == 7 && lens->part_splits[0][2] == 3 &&
          lens->part_splits[0][3] == 4 && lens->part_splits[0][5] == 7 &&
          lens->part_splits[0][6] == 8);
    CHECK(cpart->row_splits[1] == 2 && cpart->row_splits[2] == 2 && cpart->row_splits[3] == 4);
    CHECK(cpart->part_nsplits[0] == 5 && cpart->part_splits[0][4] == 6);
    {
        char json[4096];
        FILE *f = fmemopen(json, sizeof json, "w");
        CHECK(f != NULL);
        if (f != NULL) {
            fc_json_batch_feature_lists(f, &sqr_s_desc, cols, 1);
            fc_json_batch_context(f, &sqr_s_desc, cols, 1);
            fclose(f);
            CHECK_CONTAINS(json, "\"lens\":{\"values\":[1,2,3,4,1,2,3,4],\"row_splits\":"
                                 "[[0,2,2,4],[0,2,3,5,6],[0,2,3,4,6,7,8]]}");
            CHECK_CONTAINS(json, "\"flat\":{\"values\":[\"a\",\"b\",\"c\",\"a\",\"b\",\"c\"],"
                                 "\"row_splits\":[[0,3,3,6],[0,1,1,3,4,4,6]]}");
            CHECK_CONTAINS(json, "\"cpart\":{\"values\":[1,2,3,1,2,3],\"row_splits\":"
                                 "[[0,2,2,4],[0,2,3,5,6]]}");
            CHECK(strstr(json, "\"fv\"") == NULL && strstr(json, "\"cv\"") == NULL);
        }
    }
    /* no records: every leading dimension 0 */
    CHECK(fc_batch_parse_seq(&sqr_s_desc, cols, &scratch, recs, 0, &err) == FC_OK);
    CHECK(lens->nvalues == 0 && lens->nframes == 0 && lens->row_splits[0] == 0 &&
          lens->part_nsplits[0] == 1);
    /* the first failing record stops the batch, its index appended */
    ragged_base();
    {
        static const int64_t bad[2] = {9, 9};
        static wbuf f;
        i64s(&f, bad, 2);
        ctx_add("cl", &f);
    }
    build();
    memcpy(copies[2], ex.b, ex.n);
    recs[2].size = ex.n;
    CHECK(fc_batch_parse_seq(&sqr_s_desc, cols, &scratch, recs, 3, &err) == FC_ERR_PARSE);
    CHECK(err.record == 2 && has_text("Feature cpart: values and partitions are not aligned") &&
          has_text("(record 2 of the batch)"));
}

/* sequence_categorical_column_with_hash_bucket: an id per frame value,
 * laid out as the values, in the struct and in batches. */
static void test_list_hash_buckets(void)
{
    static const int64_t v0[2] = {7, -8}, v2 = 5;
    static const char *const w0[2] = {"a", "bc"};
    static wbuf plain[3], words[1];
    static unsigned char mem[SQR_S_BATCH_BYTES(2)], copy[2][1024];
    static sqr_s scratch;
    fc_column cols[SQR_S_FIELD_COUNT];
    fc_bytes recs[2];
    const fc_column *pc = &cols[SQR_S_PLAIN];
    size_t i;
    reset();
    i64s(&plain[0], v0, 2);
    plain[1].n = 0; /* an empty frame: no ids */
    i64s(&plain[2], &v2, 1);
    list_add("plain", plain, 3);
    strs(&words[0], w0, 2);
    list_add("words", words, 1);
    CHECK(rparse() == FC_OK);
    CHECK(rmsg.plain_frames == 3 && rmsg.plain_count[1] == 0);
    CHECK(rmsg.plain_bucket[0][0] == fc_hash_bucket_int64(7, 10) &&
          rmsg.plain_bucket[0][1] == fc_hash_bucket_int64(-8, 10) &&
          rmsg.plain_bucket[2][0] == fc_hash_bucket_int64(5, 10));
    CHECK(rmsg.words_bucket[0][0] == fc_hash_bucket("a", 1, 1000) &&
          rmsg.words_bucket[0][1] == fc_hash_bucket("bc", 2, 1000));
    CHECK(SQR_S_PLAIN_BUCKETS == 10 && sqr_s_desc.lists[SQR_S_WORDS - SQR_S_CONTEXT_COUNT]
                                               .extra->hash_buckets == 1000);
    /* a batch: record 0 without the lists, record 1 with them */
    CHECK(fc_batch_bind_seq(&sqr_s_desc, cols, 2, FC_BATCH_SPARSE, mem, sizeof mem) <=
          sizeof mem);
    for (i = 0; i < 2; i++) {
        if (i == 0)
            reset();
        else {
            reset();
            list_add("plain", plain, 3);
        }
        build();
        memcpy(copy[i], ex.b, ex.n);
        recs[i].data = copy[i];
        recs[i].size = ex.n;
    }
    CHECK(fc_batch_parse_seq(&sqr_s_desc, cols, &scratch, recs, 2, &err) == FC_OK);
    CHECK(pc->nvalues == 3 && pc->buckets != NULL && pc->buckets[0] == rmsg.plain_bucket[0][0] &&
          pc->buckets[1] == rmsg.plain_bucket[0][1] && pc->buckets[2] == rmsg.plain_bucket[2][0]);
}

/* Whether the n bytes at p hold the text t. */
static int holds(const unsigned char *p, size_t n, const char *t)
{
    size_t k, tl = strlen(t);
    for (k = 0; k + tl <= n; k++)
        if (memcmp(p + k, t, tl) == 0)
            return 1;
    return 0;
}

/* What is written is what the record held: the lists the RaggedFeatures
 * read, and no key of their own. */
static void test_ragged_roundtrip(void)
{
    static unsigned char out[4096];
    static sqr_s again;
    size_t len = 0;
    ragged_base();
    CHECK(rparse() == FC_OK);
    CHECK(fc_seq_serialize(&sqr_s_desc, &rmsg, 0, out, sizeof out, &len, &err) == FC_OK);
    CHECK(sqr_s_parse(&again, out, len, &err) == FC_OK);
    CHECK(again.lens_frames == 2 && again.lens_splits0[0][1] == 2 && again.ids_rows0[0] == 3 &&
          again.cpart_rows0 == 2 && again.flat_count[2] == 2);
    CHECK(!holds(out, len, "lens") && !holds(out, len, "cpart") && holds(out, len, "fv"));
}

int main(void)
{
    RUN(test_valid_record);
    RUN(test_missing_vs_empty_lists);
    RUN(test_types_inside_a_list);
    RUN(test_types_across_records);
    RUN(test_frame_sizes);
    RUN(test_empty_frames);
    RUN(test_malformed_frames);
    RUN(test_packed_float_remainder);
    RUN(test_context_rules);
    RUN(test_last_duplicate_wins);
    RUN(test_map_entry_order);
    RUN(test_unknown_fields_and_truncation);
    RUN(test_bounds);
    RUN(test_error_precedence);
    RUN(test_aligned);
    RUN(test_init_and_desc);
    RUN(test_ragged_context);
    RUN(test_ragged_lists);
    RUN(test_ragged_list_partitions);
    RUN(test_ragged_list_errors);
    RUN(test_ragged_batch);
    RUN(test_ragged_roundtrip);
    RUN(test_list_hash_buckets);
    return harness_report("sequence");
}
