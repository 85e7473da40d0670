/* featc runtime: generated structs back to tf.train.Example and
 * tf.train.SequenceExample bytes.
 *
 * The output is protobuf's deterministic serialization of the message the
 * struct describes (what C++ SerializeToString with deterministic=true and
 * Python's SerializeToString(deterministic=True) give):
 *   - Example{features}: the `features` field is always written, even when no
 *     feature is (0a 00), as tf.train.Example(features=tf.train.Features(...))
 *     does; SequenceExample writes `context` and `feature_lists` the same way;
 *   - map entries sorted by key, bytewise; key and value always written;
 *   - int64 and float lists packed; an empty list is written as the empty
 *     list message (int64_list {}), never left out;
 *   - floats bit for bit (NaN payloads, -0.0), int64 as two's complement
 *     varints (a negative value takes 10 bytes).
 *
 * Which features are written (the same rule for Example features and
 * SequenceExample context features and lists):
 *   - FixedLen without a default (required), and feature lists that are not
 *     allow_missing: always;
 *   - VarLen, rows (FixedLenSequence in an Example), VarLen and
 *     allow_missing lists: when they hold a value or frame, or their presence
 *     bit is set (an explicit empty list);
 *   - FixedLen with a default: when its presence bit is set, when its values
 *     differ from the default (bit for bit), or always with
 *     FC_WRITE_DEFAULTS.  FC_OMIT_DEFAULTS (0) leaves out a default that was
 *     never marked present: TensorFlow reads the same value back either way.
 * So everything that reads back differently from "absent" is written, and
 * parse(serialize(x)) gives x's values back.
 *   - SparseFeature and RaggedFeature are written through their component
 *     lists (the VarLen fields the struct keeps for them, e.g.
 *     ratings_index0 and ratings_value), which are what the record holds;
 *     their built outputs (indices, splits) and hash bucket ids are derived
 *     on parse and not read here.
 *
 * Checked before anything is written (FC_ERR_ARG, with the feature named):
 * counts and frame counts within the spec's bounds, bytes views with data
 * when size > 0, VarLen `uniform` lists with one count for every frame,
 * `aligned` lists with one frame count, and the 2 GiB limit of a protobuf
 * message.  Nothing here allocates.
 */
#ifndef FEATC_FC_SERIALIZE_H
#define FEATC_FC_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "fc_base.h"
#include "fc_example.h"
#include "fc_record.h"
#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default policy (flags). */
#define FC_OMIT_DEFAULTS 0u  /* a FixedLen default not marked present is left out */
#define FC_WRITE_DEFAULTS 1u /* every FixedLen feature is written */

/* The largest message protobuf parses (2 GiB - 1). */
#define FC_MAX_MESSAGE_SIZE 0x7FFFFFFFu

/* The exact size of the serialized message in *size.  FC_OK or FC_ERR_ARG. */
fc_status fc_ex_encoded_size(const fc_message_desc *md, const void *msg, unsigned flags,
                             size_t *size, fc_error *err);
/* Serializes into buf (cap bytes); *len receives the size written, or the
 * size needed with FC_ERR_NO_SPACE (nothing useful is written then). */
fc_status fc_ex_serialize(const fc_message_desc *md, const void *msg, unsigned flags, void *buf,
                          size_t cap, size_t *len, fc_error *err);

fc_status fc_seq_encoded_size(const fc_seq_desc *sd, const void *msg, unsigned flags,
                              size_t *size, fc_error *err);
fc_status fc_seq_serialize(const fc_seq_desc *sd, const void *msg, unsigned flags, void *buf,
                           size_t cap, size_t *len, fc_error *err);

/* Serializes into buf and appends the result to w as one record (inline, so
 * that a program which never writes does not link the writer, nor zlib). */
static inline fc_status fc_ser_append(fc_writer *w, fc_status rc, const void *buf, size_t len,
                                      fc_error *err)
{
    if (rc != FC_OK)
        return rc;
    if (w == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "cannot write: NULL writer");
        return FC_ERR_ARG;
    }
    rc = fc_writer_write(w, buf, len);
    if (rc != FC_OK && err != NULL)
        *err = *fc_writer_error(w);
    return rc;
}

static inline fc_status fc_ex_write(fc_writer *w, const fc_message_desc *md, const void *msg,
                                    unsigned flags, void *buf, size_t cap, fc_error *err)
{
    size_t len = 0;
    fc_status rc = fc_ex_serialize(md, msg, flags, buf, cap, &len, err);
    return fc_ser_append(w, rc, buf, len, err);
}

static inline fc_status fc_seq_write(fc_writer *w, const fc_seq_desc *sd, const void *msg,
                                     unsigned flags, void *buf, size_t cap, fc_error *err)
{
    size_t len = 0;
    fc_status rc = fc_seq_serialize(sd, msg, flags, buf, cap, &len, err);
    return fc_ser_append(w, rc, buf, len, err);
}

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_SERIALIZE_H */
