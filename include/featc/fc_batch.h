/* featc runtime: batches of records as tensors, in the layouts of
 * tf.io.parse_example and tf.io.parse_sequence_example.
 *
 * A batch is B serialized records in; one column per feature out.  A column
 * is a set of caller buffers (nothing here allocates) plus the shape the
 * batch gave it:
 *
 *   FixedLen [dims]            values [B, dims...]
 *   FixedLenSequence [?,dims]  values [B, R, dims...], R the most rows of any
 *   (rows, in an Example)      record; the rest of each block holds the
 *                              padding value; lengths [B] = rows per record
 *   VarLen                     values [N]; as the caller asks: SparseTensor
 *                              indices [N, 2] = (record, position), shape
 *                              [B, most values]; ragged row_splits [B + 1]
 *   list, fixed frame [dims]   values [B, T, dims...], T the most frames of
 *   (SequenceExample)          any record, padded with 0 / ""; lengths [B]
 *   list, VarLen frames        values [N]; indices [N, 3] = (record, frame,
 *                              position), shape [B, most frames, most values
 *                              in a frame]; ragged: row_splits [B + 1] over
 *                              frames, inner_splits [frames + 1] over values
 *
 * Every record is parsed by the message's own single-record parser into a
 * scratch struct, then copied out: a batch holds exactly the values of the
 * records parsed one at a time, stacked.  (An Example of FixedLen and
 * VarLen features only decodes straight into the columns by its direct
 * path, md->batch_direct, the same values, and a SequenceExample of them
 * by fc_batch_seq_direct_desc; a record that path does not take goes the
 * way above.)  The first record that fails stops
 * the batch: its error is TensorFlow's batched text (Example: "Name:
 * <unknown>, Key: K, Index: I.  ..."), err->record is its index in the batch.
 *
 * Capacities are checked before anything is written past a buffer: those
 * that depend only on B (fixed shapes, lengths, row splits) before the
 * first record (FC_ERR_ARG), those that depend on the data (VarLen values,
 * indices, inner splits; padded rows and frames) as they are needed
 * (FC_ERR_NO_SPACE, naming the record).  fc_batch_bind sizes every buffer
 * for the spec's bounds, so that a bound batch never runs out of space.
 * After an error the columns hold unspecified values.  Bytes values are
 * views into the records, valid while they are.
 */
#ifndef FEATC_FC_BATCH_H
#define FEATC_FC_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fc_example.h"
#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_column {
    /* Buffers and their capacities, in elements; set by the caller or by
     * fc_batch_bind.  values holds int64_t, float or fc_bytes as the
     * feature's type says. */
    void *values;
    size_t values_cap;
    int64_t *indices;       /* VarLen: sparse indices, row-major; NULL: not wanted */
    size_t indices_cap;
    int64_t *row_splits;    /* VarLen: ragged splits [B + 1]; NULL: not wanted */
    size_t row_splits_cap;
    int64_t *inner_splits;  /* VarLen list: splits of frames [frames + 1]; NULL: not wanted */
    size_t inner_splits_cap;
    int64_t *lengths;       /* rows / frames per record [B]: needed by rows
                               and fixed-frame lists, optional elsewhere */
    size_t lengths_cap;
    int64_t *buckets;       /* hashed features: a bucket id per value, laid out
                               as values; NULL: not wanted */
    size_t buckets_cap;
    float *hot;             /* one_hot: [B, dims, N]; multi_hot: [B, N]; NULL:
                               not wanted */
    size_t hot_cap;
    int64_t *part_splits[FC_MAX_RANK]; /* RaggedFeature partition q: its row
                               splits over the batch [rows + 1], needed */
    size_t part_splits_cap[FC_MAX_RANK];
    size_t part_nsplits[FC_MAX_RANK];  /* written */
    /* What the batch wrote. */
    size_t nvalues;         /* values (dense: the product of shape) */
    size_t nindices;        /* sparse: index rows (= nvalues) */
    size_t nframes;         /* VarLen list: frames in the batch */
    unsigned rank;          /* of shape */
    int64_t shape[FC_MAX_RANK + 2]; /* dense: the tensor's shape; VarLen: the
                                       SparseTensor's dense_shape */
    /* Set by fc_batch_bind (FC_BATCH_PACKED); zero it when filling a column
     * by hand. */
    unsigned packed;
} fc_column;

/* Which outputs fc_batch_bind gives VarLen columns. */
#define FC_BATCH_SPARSE 1u /* indices */
#define FC_BATCH_RAGGED 2u /* row splits (and inner splits for lists) */
/* Rows (FixedLenSequence in an Example) and fixed-frame lists stay packed:
 * record i's rows right after record i-1's, lengths saying how many, the
 * shape still the padded tensor's, nvalues the packed count (what Arrow's
 * lists hold: fc_arrow.h; no padding written). */
