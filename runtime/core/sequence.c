/* The tf.train.SequenceExample wire format as TensorFlow's
 * FastParseSequenceExample reads it; see fc_sequence.h and docs/semantics.md,
 * "SequenceExample semantics".
 *
 * Where the format differs from Example parsing (example.c): map entries
 * must be exactly key then value; the last occurrence of a key wins even
 * when its Feature is empty; an empty context Feature is present with no
 * values; a FeatureList is a run of 0x0a-tagged Features (frames) read by
 * their length (0: an empty frame, 1: an error, 2: an empty list of the
 * configured type, more: a list of the configured type).
 *
 * The fast path decodes into the struct as it goes and gives up at the
 * first problem; report() then checks in TensorFlow's order (structure,
 * context types, frame types, context counts, list counts, then featc's
 * bounds and policies) and words the first failure.  Keys within a phase
 * are visited in key order: TensorFlow's order there is a hash map's.
 */
#include "featc/fc_sequence.h"

#include <string.h>

#include "wire.h"

static const char unknown_name[] = "<unknown>";

/* ------------------------------------------------------------ the scan */

static int invalid(fc_error *err, const uint8_t *base, const uint8_t *at, const char *what)
{
    size_t off = (size_t)(at - base);
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, off);
    fc_msg_str(&m, "Invalid protocol message input, example id: ");
    fc_msg_str(&m, unknown_name);
    fc_msg_str(&m, " (");
    fc_msg_str(&m, what);
    fc_msg_at(&m, off);
    fc_msg_str(&m, ")");
    return FC_ERR_PARSE;
}

/* One Features or FeatureLists map: entries of exactly a key then a value.
 * The lookup gets the descriptor as its context (generated lookups ignore
 * it; those of a message described at run time find their table there). */
static int scan_map(const uint8_t *base, const uint8_t *p, const uint8_t *end,
                    fc_ex_lookup_fn lookup, const void *ctx, fc_feature_ref *refs, size_t nrefs,
                    uint32_t *entries, fc_error *err)
{
    while (p < end) {
        const uint8_t *e, *ee, *key, *val, *at = p;
        uint32_t elen, klen, vlen;
        int i;
        if (*p != FC_TAG_LEN1)
            return invalid(err, base, at, "a map holds a field that is not a map entry");
        p = fc_wire_delimited(p + 1, end, &e, &elen);
        if (p == NULL)
            return invalid(err, base, at, "map entry length overruns its map");
        ee = e + elen;
        if (e >= ee || *e != FC_TAG_LEN1)
            return invalid(err, base, e,
                           "map entry does not start with its key (TensorFlow reads the key, "
                           "then the value)");
        e = fc_wire_delimited(e + 1, ee, &key, &klen);
        if (e == NULL)
            return invalid(err, base, at, "map entry key overruns its entry");
        if (e >= ee || *e != FC_TAG_LEN2)
            return invalid(err, base, e < ee ? e : ee, "map entry key is not followed by its value");
        e = fc_wire_delimited(e + 1, ee, &val, &vlen);
        if (e == NULL)
            return invalid(err, base, at, "map entry value overruns its entry");
        if (e != ee)
            return invalid(err, base, e, "map entry has more than a key and a value");
        (*entries)++;
        i = lookup(ctx, klen > 0 ? key : (const uint8_t *)"", klen);
        if (i >= 0 && (size_t)i < nrefs) { /* the last occurrence wins, even an empty one */
            refs[i].data = val;
            refs[i].size = vlen;
            refs[i].offset = (size_t)(val - base);
            refs[i].entry = *entries;
        }
    }
    return FC_OK;
}

