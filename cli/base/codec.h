/* The Parquet codecs featc convert has beyond GZIP (which libfeatc's
 * writer does with zlib): ZSTD with libzstd and SNAPPY with libsnappy,
 * when the build found them (Makefile: HAVE_ZSTD, HAVE_SNAPPY). */
#ifndef FEATC_CLI_CODEC_H
#define FEATC_CLI_CODEC_H

#include <featc/fc_parquet.h>

/* An fc_parquet_compress_fn for SNAPPY and ZSTD (ctx unused). */
int cli_codec_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                       size_t *cap, size_t *len, fc_error *err);

/* The codecs this featc writes, for featc version: "none+gzip+snappy+zstd"
 * with both libraries. */
const char *cli_codec_names(void);

/* NULL when this featc has codec, else the library it was built without
 * ("libzstd", "libsnappy"). */
const char *cli_codec_missing(int codec);

#endif
