/* The generic fallback decoder: any tf.train.Example or SequenceExample,
 * decoded with protobuf-c (standard protobuf semantics), for the `featc cat`
 * tool and as the independent oracle of the differential tests.
 *
 * It lives in its own library (libfeatc_fallback.a, needs libprotobuf-c) so
 * that programs using only generated parsers do not link protobuf-c.
 *
 * Memory: protobuf-c allocates through an fc_arena the caller supplies (no
 * malloc).  A decode that runs out of arena fails with FC_ERR_NO_MEMORY and
 * can be retried with a larger one.  8 x the record size + 64 KiB covers
 * ordinary records; hostile ones made of many tiny entries need more (each
 * 2-byte map entry becomes a ~64-byte struct), so grow and retry.
 *
 * Classification: a payload is an Example (or a SequenceExample) when it is
 * valid protobuf wire format for that message with no unknown fields and
 * every feature key valid UTF-8 (proto3 requires it of string fields, and
 * TensorFlow's Python API rejects keys that are not), and, unless
 * FC_FALLBACK_LENIENT is given, it has the shape every real writer produces:
 * each top-level field at most once, each map entry exactly one key and one
 * value, at most one kind per Feature.  The shape check is what tells other
 * messages apart: TF-Ranking's ExampleListWithContext, for one, is valid
 * protobuf for a SequenceExample under merge rules, with nonsense keys.
 * LENIENT reads such bytes as protobuf would (concatenated Examples merge;
 * TensorFlow accepts those too).  A SequenceExample holding only a context is
 * byte-for-byte an Example, and is classified as one unless
 * FC_PAYLOAD_SEQUENCE_EXAMPLE is asked for.
 */
#ifndef FEATC_FC_FALLBACK_H
#define FEATC_FC_FALLBACK_H

#include <stddef.h>
#include <stdint.h>

#include "fc_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fc_payload_kind {
    FC_PAYLOAD_OTHER = 0,
    FC_PAYLOAD_EXAMPLE = 1,
    FC_PAYLOAD_SEQUENCE_EXAMPLE = 2,
    FC_PAYLOAD_AUTO = 3 /* as a request: Example, else SequenceExample */
} fc_payload_kind;

/* A Feature's values, as the decoder read them: kind and count, and the
 * values in the array of that kind (views into the arena and the record). */
typedef enum fc_fb_kind {
    FC_FB_NONE = 0, /* Feature{}: no list */
    FC_FB_BYTES = 1,
    FC_FB_FLOAT = 2,
    FC_FB_INT64 = 3
} fc_fb_kind;

/* One bytes value (laid out as protobuf-c's ProtobufCBinaryData, so that
 * the decoder's arrays are shown as they are). */
typedef struct fc_fb_bytes {
    size_t len;
    const uint8_t *data;
} fc_fb_bytes;

typedef struct fc_fb_value {
    fc_fb_kind kind;
    size_t n;
    const fc_fb_bytes *bytes;  /* kind FC_FB_BYTES */
    const float *floats;       /* kind FC_FB_FLOAT */
    const int64_t *int64s;     /* kind FC_FB_INT64 */
} fc_fb_value;

/* One feature of a Features map after normalisation. */
typedef struct fc_fb_feature {
    const uint8_t *key;
    size_t key_len;
    const fc_fb_value *value; /* never NULL; kind FC_FB_NONE for Feature{} */
} fc_fb_feature;

/* One feature list: its frames, each a Feature. */
typedef struct fc_fb_feature_list {
    const uint8_t *key;
    size_t key_len;
    size_t n_frames;
    const fc_fb_value *frames;
} fc_fb_feature_list;

typedef struct fc_fallback {
    fc_payload_kind kind;
    /* Whether the record held an Example's features (or a SequenceExample's
     * context), and a SequenceExample's feature_lists, even empty ones. */
    int has_features, has_feature_lists;
    /* Normalised view, as standard protobuf sees the map: sorted by key
     * (bytewise), one entry per key, the last occurrence winning. */
    size_t n_features;                /* Example features, or SequenceExample context */
    fc_fb_feature *features;
    size_t n_feature_lists;
    fc_fb_feature_list *feature_lists;
    /* The decoded message itself, in the arena: an FcPb__Example or
     * FcPb__SequenceExample of runtime/fallback/fc_example.proto, for a
     * program that generates that file with protoc-c; featc's own code reads
     * the view above, and this header does not depend on protobuf-c. */
    const void *message;
} fc_fallback;

/* flags */
#define FC_FALLBACK_LENIENT 1 /* protobuf's merge rules only, no shape check */
#define FC_FALLBACK_SKIP_UNKNOWN 2 /* unknown top-level fields are skipped (as TF does) */

/* Checks the wire format against the Example / SequenceExample schema without
 * decoding.  FC_OK with *kind set, or FC_ERR_PARSE with a message naming the
 * first problem and its byte offset. */
fc_status fc_fallback_check(const void *data, size_t len, fc_payload_kind want, int flags,
                            fc_payload_kind *kind, fc_error *err);

/* Checks, then decodes with protobuf-c into arena memory and normalises. */
fc_status fc_fallback_decode(const void *data, size_t len, fc_payload_kind want, int flags,
                             fc_arena *arena, fc_fallback *out, fc_error *err);

/* The same without protobuf-c for the layout real writers produce (each
 * top-level field once and in order, map entries of a key then a value,
 * packed numeric lists, UTF-8 keys; the shape checks of the default flags):
 * FC_OK with *out exactly as fc_fallback_decode gives it, or FC_ERR_STATE,
 * having used nothing of the arena, for anything else (then call
 * fc_fallback_decode).  The featc tools try it first. */
fc_status fc_fallback_decode_canonical(const void *data, size_t len, fc_payload_kind want,
                                       fc_arena *arena, fc_fallback *out);

/* The feature (or context feature) with this key, or NULL. */
const fc_fb_feature *fc_fallback_find(const fc_fallback *fb, const void *key, size_t key_len);
const fc_fb_feature_list *fc_fallback_find_list(const fc_fallback *fb, const void *key,
                                                size_t key_len);

/* Nonzero when s[0, n) is valid UTF-8 (no overlongs, surrogates or values
 * above U+10FFFF). */
int fc_utf8_valid(const uint8_t *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_FALLBACK_H */
