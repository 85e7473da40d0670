/* Generated structs to Example and SequenceExample bytes: protobuf's
 * deterministic serialization (see featc/fc_serialize.h for the rules).
 *
 * Two passes over the struct, both walking its descriptor: the first checks
 * it and sums the sizes (every nested message's length prefix needs its
 * size), the second writes front to back, computing each feature's size
 * again as it goes (once per Feature; a feature list's frames twice, for the
 * list's length prefix and then for each frame's).  Sizes are 64-bit and
 * stop growing once past the 2 GiB message limit, so no sum can wrap however
 * large the bytes views are. */
#include <string.h>

#include "featc/fc_serialize.h"
#include "wire.h"

#define LIMIT ((uint64_t)FC_MAX_MESSAGE_SIZE)
#define OVER (LIMIT + 1u)

/* a + b, held at OVER once past the limit */
static uint64_t add(uint64_t a, uint64_t b)
{
    return a > LIMIT || b > LIMIT || a + b > LIMIT ? OVER : a + b;
}

/* A length-delimited field of body size n: tag, length, body. */
static uint64_t delimited(uint64_t n)
{
    return add(1u + fc_wire_varint_size(n), n);
}

static int64_t load_i64(const unsigned char *p)
{
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static fc_bytes load_bytes(const unsigned char *p)
{
    fc_bytes v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The packed values of an Int64List or FloatList of n values. */
static uint64_t packed_size(fc_type t, const unsigned char *vals, size_t n)
{
    uint64_t body = 0;
    size_t i;
    if (t == FC_TYPE_FLOAT)
        return n > LIMIT / 4u ? OVER : 4u * (uint64_t)n;
    for (i = 0; i < n && body <= LIMIT; i++)
        body += fc_wire_varint_size((uint64_t)load_i64(vals + i * sizeof(int64_t)));
    return body;
}

/* The sizes of a Feature holding n values of type t. */
typedef struct feature_sizes {
    uint64_t packed;  /* int64 and float: the packed values */
    uint64_t list;    /* the Int64List, FloatList or BytesList body: the packed
                         field (left out when empty), or one field per bytes value */
    uint64_t feature; /* the Feature message: its oneof field around the list */
} feature_sizes;

static feature_sizes sizes_of(fc_type t, const unsigned char *vals, size_t n)
{
    feature_sizes z;
    size_t i;
    z.packed = z.list = 0;
    if (t != FC_TYPE_BYTES) {
        z.packed = packed_size(t, vals, n);
        z.list = n == 0 ? 0 : delimited(z.packed);
    } else {
        for (i = 0; i < n && z.list <= LIMIT; i++)
            z.list = add(z.list, delimited((uint64_t)load_bytes(vals + i * sizeof(fc_bytes)).size));
    }
    z.feature = delimited(z.list);
    return z;
}

/* Writes the Feature message whose sizes z are (sizes_of the same values). */
static uint8_t *put_feature(uint8_t *p, fc_type t, const unsigned char *vals, size_t n,
                            const feature_sizes *z)
{
    /* the oneof's field numbers: bytes_list 1, float_list 2, int64_list 3 */
    static const uint8_t tags[4] = {0, 0x0Au, 0x12u, 0x1Au};
    size_t i;
    p = fc_wire_put_head(p, tags[t], z->list);
    if (t == FC_TYPE_BYTES) {
        for (i = 0; i < n; i++) {
            fc_bytes b = load_bytes(vals + i * sizeof(fc_bytes));
            p = fc_wire_put_head(p, FC_TAG_LEN1, (uint64_t)b.size);
            if (b.size > 0)
                memcpy(p, b.data, b.size);
            p += b.size;
        }
        return p;
    }
    if (n == 0)
        return p;
    p = fc_wire_put_head(p, FC_TAG_LEN1, z->packed);
    if (t == FC_TYPE_FLOAT) {
        for (i = 0; i < n; i++) {
            uint32_t u;
            memcpy(&u, vals + i * sizeof(float), sizeof u);
            p[0] = (uint8_t)u;
            p[1] = (uint8_t)(u >> 8);
            p[2] = (uint8_t)(u >> 16);
            p[3] = (uint8_t)(u >> 24);
            p += 4;
        }
        return p;
    }
    for (i = 0; i < n; i++)
        p = fc_wire_put_varint(p, (uint64_t)load_i64(vals + i * sizeof(int64_t)));
    return p;
}

static fc_msg arg_error(fc_error *err, const char *what, const char *key, size_t key_len)
{
    fc_msg m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "cannot serialize ");
    fc_msg_str(&m, what);
    fc_msg_str(&m, " \"");
    fc_msg_mem(&m, key, key_len);
    fc_msg_str(&m, "\": ");
    return m;
}

static int count_error(fc_error *err, const char *what, const char *key, size_t key_len,
                       size_t n, const char *unit, size_t max)
{
    fc_msg m = arg_error(err, what, key, key_len);
    fc_msg_u64(&m, n);
    fc_msg_str(&m, unit);
    fc_msg_str(&m, ", more than its bound of ");
    fc_msg_u64(&m, max);
    return FC_ERR_ARG;
}

/* Every bytes view of a list has data when it has a size. */
static int check_views(fc_type t, const unsigned char *vals, size_t n, const char *what,
                       const char *key, size_t key_len, fc_error *err)
{
    size_t i;
    if (t != FC_TYPE_BYTES)
        return FC_OK;
    for (i = 0; i < n; i++) {
        fc_bytes b = load_bytes(vals + i * sizeof(fc_bytes));
        if (b.data == NULL && b.size > 0) {
            fc_msg m = arg_error(err, what, key, key_len);
            fc_msg_str(&m, "value ");
            fc_msg_u64(&m, i);
            fc_msg_str(&m, " is a NULL view of ");
            fc_msg_u64(&m, b.size);
            fc_msg_str(&m, " bytes");
            return FC_ERR_ARG;
        }
    }
    return FC_OK;
}

static int too_large(fc_error *err)
{
    fc_msg m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "cannot serialize: the message would exceed protobuf's limit of ");
    fc_msg_u64(&m, LIMIT);
    fc_msg_str(&m, " bytes");
    return FC_ERR_ARG;
}