static int scan(const fc_seq_desc *sd, const uint8_t *base, size_t len, fc_feature_ref *refs,
                fc_error *err)
{
    const uint8_t *p = base, *end = base != NULL ? base + len : base;
    fc_feature_ref *cref = refs, *lref = refs + sd->ncontext;
    uint32_t entries = 0;
    size_t i;
    for (i = 0; i < sd->ncontext + sd->nlists; i++) {
        refs[i].data = NULL;
        refs[i].size = 0;
        refs[i].offset = 0;
        refs[i].entry = 0;
    }
    if (len > 0 && base == NULL)
        return invalid(err, base, base, "no data");
    if (len > (size_t)INT32_MAX)
        return invalid(err, base, base, "a record of 2 GiB or more");
    while (p < end) {
        const uint8_t *at = p, *body;
        uint32_t n;
        int rc;
        if (*p == FC_TAG_LEN1 || *p == FC_TAG_LEN2) { /* context, feature_lists: merged */
            int lists = *p == FC_TAG_LEN2;
            p = fc_wire_delimited(p + 1, end, &body, &n);
            if (p == NULL && fc_wire_len(at + 1, end, &n) == NULL)
                return invalid(err, base, at,
                               lists ? "feature_lists length is not a valid varint"
                                     : "context length is not a valid varint");
            if (p == NULL)
                return invalid(err, base, at,
                               lists ? "feature_lists length overruns the record"
                                     : "context length overruns the record");
            if (lists)
                rc = scan_map(base, body, body + n, sd->list_lookup, sd, lref, sd->nlists,
                              &entries, err);
            else
                rc = scan_map(base, body, body + n, sd->context_lookup, sd, cref, sd->ncontext,
                              &entries, err);
            if (rc != FC_OK)
                return rc;
        } else { /* an unknown field: skipped */
            uint32_t tag;
            const uint8_t *next = fc_wire_len(p, end, &tag);
            if (next == NULL || (tag >> 3) == 0)
                return invalid(err, base, at, "malformed or zero tag at top level");
            p = fc_wire_skip_body(next, end, tag);
            if (p == NULL)
                return invalid(err, base, at,
                               "unknown top-level field overruns the record or is a group");
        }
    }
    return FC_OK;
}

/* ------------------------------------------------------------ decoding */

static int decode_list(fc_type t, const fc_feature_ref *r, void *dst, size_t cap, size_t *count,
                       fc_ex_detail *d)
{
    switch (t) {
    case FC_TYPE_INT64: return fc_wire_int64s(r, (int64_t *)dst, cap, count, d);
    case FC_TYPE_FLOAT: return fc_wire_floats(r, (float *)dst, cap, count, d);
    default: return fc_wire_bytes(r, (fc_bytes *)dst, cap, count, d);
    }
}

static uint8_t type_tag(fc_type t)
{
    return t == FC_TYPE_BYTES ? FC_TAG_LEN1 : t == FC_TYPE_FLOAT ? FC_TAG_LEN2 : FC_TAG_LEN3;
}

static fc_type tag_type(uint8_t b)
{
    return b == FC_TAG_LEN1 ? FC_TYPE_BYTES : b == FC_TAG_LEN2 ? FC_TYPE_FLOAT
                                          : b == FC_TAG_LEN3 ? FC_TYPE_INT64 : FC_TYPE_NONE;
}

/* Problems with one frame. */
typedef enum frame_problem {
    FR_OK = 0,
    FR_STRUCT, /* "Error in sequence feature": not a Feature, 1 byte, overrun */
    FR_TYPE    /* "Data types don't match": other type, or a list that does not parse */
} frame_problem;

typedef struct frame_walk {
    const uint8_t *base, *p, *end;
    size_t index;          /* frame number of the next frame */
    const char *what;      /* FR_STRUCT: what is wrong */
    size_t at;             /* offset of the problem */
    fc_ex_detail d;        /* FR_TYPE: the decoder's detail */
} frame_walk;

static void walk_init(frame_walk *w, const uint8_t *base, const fc_feature_ref *r)
{
    w->base = base;
    w->p = r->data;
    w->end = r->data + r->size;
    w->index = 0;
    w->what = NULL;
    w->at = 0;
    memset(&w->d, 0, sizeof w->d);
}

static frame_problem walk_fail(frame_walk *w, const uint8_t *at, const char *what)
{
    w->what = what;
    w->at = (size_t)(at - w->base);
    return FR_STRUCT;
}

/* Decodes the next frame of list l into dst (at most cap values stored,
 * all counted in *count).  *more is 0 at the end of the list. */
