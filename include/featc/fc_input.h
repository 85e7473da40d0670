/* Opening TFRecord inputs for tools: the featc command line and generated
 * JSON drivers.  (Not part of the allocation-free parse path.)
 *
 * Regular files are memory-mapped: uncompressed ones are then read zero-copy;
 * compressed ones are inflated into a buffer that grows (up to
 * max_record_size) when a record does not fit.  Pipes and "-" (standard
 * input) are streamed through the same buffer.  The tool allocates here; the
 * runtime's read loop itself never does.
 */
#ifndef FEATC_FC_INPUT_H
#define FEATC_FC_INPUT_H

#include "fc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_input {
    const char *path;
    int fd;
    int own_fd;
    fc_mapped_file map;
    unsigned char *buf;
    size_t cap;
    void *work;
    size_t max_record_size;
    fc_reader reader;
    fc_error err;   /* open errors and the reader's errors, with the path */
} fc_input;

typedef struct fc_input_options {
    fc_compression compression;
    fc_crc_policy crc_policy;
    size_t max_record_size; /* largest record payload to buffer; 0: 1 GiB */
} fc_input_options;

/* FC_OK, or an error with in->err filled. */
fc_status fc_input_open(fc_input *in, const char *path, const fc_input_options *opt);
/* FC_OK with a record, FC_END, or an error (in->err). */
fc_status fc_input_next(fc_input *in, fc_record *rec);
void fc_input_close(fc_input *in);

/* Parses "auto|none|zlib|gzip" and "verify|skip|none"; 0 on success. */
int fc_input_parse_compression(const char *s, fc_compression *out);
int fc_input_parse_crc(const char *s, fc_crc_policy *out);
/* Parses a size with an optional K/M/G suffix (powers of 1024); 0 on success. */
int fc_input_parse_size(const char *s, size_t *out);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_INPUT_H */
