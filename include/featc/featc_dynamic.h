/* A message of a spec described at run time, without generating C: the
 * compiler checks the spec and lays out the message's struct in memory, and
 * the runtime's general parse path reads records into it by the
 * descriptors (fc_message_desc or fc_seq_desc), with the same values and
 * the same errors as the generated parser.  `featc check SPEC --data FILE`
 * is built on it.
 *
 *     featc_dynamic *d;
 *     if (featc_dynamic_open(text, len, &options, NULL, &d) == 0) {
 *         void *msg = calloc(1, featc_dynamic_size(d));
 *         fc_feature_ref *refs = calloc(featc_dynamic_refs(d), sizeof *refs);
 *         // Example:         fc_ex_parse_desc(featc_dynamic_example(d), msg, rec, len,
 *         //                                   featc_dynamic_lookup, d, refs, &err)
 *         // SequenceExample: fc_seq_parse(featc_dynamic_sequence(d), msg, rec, len, refs, &err)
 *         featc_dynamic_free(d);
 *     }
 *
 * The compiler library allocates what featc_dynamic_free releases; the
 * parse itself allocates nothing.  This header needs the runtime's headers,
 * and the parse links the runtime (libfeatc). */
#ifndef FEATC_FEATC_DYNAMIC_H
#define FEATC_FEATC_DYNAMIC_H

#include "featc.h"
#include "fc_example.h"
#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct featc_dynamic featc_dynamic;

/* Compiles the spec (diagnostics through options->diag, as featc_compile)
 * and describes its message `message` (NULL: the first).  Returns 0 with
 * *out set, or the number of errors (1 for an unknown message or no
 * memory, with a diagnostic). */
int featc_dynamic_open(const char *src, size_t len, const featc_options *options,
                       const char *message, featc_dynamic **out);

/* The descriptor: of an example (else NULL), or of a sequence_example. */
const fc_message_desc *featc_dynamic_example(const featc_dynamic *d);
const fc_seq_desc *featc_dynamic_sequence(const featc_dynamic *d);
/* Bytes of the message struct (allocate it aligned as malloc does), and the
 * fc_feature_ref entries a parse needs as scratch. */
size_t featc_dynamic_size(const featc_dynamic *d);
size_t featc_dynamic_refs(const featc_dynamic *d);
/* The Example key lookup for fc_ex_parse_desc, with d as its context. */
int featc_dynamic_lookup(const void *d, const uint8_t *key, size_t len);

void featc_dynamic_free(featc_dynamic *d);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FEATC_DYNAMIC_H */