#define FC_BATCH_PACKED 4u

/* Buffers are carved from the block in pieces rounded up to this, each
 * starting at a multiple of it: 64 bytes, a cache line, and the alignment
 * Arrow asks of the buffers it is handed (fc_arrow.h exports a batch's
 * buffers as they are). */
#define FC_BATCH_ALIGN 64u
#define FC_BATCH_ROUND(n) (((size_t)(n) + (FC_BATCH_ALIGN - 1u)) / FC_BATCH_ALIGN * FC_BATCH_ALIGN)

/* Sizes the buffers of every column for a batch of up to b records at the
 * spec's bounds, with the VarLen outputs `forms` asks for, and returns the
 * bytes that takes.  When mem is not NULL and size is at least that, points
 * the columns into mem (aligned to FC_BATCH_ALIGN: mem must be too);
 * otherwise leaves them alone.  Returns 0 when the size overflows size_t.
 * Lengths, bucket ids and hot vectors are always bound.  cols has one entry per field (Example), or per
 * context feature then per list (SequenceExample). */
size_t fc_batch_bind(const fc_message_desc *md, fc_column *cols, size_t b, unsigned forms,
                     void *mem, size_t size);
size_t fc_batch_bind_seq(const fc_seq_desc *sd, fc_column *cols, size_t b, unsigned forms,
                         void *mem, size_t size);

/* Parses records[0..n) into cols as tf.io.parse_example does (scratch: one
 * struct of the message, md->size bytes).  Returns FC_OK, FC_ERR_PARSE (the
 * first failing record), FC_ERR_ARG or FC_ERR_NO_SPACE (a capacity). */
int fc_batch_parse(const fc_message_desc *md, fc_column *cols, void *scratch,
                   const fc_bytes *records, size_t n, fc_error *err);
/* The same for tf.io.parse_sequence_example. */
int fc_batch_parse_seq(const fc_seq_desc *sd, fc_column *cols, void *scratch,
                       const fc_bytes *records, size_t n, fc_error *err);

/* The same batch for a caller that parses each record itself (a message
 * described at run time, featc_dynamic.h, has no parse function):
 * fc_batch_begin checks the capacities that depend on n and readies the
 * columns; then record i = 0..n-1 is parsed into a struct and appended
 * column by column with fc_batch_append_field (fc_batch_append_seq);
 * fc_batch_end pads rows and frames and sets the shapes.  The columns
 * then hold what fc_batch_parse gives for the same records. */
int fc_batch_begin(const fc_message_desc *md, fc_column *cols, size_t n, fc_error *err);
int fc_batch_end(const fc_message_desc *md, fc_column *cols, size_t n, fc_error *err);
int fc_batch_begin_seq(const fc_seq_desc *sd, fc_column *cols, size_t n, fc_error *err);
int fc_batch_end_seq(const fc_seq_desc *sd, fc_column *cols, size_t n, fc_error *err);
/* The same batch in one call, the caller's parse given: parse(ctx, msg,
 * data, size, err) parses one record into msg (scratch).  The columns are
 * fc_batch_begin's, fc_batch_append_field's per column and fc_batch_end's,
 * each column's description built once per batch rather than per record
 * and column; a record that fails gives its parse's (or its append's)
 * error with err->record its place in the batch, not the batched texts of
 * fc_batch_parse.  (What featc convert --spec and fc_arrow_stream_hooked
 * build their batches with.) */
typedef int (*fc_record_parse_fn)(void *ctx, void *msg, const void *data, size_t size,
                                  fc_error *err);
int fc_batch_parse_each(const fc_message_desc *md, fc_record_parse_fn parse, void *ctx,
                        fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                        fc_error *err);
int fc_batch_parse_each_seq(const fc_seq_desc *sd, fc_record_parse_fn parse, void *ctx,
                            fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                            fc_error *err);
/* fc_batch_parse_each with the direct path of a message described at run
 * time: when fc_batch_direct_fits(md) (every feature FixedLen or VarLen,
 * without hash_buckets, one-hot or `as`; at most 256 of them) and the
 * columns' values are set and aligned, the records that fc_fast.h's
 * layout covers are decoded straight into the columns by
 * fc_batch_direct_desc, keys found by lookup(lctx, key, len)
 * (featc_dynamic_lookup: md's field index, or -1); any other record goes
 * to parse and is appended as fc_batch_parse_each does.  The columns and
 * errors are fc_batch_parse_each's.  (What featc convert --spec uses.) */
