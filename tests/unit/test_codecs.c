/* The Parquet codecs of runtime/hosted/codecs.c when libsnappy cannot be
 * opened.  tests.mk builds this with codecs.c itself and
 * FC_SNAPPY_SONAME set to a library no system has, so that the first
 * snappy page, written or read, is the error that names the library and
 * dlopen's reason, with no call through a missing function; ZSTD, linked,
 * works beside it.  (A build without libsnappy's header has no
 * FC_WITH_SNAPPY: there the error is the one naming the missing library.) */
#include <featc/fc.h>
#include <featc/fc_codecs.h>
#include <featc/fc_parquet.h>

#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void test_snappy_missing(void)
{
    static const unsigned char block[] = {5, 16, 'h', 'e', 'l', 'l', 'o'}; /* "hello", snappy */
    unsigned char out[5], *dst = NULL;
    size_t cap = 0, len = 0;
    fc_error err;
    int k;
    for (k = 0; k < 2; k++) { /* twice: a failure is not kept as a success */
        memset(&err, 0, sizeof err);
        CHECK(fc_codecs_decompress(NULL, FC_PARQUET_SNAPPY, block, sizeof block, out, sizeof out,
                                   &err) == FC_ERR_UNSUPPORTED);
        CHECK(err.status == FC_ERR_UNSUPPORTED);
#ifdef FC_WITH_SNAPPY
        CHECK_CONTAINS(err.message, "parquet: snappy: cannot load libfeatc-no-such-snappy.so.0: ");
#else
        CHECK_CONTAINS(err.message, "featc was built without libsnappy");
#endif
        memset(&err, 0, sizeof err);
        CHECK(fc_codecs_compress(NULL, FC_PARQUET_SNAPPY, "hello", 5, &dst, &cap, &len, &err) !=
              FC_OK);
        CHECK(err.status != FC_OK);
#ifdef FC_WITH_SNAPPY
        CHECK_CONTAINS(err.message, "cannot load libfeatc-no-such-snappy.so.0");
#else
        CHECK_CONTAINS(err.message, "featc was built without libsnappy");
#endif
    }
    free(dst);
}

static void test_zstd_beside(void)
{
#ifdef FC_WITH_ZSTD
    unsigned char *dst = NULL, back[64];
    size_t cap = 0, len = 0;
    fc_error err;
    const char text[] = "the other codecs do not depend on snappy's library";
    memset(&err, 0, sizeof err);
    CHECK(fc_codecs_compress(NULL, FC_PARQUET_ZSTD, text, sizeof text, &dst, &cap, &len, &err) ==
          FC_OK);
    CHECK(fc_codecs_decompress(NULL, FC_PARQUET_ZSTD, dst, len, back, sizeof text, &err) == FC_OK);
    CHECK(memcmp(back, text, sizeof text) == 0);
    free(dst);
#endif
}

int main(void)
{
    RUN(test_snappy_missing);
    RUN(test_zstd_beside);
    return harness_report("codecs");
}
