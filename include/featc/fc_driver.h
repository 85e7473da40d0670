/* The JSON dump driver behind `featc compile --driver`, and the JSON
 * printer it uses (the JSON dump contract of the README).  This part of the
 * runtime uses stdio and allocates the one message struct it parses into;
 * the parse itself does not allocate.
 */
#ifndef FEATC_FC_DRIVER_H
#define FEATC_FC_DRIVER_H

#include <stdio.h>

#include "fc_example.h"
#include "fc_sequence.h"
#include "fc_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest decimal (printf's %g form) that reads back as the same
 * float32, or "nan", "inf", "-inf", into buf (FC_FLOAT_CHARS bytes or more).
 * Returns its length.  The one float printer of featc's JSON and text. */
#define FC_FLOAT_CHARS 32
size_t fc_float_shortest(char *buf, float v);
/* The same with ".0" after a value that would print as an integer ("1.0",
 * "-0.0", "120.0"; "1e+10" and "nan" as they are), as the text dump
 * prints floats. */
size_t fc_float_point_chars(char *buf, float v);
/* float32 as the contract prints it: fc_float_shortest, negative zero as
 * -0.0 (a float to every JSON reader), "nan", "inf", "-inf" as strings. */
void fc_json_float(FILE *f, float v);
/* The same into buf (FC_FLOAT_CHARS + 2 bytes or more, NUL-terminated);
 * returns its length. */
size_t fc_json_float_chars(char *buf, float v);
/* An int64 in decimal as %lld prints it, into buf (FC_INT64_CHARS bytes
 * or more, not NUL-terminated); returns its length. */
#define FC_INT64_CHARS 20
size_t fc_int64_chars(char *buf, int64_t v);
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
/* {"NAME":VALUE,...} of a parsed message, fields in spec order. */
void fc_json_features(FILE *f, const fc_message_desc *md, const void *msg);

/* {"NAME":VALUE,...} of a parsed SequenceExample's context, and of its
 * feature lists (each a list of frames). */
void fc_json_context(FILE *f, const fc_seq_desc *sd, const void *msg);
void fc_json_feature_lists(FILE *f, const fc_seq_desc *sd, const void *msg);

/* A parsed batch as the --batch contract prints it: dense columns as
 * {"shape","values"}, VarLen ones as {"indices","values","dense_shape"} or
 * (ragged) {"values","row_splits"}; lengths of the fixed-frame lists. */
void fc_json_batch_features(FILE *f, const fc_message_desc *md, const fc_column *cols,
                            int ragged);
void fc_json_batch_context(FILE *f, const fc_seq_desc *sd, const fc_column *cols, int ragged);
void fc_json_batch_feature_lists(FILE *f, const fc_seq_desc *sd, const fc_column *cols,
                                 int ragged);
void fc_json_batch_lengths(FILE *f, const fc_seq_desc *sd, const fc_column *cols);

/* main() of a generated driver: `prog [--compression=auto|none|zlib|gzip]
 * [--crc=verify|skip|none] FILE...` ("-" is standard input).  Prints
 * {"record":N,"features":{...}} or {"record":N,"error":"..."} per record.
 * Returns 0, 1 if a record failed to parse, 2 if a file could not be read
 * or framed, 64 for a usage error. */
int fc_driver_main(int argc, char **argv, const fc_message_desc *md);
/* The same for a sequence_example: {"record":N,"context":{...},
 * "feature_lists":{NAME:[frame,...],...}}. */
int fc_driver_seq_main(int argc, char **argv, const fc_seq_desc *sd);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_DRIVER_H */
