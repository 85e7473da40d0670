/* The Parquet codecs beyond GZIP (codec.h). */
#include "base/codec.h"

#include <stdlib.h>

#ifdef FC_WITH_ZSTD
#include <zstd.h>
#endif
#ifdef FC_WITH_SNAPPY
#include <snappy-c.h>
#endif

const char *cli_codec_missing(int codec)
{
#ifndef FC_WITH_ZSTD
    if (codec == FC_PARQUET_ZSTD)
        return "libzstd";
#endif
#ifndef FC_WITH_SNAPPY
    if (codec == FC_PARQUET_SNAPPY)
        return "libsnappy";
#endif
    (void)codec;
    return NULL;
}

const char *cli_codec_names(void)
{
#if defined(FC_WITH_ZSTD) && defined(FC_WITH_SNAPPY)
    return "none+gzip+snappy+zstd";
#elif defined(FC_WITH_ZSTD)
    return "none+gzip+zstd";
#elif defined(FC_WITH_SNAPPY)
    return "none+gzip+snappy";
#else
    return "none+gzip";
#endif
}

static int failed(fc_error *err, const char *what)
{
    fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "parquet: ");
    fc_msg_str(&m, what);
    return FC_ERR_IO;
}

/* *dst grown to at least need bytes. */
static int room(unsigned char **dst, size_t *cap, size_t need)
{
    unsigned char *q;
    if (need <= *cap)
        return 1;
    q = (unsigned char *)realloc(*dst, need);
    if (q == NULL)
        return 0;
    *dst = q;
    *cap = need;
    return 1;
}

int cli_codec_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                       size_t *cap, size_t *len, fc_error *err)
{
    (void)ctx;
    (void)src;
    (void)n;
    (void)dst;
    (void)cap;
    (void)len;
#ifdef FC_WITH_ZSTD
    if (codec == FC_PARQUET_ZSTD) {
        static ZSTD_CCtx *cctx; /* one for the process: featc writes from one thread */
        size_t bound = ZSTD_compressBound(n), r;
        if (!room(dst, cap, bound))
            return failed(err, "out of memory");
        if (cctx == NULL && (cctx = ZSTD_createCCtx()) == NULL)
            return failed(err, "out of memory");
        r = ZSTD_compressCCtx(cctx, *dst, bound, src, n, ZSTD_CLEVEL_DEFAULT);
        if (ZSTD_isError(r))
            return failed(err, ZSTD_getErrorName(r));
        *len = r;
        return FC_OK;
    }
#endif
#ifdef FC_WITH_SNAPPY
    if (codec == FC_PARQUET_SNAPPY) {
        size_t bound = snappy_max_compressed_length(n);
        if (!room(dst, cap, bound))
            return failed(err, "out of memory");
        *len = bound;
        if (snappy_compress((const char *)src, n, (char *)*dst, len) != SNAPPY_OK)
            return failed(err, "snappy compression failed");
        return FC_OK;
    }
#endif
    (void)room;
    return failed(err, codec == FC_PARQUET_ZSTD     ? "featc was built without libzstd"
                       : codec == FC_PARQUET_SNAPPY ? "featc was built without libsnappy"
                                                    : "no such codec");
}
