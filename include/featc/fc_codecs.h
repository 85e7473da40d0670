/* The Parquet codecs beyond GZIP (which libfeatc's writer and reader do
 * with zlib), for fc_parquet_options' compress and decompress: ZSTD with
 * libzstd and SNAPPY with libsnappy (written and read), BROTLI with
 * libbrotlidec and LZ4_RAW with liblz4 (read), as the build found them.
 * In libfeatc_codecs.a (not in libfeatc, which links none of these
 * libraries): link it before libfeatc.a, and the libraries that
 * libfeatc_codecs.libs names after it.  The featc program and the Python
 * modules use it. */
#ifndef FEATC_FC_CODECS_H
#define FEATC_FC_CODECS_H

#include <featc/fc_parquet.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Contexts kept from one call to the next (ZSTD's), for the ctx of the
 * functions below: one per thread; NULL there makes each call set up its
 * own.  fc_codecs_new: NULL when out of memory; fc_codecs_free(NULL) does
 * nothing. */
typedef struct fc_codecs fc_codecs;
fc_codecs *fc_codecs_new(void);
void fc_codecs_free(fc_codecs *c);

/* An fc_parquet_compress_fn for SNAPPY and ZSTD (ctx: an fc_codecs, or
 * NULL). */
int fc_codecs_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                       size_t *cap, size_t *len, fc_error *err);

/* An fc_parquet_decompress_fn for SNAPPY, ZSTD, BROTLI and LZ4_RAW (ctx:
 * an fc_codecs, or NULL); others FC_ERR_UNSUPPORTED, err naming the library this build
 * lacks. */
int fc_codecs_decompress(void *ctx, int codec, const void *src, size_t n, void *dst,
                         size_t dst_len, fc_error *err);

/* The codecs this build writes: "none+gzip+snappy+zstd" with both
 * libraries. */
const char *fc_codecs_names(void);

/* The codecs this build reads beyond those it writes: "brotli+lz4_raw"
 * with both libraries, "none" with neither. */
const char *fc_codecs_read_names(void);

/* NULL when this build has codec, else the library it was built without
 * ("libzstd", "libsnappy", "libbrotli", "liblz4"). */
const char *fc_codecs_missing(int codec);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_CODECS_H */
