/* Arrow rows straight into records (fc_arrow_rows_serialize,
 * runtime/hosted/arrow_rows_direct.c) against the struct and the
 * serializer, over tables of tests/specs/plain.feat's columns built from
 * random bytes (plain_table.h, which fuzz_rows_direct drives with the
 * fuzzer's): the same bytes for every row, every row the general way
 * writes taken, none it refuses; and a table of another spec declined. */
/* test-specs: tests/specs/plain.feat tests/specs/batch.feat */
#include <featc/fc.h>
#include <featc/fc_arrow.h>

#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "harness.h"
#include "plain_table.h"

static pt_table table;

static void test_random_tables(void)
{
    static uint8_t bytes[8192];
    size_t taken = 0, plain = 0, k, i;
    for (k = 0; k < 10000; k++) {
        pt_bytes b;
        int bad;
        for (i = 0; i < sizeof bytes; i++)
            bytes[i] = (uint8_t)h_rand();
        b.p = bytes;
        b.n = sizeof bytes;
        CHECK(pt_build(&b, &table));
        plain += (size_t)table.plain;
        bad = pt_check(&table, &taken);
        CHECK_MSG(bad == 0, "table %zu: plain_table.h line %d", k, bad);
        if (bad != 0)
            break;
    }
    /* the tables reach both kinds, and most rows go the direct way */
    CHECK(plain > 5000 && plain < 10000);
    CHECK_MSG(taken > 40000, "%zu rows taken", taken);
}

/* A spec outside the plain case: no row taken (0), whatever the table. */
static void test_other_spec(void)
{
    struct ArrowSchema schema;
    fc_arrow_rows *rows = NULL;
    fc_error err;
    unsigned char buf[64];
    CHECK(fc_arrow_schema(&bt_e_desc, NULL, 0, &schema, &err) == FC_OK);
    CHECK(fc_arrow_rows_open(&rows, &bt_e_desc, NULL, &schema, &err) == FC_OK);
    if (rows != NULL) {
        struct ArrowArray empty;
        memset(&empty, 0, sizeof empty);
        empty.length = 1;
        empty.n_children = schema.n_children;
        CHECK(fc_arrow_rows_serialize(rows, &schema, &empty, 0, buf, sizeof buf) == 0);
    }
    fc_arrow_rows_close(rows);
    schema.release(&schema);
}

int main(void)
{
    RUN(test_random_tables);
    RUN(test_other_spec);
    return harness_report("rows-direct");
}
