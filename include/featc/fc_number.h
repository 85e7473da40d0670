/* Numbers as text, without printf or the C library's locale: the one float
 * printer of featc's JSON and text, and int64 in decimal.  No stdio, no
 * allocation. */
#ifndef FEATC_FC_NUMBER_H
#define FEATC_FC_NUMBER_H

#include <stddef.h>
#include <stdint.h>

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
/* An int64 in decimal as %lld prints it, into buf (FC_INT64_CHARS bytes
 * or more, not NUL-terminated); returns its length. */
#define FC_INT64_CHARS 20
size_t fc_int64_chars(char *buf, int64_t v);
#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_NUMBER_H */
