/* Batched parsing vs single-record parsing, stacked: the part of check.c
 * and seq_check.c that judges fc_batch_parse / fc_batch_parse_seq.
 *
 * Records go in one at a time (bc_add); they are cut into batches of 1, 7,
 * 64 and 256 records in turn (and whatever is left at the end).  For each
 * batch the expected tensors are built here from the single-record parser's
 * structs, by the layout rules of docs/tf-semantics.md section 2.4 written out
 * again independently of runtime/core/batch.c, and compared value by value
 * (bytes views by pointer and size, floats by bits), padding included.  A
 * batch with a failing record must fail at the first one, with its index
 * and the single parser's reason in the message.
 *
 * The includer names its message with bc_init_example or bc_init_seq,
 * feeds records to bc_add and ends with bc_finish. */
#ifndef FEATC_TEST_BATCH_CHECK_H
#define FEATC_TEST_BATCH_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_batch.h>

#include "wire.h" /* fc_type_size, fc_load_size: struct access shared with the runtime */

static const fc_field_desc *bc_fields;
static const fc_list_desc *bc_lists;
static size_t bc_nf, bc_nl, bc_size;
static int (*bc_parse)(void *, const void *, size_t, fc_error *);
static int bc_is_seq;
static const fc_message_desc *bc_md;
static const fc_seq_desc *bc_sd;

/* Two streams of batches: every record in turn (batches that mostly hold
 * a failing record: the error path), and only the records that parse
 * alone (the value path; random records are mostly invalid, so without
 * this few batches beyond a size of 1 would ever compare values). */
typedef struct bc_stream {
    unsigned char *recs[256];
    size_t lens[256], n, turn;
} bc_stream;
static bc_stream bc_all, bc_good;
/* The batch being checked. */
static unsigned char **bc_recs;
static size_t *bc_lens, bc_n, bc_turn;
static long bc_passed, bc_failed;
static const size_t bc_sizes[] = {1, 7, 64, 256};

static inline void bc_init_example(const fc_message_desc *md)
{
    bc_fields = md->fields;
    bc_nf = md->nfields;
    bc_lists = NULL;
    bc_nl = 0;
    bc_size = md->size;
    /* a batch stacks records parsed by parse_example's rule */
    bc_parse = md->parse_batched != NULL ? md->parse_batched : md->parse;
    bc_is_seq = 0;
    bc_md = md;
}

static inline void bc_init_seq(const fc_seq_desc *sd)
{
    bc_fields = sd->context;
    bc_nf = sd->ncontext;
    bc_lists = sd->lists;
    bc_nl = sd->nlists;
    bc_size = sd->size;
    bc_parse = sd->parse;
    bc_is_seq = 1;
    bc_sd = sd;
}

static int bc_bad;
static const char *bc_what;

