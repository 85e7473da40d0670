/* Opening TFRecord inputs for the featc command-line tools.
 *
 * Regular files are memory-mapped: uncompressed ones are then read zero-copy;
 * compressed ones are inflated into a buffer that grows (up to
 * max_record_size) when a record does not fit.  Pipes and "-" (standard
 * input) are streamed through the same buffer.  The tool allocates here; the
 * runtime's read loop itself never does.
 */
#ifndef FEATC_CLI_INPUT_H
#define FEATC_CLI_INPUT_H

#include <featc/fc.h>

typedef struct cli_input {
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
} cli_input;

typedef struct cli_read_options {
    fc_compression compression;
    fc_crc_policy crc_policy;
    size_t max_record_size; /* largest record payload to buffer; 0: 1 GiB */
} cli_read_options;

/* FC_OK, or an error with in->err filled. */
fc_status cli_input_open(cli_input *in, const char *path, const cli_read_options *opt);
/* FC_OK with a record, FC_END, or an error (in->err). */
fc_status cli_input_next(cli_input *in, fc_record *rec);
void cli_input_close(cli_input *in);

/* Parses "auto|none|zlib|gzip" and "verify|skip|none"; 0 on success. */
int cli_parse_compression(const char *s, fc_compression *out);
int cli_parse_crc(const char *s, fc_crc_policy *out);
/* Parses a size with an optional K/M/G suffix (powers of 1024); 0 on success. */
int cli_parse_size(const char *s, size_t *out);

#endif /* FEATC_CLI_INPUT_H */