/* ------------------------------------------------------------- features */

/* A Features map: fields[0..n) of the struct at msg, taken in key order;
 * the presence bit of field i is bit i (an Example's features, and a
 * SequenceExample's context, which comes first). */
typedef struct features {
    const fc_field_desc *fields;
    const uint16_t *order;
    size_t n;
    const unsigned char *msg;
    const uint32_t *present;
    unsigned flags;
} features;

static void features_init(features *fs, const fc_field_desc *fields, const uint16_t *order,
                          size_t n, const void *msg, size_t present_offset, unsigned flags)
{
    fs->fields = fields;
    fs->order = order;
    fs->n = n;
    fs->msg = (const unsigned char *)msg;
    fs->present = (const uint32_t *)(const void *)(fs->msg + present_offset);
    fs->flags = flags;
}

/* Whether n bytes of values equal a default's: a scalar's 4 or 8 bytes as
 * one word (a fixed-size copy inlines, where memcmp is a call that costs
 * more than the comparison: about 8% of a Parquet-to-records convert of
 * the tutorial corpus, where every row's scalars are compared). */
static int same_bytes(const unsigned char *a, const void *b, size_t n)
{
    if (n == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    if (n == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    return memcmp(a, b, n) == 0;
}

/* Whether field i is written (1) or not (0), and its values.  Counts are
 * taken as they are: field_check bounds them before anything uses them. */
static int field_values(const features *fs, size_t i, const unsigned char **vals, size_t *n)
{
    const fc_field_desc *f = &fs->fields[i];
    int present = fc_bit_get(fs->present, (unsigned)i);
    *vals = fs->msg + f->value_offset;
    switch (f->kind) {
    case FC_KIND_FIXED:
        *n = f->elems;
        if (present || f->default_value == NULL || (fs->flags & FC_WRITE_DEFAULTS) != 0)
            return 1;
        if (f->type != FC_TYPE_BYTES) {
            if (!same_bytes(*vals, f->default_value, f->elems * fc_type_size(f->type)))
                return 1;
        } else {
            const fc_bytes *d = (const fc_bytes *)f->default_value;
            size_t k;
            for (k = 0; k < f->elems; k++) {
                fc_bytes v = load_bytes(*vals + k * sizeof(fc_bytes));
                if (v.size != d[k].size ||
                    (v.size > 0 && (v.data == NULL || memcmp(v.data, d[k].data, v.size) != 0)))
                    return 1;
            }
        }
        return 0;
    case FC_KIND_VARLEN:
        *n = fc_load_size(fs->msg + f->count_offset);
        return *n > 0 || present;
    case FC_KIND_ROWS: { /* n may wrap for rows past the bound: field_check refuses those */
        size_t rows = fc_load_size(fs->msg + f->count_offset);
        *n = rows * f->elems;
        return rows > 0 || present;
    }
    default: /* SparseFeature, RaggedFeature: written through their component fields */
        return 0;
    }
}

/* The checks of a field that is written: FC_OK, or FC_ERR_ARG with err set. */
static int field_check(const features *fs, size_t i, const unsigned char *vals, size_t n,
                       fc_error *err)
{
    const fc_field_desc *f = &fs->fields[i];
    if (f->kind == FC_KIND_VARLEN && n > f->max)
        return count_error(err, "feature", f->key, f->key_len, n, " values", f->max);
    if (f->kind == FC_KIND_ROWS && fc_load_size(fs->msg + f->count_offset) > f->max)
        return count_error(err, "feature", f->key, f->key_len,
                           fc_load_size(fs->msg + f->count_offset), " rows", f->max);
    return check_views(f->type, vals, n, "feature", f->key, f->key_len, err);
}

/* The body of one map entry: the key, then the value message of size v. */
static uint64_t entry_body(size_t key_len, uint64_t v)
{
    return add(delimited((uint64_t)key_len), delimited(v));
}

/* The body of the Features message. */
static int features_size(const features *fs, uint64_t *size, fc_error *err)
{
    uint64_t total = 0;
    size_t k;
    for (k = 0; k < fs->n; k++) {
        size_t i = fs->order[k], n;
        const unsigned char *vals;
        if (!field_values(fs, i, &vals, &n))
            continue;
        if (field_check(fs, i, vals, n, err) != FC_OK)
            return FC_ERR_ARG;
        total = add(total, delimited(entry_body(fs->fields[i].key_len,
                                                sizes_of(fs->fields[i].type, vals, n).feature)));
    }
    *size = total;
    return FC_OK;
}

static uint8_t *put_key(uint8_t *p, const char *key, size_t len)
{
    p = fc_wire_put_head(p, FC_TAG_LEN1, (uint64_t)len);
    if (len > 0)
        memcpy(p, key, len);
    return p + len;
}

/* Writes the entries (already checked by features_size). */
static uint8_t *put_features(uint8_t *p, const features *fs)
{
    size_t k;
    for (k = 0; k < fs->n; k++) {
        size_t i = fs->order[k], n;
        const unsigned char *vals;
        const fc_field_desc *f = &fs->fields[i];
        feature_sizes z;
        if (!field_values(fs, i, &vals, &n))
            continue;
        z = sizes_of(f->type, vals, n);
        p = fc_wire_put_head(p, FC_TAG_LEN1, entry_body(f->key_len, z.feature));
        p = put_key(p, f->key, f->key_len);
        p = fc_wire_put_head(p, FC_TAG_LEN2, z.feature);
        p = put_feature(p, f->type, vals, n, &z);
    }
    return p;
}

static void message_features(features *fs, const fc_message_desc *md, const void *msg,
                             unsigned flags)
{
    features_init(fs, md->fields, md->missing_order, md->nfields, msg, md->present_offset, flags);
}

static int start(const void *desc, const void *msg, fc_error *err)
{
    if (err != NULL)
        fc_error_clear(err);
    if (desc == NULL || msg == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "cannot serialize: NULL descriptor or message");
        return FC_ERR_ARG;
    }
    return FC_OK;
}

/* Finishes a serialize call: *len gets the size (already within the limit);
 * checks the room. */
static int room(uint64_t size, size_t cap, size_t *len, fc_error *err)
{
    if (len != NULL)
        *len = (size_t)size;
    if (size > cap) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_SPACE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "cannot serialize: the message takes ");
        fc_msg_u64(&m, size);
        fc_msg_str(&m, " bytes, the buffer has ");
        fc_msg_u64(&m, cap);
        return FC_ERR_NO_SPACE;
    }
    return FC_OK;
}

