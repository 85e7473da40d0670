/* Protocol buffers' text format, read without a .proto (pbtxt.c): the
 * fields of a message as a tree of names and values, each with its place in
 * the source for diagnostics.  featc import --tfmd reads a TensorFlow
 * Metadata schema.pbtxt through it (tfmd_import.c) and decides there what
 * each field means.
 *
 * What it reads is what protobuf's text parser reads: `name: value`,
 * `name { ... }` or `name < ... >` (the ':' optional before a message),
 * lists `name: [a, b]` (each item a field of its own), `,` or `;` after a
 * field, `#` comments, strings in '...' or "..." with C escapes (adjacent
 * strings joined), numbers with a sign, identifiers (enums, true, inf), and
 * `[extension.name]` or `[type.googleapis.com/...]` field names (kept as
 * named, for the caller to pass over).  Nesting deeper than PT_MAX_DEPTH is
 * an error: the input is untrusted. */
#ifndef FEATC_PBTXT_H
#define FEATC_PBTXT_H

#include "spec.h"

#define PT_MAX_DEPTH 64

typedef enum pt_kind {
    PT_IDENT,   /* an identifier: an enum value, true/false, inf, nan */
    PT_NUMBER,  /* a number as written (text), after an optional '-' (neg) */
    PT_STRING,  /* bytes, escapes resolved (text[0..len), NUL after) */
    PT_MESSAGE  /* fields */
} pt_kind;

typedef struct pt_field {
    const char *name;       /* the field's name; "[...]" for an extension */
    spec_loc loc;           /* of the name */
    pt_kind kind;
    const char *text;       /* PT_IDENT, PT_NUMBER, PT_STRING */
    size_t len;
    int neg;                /* PT_NUMBER, PT_IDENT: a '-' before it */
    spec_loc vloc;          /* of the value */
    struct pt_field *fields; /* PT_MESSAGE: the first field inside */
    struct pt_field *next;   /* the next field of the same message */
} pt_field;

/* Reads d->src[0..d->src_len) as the fields of a message.  Returns the top
 * message (kind PT_MESSAGE, possibly with no fields), or NULL after an
 * error reported through d (the first one: the parse stops there). */
pt_field *fcc_pbtxt_parse(pool *p, diag *d);

#endif
