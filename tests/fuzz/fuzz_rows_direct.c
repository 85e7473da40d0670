/* libFuzzer harness for Arrow rows straight into records
 * (fc_arrow_rows_serialize): the input is the string of choices that
 * builds a table of tests/specs/plain.feat's columns (tests/unit/
 * plain_table.h: rows, offsets, nulls, formats, values, list lengths),
 * and every row of it must give the bytes of fc_arrow_rows_get and the
 * serializer, be taken whenever those succeed on a table of the direct
 * way's types, and be declined whenever they fail.  The arrays are the
 * harness's, well formed: what is fuzzed is the direct way's reading of
 * them, not an Arrow reader (fuzz_arrow and fuzz_parquet do those).
 * Seeds: random strings (any string builds a table). */
/* test-specs: tests/specs/plain.feat */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../unit/plain_table.h"

static pt_table table;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pt_bytes b;
    size_t taken = 0;
    b.p = data;
    b.n = size;
    if (!pt_build(&b, &table) || pt_check(&table, &taken) != 0)
        abort();
    return 0;
}
