/* The Parquet codecs beyond GZIP (fc_codecs.h). */
#include "featc/fc_codecs.h"

#include <stdlib.h>

#ifdef FC_WITH_ZSTD
#include <zstd.h>
#endif
#ifdef FC_WITH_SNAPPY
#include <snappy-c.h>
#endif
#ifdef FC_SNAPPY_SONAME
#include <dlfcn.h>
#include <string.h>
#endif
#ifdef FC_WITH_BROTLI
#include <brotli/decode.h>
#endif
#ifdef FC_WITH_LZ4
#include <lz4.h>
#endif

const char *fc_codecs_missing(int codec)
{
#ifndef FC_WITH_ZSTD
    if (codec == FC_PARQUET_ZSTD)
        return "libzstd";
#endif
#ifndef FC_WITH_SNAPPY
    if (codec == FC_PARQUET_SNAPPY)
        return "libsnappy";
#endif
#ifndef FC_WITH_BROTLI
    if (codec == FC_PARQUET_BROTLI)
        return "libbrotli";
#endif
#ifndef FC_WITH_LZ4
    if (codec == FC_PARQUET_LZ4_RAW)
        return "liblz4";
#endif
    (void)codec;
    return NULL;
}

const char *fc_codecs_read_names(void)
{
#if defined(FC_WITH_BROTLI) && defined(FC_WITH_LZ4)
    return "brotli+lz4_raw";
#elif defined(FC_WITH_BROTLI)
    return "brotli";
#elif defined(FC_WITH_LZ4)
    return "lz4_raw";
#else
    return "none";
#endif
}

const char *fc_codecs_names(void)
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

#ifdef FC_WITH_SNAPPY
/* libsnappy is written in C++: linked, it brings libstdc++ into every
 * process that links this archive, and its loading was a millisecond of
 * each featc start on the machine this was measured on (3.7 ms for
 * `featc --version`, 1.0 ms less without it), paid by every command for a
 * codec few files use.  So where the build knows the library's soname
 * (FC_SNAPPY_SONAME, from the Makefile), it is opened at the first snappy
 * page instead.  The four functions' addresses are the same for every
 * thread that looks them up, so threads that race here store the same
 * values; only a success is kept, and a failure is told with dlerror's
 * words each time. */
typedef struct snappy_fns {
    snappy_status (*compress)(const char *, size_t, char *, size_t *);
    snappy_status (*uncompress)(const char *, size_t, char *, size_t *);
    size_t (*max_compressed_length)(size_t);
    snappy_status (*uncompressed_length)(const char *, size_t, size_t *);
} snappy_fns;

#ifdef FC_SNAPPY_SONAME
#define FC_STR2(x) #x
#define FC_STR(x) FC_STR2(x)
#define SNAPPY_LIB FC_STR(FC_SNAPPY_SONAME)

static snappy_fns snappy_loaded;
static int snappy_ready; /* 1 once snappy_loaded is filled */

/* dlsym's object pointer as a function pointer (ISO C has no cast). */
static int sym(void *lib, const char *name, void *fn, size_t size)
{
    void *p = dlsym(lib, name);
    if (p == NULL || size != sizeof p)
        return 0;
    memcpy(fn, &p, size);
    return 1;
}