static frame_problem walk_next(frame_walk *w, const fc_list_desc *l, void *dst, size_t cap,
                               size_t *count, int *more)
{
    const uint8_t *fb, *fe, *q, *at = w->p;
    uint32_t fl, n;
    fc_feature_ref fr;
    *count = 0;
    *more = w->p < w->end;
    if (!*more)
        return FR_OK;
    if (*w->p != FC_TAG_LEN1)
        return walk_fail(w, at, "a feature list holds a field that is not a Feature");
    w->p = fc_wire_delimited(w->p + 1, w->end, &fb, &fl);
    if (w->p == NULL)
        return walk_fail(w, at, "a frame's length overruns its feature list");
    fe = fb + fl;
    if (fl == 1)
        return walk_fail(w, fb, "a frame of 1 byte");
    if (fl > 0) {
        if (*fb != type_tag(l->type)) {
            w->d.problem = FC_EXP_TYPE;
            w->d.actual = tag_type(*fb);
            w->d.offset = (size_t)(fb - w->base);
            return FR_TYPE;
        }
        q = fc_wire_len(fb + 1, fe, &n);
        if (q == NULL || n > (size_t)(fe - q)) {
            w->d.problem = FC_EXP_MALFORMED;
            w->d.actual = l->type;
            w->d.offset = (size_t)(fb + 1 - w->base);
            w->d.what = "list length overruns the frame";
            return FR_TYPE;
        }
        /* TensorFlow would read bytes after the list as further frames */
        if (q + n != fe)
            return walk_fail(w, q + n, "a frame holds bytes after its list");
        fr.data = fb;
        fr.size = fl;
        fr.offset = (size_t)(fb - w->base);
        fr.entry = 1;
        if (decode_list(l->type, &fr, dst, cap, count, &w->d) != FC_OK)
            return FR_TYPE;
    }
    w->index++;
    return FR_OK;
}

/* Where frame t of list l starts in the struct. */
static void *frame_values(const fc_list_desc *l, unsigned char *msg, size_t t)
{
    size_t per = l->kind == FC_KIND_FIXED ? l->elems : l->max;
    return msg + l->value_offset + t * per * fc_type_size(l->type);
}

static void set_bit(uint32_t *present, size_t i)
{
    present[i / 32u] |= UINT32_C(1) << (i % 32u);
}

/* ------------------------------------------------------------ messages */

/* " (found a float_list at byte N)" or " (malformed int64_list: ... at byte N)" */
static void msg_detail(fc_msg *m, fc_type want, const fc_ex_detail *d)
{
    if (d->problem == FC_EXP_TYPE) {
        fc_msg_str(m, " (found ");
        if (d->actual == FC_TYPE_NONE)
            fc_msg_str(m, "a Feature that is not a list");
        else {
            fc_msg_str(m, d->actual == FC_TYPE_INT64 ? "an " : "a ");
            fc_msg_str(m, fc_wire_list_name(d->actual));
            fc_msg_str(m, "_list");
        }
    } else {
        fc_msg_str(m, " (malformed ");
        fc_msg_str(m, fc_wire_list_name(want));
        fc_msg_str(m, "_list: ");
        fc_msg_str(m, d->what != NULL ? d->what : "does not parse");
    }
    fc_msg_at(m, d->offset);
    fc_msg_str(m, ")");
}

static int context_type_error(const fc_field_desc *f, const fc_ex_detail *d, fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, d->offset);
    fc_msg_str(&m, "Name: ");
    fc_msg_str(&m, unknown_name);
    fc_msg_str(&m, ", Context feature: ");
    fc_msg_mem(&m, f->key, f->key_len);
    fc_msg_str(&m, ".  Data types don't match. Expected type: ");
    fc_msg_str(&m, fc_type_tf_name(f->type));
    msg_detail(&m, f->type, d);
    return FC_ERR_PARSE;
}

static int frame_error(const fc_list_desc *l, const frame_walk *w, frame_problem pr,
                       fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX,
                              pr == FR_STRUCT ? w->at : w->d.offset);
    if (pr == FR_STRUCT) {
        fc_msg_str(&m, "Error in sequence feature ");
        fc_msg_mem(&m, l->key, l->key_len);
        fc_msg_str(&m, " in example ");
        fc_msg_str(&m, unknown_name);
        fc_msg_str(&m, " (frame ");
        fc_msg_u64(&m, w->index);
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, w->what);
        fc_msg_at(&m, w->at);
        fc_msg_str(&m, ")");
    } else {
        fc_msg_str(&m, "Name: ");
        fc_msg_str(&m, unknown_name);
        fc_msg_str(&m, ", Feature list: ");
        fc_msg_mem(&m, l->key, l->key_len);
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, w->index);
        fc_msg_str(&m, ".  Data types don't match. Expected type: ");
        fc_msg_str(&m, fc_type_tf_name(l->type));
        msg_detail(&m, l->type, &w->d);
    }
    return FC_ERR_PARSE;
}

static void msg_list_key(fc_msg *m, const fc_list_desc *l)
{
    fc_msg_str(m, "Feature list: ");
    fc_msg_mem(m, l->key, l->key_len);
}

/* ------------------------------------------------------------ the slow path */

/* Values of context feature f (present, non-empty), counted. */
static int context_count(const fc_field_desc *f, const fc_feature_ref *r, size_t *n,
                         fc_ex_detail *d)
{
    return decode_list(f->type, r, NULL, 0, n, d);
}

