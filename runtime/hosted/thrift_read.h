/* Thrift's compact protocol read from untrusted bytes (thrift_read.c), for
 * the Parquet reader's footer and page headers.  Private to the hosted
 * layer. */
#ifndef FEATC_THRIFT_READ_H
#define FEATC_THRIFT_READ_H

#include "thrift.h"

/* A reader of compact-protocol bytes [start, end), untrusted: every
 * length and count checked against the bytes left, structs nested at most
 * TH_DEPTH deep.  The first failure sticks (bad, its file offset bad_at and
 * why); every read after it gives 0 or nothing. */
typedef struct th_reader {
    const unsigned char *p, *start, *end;
    uint64_t base; /* the file offset of start */
    int16_t last[TH_DEPTH];
    unsigned depth;
    int bad;
    uint64_t bad_at;
    const char *why;
} th_reader;

/* A ULEB128 varint (Thrift's, and the Parquet encodings' headers) from
 * [*p, end) into *v, *p past it: 1; 0 when the bytes end inside it, -1
 * when it is longer than ten bytes. */
int th_uleb128(const unsigned char **p, const unsigned char *end, uint64_t *v);

/* Reading starts inside the outermost struct (its fields come next). */
void th_read_begin(th_reader *t, const void *p, size_t n, uint64_t base);
void th_read_fail(th_reader *t, const char *why);
uint64_t th_read_offset(const th_reader *t);
/* The next field of the innermost open struct: 1 with its id and type, or
 * 0 at the struct's end (which closes it) or after a failure. */
int th_read_field(th_reader *t, int16_t *id, unsigned *type);
void th_read_struct(th_reader *t);                /* opens a struct field or element */
int64_t th_read_int(th_reader *t, unsigned type); /* an i8, i16, i32 or i64 of that type */
/* A binary's (or string's) bytes, n of them: a view into the input. */
const unsigned char *th_read_binary(th_reader *t, size_t *n);
/* A list's header: its element type and count (at most the bytes left). */
size_t th_read_list(th_reader *t, unsigned *elem);
/* Skips a value of type: as a field's (bool in the type) or, in_list, as
 * a list element's (bool a byte). */
void th_skip(th_reader *t, unsigned type, int in_list);

/* Thrift's required fields: a reader of a struct keeps a bit per field id
 * it met (TH_FIELD(id)) and asks for those the .thrift file marks
 * required; a missing one is a failure that says what, as in Thrift's own
 * readers (DuckDB's). */
#define TH_FIELD(id) (1u << (id))
void th_read_need(th_reader *t, uint32_t seen, uint32_t want, const char *what);

#endif
