/* Printing decoded records: protobuf text format (as Python's print(example)
 * shows a tf.train.Example) and one-line JSON. */
#ifndef FEATC_PRINT_H
#define FEATC_PRINT_H

#include <stdio.h>

#include <featc/fc_driver.h>
#include <featc/fc_fallback.h>

/* Shortest decimal that reads back as the same float32; "nan", "inf", "-inf".
 * python_style appends ".0" to integral values, as Python's repr does. */
void print_float(FILE *f, float v, int python_style);

/* Bytes as a protobuf text-format string literal (C escapes, octal for
 * non-printables), with the quotes. */
void print_text_bytes(FILE *f, const uint8_t *p, size_t n);

void print_fallback_text(FILE *f, const fc_fallback *fb);
void print_fallback_json(FILE *f, const fc_fallback *fb);

#endif /* FEATC_PRINT_H */