/* Walks list l counting: frames, total values, and the first frame whose
 * count differs from `want` (when want != (size_t)-1) or from frame 0 (when
 * uniform); returns the walk's problem. */
typedef struct list_stats {
    size_t frames, total;
    size_t first_bad;      /* frame index, or (size_t)-1 */
    size_t first_bad_count;
    size_t first_bad_at;
    size_t frame0_count;
    size_t over_frame;     /* first VARLEN frame over the bound, or (size_t)-1 */
    size_t over_count;
    size_t over_at;
} list_stats;

static frame_problem list_walk(const fc_list_desc *l, const uint8_t *base, const fc_feature_ref *r,
                               size_t want, frame_walk *w, list_stats *st)
{
    int more = 1;
    memset(st, 0, sizeof *st);
    st->first_bad = st->over_frame = (size_t)-1;
    walk_init(w, base, r);
    for (;;) {
        size_t n, t = w->index, at = (size_t)(w->p - base);
        frame_problem pr = walk_next(w, l, NULL, 0, &n, &more);
        if (pr != FR_OK)
            return pr;
        if (!more)
            break;
        if (t == 0)
            st->frame0_count = n;
        if (st->first_bad == (size_t)-1 &&
            ((want != (size_t)-1 && n != want) || (want == (size_t)-1 && n != st->frame0_count))) {
            st->first_bad = t;
            st->first_bad_count = n;
            st->first_bad_at = at;
        }
        if (st->over_frame == (size_t)-1 && l->kind == FC_KIND_VARLEN && n > l->max) {
            st->over_frame = t;
            st->over_count = n;
            st->over_at = at;
        }
        st->frames++;
        st->total += n;
    }
    return FR_OK;
}

/* Phase 3 (ParseContextDenseFeatures): a FixedLen context feature's count
 * against its shape and default. */
static int context_dense_error(const fc_field_desc *f, const fc_feature_ref *r, fc_error *err)
{
    size_t n = 0, length, num;
    size_t def = f->default_value != NULL ? f->elems : 0;
    fc_ex_detail d;
    if (r->entry != 0 && r->size > 0)
        (void)context_count(f, r, &n, &d);
    length = def;
    if (r->entry != 0 && r->size > 0 && n > length)
        length = n;
    if (length != f->elems) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX,
                                  r->entry != 0 ? r->offset : FC_NO_INDEX);
        fc_msg_str(&m, "Inconsistent max number of elements for feature ");
        fc_msg_mem(&m, f->key, f->key_len);
        fc_msg_str(&m, ": expected ");
        fc_msg_u64(&m, f->elems);
        fc_msg_str(&m, ", but found ");
        fc_msg_u64(&m, length);
        fc_msg_str(&m, r->entry == 0 ? " (the context feature is missing"
                                     : " (the context feature has ");
        if (r->entry != 0) {
            fc_msg_u64(&m, n);
            fc_msg_str(&m, n == 1 ? " value" : " values");
        }
        fc_msg_str(&m, " and shape ");
        fc_msg_shape(&m, f->rank, f->dims, 0);
        fc_msg_str(&m, r->entry == 0 ? " has no default" : "");
        if (r->entry != 0)
            fc_msg_at(&m, r->offset);
        fc_msg_str(&m, ")");
        return FC_ERR_PARSE;
    }
    if (r->entry == 0) {
        if (def == 0) {
            fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "Feature: ");
            fc_msg_mem(&m, f->key, f->key_len);
            fc_msg_str(&m, " (data type: ");
            fc_msg_str(&m, fc_type_tf_name(f->type));
            fc_msg_str(&m, ") is required but could not be found.");
            return FC_ERR_PARSE;
        }
        num = def;
    } else {
        num = r->size > 0 ? n : 0;
    }
    if (num != length) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, r->offset);
        fc_msg_str(&m, "Unexpected number of elements in example ");
        fc_msg_str(&m, unknown_name);
        fc_msg_str(&m, " (context feature ");
        fc_msg_mem(&m, f->key, f->key_len);
        fc_msg_str(&m, " has ");
        fc_msg_u64(&m, num);
        fc_msg_str(&m, num == 1 ? " value; its shape " : " values; its shape ");
        fc_msg_shape(&m, f->rank, f->dims, 0);
        fc_msg_str(&m, " needs ");
        fc_msg_u64(&m, f->elems);
        fc_msg_at(&m, r->offset);
        fc_msg_str(&m, ")");
        return FC_ERR_PARSE;
    }
    return FC_OK;
}

/* Phase 4 (ParseSequenceDenseFeatures): a fixed-shape list's values
 * against its shape, and its presence. */
