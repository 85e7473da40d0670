/* JSON of parsed records and batches, as the JSON dump contract prints them
 * (docs/design.md), and string escaping for JSON and for protobuf's text
 * format.  Uses stdio; allocates nothing. */
#ifndef FEATC_FC_JSON_H
#define FEATC_FC_JSON_H

#include <stdio.h>

#include "fc_number.h"
#include "fc_example.h"
#include "fc_sequence.h"
#include "fc_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* float32 as the contract prints it: fc_float_shortest, negative zero as
 * -0.0 (a float to every JSON reader), "nan", "inf", "-inf" as strings. */
void fc_json_float(FILE *f, float v);
/* The same into buf (FC_FLOAT_CHARS + 2 bytes or more, NUL-terminated);
 * returns its length. */
size_t fc_json_float_chars(char *buf, float v);
/* Bytes as a JSON string, one code point U+0000-U+00FF per byte. */
void fc_json_bytes(FILE *f, const void *p, size_t n);
/* A JSON string; with utf8 nonzero, text: well-formed UTF-8 as it is, a
 * byte that is not part of one as \udcXX (Python's surrogateescape reads
 * it back as that byte), controls escaped; else as fc_json_bytes writes
 * it.  Keys and messages are written as text, bytes values as bytes. */
void fc_json_string(FILE *f, const void *p, size_t n, int utf8);
/* fc_json_string's escaping without the quotes, into out: as many of the
 * n bytes at p as fit in room bytes (at least 6 make progress).  Sets
 * *used to the bytes escaped, returns the characters written. */
size_t fc_json_escape(char *out, size_t room, const void *p, size_t n, size_t *used, int utf8);
/* The same for a string literal of protobuf's text format, as Python's
 * print(example) shows one: \" \' \\ \n \r \t, other bytes outside
 * 0x20-0x7e in octal; with utf8 nonzero (the caller has checked that the
 * bytes are well-formed UTF-8), bytes from 0x80 as they are.  At least 4
 * bytes of room make progress. */
size_t fc_text_escape(char *out, size_t room, const void *p, size_t n, size_t *used, int utf8);
/* Flags of the printers below.  FC_JSON_RAGGED: a batch's VarLen columns
 * as {"values","row_splits"} (else {"indices","values","dense_shape"}).
 * FC_JSON_UTF8: bytes values that are well-formed UTF-8 as text, as
 * fc_json_string with utf8 (others byte by byte as \udcXX), for reading;
 * without it, one code point per byte: the dump contract. */
#define FC_JSON_RAGGED 1u
#define FC_JSON_UTF8 2u

/* {"NAME":VALUE,...} of a parsed message, fields in spec order. */
void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg);
void fc_json_features_opt(FILE *f, const fc_message_desc *md, const void *msg, unsigned flags);

/* {"NAME":VALUE,...} of a parsed SequenceExample's context, and of its
 * feature lists (each a list of frames). */
void fc_json_context(FILE *f, const fc_seq_desc *sd, const void *msg);
void fc_json_context_opt(FILE *f, const fc_seq_desc *sd, const void *msg, unsigned flags);
void fc_json_feature_lists(FILE *f, const fc_seq_desc *sd, const void *msg);
void fc_json_feature_lists_opt(FILE *f, const fc_seq_desc *sd, const void *msg, unsigned flags);

/* A parsed batch as the --batch contract prints it: dense columns as
 * {"shape","values"}, VarLen ones as {"indices","values","dense_shape"} or
 * (FC_JSON_RAGGED) {"values","row_splits"}; lengths of the fixed-frame
 * lists.  (flags was `int ragged`: 1 still means ragged.) */
void fc_json_batch_features(FILE *f, const fc_message_desc *md, const fc_column *cols,
                            unsigned flags);
void fc_json_batch_context(FILE *f, const fc_seq_desc *sd, const fc_column *cols, unsigned flags);
void fc_json_batch_feature_lists(FILE *f, const fc_seq_desc *sd, const fc_column *cols,
                                 unsigned flags);
void fc_json_batch_lengths(FILE *f, const fc_seq_desc *sd, const fc_column *cols);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_JSON_H */
