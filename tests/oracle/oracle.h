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

/* FC_OK with *out filled as a generated parser fills it, or FC_ERR_PARSE. */
int oracle_parse(const fc_message_desc *md, void *out, const void *data, size_t len);

/* A decoded Feature's list type (FC_TYPE_NONE for Feature{}) and count. */
fc_type oracle_kind_type(const FcPb__Feature *f);
size_t oracle_kind_count(const FcPb__Feature *f);
/* Copies n values of f into dst, laid out as in a generated struct. */
void oracle_copy_values(const FcPb__Feature *f, unsigned char *dst, size_t n);

/* JSON of a parsed message into buf (NUL-terminated, cut if too small). */
void oracle_json(const fc_message_desc *md, const void *msg, char *buf, size_t cap);

#endif
