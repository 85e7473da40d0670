/* Printing decoded records: protobuf text format (as Python's print(example)
 * shows a tf.train.Example) and one-line JSON. */
#ifndef FEATC_PRINT_H
#define FEATC_PRINT_H

#include <stdio.h>

#include <featc/fc_driver.h>
#include <featc/fc_fallback.h>

/* A float as protobuf's text format shows it in Python's print(example):
 * the shortest round-trip decimal (fc_float_shortest), with ".0" after an
 * integral value as Python's repr writes it; nan, inf, -inf bare. */
void print_float(FILE *f, float v);

/* Bytes as a protobuf text-format string literal (C escapes, octal for
 * non-printables), with the quotes. */
void print_text_bytes(FILE *f, const uint8_t *p, size_t n);

void print_fallback_text(FILE *f, const fc_fallback *fb);
void print_fallback_json(FILE *f, const fc_fallback *fb);

#endif /* FEATC_PRINT_H */
