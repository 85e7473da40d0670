/* The independent oracle of the differential and corpus tests: decodes a
 * record with protobuf-c (the fallback decoder, no featc wire code) and
 * applies TensorFlow's single-Example rules to the decoded message through
 * the generated descriptor.  It shares nothing with generated parsers but
 * the descriptor (shapes, bounds, defaults, struct offsets).
 *
 * Where protobuf and TensorFlow read the same bytes differently (a second
 * list in one Feature, a second packed run, packed floats with stray bytes,
 * tags or lengths of more than 5 bytes, a Feature with unknown fields only)
 * the oracle follows protobuf: test generators do not produce those; the
 * behaviour tests cover them. */
#ifndef FEATC_TEST_ORACLE_H
#define FEATC_TEST_ORACLE_H

#include <stdio.h>

#include <featc/fc_example.h>
#include <featc/fc_fallback.h>

#include "fc_example.pb-c.h" /* protobuf-c's generated code, in the build */

/* FC_OK with *out filled as a generated parser fills it, or FC_ERR_PARSE. */
int oracle_parse(const fc_message_desc *md, void *out, const void *data, size_t len);
/* The same by parse_example's rule for a record of a batch: a VarLen key's
 * last entry counts even when it is a Feature{} (then no values). */
int oracle_parse_batched(const fc_message_desc *md, void *out, const void *data, size_t len);

/* A decoded Feature's list type (FC_TYPE_NONE for Feature{}) and count. */
fc_type oracle_kind_type(const FcPb__Feature *f);
size_t oracle_kind_count(const FcPb__Feature *f);
/* Copies n values of f into dst, laid out as in a generated struct. */
void oracle_copy_values(const FcPb__Feature *f, unsigned char *dst, size_t n);
/* The same for a Feature as the fallback's normalised view shows it. */
fc_type oracle_value_type(const fc_fb_value *v);
void oracle_copy_view(const fc_fb_value *v, unsigned char *dst, size_t n);

/* RaggedFeature building, as RaggedTensor defines it: the feature of extra
 * x (type, bound max) from n values at src and each keyed partition q's
 * pn[q] values at psrc[q], into frame t of the struct at m (values at
 * value_offset, t * max values a frame; counts, rows and splits likewise
 * per frame; t = 0 for a feature).  1, or 0 where validate=True or the
 * spec's bounds refuse. */
int oracle_ragged(const fc_field_extra *x, fc_type type, size_t max, unsigned char *m,
                  size_t value_offset, size_t count_offset, size_t t, const unsigned char *src,
                  size_t n, const int64_t *const *psrc, const size_t *pn);
/* Field i of fields (an Example's or a context's), a RaggedFeature, from the
 * fields it reads, with its presence bit. */
int oracle_ragged_field(const fc_field_desc *fields, size_t present_offset, size_t i,
                        unsigned char *m);

/* `as TYPE`: the typed values of every field of fields[0..n) with one,
 * from the values in the struct at m, by TensorFlow's tf.cast (Eigen's
 * half for float16) and decode_raw(little_endian=True), computed apart from
 * the runtime's code; 0 where featc must refuse the record (a value out of
 * the type's range, a bytes value of another length). */
int oracle_typed(const fc_field_desc *fields, size_t n, unsigned char *m);
/* count values of `type` at vals converted as x says into out, as
 * oracle_typed converts a field's; 0 where featc must refuse them. */
int oracle_typed_values(fc_type type, const fc_field_as *x, const unsigned char *vals,
                        size_t count, unsigned char *out);
/* total typed values at p as text (" NAME_as: v v ..."). */
void oracle_typed_text(FILE *f, const char *name, const fc_field_as *x, const unsigned char *p,
                       size_t total);
/* Those typed values as text (" NAME_as: v v ..."), for comparison. */
void oracle_typed_json(FILE *f, const fc_field_desc *fields, size_t n, const void *msg);

/* JSON of a parsed message into buf (NUL-terminated, cut if too small),
 * then the typed values of fields with `as`. */
void oracle_json(const fc_message_desc *md, const void *msg, char *buf, size_t cap);

#endif
