/* featc runtime: TensorFlow's string hashing for categorical features.
 *
 * tf.strings.to_hash_bucket_fast and
 * tf.feature_column.categorical_column_with_hash_bucket map a string to
 * Fingerprint64(string) % num_buckets, where Fingerprint64 is FarmHash's
 * 64-bit fingerprint (farmhash::Fingerprint64, stable across platforms and
 * releases).  An int64 categorical value is hashed as its decimal text, as
 * TF's as_string produces it.
 */
#ifndef FEATC_FC_HASH_H
#define FEATC_FC_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FarmHash Fingerprint64 of n bytes. */
uint64_t fc_fingerprint64(const void *data, size_t n);

/* The bucket TensorFlow assigns: fc_fingerprint64(data, n) % num_buckets
 * (num_buckets >= 1; 0 gives 0). */
int64_t fc_hash_bucket(const void *data, size_t n, uint64_t num_buckets);

/* The bucket of an int64 value hashed as its decimal text. */
int64_t fc_hash_bucket_int64(int64_t v, uint64_t num_buckets);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_HASH_H */