static int dense_list_error(const fc_list_desc *l, const uint8_t *base, const fc_feature_ref *r,
                            fc_error *err)
{
    frame_walk w;
    list_stats st;
    memset(&st, 0, sizeof st);
    st.first_bad = (size_t)-1;
    if (r->entry != 0 && r->size > 0)
        (void)list_walk(l, base, r, l->elems, &w, &st);
    if (st.total % l->elems != 0) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, r->offset);
        fc_msg_str(&m, "Feature list '");
        fc_msg_mem(&m, l->key, l->key_len);
        fc_msg_str(&m, "' has an unexpected number of values.  Total values size: ");
        fc_msg_u64(&m, st.total);
        fc_msg_str(&m, " is not consistent with output shape: ");
        fc_msg_shape(&m, l->rank, l->dims, 1);
        fc_msg_str(&m, " (");
        fc_msg_u64(&m, st.frames);
        fc_msg_str(&m, st.frames == 1 ? " frame" : " frames");
        fc_msg_at(&m, r->offset);
        fc_msg_str(&m, ")");
        return FC_ERR_PARSE;
    }
    if (r->entry == 0 && !l->allow_missing) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "Name: ");
        fc_msg_str(&m, unknown_name);
        fc_msg_str(&m, ", Feature list '");
        fc_msg_mem(&m, l->key, l->key_len);
        fc_msg_str(&m, "' is required but could not be found.  Did you mean to include it "
                       "in feature_list_dense_missing_assumed_empty or "
                       "feature_list_dense_defaults?");
        return FC_ERR_PARSE;
    }
    if (st.first_bad != (size_t)-1) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, st.first_bad_at);
        fc_msg_str(&m, "Name: ");
        fc_msg_str(&m, unknown_name);
        fc_msg_str(&m, ", Key: ");
        fc_msg_mem(&m, l->key, l->key_len);
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, st.first_bad);
        fc_msg_str(&m, ".  Number of values != expected.  values size: ");
        fc_msg_u64(&m, st.first_bad_count);
        fc_msg_str(&m, " but output shape: ");
        fc_msg_shape(&m, l->rank, l->dims, 0);
        fc_msg_paren_at(&m, st.first_bad_at);
        return FC_ERR_PARSE;
    }
    return FC_OK;
}

/* Phase 5, featc's own bounds, which TensorFlow does not have: a VarLen
 * context feature's values. */
static int context_bound_error(const fc_field_desc *f, const fc_feature_ref *r, fc_error *err)
{
    size_t n = 0;
    fc_ex_detail d;
    (void)context_count(f, r, &n, &d);
    if (n > f->max) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, r->offset);
        fc_msg_str(&m, "Context feature: ");
        fc_msg_mem(&m, f->key, f->key_len);
        fc_msg_str(&m, ".  Number of ");
        fc_msg_str(&m, fc_wire_list_name(f->type));
        fc_msg_str(&m, " values exceeds the bound declared in the spec: ");
        fc_msg_u64(&m, n);
        fc_msg_str(&m, " values but max ");
        fc_msg_u64(&m, f->max);
        fc_msg_paren_at(&m, r->offset);
        return FC_ERR_PARSE;
    }
    return FC_OK;
}

/* Phase 5: a list's frames and values against the spec's bounds and its
 * uniform policy; *frames gets its frame count for the aligned check. */
static int list_bound_error(const fc_list_desc *l, const uint8_t *base, const fc_feature_ref *r,
                            size_t *frames, fc_error *err)
{
    frame_walk w;
    list_stats st;
    memset(&st, 0, sizeof st);
    st.first_bad = st.over_frame = (size_t)-1;
    if (r->size > 0)
        (void)list_walk(l, base, r, (size_t)-1, &w, &st);
    if (st.frames > l->max_frames) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, r->offset);
        msg_list_key(&m, l);
        fc_msg_str(&m, ".  Number of frames exceeds the bound declared in the spec: ");
        fc_msg_u64(&m, st.frames);
        fc_msg_str(&m, " frames but max ");
        fc_msg_u64(&m, l->max_frames);
        fc_msg_paren_at(&m, r->offset);
        return FC_ERR_PARSE;
    }
    if (st.over_frame != (size_t)-1) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, st.over_at);
        msg_list_key(&m, l);
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, st.over_frame);
        fc_msg_str(&m, ".  Number of ");
        fc_msg_str(&m, fc_wire_list_name(l->type));
        fc_msg_str(&m, " values exceeds the bound declared in the spec: ");
        fc_msg_u64(&m, st.over_count);
        fc_msg_str(&m, " values but max ");
        fc_msg_u64(&m, l->max);
        fc_msg_paren_at(&m, st.over_at);
        return FC_ERR_PARSE;
    }
    if (l->uniform && st.first_bad != (size_t)-1) {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, st.first_bad_at);
        msg_list_key(&m, l);
        fc_msg_str(&m, ", Index: ");
        fc_msg_u64(&m, st.first_bad);
        fc_msg_str(&m, ".  The spec declares the frames of this list uniform, but frame 0 "
                       "has ");
        fc_msg_u64(&m, st.frame0_count);
        fc_msg_str(&m, " values and this frame ");
        fc_msg_u64(&m, st.first_bad_count);
        fc_msg_paren_at(&m, st.first_bad_at);
        return FC_ERR_PARSE;
    }
    *frames = st.frames;
    return FC_OK;
}

