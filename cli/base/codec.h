/* The Parquet codecs featc convert has beyond GZIP (which libfeatc's
 * writer and reader do with zlib): ZSTD with libzstd and SNAPPY with
 * libsnappy (written and read), BROTLI with libbrotlidec and LZ4_RAW with
 * liblz4 (read), when the build found them (Makefile: HAVE_ZSTD, ...). */
#ifndef FEATC_CLI_CODEC_H
#define FEATC_CLI_CODEC_H

#include <featc/fc_parquet.h>

/* An fc_parquet_compress_fn for SNAPPY and ZSTD (ctx unused). */
int cli_codec_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                       size_t *cap, size_t *len, fc_error *err);

/* An fc_parquet_decompress_fn for SNAPPY, ZSTD, BROTLI and LZ4_RAW (ctx
 * unused); others
 * FC_ERR_UNSUPPORTED, err naming the library this featc lacks. */
int cli_codec_decompress(void *ctx, int codec, const void *src, size_t n, void *dst,
                         size_t dst_len, fc_error *err);

/* The codecs this featc writes, for featc version: "none+gzip+snappy+zstd"
 * with both libraries. */
const char *cli_codec_names(void);

/* The codecs this featc reads beyond those it writes: "brotli+lz4_raw"
 * with both libraries, "none" with neither. */
const char *cli_codec_read_names(void);

/* NULL when this featc has codec, else the library it was built without
 * ("libzstd", "libsnappy"). */
const char *cli_codec_missing(int codec);

#endif