int fc_batch_parse_each_direct(const fc_message_desc *md, fc_ex_lookup_fn lookup,
                               const void *lctx, fc_record_parse_fn parse, void *ctx,
                               fc_column *cols, void *scratch, const fc_bytes *records, size_t n,
                               fc_error *err);
int fc_batch_direct_fits(const fc_message_desc *md);
/* Records first..n-1 into the columns while the fast path takes them; the
 * first it does not take (n: all), nothing of which is committed. */
size_t fc_batch_direct_desc(const fc_message_desc *md, fc_ex_lookup_fn lookup, const void *lctx,
                            fc_column *cols, const fc_bytes *records, size_t first, size_t n);
/* fc_batch_parse_each_seq with the direct path of a SequenceExample
 * (fc_batch_seq_direct_desc): when fc_batch_seq_direct_fits(sd) (context
 * features and lists FixedLen or VarLen, without hash_buckets, one-hot,
 * `as` or a RaggedFeature reading them; at most 256 context features and
 * 64 lists) and the columns' values are set and aligned, the records that
 * fc_fast.h's layout covers are decoded straight into the columns, keys
 * found by sd's own lookups; any other record goes to parse and is
 * appended as fc_batch_parse_each_seq does.  The columns and errors are
 * fc_batch_parse_each_seq's.  fc_batch_parse_seq takes the same path. */
int fc_batch_parse_each_seq_direct(const fc_seq_desc *sd, fc_record_parse_fn parse, void *ctx,
                                   fc_column *cols, void *scratch, const fc_bytes *records,
                                   size_t n, fc_error *err);
int fc_batch_seq_direct_fits(const fc_seq_desc *sd);
/* Records first..n-1 into the columns while the fast path takes them; the
 * first it does not take (n: all), nothing of which is committed.  scratch
 * is a struct of sd (sd->size bytes): a VarLen list's frame counts are
 * kept in it. */
size_t fc_batch_seq_direct_desc(const fc_seq_desc *sd, fc_column *cols, void *scratch,
                                const fc_bytes *records, size_t first, size_t n);
/* The generated batch assembly (NAME_batch_append, md->batch_append and
 * sd->batch_append) writes record i's fields with the fc_batch_put_
 * functions below, typed and sized at compile time; what they do not cover
 * goes through the general path for column j: fc_batch_append_field for
 * an Example, fc_batch_append_seq for a SequenceExample (context features,
 * then lists).  That is hashed features, SparseFeature, RaggedFeature, and
 * any capacity to check and report. */
int fc_batch_append_field(const fc_message_desc *md, size_t j, fc_column *cols, const void *msg,
                          size_t i, fc_error *err);
int fc_batch_append_seq(const fc_seq_desc *sd, size_t j, fc_column *cols, const void *msg,
                        size_t i, fc_error *err);

/* A FixedLen feature's `elems` values (size bytes) as record i's. */
static inline void fc_batch_put_fixed(fc_column *c, size_t i, const void *v, size_t size,
                                      size_t elems)
{
    memcpy((unsigned char *)c->values + i * size, v, size);
    c->nvalues += elems;
}

/* Record i's cnt values of a VarLen feature, already written at values +
 * nvalues (within the capacities): its sparse indices or ragged splits and
 * lengths, and the count. */
static inline void fc_batch_put_placed(fc_column *c, size_t i, size_t cnt)
{
    size_t total = c->nvalues + cnt, k;
    if (c->indices != NULL)
        for (k = 0; k < cnt; k++) {
            c->indices[2 * (c->nvalues + k)] = (int64_t)i;
            c->indices[2 * (c->nvalues + k) + 1] = (int64_t)k;
        }
    c->nvalues = total;
    if (c->row_splits != NULL)
        c->row_splits[i + 1] = (int64_t)total;
    if (c->lengths != NULL)
        c->lengths[i] = (int64_t)cnt;
    if ((int64_t)cnt > c->shape[1])
        c->shape[1] = (int64_t)cnt;
}

/* A VarLen feature's cnt values (ts bytes each) as record i's, with its
 * sparse indices or ragged splits and lengths; 1 (nothing written) when a
 * capacity is short, for fc_batch_append_field to report. */
static inline int fc_batch_put_varlen(fc_column *c, size_t i, const void *v, size_t cnt,
                                      size_t ts)
{
    size_t total = c->nvalues + cnt;
    if (cnt > 0 && (c->values == NULL || c->values_cap < total ||
                    (c->indices != NULL && c->indices_cap / 2 < total)))
        return 1;
    if (cnt > 0)
        memcpy((unsigned char *)c->values + c->nvalues * ts, v, cnt * ts);
    fc_batch_put_placed(c, i, cnt);
    return 0;
}