/* Words why a record that did not parse failed, in TensorFlow's order: the
 * checks of ParseSingleSequenceExample, each phase over the features in key
 * order, then featc's bounds and policies. */
static int report(const fc_seq_desc *sd, const uint8_t *base, const fc_feature_ref *refs,
                  fc_error *err)
{
    const fc_feature_ref *cref = refs, *lref = refs + sd->ncontext;
    size_t k, first_aligned = (size_t)-1, first_frames = 0;
    frame_walk w;
    list_stats st;
    fc_ex_detail d;
    /* 1. context features: types (GetContextFeatureLengths) */
    for (k = 0; k < sd->ncontext; k++) {
        size_t i = sd->context_order[k], n;
        if (cref[i].entry != 0 && cref[i].size > 0) {
            memset(&d, 0, sizeof d);
            if (context_count(&sd->context[i], &cref[i], &n, &d) != FC_OK)
                return context_type_error(&sd->context[i], &d, err);
        }
    }
    /* 2. feature lists: frames (GetSequenceFeatureLengths) */
    for (k = 0; k < sd->nlists; k++) {
        size_t j = sd->list_order[k];
        if (lref[j].entry != 0 && lref[j].size > 0) {
            frame_problem pr = list_walk(&sd->lists[j], base, &lref[j], (size_t)-1, &w, &st);
            if (pr != FR_OK)
                return frame_error(&sd->lists[j], &w, pr, err);
        }
    }
    /* 3. context FixedLen counts (ParseContextDenseFeatures) */
    for (k = 0; k < sd->ncontext; k++) {
        size_t i = sd->context_order[k];
        if (sd->context[i].kind == FC_KIND_FIXED &&
            context_dense_error(&sd->context[i], &cref[i], err) != FC_OK)
            return FC_ERR_PARSE;
    }
    /* 4. fixed-shape lists (ParseSequenceDenseFeatures) */
    for (k = 0; k < sd->nlists; k++) {
        size_t j = sd->list_order[k];
        if (sd->lists[j].kind == FC_KIND_FIXED &&
            dense_list_error(&sd->lists[j], base, &lref[j], err) != FC_OK)
            return FC_ERR_PARSE;
    }
    /* 5. featc's bounds and policies: TensorFlow accepts what is left */
    for (k = 0; k < sd->ncontext; k++) {
        size_t i = sd->context_order[k];
        if (sd->context[i].kind == FC_KIND_VARLEN && cref[i].entry != 0 && cref[i].size > 0 &&
            context_bound_error(&sd->context[i], &cref[i], err) != FC_OK)
            return FC_ERR_PARSE;
    }
    for (k = 0; k < sd->nlists; k++) {
        size_t j = sd->list_order[k], frames = 0;
        const fc_list_desc *l = &sd->lists[j];
        const fc_feature_ref *r = &lref[j];
        if (r->entry == 0)
            continue;
        if (list_bound_error(l, base, r, &frames, err) != FC_OK)
            return FC_ERR_PARSE;
        if (!sd->aligned)
            continue;
        if (first_aligned == (size_t)-1) {
            first_aligned = j; /* the first present list, in key order */
            first_frames = frames;
        } else if (first_frames != frames) {
            const fc_list_desc *a = &sd->lists[first_aligned];
            fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, r->offset);
            fc_msg_str(&m, "Feature lists '");
            fc_msg_mem(&m, a->key, a->key_len);
            fc_msg_str(&m, "' and '");
            fc_msg_mem(&m, l->key, l->key_len);
            fc_msg_str(&m, "' have ");
            fc_msg_u64(&m, first_frames);
            fc_msg_str(&m, " and ");
            fc_msg_u64(&m, frames);
            fc_msg_str(&m, " frames, but the spec declares the feature lists aligned");
            fc_msg_paren_at(&m, r->offset);
            return FC_ERR_PARSE;
        }
    }
    {
        fc_msg m = fc_error_begin(err, FC_ERR_PARSE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "internal error");
    }
    return FC_ERR_PARSE;
}

