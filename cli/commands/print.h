/* Printing decoded records: protobuf text format (as Python's print(example)
 * shows a tf.train.Example) and one-line JSON. */
#ifndef FEATC_PRINT_H
#define FEATC_PRINT_H

#include <stdio.h>

#include <featc/fc_json.h>
#include <featc/fc_fallback.h>

/* Bytes as a protobuf text-format string literal (C escapes, octal for
 * non-printables), with the quotes. */
void print_text_bytes(FILE *f, const uint8_t *p, size_t n);

/* How JSON shows a bytes value (cat --json-bytes). */
enum {
    PRINT_JSON_TEXT,   /* well-formed UTF-8 as its text, else {"base64":"..."} */
    PRINT_JSON_LATIN1, /* one code point U+0000-U+00FF per byte (the dump
                          contract's form; with utf8, UTF-8 values as text) */
    PRINT_JSON_BASE64  /* every value a base64 string (protobuf's JSON mapping) */
};

/* How bytes values are shown (cat --max-bytes, --utf8, --json-bytes). */
typedef struct print_opts {
    size_t max_bytes; /* a longer value shows its first max_bytes bytes and its
                         length (0: whole) */
    int utf8;         /* a value that is well-formed UTF-8 shows as text */
    int json_bytes;   /* PRINT_JSON_* */
} print_opts;

/* n bytes in base64 (RFC 4648, padded) into out, which has room for
 * 4 * ((n + 2) / 3) characters; their count. */
size_t print_base64_chars(char *out, const uint8_t *p, size_t n);

/* How much of a value of n bytes po shows (a UTF-8 value cut between
 * characters), and in *utf8 whether it shows as text. */
size_t print_value_shown(const uint8_t *p, size_t n, const print_opts *po, int *utf8);

/* A bytes value under po in text format: a string literal; shortened, a
 * comment "# shortened: first N of L bytes" after it.  A shortened UTF-8
 * value is cut between characters. */
void print_text_value(FILE *f, const uint8_t *p, size_t n, const print_opts *po);

/* Output gathered in a buffer across calls (cat's records): written to f
 * when full and by print_out_flush, which a caller calls before writing to
 * f or stderr in any other way, and at the end. */
typedef struct print_out {
    FILE *f;
    size_t n;
    char b[16384];
} print_out;

void print_out_init(print_out *o, FILE *f);
void print_out_flush(print_out *o);
void print_out_put(print_out *o, const void *s, size_t n);
void print_out_u64(print_out *o, uint64_t v);
void print_out_json_string(print_out *o, const void *p, size_t n, int utf8);
/* A decoded record: protobuf text format, or the JSON fields of cat's
 * object ("type":..., "features":...). */
void print_fallback_text_to(print_out *o, const fc_fallback *fb, const print_opts *po);
void print_fallback_json_to(print_out *o, const fc_fallback *fb, const print_opts *po);

#endif /* FEATC_PRINT_H */
