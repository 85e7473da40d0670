// The public headers compile as C++ (generated code and users include them
// from C++) with strict warnings, and link against the C runtime and the
// compiler library.
#include <cstring>

#include <featc/fc.h>
#include <featc/fc_driver.h>
#include <featc/fc_json.h>
#include <featc/fc_number.h>
#include <featc/fc_fallback.h>
#include <featc/fc_input.h>
#include <featc/fc_segment_mt.h>
#include <featc/fc_pool.h>
#include <featc/featc.h>

static int diagnostics;

static void count(void *, const featc_diagnostic *d)
{
    diagnostics += d->severity == FEATC_ERROR;
}

int main()
{
    fc_error e;
    fc_error_clear(&e);
    int rc = fc_reader_next(0, 0);
    uint32_t c = fc_crc32c(0, "123456789", 9);
    if (rc != FC_ERR_ARG || c != 0xe3069283u || fc_crc32c_unmask(fc_crc32c_mask(c)) != c)
        return 1;
    // The compiler in-process: one good spec, one with an error.
    static const char good[] = "example t { x : int64; }";
    static const char bad[] = "example t { x : int65; }";
    featc_options o = FEATC_OPTIONS_INIT;
    featc_output out;
    o.spec_name = "t.feat";
    o.diag = count;
    if (featc_compile(good, sizeof good - 1, &o, &out) != 0 || out.source == NULL ||
        std::strstr(out.header, "typedef struct t_t") == NULL || diagnostics != 0)
        return 1;
    featc_output_free(&out);
    if (featc_compile(bad, sizeof bad - 1, &o, &out) == 0 || out.source != NULL || diagnostics != 1)
        return 1;
    featc_output_free(&out);
    return std::strcmp(featc_version(), FC_VERSION_STRING) == 0 ? 0 : 1;
}