static int example_size(const fc_message_desc *md, const void *msg, unsigned flags,
                        uint64_t *size, uint64_t *body, fc_error *err)
{
    features fs;
    int rc = start(md, msg, err);
    if (rc != FC_OK)
        return rc;
    message_features(&fs, md, msg, flags);
    if ((rc = features_size(&fs, body, err)) != FC_OK)
        return rc;
    *size = delimited(*body);
    return *size > LIMIT ? too_large(err) : FC_OK;
}

fc_status fc_ex_encoded_size(const fc_message_desc *md, const void *msg, unsigned flags,
                             size_t *size, fc_error *err)
{
    uint64_t total, body;
    int rc = example_size(md, msg, flags, &total, &body, err);
    if (rc == FC_OK && size != NULL)
        *size = (size_t)total;
    return (fc_status)rc;
}

fc_status fc_ex_serialize(const fc_message_desc *md, const void *msg, unsigned flags, void *buf,
                          size_t cap, size_t *len, fc_error *err)
{
    uint64_t total, body;
    features fs;
    uint8_t *p;
    int rc = example_size(md, msg, flags, &total, &body, err);
    if (rc != FC_OK || (rc = room(total, buf == NULL ? 0 : cap, len, err)) != FC_OK)
        return (fc_status)rc;
    message_features(&fs, md, msg, flags);
    p = fc_wire_put_head((uint8_t *)buf, FC_TAG_LEN1, body);
    put_features(p, &fs);
    return FC_OK;
}