/* How many values a VarLen column can still take, at most max: what the
 * direct batch path (NAME_batch_direct) lets the fast path write at
 * values + nvalues.  (Its caller has checked that values is set.) */
static inline size_t fc_batch_room(const fc_column *c, size_t max)
{
    size_t room = c->values_cap - c->nvalues;
    if (c->indices != NULL && c->indices_cap / 2 - c->nvalues < room)
        room = c->indices_cap / 2 - c->nvalues;
    return room < max ? room : max;
}

/* FixedLenSequence rows (Example) or a fixed-frame list's frames: `rows`
 * blocks of `elems` values (ts bytes each) as record i's, packed (the batch
 * pads them when it ends), with its length; 1 (nothing written) when the
 * values are short, for the general path to report. */
static inline int fc_batch_put_rows(fc_column *c, size_t i, const void *v, size_t rows,
                                    size_t elems, size_t ts)
{
    size_t cnt = rows * elems, total = c->nvalues + cnt;
    if (cnt > 0 && (c->values == NULL || c->values_cap < total))
        return 1;
    if (cnt > 0)
        memcpy((unsigned char *)c->values + c->nvalues * ts, v, cnt * ts);
    c->nvalues = total;
    c->lengths[i] = (int64_t)rows;
    if ((int64_t)rows > c->shape[1])
        c->shape[1] = (int64_t)rows;
    return 0;
}

/* Whether a VarLen list's cnt more values in `frames` more frames fit the
 * column: its values, and its [record, frame, position] indices and the
 * frames' inner splits when the column asks for them. */
static inline int fc_batch_frames_fit(const fc_column *c, size_t cnt, size_t frames)
{
    size_t total = c->nvalues + cnt;
    if (cnt > 0 && (c->values == NULL || c->values_cap < total ||
                    (c->indices != NULL && c->indices_cap / 3 < total)))
        return 0;
    return c->inner_splits == NULL || frames == 0 ||
           c->inner_splits_cap - 1 >= c->nframes + frames;
}

/* A VarLen list's frames as record i's, their values already written at
 * values + nvalues, packed (frame t's counts[t] of them after frame t-1's),
 * where fc_batch_frames_fit said they fit: the [record, frame, position]
 * indices, the frames' inner splits, row splits and lengths as the column
 * asks, and the count. */
static inline void fc_batch_put_frames_placed(fc_column *c, size_t i, const size_t *counts,
                                              size_t frames)
{
    int64_t *ix = c->indices, *inner = c->inner_splits, most = c->shape[2];
    size_t t, k, nv, nf;
    /* (the running counts in locals: the index stores could alias them) */
    nv = c->nvalues;
    nf = c->nframes;
    for (t = 0; t < frames; t++) {
        size_t fc = counts[t];
        if (ix != NULL)
            for (k = 0; k < fc; k++) {
                ix[3 * (nv + k)] = (int64_t)i;
                ix[3 * (nv + k) + 1] = (int64_t)t;
                ix[3 * (nv + k) + 2] = (int64_t)k;
            }
        nv += fc;
        nf++;
        if (inner != NULL)
            inner[nf] = (int64_t)nv;
        if ((int64_t)fc > most)
            most = (int64_t)fc;
    }
    c->nvalues = nv;
    c->nframes = nf;
    c->shape[2] = most;
    if (c->row_splits != NULL)
        c->row_splits[i + 1] = (int64_t)c->nframes;
    if (c->lengths != NULL)
        c->lengths[i] = (int64_t)frames;
    if ((int64_t)frames > c->shape[1])
        c->shape[1] = (int64_t)frames;
}

/* A VarLen list's frames as record i's: frame t holds counts[t] values at
 * v + t * max * ts; with [record, frame, position] indices, the frames'
 * inner splits, row splits and lengths as the column asks.  1 (nothing
 * written) when a capacity is short, for fc_batch_append_seq to report. */
static inline int fc_batch_put_frames(fc_column *c, size_t i, const void *v,
                                      const size_t *counts, size_t frames, size_t max, size_t ts)
{
    const unsigned char *src = (const unsigned char *)v;
    unsigned char *dst;
    size_t cnt = 0, t, k;
    for (t = 0; t < frames; t++)
        cnt += counts[t];
    if (!fc_batch_frames_fit(c, cnt, frames))
        return 1;
    if (cnt > 0) {
        dst = (unsigned char *)c->values + c->nvalues * ts;
        for (t = 0; t < frames; t++, src += max * ts)
            for (k = 0; k < counts[t]; k++, dst += ts) /* a frame's few values: no call */
                memcpy(dst, src + k * ts, ts);
    }
    fc_batch_put_frames_placed(c, i, counts, frames);
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_BATCH_H */