/* ------------------------------------------------------------ the fast path */

int fc_seq_parse(const fc_seq_desc *sd, void *out, const void *data, size_t len,
                 fc_feature_ref *refs, fc_error *err)
{
    const uint8_t *base = (const uint8_t *)data;
    unsigned char *msg = (unsigned char *)out;
    uint32_t *present = (uint32_t *)(void *)(msg + sd->present_offset);
    fc_feature_ref *cref = refs, *lref = refs + sd->ncontext;
    size_t i, aligned_frames = (size_t)-1;
    int rc = scan(sd, base, len, refs, err);
    if (rc != FC_OK)
        return rc;
    memset(present, 0, ((sd->ncontext + sd->nlists + 31u) / 32u) * sizeof(uint32_t));
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *f = &sd->context[i];
        const fc_feature_ref *r = &cref[i];
        size_t n = 0, cap = f->kind == FC_KIND_FIXED ? f->elems : f->max;
        if (f->kind == FC_KIND_RAGGED)
            continue; /* built from its fields by fc_seq_finish */
        if (r->entry != 0) {
            set_bit(present, i);
            if (r->size > 0 &&
                decode_list(f->type, r, msg + f->value_offset, cap, &n, NULL) != FC_OK)
                goto slow;
            if (f->kind == FC_KIND_FIXED ? n != f->elems : n > f->max)
                goto slow;
        } else if (f->kind == FC_KIND_FIXED) {
            if (f->default_value == NULL)
                goto slow; /* required */
            if (f->elems > 0)
                memcpy(msg + f->value_offset, f->default_value, f->elems * fc_type_size(f->type));
        }
        if (f->kind == FC_KIND_VARLEN)
            *(size_t *)(void *)(msg + f->count_offset) = n;
    }
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        const fc_feature_ref *r = &lref[i];
        size_t *frames = (size_t *)(void *)(msg + l->frames_offset);
        size_t *counts = l->kind == FC_KIND_VARLEN ? (size_t *)(void *)(msg + l->count_offset)
                                                   : NULL;
        size_t cap = l->kind == FC_KIND_FIXED ? l->elems : l->max;
        frame_walk w;
        int more = 1;
        *frames = 0;
        if (l->kind == FC_KIND_RAGGED)
            continue; /* built from its lists by fc_seq_finish */
        if (r->entry == 0) {
            if (l->kind == FC_KIND_FIXED && !l->allow_missing)
                goto slow;
            continue;
        }
        set_bit(present, sd->ncontext + i);
        walk_init(&w, base, r);
        for (;;) {
            size_t n, t = w.index;
            if (t >= l->max_frames) {
                if (w.p < w.end)
                    goto slow; /* one frame more than the bound */
                break;
            }
            if (walk_next(&w, l, frame_values(l, msg, t), cap, &n, &more) != FR_OK)
                goto slow;
            if (!more)
                break;
            if (l->kind == FC_KIND_FIXED) {
                if (n != l->elems)
                    goto slow;
            } else {
                if (n > l->max || (l->uniform && t > 0 && n != counts[0]))
                    goto slow;
                counts[t] = n;
            }
        }
        *frames = w.index;
        if (sd->aligned) {
            if (aligned_frames == (size_t)-1)
                aligned_frames = w.index;
            else if (aligned_frames != w.index)
                goto slow;
        }
    }
    return fc_seq_finish(sd, out, err);
slow:
    return report(sd, base, refs, err);
}

/* ------------------------------------------------------------ RaggedFeatures */

/* Feature list j, a RaggedFeature: frame t of its value list partitioned by
 * frame t of each partition list, as parse_single_sequence_example's
 * RaggedTensor [T, (rows)..., (values)] holds it.  TensorFlow applies the
 * partitions to the frames as it does to the records of a batch; featc
 * checks each frame as validate=True checks a record, and wants every list
 * the feature reads to have the same frames. */