/* The functions, or NULL with err set (FC_ERR_UNSUPPORTED). */
static const snappy_fns *snappy_get(fc_error *err)
{
    snappy_fns f;
    void *lib;
    if (__atomic_load_n(&snappy_ready, __ATOMIC_ACQUIRE))
        return &snappy_loaded;
    if ((lib = dlopen(SNAPPY_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL ||
        !sym(lib, "snappy_compress", &f.compress, sizeof f.compress) ||
        !sym(lib, "snappy_uncompress", &f.uncompress, sizeof f.uncompress) ||
        !sym(lib, "snappy_max_compressed_length", &f.max_compressed_length,
             sizeof f.max_compressed_length) ||
        !sym(lib, "snappy_uncompressed_length", &f.uncompressed_length,
             sizeof f.uncompressed_length)) {
        const char *why = dlerror();
        fc_msg m = fc_error_begin(err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "parquet: snappy: cannot load " SNAPPY_LIB ": ");
        fc_msg_str(&m, why != NULL ? why : "a function is missing");
        return NULL; /* (the library, if opened, stays: dlopen counts its users) */
    }
    __atomic_store_n(&snappy_loaded.compress, f.compress, __ATOMIC_RELAXED);
    __atomic_store_n(&snappy_loaded.uncompress, f.uncompress, __ATOMIC_RELAXED);
    __atomic_store_n(&snappy_loaded.max_compressed_length, f.max_compressed_length,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&snappy_loaded.uncompressed_length, f.uncompressed_length, __ATOMIC_RELAXED);
    __atomic_store_n(&snappy_ready, 1, __ATOMIC_RELEASE);
    return &snappy_loaded;
}
#else
static const snappy_fns snappy_linked = {snappy_compress, snappy_uncompress,
                                         snappy_max_compressed_length,
                                         snappy_uncompressed_length};

static const snappy_fns *snappy_get(fc_error *err)
{
    (void)err;
    return &snappy_linked;
}
#endif
#endif

/* The contexts a caller keeps from one call to the next (fc_codecs_new). */
struct fc_codecs {
#ifdef FC_WITH_ZSTD
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
#endif
    int unused; /* (a struct has a member without the libraries too) */
};

fc_codecs *fc_codecs_new(void)
{
    return (fc_codecs *)calloc(1, sizeof(fc_codecs));
}

void fc_codecs_free(fc_codecs *c)
{
    if (c == NULL)
        return;
#ifdef FC_WITH_ZSTD
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeDCtx(c->dctx);
#endif
    free(c);
}

int fc_codecs_compress(void *ctx, int codec, const void *src, size_t n, unsigned char **dst,
                       size_t *cap, size_t *len, fc_error *err)
{
    fc_codecs *c = (fc_codecs *)ctx;
    (void)c;
    (void)src;
    (void)n;
    (void)dst;
    (void)cap;
    (void)len;
#ifdef FC_WITH_ZSTD
    if (codec == FC_PARQUET_ZSTD) {
        size_t bound = ZSTD_compressBound(n), r;
        if (!room(dst, cap, bound))
            return failed(err, "out of memory");
        if (c != NULL && c->cctx == NULL && (c->cctx = ZSTD_createCCtx()) == NULL)
            return failed(err, "out of memory");
        r = c != NULL ? ZSTD_compressCCtx(c->cctx, *dst, bound, src, n, ZSTD_CLEVEL_DEFAULT)
                      : ZSTD_compress(*dst, bound, src, n, ZSTD_CLEVEL_DEFAULT);
        if (ZSTD_isError(r))
            return failed(err, ZSTD_getErrorName(r));
        *len = r;
        return FC_OK;
    }
#endif
#ifdef FC_WITH_SNAPPY
    if (codec == FC_PARQUET_SNAPPY) {
        const snappy_fns *sn = snappy_get(err);
        size_t bound;
        if (sn == NULL)
            return FC_ERR_UNSUPPORTED;
        bound = sn->max_compressed_length(n);
        if (!room(dst, cap, bound))
            return failed(err, "out of memory");
        *len = bound;
        if (sn->compress((const char *)src, n, (char *)*dst, len) != SNAPPY_OK)
            return failed(err, "snappy compression failed");
        return FC_OK;
    }
#endif
    (void)room;
    return failed(err, codec == FC_PARQUET_ZSTD     ? "featc was built without libzstd"
                       : codec == FC_PARQUET_SNAPPY ? "featc was built without libsnappy"
                                                    : "no such codec");
}

/* A decompressor's failure: FC_ERR_INFLATE, what in err. */
static int corrupt(fc_error *err, const char *what)
{
    fc_msg m = fc_error_begin(err, FC_ERR_INFLATE, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    return FC_ERR_INFLATE;
}

int fc_codecs_decompress(void *ctx, int codec, const void *src, size_t n, void *dst,
                         size_t dst_len, fc_error *err)
{
    const char *missing = fc_codecs_missing(codec);
    fc_codecs *c = (fc_codecs *)ctx;
    (void)c;
    (void)src;
    (void)n;
    (void)dst;
    (void)dst_len;
#ifdef FC_WITH_ZSTD
    if (codec == FC_PARQUET_ZSTD) {
        size_t r;
        if (c != NULL && c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL)
            return failed(err, "out of memory");
        r = c != NULL ? ZSTD_decompressDCtx(c->dctx, dst, dst_len, src, n)
                      : ZSTD_decompress(dst, dst_len, src, n);
        if (ZSTD_isError(r))
            return corrupt(err, ZSTD_getErrorName(r));
        if (r != dst_len)
            return corrupt(err, "fewer bytes than the page header says");
        return FC_OK;
    }
#endif
#ifdef FC_WITH_BROTLI
    if (codec == FC_PARQUET_BROTLI) {
        size_t len = dst_len;
        if (BrotliDecoderDecompress(n, (const uint8_t *)src, &len, (uint8_t *)dst) !=
                BROTLI_DECODER_RESULT_SUCCESS ||
            len != dst_len)
            return corrupt(err, "a damaged brotli stream, or one of another size than the page "
                                "header says");
        return FC_OK;
    }
#endif
#ifdef FC_WITH_LZ4
    if (codec == FC_PARQUET_LZ4_RAW) {
        int r;
        if (n > (size_t)LZ4_MAX_INPUT_SIZE || dst_len > (size_t)INT32_MAX)
            return corrupt(err, "an LZ4 block past 2 GiB");
        r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)dst_len);
        if (r < 0 || (size_t)r != dst_len)
            return corrupt(err, "a damaged LZ4 block, or one of another size than the page "
                                "header says");
        return FC_OK;
    }
#endif
#ifdef FC_WITH_SNAPPY
    if (codec == FC_PARQUET_SNAPPY) {
        const snappy_fns *sn = snappy_get(err);
        size_t len = 0;
        if (sn == NULL)
            return FC_ERR_UNSUPPORTED;
        if (sn->uncompressed_length((const char *)src, n, &len) != SNAPPY_OK)
            return corrupt(err, "not a snappy block");
        if (len != dst_len)
            return corrupt(err, "a snappy block of another size than the page header says");
        if (sn->uncompress((const char *)src, n, (char *)dst, &len) != SNAPPY_OK ||
            len != dst_len)
            return corrupt(err, "a damaged snappy block");
        return FC_OK;
    }
#endif
    (void)corrupt; /* (unused without every library) */
    {
        fc_msg m = fc_error_begin(err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        if (missing != NULL) {
            fc_msg_str(&m, "featc was built without ");
            fc_msg_str(&m, missing);
        } else {
            fc_msg_str(&m, "featc does not read ");
            fc_msg_str(&m, fc_parquet_codec_name(codec));
        }
        return FC_ERR_UNSUPPORTED;
    }
}
