// The public headers compile as C++ (generated code and users include them
// from C++) with strict warnings, and link against the C runtime.
#include <featc/fc.h>
#include <featc/fc_driver.h>
#include <featc/fc_fallback.h>
#include <featc/fc_input.h>
#include <featc/fc_segment_mt.h>

int main()
{
    fc_error e;
    fc_error_clear(&e);
    int rc = fc_reader_next(0, 0);
    uint32_t c = fc_crc32c(0, "123456789", 9);
    return rc == FC_ERR_ARG && c == 0xe3069283u && fc_crc32c_unmask(fc_crc32c_mask(c)) == c ? 0 : 1;
}
