/* nanopb's tutorial decoder (nanopb_tutorial.c): what featc's generated
 * tutorial_record_parse does, written with nanopb, for `make footprint`. */
#ifndef NANOPB_TUTORIAL_H
#define NANOPB_TUTORIAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct nt_bytes {
    const unsigned char *data;
    size_t size;
} nt_bytes;

typedef struct nt_record {
    int64_t feature0;
    int64_t feature1;
    nt_bytes feature2;
    float feature3;
} nt_record;

/* 0, or -1 with *why set (nanopb's text, or one of nanopb_tutorial.c's). */
int nt_parse(nt_record *out, const unsigned char *data, size_t len, const char **why);

#endif
