/* make bench: what the contenders share.
 *
 * Every contender reads the same in-memory TFRecord bytes through the same
 * CRC-verifying framing (fc_reader over memory) and fills the same struct,
 * the one featc generates for the benchmark's spec.  The peers (protobuf-c,
 * C++ protobuf, nanopb) decode with their own library and then store the
 * wanted features, found by key, into that struct through the slots below;
 * a checksum over the struct then proves that every contender extracted the
 * same values.
 */
#ifndef FEATC_BENCH_H
#define FEATC_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <featc/fc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The record type a corpus is parsed into: a generated Example or
 * SequenceExample struct, described by its descriptor. */
typedef struct bench_msg {
    const fc_message_desc *md; /* Example specs */
    const fc_seq_desc *sd;     /* SequenceExample specs */
    void *out;                 /* the generated struct */
} bench_msg;

/* Where the values of one feature (or one frame of a feature list) go. */
typedef struct bench_slot {
    fc_type type;
    void *values;   /* int64_t, float or fc_bytes array */
    size_t cap;     /* values it holds */
    size_t exact;   /* FixedLen: the count required; 0 for VarLen */
    size_t *count;  /* VarLen: where the count goes; NULL for FixedLen */
} bench_slot;

/* Feature f of an Example, or context feature f of a SequenceExample. */
void bench_slot_feature(const bench_msg *b, size_t f, bench_slot *s);
/* Frame t of feature list l; -1 past the list's frame bound. */
int bench_slot_frame(const bench_msg *b, size_t l, size_t t, bench_slot *s);
/* n values were stored (n may exceed cap: then nothing past cap was written
 * and this fails); checks the FixedLen count and sets the VarLen one. */
int bench_slot_done(const bench_slot *s, size_t n);
void bench_set_frames(const bench_msg *b, size_t l, size_t frames);
/* Copies n values of type t; fails on a type or count mismatch. */
int bench_store(const bench_slot *s, fc_type t, const void *values, size_t n);

/* Key -> field (or list) index for the peers that walk map entries: an
 * open-addressing table built once from the descriptor's keys. */
typedef struct bench_keys {
    const char *key[512];
    size_t len[512];
    int index[512];
} bench_keys;

void bench_keys_init(bench_keys *k, const bench_msg *b, int lists);

/* The tables a peer walking map entries needs: the Example's features (or
 * the SequenceExample's context) and the feature lists. */
typedef struct bench_lookup {
    bench_keys context;
    bench_keys lists;
} bench_lookup;

void bench_lookup_init(bench_lookup *l, const bench_msg *b);
int bench_keys_find(const bench_keys *k, const void *key, size_t len);

/* Everything the struct holds: values, counts, frame counts and bytes
 * contents (not presence bits: the peers do not track them). */
uint64_t bench_checksum(const bench_msg *b);
/* One value folded into a checksum. */
uint64_t bench_mix(uint64_t h, uint64_t v);

/* A peer: prepare once, then parse record after record into b->out.
 * Returns 0, or -1 with a reason in *why. */
typedef struct bench_peer {
    const char *name;
    void *(*prepare)(const bench_msg *b);
    int (*parse)(void *state, const bench_msg *b, const uint8_t *data, size_t len,
                 const char **why);
    void (*finish)(void *state);
} bench_peer;

extern const bench_peer bench_peer_protobuf_c;
extern const bench_peer bench_peer_nanopb;
extern const bench_peer bench_peer_cpp;

#ifdef __cplusplus
}
#endif

#endif /* FEATC_BENCH_H */