static int list_ragged(const fc_seq_desc *sd, size_t j, unsigned char *m, fc_error *err)
{
    const fc_list_desc *l = &sd->lists[j];
    const fc_field_extra *x = l->extra;
    const fc_list_desc *vl = &sd->lists[x->sparse_fields[0]];
    uint32_t *bits = (uint32_t *)(void *)(m + sd->present_offset);
    size_t frames = fc_load_size(m + vl->frames_offset), t, bit = sd->ncontext + j;
    size_t vbit = sd->ncontext + x->sparse_fields[0];
    fc_rg_where w;
    unsigned q;
    w.role = FC_RG_LIST;
    w.key = l->key;
    w.key_len = l->key_len;
    w.frame = 0;
    for (q = 0; q < x->nparts; q++) {
        const fc_part_desc *pd = &x->parts[q];
        size_t pf;
        if (pd->kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        pf = fc_load_size(m + sd->lists[pd->field].frames_offset);
        if (pf != frames) {
            fc_msg e;
            w.frame = pf < frames ? pf : frames; /* the first frame one of them lacks */
            e = fc_rg_not_aligned(&w, err);
            fc_msg_str(&e, "the value list ");
            fc_msg_mem(&e, vl->key, vl->key_len);
            fc_msg_str(&e, " has ");
            fc_msg_u64(&e, frames);
            fc_msg_str(&e, " frames, the partition list ");
            fc_msg_mem(&e, sd->lists[pd->field].key, sd->lists[pd->field].key_len);
            fc_msg_str(&e, " has ");
            fc_msg_u64(&e, pf);
            fc_msg_str(&e, ")");
            return FC_ERR_PARSE;
        }
    }
    for (t = 0; t < frames; t++) {
        fc_rg_in in[FC_MAX_RANK + 1];
        int rc;
        for (q = 0; q <= x->nparts; q++) {
            const fc_list_desc *g = q == 0 ? vl
                                    : x->parts[q - 1].kind == FC_PART_UNIFORM_ROW_LENGTH
                                        ? NULL
                                        : &sd->lists[x->parts[q - 1].field];
            in[q].data = g != NULL ? m + g->value_offset + t * g->max * fc_type_size(g->type)
                                   : NULL;
            in[q].count = g != NULL ? fc_load_size(m + g->count_offset + t * sizeof(size_t)) : 0;
            in[q].key = g != NULL ? g->key : NULL;
            in[q].key_len = g != NULL ? g->key_len : 0;
        }
        w.frame = t;
        rc = fc_rg_build(&w, x, l->type, l->max, m, l->value_offset, l->count_offset, in, err);
        if (rc != FC_OK)
            return rc;
    }
    memcpy(m + l->frames_offset, &frames, sizeof frames);
    fc_bit_copy(bits, (unsigned)bit, (unsigned)vbit);
    return FC_OK;
}

/* Bucket ids of every value of the hashed VarLen lists, frame by frame,
 * laid out as the values (sequence_categorical_column_with_hash_bucket). */
static void hash_lists(const fc_seq_desc *sd, unsigned char *m)
{
    size_t j, t;
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t nb = l->extra != NULL ? l->extra->hash_buckets : 0, frames;
        if (nb == 0)
            continue;
        frames = fc_load_size(m + l->frames_offset);
        for (t = 0; t < frames; t++)
            fc_hash_values(l->type, m + l->value_offset + t * l->max * fc_type_size(l->type),
                           fc_load_size(m + l->count_offset + t * sizeof(size_t)), nb,
                           (int64_t *)(void *)(m + l->extra->bucket_offset) + t * l->max);
    }
}

int fc_seq_finish(const fc_seq_desc *sd, void *out, fc_error *err)
{
    size_t k;
    fc_ex_hash_fields(sd->context, sd->ncontext, out);
    hash_lists(sd, (unsigned char *)out);
    for (k = 0; k < sd->ncontext; k++) {
        size_t i = sd->context_order[k];
        if (sd->context[i].kind == FC_KIND_RAGGED &&
            fc_rg_fields(sd->context, sd->present_offset, i, out, FC_RG_CONTEXT, err) != FC_OK)
            return FC_ERR_PARSE;
    }
    for (k = 0; k < sd->nlists; k++) {
        size_t j = sd->list_order[k];
        if (sd->lists[j].kind == FC_KIND_RAGGED &&
            list_ragged(sd, j, (unsigned char *)out, err) != FC_OK)
            return FC_ERR_PARSE;
    }
    /* the typed tensors last, from the values the parse gives (the
     * RaggedFeatures' included): a parse error comes before a range error,
     * as TensorFlow's parse comes before its tf.cast */
    if (fc_ex_as_fields(sd->context, sd->ncontext, out, 1, err) != FC_OK ||
        fc_seq_as_lists(sd->lists, sd->nlists, out, err) != FC_OK)
        return FC_ERR_PARSE;
    return FC_OK;
}