/* ---------------------------------------------------------- feature lists */

static const unsigned char *frame_values(const fc_list_desc *l, const unsigned char *msg,
                                         size_t frame, size_t *n)
{
    size_t tsize = fc_type_size(l->type);
    if (l->kind == FC_KIND_VARLEN) {
        *n = fc_load_size(msg + l->count_offset + frame * sizeof(size_t));
        return msg + l->value_offset + frame * l->max * tsize;
    }
    *n = l->elems;
    return msg + l->value_offset + frame * l->elems * tsize;
}

/* Whether list j is written. */
static int list_written(const fc_seq_desc *sd, const unsigned char *msg, const uint32_t *present,
                        size_t j)
{
    const fc_list_desc *l = &sd->lists[j];
    if (l->kind == FC_KIND_RAGGED)
        return 0; /* written through the lists it reads */
    return (l->kind == FC_KIND_FIXED && !l->allow_missing) ||
           fc_load_size(msg + l->frames_offset) > 0 ||
           fc_bit_get(present, (unsigned)(sd->ncontext + j));
}

/* The checks of a list that is written: FC_OK, or FC_ERR_ARG with err set. */
static int list_check(const fc_list_desc *l, const unsigned char *msg, fc_error *err)
{
    size_t frames = fc_load_size(msg + l->frames_offset), f, n;
    if (frames > l->max_frames)
        return count_error(err, "feature list", l->key, l->key_len, frames, " frames",
                           l->max_frames);
    for (f = 0; f < frames; f++) {
        const unsigned char *vals = frame_values(l, msg, f, &n);
        if (n > l->max) {
            fc_msg m = arg_error(err, "feature list", l->key, l->key_len);
            fc_msg_str(&m, "frame ");
            fc_msg_u64(&m, f);
            fc_msg_str(&m, " holds ");
            fc_msg_u64(&m, n);
            fc_msg_str(&m, " values, more than its bound of ");
            fc_msg_u64(&m, l->max);
            return FC_ERR_ARG;
        }
        if (l->uniform && n != fc_load_size(msg + l->count_offset)) {
            fc_msg m = arg_error(err, "feature list", l->key, l->key_len);
            fc_msg_str(&m, "it is declared uniform but frame ");
            fc_msg_u64(&m, f);
            fc_msg_str(&m, " holds ");
            fc_msg_u64(&m, n);
            fc_msg_str(&m, " values and frame 0 holds ");
            fc_msg_u64(&m, fc_load_size(msg + l->count_offset));
            return FC_ERR_ARG;
        }
        if (check_views(l->type, vals, n, "feature list", l->key, l->key_len, err) != FC_OK)
            return FC_ERR_ARG;
    }
    return FC_OK;
}

/* The FeatureList message of list l: one Feature per frame. */
static uint64_t feature_list_size(const fc_list_desc *l, const unsigned char *msg)
{
    size_t frames = fc_load_size(msg + l->frames_offset), f, n;
    uint64_t total = 0;
    for (f = 0; f < frames && total <= LIMIT; f++) {
        const unsigned char *vals = frame_values(l, msg, f, &n);
        total = add(total, delimited(sizes_of(l->type, vals, n).feature));
    }
    return total;
}

