/* What `make footprint` links around a generated parser: one function that
 * calls featc (FP_PARSE: parse a record; FP_READ: the memory reader and
 * parse every record; FP_SERIALIZE: parse and serialize back), and an
 * entry point that keeps it alive.  Its frame (the caller's fc_error, the
 * reader) and its static message are the user's: footprint.py counts
 * neither.  FP_HEADER and FP_TYPE name the generated parser.  FP_NANOPB:
 * nanopb's decoder of the same job (nanopb_tutorial.c) instead. */
#include <stddef.h>

#if defined(FP_NANOPB)
#include "nanopb_tutorial.h"
#define FP_TYPE nt_record
#else
#include <featc/fc_record.h>

#include FP_HEADER

#define FP_CAT_(a, b) a##b
#define FP_CAT(a, b) FP_CAT_(a, b)
#define FP_FN(suffix) FP_CAT(FP_TYPE, suffix)
#endif

int fp_entry(const unsigned char *data, size_t len, void *out, size_t cap);
void fp_start(void);

static FP_TYPE fp_msg;
static unsigned char fp_out[4096];
const unsigned char *volatile fp_data;
volatile size_t fp_len;

#if defined(FP_NANOPB)
const char *volatile fp_why;

int fp_entry(const unsigned char *data, size_t len, void *out, size_t cap)
{
    const char *why = "";
    int rc = nt_parse(&fp_msg, data, len, &why);
    (void)out;
    (void)cap;
    fp_why = why;
    return rc;
}
#else
int fp_entry(const unsigned char *data, size_t len, void *out, size_t cap)
{
    fc_error err;
#if defined(FP_READ)
    fc_reader r;
    fc_record rec;
    int st, bad = 0;
    (void)out;
    (void)cap;
    if (fc_reader_init_mem(&r, data, len, NULL, &err) != FC_OK)
        return -1;
    while ((st = fc_reader_next(&r, &rec)) == FC_OK)
        bad += FP_FN(_parse)(&fp_msg, rec.data, rec.length, &err) != FC_OK;
    return st == FC_END ? bad : -1;
#else
    int rc = FP_FN(_parse)(&fp_msg, data, len, &err);
#if defined(FP_SERIALIZE)
    size_t n = 0;
    if (rc == FC_OK)
        rc = FP_FN(_serialize)(&fp_msg, FC_WRITE_DEFAULTS, out, cap, &n, &err);
#else
    (void)out;
    (void)cap;
#endif
    return rc;
#endif
}
#endif

void fp_start(void)
{
    for (;;)
        (void)fp_entry(fp_data, fp_len, fp_out, sizeof fp_out);
}