#define BC_EXPECT(cond, ...)                                                   \
    do {                                                                       \
        if (!(cond)) {                                                         \
            if (bc_bad++ == 0 && bc_failed < 10) {                             \
                fprintf(stderr, "batch of %zu (%s): ", bc_n, bc_what);         \
                fprintf(stderr, __VA_ARGS__);                                  \
                fputc('\n', stderr);                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Column j's most rows / frames (m1) and most values in a frame or record
 * (m2) over the batch, from the single parses. */
static void bc_maxima(unsigned char *s, size_t j, size_t *m1, size_t *m2)
{
    size_t i, t;
    *m1 = *m2 = 0;
    for (i = 0; i < bc_n; i++) {
        bc_parse(s, bc_recs[i], bc_lens[i], NULL);
        if (j < bc_nf) {
            const fc_field_desc *f = &bc_fields[j];
            if (f->kind != FC_KIND_FIXED && fc_load_size(s + f->count_offset) > *m1)
                *m1 = fc_load_size(s + f->count_offset);
        } else {
            const fc_list_desc *l = &bc_lists[j - bc_nf];
            size_t frames = fc_load_size(s + l->frames_offset);
            if (frames > *m1)
                *m1 = frames;
            if (l->kind == FC_KIND_VARLEN)
                for (t = 0; t < frames; t++)
                    if (fc_load_size(s + l->count_offset + t * sizeof(size_t)) > *m2)
                        *m2 = fc_load_size(s + l->count_offset + t * sizeof(size_t));
        }
    }
}

static int bc_is_pad(const unsigned char *v, size_t ts, const void *pad)
{
    static const unsigned char zero[sizeof(fc_bytes)];
    return memcmp(v, pad != NULL ? pad : zero, ts) == 0;
}

/* The padding of a FixedLenSequence column with `as`: its padding value
 * (0 without one) in the tensor's type, into out (the compiler has
 * checked that it fits; float16 rounds as fc_as_half, whose values the
 * Python tests check against NumPy's). */
static const void *bc_typed_pad(const fc_field_desc *f, unsigned char out[8])
{
    int as = f->extra->as->type, over;
    memset(out, 0, 8);
    if (f->default_value == NULL)
        return out;
    if (f->type == FC_TYPE_FLOAT) {
        float x;
        uint16_t h;
        memcpy(&x, f->default_value, 4);
        h = fc_as_half(x, &over);
        memcpy(out, &h, 2);
    } else {
        int64_t x;
        memcpy(&x, f->default_value, 8);
        if (as == FC_AS_INT8 || as == FC_AS_UINT8) {
            out[0] = (unsigned char)(x & 0xff);
        } else if (as == FC_AS_INT16 || as == FC_AS_UINT16) {
            uint16_t y = (uint16_t)((uint64_t)x & 0xffffu);
            memcpy(out, &y, 2);
        } else {
            uint32_t y = (uint32_t)((uint64_t)x & 0xffffffffu);
            memcpy(out, &y, 4);
        }
    }
    return out;
}

/* Whether the cnt values of column f at off are those of struct s: the
 * typed ones (`as`) where f has them, else the record's. */
static int bc_values_are(const fc_field_desc *f, const unsigned char *vals, size_t off,
                         const unsigned char *s, size_t cnt)
{
    const fc_field_as *as = f->extra->as;
    size_t ts = as != NULL ? fc_as_size(as->type) : fc_type_size(f->type);
    return cnt == 0 ||
           memcmp(vals + off * ts, s + (as != NULL ? as->offset : f->value_offset), cnt * ts) == 0;
}

/* One Example field / context feature, all records. */
static void bc_check_field(unsigned char *s, size_t j, const fc_column *c)
{
    const fc_field_desc *f = &bc_fields[j];
    const unsigned char *vals = (const unsigned char *)c->values;
    size_t ts = fc_type_size(f->type), i, k, off = 0, m1, m2;
    unsigned d;
    bc_maxima(s, j, &m1, &m2);
    if (f->kind == FC_KIND_RAGGED) {
        /* values; row_splits over each record's outermost rows; partition q's
         * splits shifted by the items of the next level before the record */
        size_t at[FC_MAX_RANK + 1], top, q;
        memset(at, 0, sizeof at);
        BC_EXPECT(c->row_splits != NULL && c->row_splits[0] == 0, "%s: row_splits", f->c_name);
        for (i = 0; i < bc_n; i++) {
            size_t cnt;
            bc_parse(s, bc_recs[i], bc_lens[i], NULL);
            cnt = fc_load_size(s + f->count_offset);
            BC_EXPECT(bc_values_are(f, vals, off, s, cnt), "%s: record %zu values", f->c_name,
                      i);
            top = f->extra->nparts > 0 ? fc_load_size(s + f->extra->parts[0].rows_offset) : cnt;
            BC_EXPECT(c->row_splits[i + 1] - c->row_splits[i] == (int64_t)top,
                      "%s: record %zu rows", f->c_name, i);
            for (q = 0; q < f->extra->nparts; q++) {
                size_t rows = fc_load_size(s + f->extra->parts[q].rows_offset), r;
                int64_t shift = q + 1 < f->extra->nparts ? (int64_t)at[q + 1] : (int64_t)off;
                for (r = 1; r <= rows; r++) {
                    int64_t v;
                    if (f->extra->split64) {
                        memcpy(&v, s + f->extra->parts[q].splits_offset + r * 8, 8);
                    } else {
                        int32_t w;
                        memcpy(&w, s + f->extra->parts[q].splits_offset + r * 4, 4);
                        v = w;
                    }
                    BC_EXPECT(c->part_splits[q][at[q] + r] == shift + v,
                              "%s: record %zu partition %zu split %zu", f->c_name, i, q, r);
                }
            }
            for (q = 0; q < f->extra->nparts; q++)
                at[q] += fc_load_size(s + f->extra->parts[q].rows_offset);
            off += cnt;
        }
        BC_EXPECT(c->nvalues == off, "%s: %zu values, want %zu", f->c_name, c->nvalues, off);
        return;
    }
    if (f->kind == FC_KIND_SPARSE) {
        /* indices [N, 1 + rank] = (record, index...), dense_shape [B, size...] */
        size_t w = f->rank + 1u;
        BC_EXPECT(c->rank == w && c->shape[0] == (int64_t)bc_n, "%s: dense_shape", f->c_name);
        for (d = 0; d < f->rank; d++)
            BC_EXPECT(c->shape[d + 1] == (int64_t)f->dims[d], "%s: dim %u", f->c_name, d);
        for (i = 0; i < bc_n; i++) {
            size_t cnt;
            const int64_t *ix;
            bc_parse(s, bc_recs[i], bc_lens[i], NULL);
            cnt = fc_load_size(s + f->count_offset);
            ix = (const int64_t *)(const void *)(s + f->extra->indices_offset);
            BC_EXPECT(bc_values_are(f, vals, off, s, cnt), "%s: record %zu values", f->c_name,
                      i);
            for (k = 0; k < cnt; k++) {
                const int64_t *row = c->indices + (off + k) * w;
                BC_EXPECT(row[0] == (int64_t)i &&
                              memcmp(row + 1, ix + k * f->rank, f->rank * 8) == 0,
                          "%s: record %zu entry %zu", f->c_name, i, k);
            }
            off += cnt;
        }
        BC_EXPECT(c->nvalues == off && c->nindices == off, "%s: %zu values, want %zu", f->c_name,
                  c->nvalues, off);
        return;
    }
    if (f->extra->as != NULL) { /* the column holds the typed values (`as`) */
        ts = fc_as_size(f->extra->as->type) * f->extra->as->elems;
    }
    if (f->kind == FC_KIND_FIXED && f->extra->as != NULL && f->extra->as->rank > 0) {
        const fc_field_as *as = f->extra->as; /* decode_raw: [B, dims...] */
        BC_EXPECT(c->rank == as->rank + 1 && c->shape[0] == (int64_t)bc_n, "%s: shape", f->c_name);
        for (d = 0; d < as->rank; d++)
            BC_EXPECT(c->shape[d + 1] == (int64_t)as->dims[d], "%s: dim %u", f->c_name, d);
        BC_EXPECT(c->nvalues == bc_n * as->elems, "%s: nvalues", f->c_name);
    } else if (f->kind == FC_KIND_FIXED) {
        BC_EXPECT(c->rank == f->rank + 1 && c->shape[0] == (int64_t)bc_n, "%s: shape", f->c_name);
        for (d = 0; d < f->rank; d++)
            BC_EXPECT(c->shape[d + 1] == (int64_t)f->dims[d], "%s: dim %u", f->c_name, d);
        BC_EXPECT(c->nvalues == bc_n * f->elems, "%s: nvalues", f->c_name);
    } else if (f->kind == FC_KIND_VARLEN) {
        BC_EXPECT(c->rank == 2 && c->shape[0] == (int64_t)bc_n && c->shape[1] == (int64_t)m1,
                  "%s: dense_shape [%lld,%lld], want [%zu,%zu]", f->c_name,
                  (long long)c->shape[0], (long long)c->shape[1], bc_n, m1);
    } else {
        BC_EXPECT(c->rank == f->rank + 2 && c->shape[0] == (int64_t)bc_n &&
                      c->shape[1] == (int64_t)m1,
                  "%s: shape [%lld,%lld,...], want [%zu,%zu,...]", f->c_name,
                  (long long)c->shape[0], (long long)c->shape[1], bc_n, m1);
        BC_EXPECT(c->nvalues == bc_n * m1 * f->elems, "%s: nvalues", f->c_name);
    }
    if (c->row_splits != NULL)
        BC_EXPECT(c->row_splits[0] == 0, "%s: row_splits[0]", f->c_name);
    for (i = 0; i < bc_n; i++) {
        const unsigned char *sv;
        bc_parse(s, bc_recs[i], bc_lens[i], NULL);
        sv = s + (f->extra->as != NULL ? f->extra->as->offset : f->value_offset);
        if (f->extra->hash_buckets > 0) {
            /* bucket ids laid out as the values, hot vectors per record */
            size_t cnt = f->kind == FC_KIND_FIXED ? f->elems : fc_load_size(s + f->count_offset);
            size_t at = f->kind == FC_KIND_FIXED ? i * f->elems : off;
            size_t hn = f->extra->hot == FC_HOT_ONE ? cnt * f->extra->hash_buckets : f->extra->hash_buckets;
            if (c->buckets != NULL)
                BC_EXPECT(cnt == 0 || memcmp(c->buckets + at, s + f->extra->bucket_offset, cnt * 8) == 0,
                          "%s: record %zu bucket ids", f->c_name, i);
            if (c->hot != NULL && f->extra->hot != 0)
                BC_EXPECT(memcmp(c->hot + i * hn, s + f->extra->hot_offset, hn * sizeof(float)) == 0,
                          "%s: record %zu hot vector", f->c_name, i);
        }
        if (f->kind == FC_KIND_FIXED) {
            BC_EXPECT(f->elems == 0 || memcmp(vals + i * f->elems * ts, sv, f->elems * ts) == 0,
                      "%s: record %zu values", f->c_name, i);
        } else if (f->kind == FC_KIND_VARLEN) {
            size_t cnt = fc_load_size(s + f->count_offset);
            BC_EXPECT(cnt == 0 || memcmp(vals + off * ts, sv, cnt * ts) == 0,
                      "%s: record %zu values", f->c_name, i);
            if (c->indices != NULL)
                for (k = 0; k < cnt; k++)
                    BC_EXPECT(c->indices[2 * (off + k)] == (int64_t)i &&
                                  c->indices[2 * (off + k) + 1] == (int64_t)k,
                              "%s: record %zu index %zu", f->c_name, i, k);
            off += cnt;
            if (c->row_splits != NULL)
                BC_EXPECT(c->row_splits[i + 1] == (int64_t)off, "%s: row_splits[%zu]",
                          f->c_name, i + 1);
            if (c->lengths != NULL)
                BC_EXPECT(c->lengths[i] == (int64_t)cnt, "%s: lengths[%zu]", f->c_name, i);
        } else {
            size_t rows = fc_load_size(s + f->count_offset), block = m1 * f->elems;
            unsigned char tp[8];
            const void *pad = f->extra->as != NULL ? bc_typed_pad(f, tp) : f->default_value;
            BC_EXPECT(rows == 0 || memcmp(vals + i * block * ts, sv, rows * f->elems * ts) == 0,
                      "%s: record %zu rows", f->c_name, i);
            for (k = rows * f->elems; k < block; k++)
                BC_EXPECT(bc_is_pad(vals + (i * block + k) * ts, ts, pad),
                          "%s: record %zu padding at %zu", f->c_name, i, k);
            BC_EXPECT(c->lengths[i] == (int64_t)rows, "%s: lengths[%zu]", f->c_name, i);
        }
    }
    if (f->kind == FC_KIND_VARLEN)
        BC_EXPECT(c->nvalues == off && (c->indices == NULL || c->nindices == off),
                  "%s: nvalues %zu, want %zu", f->c_name, c->nvalues, off);
}

/* One feature list, all records. */
static void bc_check_list(unsigned char *s, size_t j, const fc_column *c)
{
    const fc_list_desc *l = &bc_lists[j - bc_nf];
    const fc_field_as *as = l->extra != NULL && l->kind != FC_KIND_RAGGED ? l->extra->as : NULL;
    const unsigned char *vals = (const unsigned char *)c->values;
    size_t ts = fc_type_size(l->type), i, k, t, off = 0, frames_total = 0, m1, m2;
    size_t elems = l->elems; /* values of a fixed frame in the column */
    const size_t *dims = l->dims;
    unsigned d, rank = l->rank;
    bc_maxima(s, j, &m1, &m2);
    if (l->kind == FC_KIND_RAGGED) {
        /* values; row_splits over frames; inner_splits over each frame's
         * outermost rows; partition q's splits shifted by the items of the
         * next level before the frame */
        const fc_field_extra *x = l->extra;
        size_t at[FC_MAX_RANK + 1], top = 0, q, ss = x->split64 ? 8 : 4;
        memset(at, 0, sizeof at);
        BC_EXPECT(c->row_splits[0] == 0 && c->inner_splits[0] == 0, "%s: splits", l->c_name);
        for (i = 0; i < bc_n; i++) {
            size_t frames;
            bc_parse(s, bc_recs[i], bc_lens[i], NULL);
            frames = fc_load_size(s + l->frames_offset);
            for (t = 0; t < frames; t++) {
                size_t cnt = fc_load_size(s + l->count_offset + t * sizeof(size_t));
                BC_EXPECT(cnt == 0 ||
                              memcmp(vals + off * ts, s + l->value_offset + t * l->max * ts,
                                     cnt * ts) == 0,
                          "%s: record %zu frame %zu values", l->c_name, i, t);
                top += x->nparts > 0
                           ? fc_load_size(s + x->parts[0].rows_offset + t * sizeof(size_t))
                           : cnt;
                frames_total++;
                BC_EXPECT(c->inner_splits[frames_total] == (int64_t)top,
                          "%s: record %zu frame %zu inner split", l->c_name, i, t);
                for (q = 0; q < x->nparts; q++) {
                    size_t rows = fc_load_size(s + x->parts[q].rows_offset + t * sizeof(size_t));
                    const unsigned char *sp = s + x->parts[q].splits_offset +
                                              t * (x->parts[q].max_rows + 1) * ss;
                    int64_t shift = q + 1 < x->nparts ? (int64_t)at[q + 1] : (int64_t)off;
                    size_t r;
                    for (r = 1; r <= rows; r++) {
                        int64_t v;
                        if (x->split64) {
                            memcpy(&v, sp + r * 8, 8);
                        } else {
                            int32_t w;
                            memcpy(&w, sp + r * 4, 4);
                            v = w;
                        }
                        BC_EXPECT(c->part_splits[q][at[q] + r] == shift + v,
                                  "%s: record %zu frame %zu partition %zu split %zu", l->c_name,
                                  i, t, q, r);
                    }
                }
                for (q = 0; q < x->nparts; q++)
                    at[q] += fc_load_size(s + x->parts[q].rows_offset + t * sizeof(size_t));
                off += cnt;
            }
            BC_EXPECT(c->row_splits[i + 1] == (int64_t)frames_total, "%s: row_splits[%zu]",
                      l->c_name, i + 1);
            if (c->lengths != NULL)
                BC_EXPECT(c->lengths[i] == (int64_t)frames, "%s: lengths[%zu]", l->c_name, i);
        }
        BC_EXPECT(c->nvalues == off && c->nframes == frames_total, "%s: totals", l->c_name);
        for (q = 0; q < x->nparts; q++)
            BC_EXPECT(c->part_nsplits[q] == at[q] + 1, "%s: partition %zu splits", l->c_name, q);
        return;
    }
    if (as != NULL) { /* the column holds the typed values (`as`), a frame's tensor for
                         decode_raw */
        ts = fc_as_size(as->type);
        elems = l->elems * as->elems;
        if (as->rank > 0)
            rank = as->rank, dims = as->dims;
    }
    if (l->kind == FC_KIND_FIXED) {
        BC_EXPECT(c->rank == rank + 2 && c->shape[0] == (int64_t)bc_n &&
                      c->shape[1] == (int64_t)m1,
                  "%s: shape", l->c_name);
        for (d = 0; d < rank; d++)
            BC_EXPECT(c->shape[d + 2] == (int64_t)dims[d], "%s: dim %u", l->c_name, d);
        BC_EXPECT(c->nvalues == bc_n * m1 * elems, "%s: nvalues", l->c_name);
    } else {
        BC_EXPECT(c->rank == 3 && c->shape[0] == (int64_t)bc_n && c->shape[1] == (int64_t)m1 &&
                      c->shape[2] == (int64_t)m2,
                  "%s: dense_shape [%lld,%lld,%lld], want [%zu,%zu,%zu]", l->c_name,
                  (long long)c->shape[0], (long long)c->shape[1], (long long)c->shape[2], bc_n,
                  m1, m2);
    }
    for (i = 0; i < bc_n; i++) {
        const unsigned char *sv;
        size_t frames;
        bc_parse(s, bc_recs[i], bc_lens[i], NULL);
        sv = s + (as != NULL ? as->offset : l->value_offset);
        frames = fc_load_size(s + l->frames_offset);
        if (c->lengths != NULL)
            BC_EXPECT(c->lengths[i] == (int64_t)frames, "%s: lengths[%zu]", l->c_name, i);
        if (l->kind == FC_KIND_FIXED) {
            size_t block = m1 * elems;
            BC_EXPECT(frames == 0 || memcmp(vals + i * block * ts, sv, frames * elems * ts) == 0,
                      "%s: record %zu frames", l->c_name, i);
            for (k = frames * elems; k < block; k++)
                BC_EXPECT(bc_is_pad(vals + (i * block + k) * ts, ts, NULL),
                          "%s: record %zu padding at %zu", l->c_name, i, k);
            continue;
        }
        for (t = 0; t < frames; t++) {
            size_t cnt = fc_load_size(s + l->count_offset + t * sizeof(size_t));
            BC_EXPECT(cnt == 0 || memcmp(vals + off * ts, sv + t * l->max * ts, cnt * ts) == 0,
                      "%s: record %zu frame %zu values", l->c_name, i, t);
            if (l->extra != NULL && l->extra->hash_buckets > 0 && c->buckets != NULL)
                BC_EXPECT(cnt == 0 || memcmp(c->buckets + off,
                                             s + l->extra->bucket_offset + t * l->max * 8,
                                             cnt * 8) == 0,
                          "%s: record %zu frame %zu bucket ids", l->c_name, i, t);
            if (c->indices != NULL)
                for (k = 0; k < cnt; k++) {
                    const int64_t *row = c->indices + 3 * (off + k);
                    BC_EXPECT(row[0] == (int64_t)i && row[1] == (int64_t)t && row[2] == (int64_t)k,
                              "%s: record %zu frame %zu index %zu", l->c_name, i, t, k);
                }
            off += cnt;
            frames_total++;
            if (c->inner_splits != NULL)
                BC_EXPECT(c->inner_splits[frames_total] == (int64_t)off, "%s: inner_splits",
                          l->c_name);
        }
        if (c->row_splits != NULL)
            BC_EXPECT(c->row_splits[i + 1] == (int64_t)frames_total, "%s: row_splits",
                      l->c_name);
    }
    if (l->kind == FC_KIND_VARLEN)
        BC_EXPECT(c->nvalues == off && c->nframes == frames_total &&
                      (c->indices == NULL || c->nindices == off),
                  "%s: totals", l->c_name);
}

/* TensorFlow's SparseTensor check (sparse_reorder), as fc_ex_sparse words it */
#define BC_SPARSE_ROWS "indices and values rows (indexing dimension) must match. (indices = "

static void bc_run(bc_stream *st)
{
    fc_column *cols;
    fc_bytes views[256];
    fc_error err, serr;
    unsigned forms;
    fc_error sparse_err;
    size_t i, j, need, first, first_sparse;
    unsigned char *block, *scratch;
    int rc;
    bc_recs = st->recs;
    bc_lens = st->lens;
    bc_n = st->n;
    bc_turn = st->turn;
    first = first_sparse = bc_n;
    forms = (unsigned)(1 + bc_turn % 3); /* sparse, ragged, both */
    if (bc_n == 0)
        return;
    bc_bad = 0;
    bc_what = forms == 1 ? "sparse" : forms == 2 ? "ragged" : "sparse+ragged";
    cols = (fc_column *)calloc(bc_nf + bc_nl + 1, sizeof *cols);
    scratch = (unsigned char *)calloc(1, bc_size);
    need = bc_is_seq ? fc_batch_bind_seq(bc_sd, cols, bc_n, forms, NULL, 0)
                     : fc_batch_bind(bc_md, cols, bc_n, forms, NULL, 0);
    block = (unsigned char *)malloc(need);
    if (cols == NULL || scratch == NULL || block == NULL) {
        fprintf(stderr, "batch check: out of memory (%zu bytes)\n", need);
        exit(2);
    }
    if (bc_is_seq)
        fc_batch_bind_seq(bc_sd, cols, bc_n, forms, block, need);
    else
        fc_batch_bind(bc_md, cols, bc_n, forms, block, need);
    for (i = 0; i < bc_n; i++) {
        views[i].data = bc_recs[i];
        views[i].size = bc_lens[i];
    }
    rc = bc_is_seq ? fc_batch_parse_seq(bc_sd, cols, scratch, views, bc_n, &err)
                   : fc_batch_parse(bc_md, cols, scratch, views, bc_n, &err);
    /* the record TF reports: the first that does not parse; a SparseFeature
     * whose counts disagree fails only after the whole batch has parsed
     * (TF checks the batch's SparseTensor), so it is reported only when no
     * record fails otherwise, and with the batch's totals */
    for (i = 0; i < bc_n && first == bc_n; i++)
        if (bc_parse(scratch, bc_recs[i], bc_lens[i], &serr) != FC_OK) {
            if (bc_is_seq || strncmp(serr.message, BC_SPARSE_ROWS, strlen(BC_SPARSE_ROWS)) != 0)
                first = i;
            else if (first_sparse == bc_n) {
                first_sparse = i;
                sparse_err = serr;
            }
        }
    if (first == bc_n && first_sparse < bc_n) {
        char tail[64];
        const char *detail = strstr(sparse_err.message, ") (SparseFeature ");
        size_t tn, mn = strlen(err.message);
        snprintf(tail, sizeof tail, " (record %zu of the batch)", first_sparse);
        tn = strlen(tail);
        BC_EXPECT(rc == FC_ERR_PARSE && err.record == first_sparse,
                  "record %zu's SparseFeature counts disagree, the batch gives %d at record %llu",
                  first_sparse, rc, (unsigned long long)err.record);
        BC_EXPECT(strncmp(err.message, BC_SPARSE_ROWS, strlen(BC_SPARSE_ROWS)) == 0 &&
                      detail != NULL && strstr(err.message, ") over the batch (SparseFeature ") != NULL &&
                      strstr(err.message, detail + 1) != NULL && mn > tn &&
                      strcmp(err.message + mn - tn, tail) == 0,
                  "message \"%s\" is not TF's batch text with \"%s\"", err.message,
                  sparse_err.message);
    } else if (first < bc_n) {
        const char *reason = serr.message;
        if (strncmp(reason, "Key: ", 5) == 0 && strstr(reason, ".  ") != NULL)
            reason = strstr(reason, ".  ") + 3;
        /* the single path's own words before featc's detail, which the
         * batch replaces by the batched path's (test_batch's test_tf_texts
         * pins both) */
        if (strncmp(reason, "Can't parse serialized Example: Some ", 37) == 0 &&
            strstr(reason, "_list slice was not parsed. ") != NULL)
            reason = strstr(reason, "_list slice was not parsed. ") + 28;
        else if (strncmp(reason, "Can't parse serialized Example: ", 32) == 0)
            reason += 32;
        else if (strncmp(reason, "Error while parsing feature with key ", 37) == 0 &&
                 strstr(reason, " instead. ") != NULL)
            reason = strstr(reason, " instead. ") + 10;
        BC_EXPECT(rc == FC_ERR_PARSE && err.record == first,
                  "record %zu fails alone, the batch gives %d at record %llu", first, rc,
                  (unsigned long long)err.record);
        BC_EXPECT(strstr(err.message, reason) != NULL, "message \"%s\" lacks \"%s\"",
                  err.message, reason);
        if (!bc_is_seq && strncmp(serr.message, "Key: ", 5) == 0) {
            char idx[64];
            snprintf(idx, sizeof idx, ", Index: %zu.  ", first);
            BC_EXPECT(strncmp(err.message, "Name: <unknown>, Key: ", 22) == 0 &&
                          strstr(err.message, idx) != NULL,
                      "message \"%s\" is not TF's batched form", err.message);
        }
    } else {
        BC_EXPECT(rc == FC_OK, "every record parses alone, the batch fails: %s", err.message);
        if (rc == FC_OK)
            for (j = 0; j < bc_nf + bc_nl; j++) {
                if (j < bc_nf)
                    bc_check_field(scratch, j, &cols[j]);
                else
                    bc_check_list(scratch, j, &cols[j]);
            }
    }
    if (bc_bad == 0)
        bc_passed++;
    else
        bc_failed++;
    free(block);
    free(scratch);
    free(cols);
    for (i = 0; i < bc_n; i++)
        free(bc_recs[i]);
    st->n = 0;
    st->turn++;
}

static void bc_push(bc_stream *st, const void *data, size_t len)
{
    unsigned char *copy = (unsigned char *)malloc(len > 0 ? len : 1);
    if (copy == NULL) {
        fprintf(stderr, "batch check: out of memory\n");
        exit(2);
    }
    if (len > 0)
        memcpy(copy, data, len);
    st->recs[st->n] = copy;
    st->lens[st->n] = len;
    st->n++;
    if (st->n == bc_sizes[st->turn % 4])
        bc_run(st);
}

/* ok: the record parses alone. */
static void bc_add(const void *data, size_t len, int ok)
{
    bc_push(&bc_all, data, len);
    if (ok)
        bc_push(&bc_good, data, len);
}

/* The last, partial batches; then "batch-NAME: N passed, M failed". */
static void bc_finish(const char *name)
{
    bc_run(&bc_all);
    bc_run(&bc_good);
    printf("batch-%s: %ld passed, %ld failed\n", name, bc_passed, bc_failed);
}

#endif /* FEATC_TEST_BATCH_CHECK_H */