typedef struct seq_sizes {
    uint64_t context; /* Features body */
    uint64_t lists;   /* FeatureLists body */
    uint64_t total;
} seq_sizes;

static void seq_features(features *fs, const fc_seq_desc *sd, const void *msg, unsigned flags)
{
    features_init(fs, sd->context, sd->context_order, sd->ncontext, msg, sd->present_offset,
                  flags);
}

static int sequence_size(const fc_seq_desc *sd, const void *msg, unsigned flags, seq_sizes *s,
                         fc_error *err)
{
    const unsigned char *base = (const unsigned char *)msg;
    const uint32_t *present;
    features fs;
    size_t j, aligned_frames = 0;
    const fc_list_desc *aligned_first = NULL;
    int rc = start(sd, msg, err);
    if (rc != FC_OK)
        return rc;
    seq_features(&fs, sd, msg, flags);
    present = fs.present;
    if ((rc = features_size(&fs, &s->context, err)) != FC_OK)
        return rc;
    s->lists = 0;
    for (j = 0; j < sd->nlists; j++) {
        size_t i = sd->list_order[j];
        const fc_list_desc *l = &sd->lists[i];
        if (!list_written(sd, base, present, i))
            continue;
        if (list_check(l, base, err) != FC_OK)
            return FC_ERR_ARG;
        if (sd->aligned) {
            size_t frames = fc_load_size(base + l->frames_offset);
            if (aligned_first == NULL) {
                aligned_first = l;
                aligned_frames = frames;
            } else if (frames != aligned_frames) {
                fc_msg m = arg_error(err, "feature list", l->key, l->key_len);
                fc_msg_str(&m, "the lists are aligned but it has ");
                fc_msg_u64(&m, frames);
                fc_msg_str(&m, " frames and \"");
                fc_msg_mem(&m, aligned_first->key, aligned_first->key_len);
                fc_msg_str(&m, "\" has ");
                fc_msg_u64(&m, aligned_frames);
                return FC_ERR_ARG;
            }
        }
        s->lists = add(s->lists, delimited(entry_body(l->key_len, feature_list_size(l, base))));
    }
    s->total = add(delimited(s->context), delimited(s->lists));
    return s->total > LIMIT ? too_large(err) : FC_OK;
}

fc_status fc_seq_encoded_size(const fc_seq_desc *sd, const void *msg, unsigned flags,
                              size_t *size, fc_error *err)
{
    seq_sizes s;
    int rc = sequence_size(sd, msg, flags, &s, err);
    if (rc == FC_OK && size != NULL)
        *size = (size_t)s.total;
    return (fc_status)rc;
}

fc_status fc_seq_serialize(const fc_seq_desc *sd, const void *msg, unsigned flags, void *buf,
                           size_t cap, size_t *len, fc_error *err)
{
    const unsigned char *base = (const unsigned char *)msg;
    seq_sizes s;
    features fs;
    uint8_t *p;
    size_t j;
    int rc = sequence_size(sd, msg, flags, &s, err);
    if (rc != FC_OK || (rc = room(s.total, buf == NULL ? 0 : cap, len, err)) != FC_OK)
        return (fc_status)rc;
    seq_features(&fs, sd, msg, flags);
    p = fc_wire_put_head((uint8_t *)buf, FC_TAG_LEN1, s.context);
    p = put_features(p, &fs);
    p = fc_wire_put_head(p, FC_TAG_LEN2, s.lists);
    for (j = 0; j < sd->nlists; j++) {
        size_t i = sd->list_order[j], frames, f, n;
        const fc_list_desc *l = &sd->lists[i];
        uint64_t fl;
        if (!list_written(sd, base, fs.present, i))
            continue;
        fl = feature_list_size(l, base);
        p = fc_wire_put_head(p, FC_TAG_LEN1, entry_body(l->key_len, fl));
        p = put_key(p, l->key, l->key_len);
        p = fc_wire_put_head(p, FC_TAG_LEN2, fl);
        frames = fc_load_size(base + l->frames_offset);
        for (f = 0; f < frames; f++) {
            const unsigned char *vals = frame_values(l, base, f, &n);
            feature_sizes z = sizes_of(l->type, vals, n);
            p = fc_wire_put_head(p, FC_TAG_LEN1, z.feature);
            p = put_feature(p, l->type, vals, n, &z);
        }
    }
    return FC_OK;
}
