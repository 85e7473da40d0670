/* Generated parser vs the protobuf-c oracle, for one generated message.
 * Built per spec with -include SPEC.h -DDESC=<type>_desc.
 *
 *   check corpus NAME FILE...     every record of the files
 *   check random NAME SEED COUNT  COUNT random records (often invalid)
 *
 * Both must accept or both reject; when both accept, the JSON of the two
 * structs and their presence bits must be equal.  Prints
 * "NAME: N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_check.h"
#include "check_files.h"

#include "oracle.h"

#ifndef DESC
#error "build with -DDESC=<generated message>_desc"
#endif

static const fc_message_desc *md = &DESC;
static unsigned char *msg_a, *msg_b;
static char json_a[1 << 20], json_b[1 << 20];
static long passed, failed;

static void roundtrip(const unsigned char *x, const char *where);

/* One rule: the generated parse (single, or batched for a record of a
 * batch) against the oracle's model of the same TensorFlow path.  Returns
 * the generated parser's status, or -1 when they disagree. */
static int compare_rule(int (*parse)(void *, const void *, size_t, fc_error *),
                        int (*oracle)(const fc_message_desc *, void *, const void *, size_t),
                        const char *rule, const void *data, size_t len, const char *where)
{
    fc_error err;
    int ra = parse(msg_a, data, len, &err);
    int rb = oracle(md, msg_b, data, len);
    if (ra != rb) {
        if (failed < 10) {
            fprintf(stderr, "%s (%s): generated %s, oracle %s", where, rule,
                    ra == FC_OK ? "accepts" : "rejects", rb == FC_OK ? "accepts" : "rejects");
            if (ra != FC_OK)
                fprintf(stderr, " (%s)", err.message);
            fprintf(stderr, "\n  record:");
            {
                size_t i;
                for (i = 0; i < len && i < 200; i++)
                    fprintf(stderr, "%02x", ((const unsigned char *)data)[i]);
            }
            fprintf(stderr, "\n");
        }
        return -1;
    }
    if (ra == FC_OK) {
        oracle_json(md, msg_a, json_a, sizeof json_a);
        oracle_json(md, msg_b, json_b, sizeof json_b);
        if (strcmp(json_a, json_b) != 0 ||
            memcmp(msg_a + md->present_offset, msg_b + md->present_offset,
                   ((md->nfields + 31) / 32) * sizeof(uint32_t)) != 0) {
            if (failed < 10)
                fprintf(stderr, "%s (%s): values differ\n  generated %s\n  oracle    %s\n", where,
                        rule, json_a, json_b);
            return -1;
        }
    }
    return ra;
}

static void compare(const void *data, size_t len, const char *where)
{
    /* parse_example's rule first (the batches are made of it), then
     * parse_single_example's, whose struct the round trip takes */
    int rb = compare_rule(md->parse_batched, oracle_parse_batched, "batched", data, len, where);
    int ra = rb < 0 ? -1 : compare_rule(md->parse, oracle_parse, "single", data, len, where);
    bc_add(data, len, rb == FC_OK);
    if (ra < 0) {
        failed++;
        return;
    }
    if (ra == FC_OK)
        roundtrip(msg_a, where);
    passed++;
}

/* ------------------------------------------------------------ random records */

static unsigned long long rng;
static unsigned long long rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

#include "random_record.h"
#include "roundtrip.h"

/* The serializer on every accepted record (roundtrip.h). */
static void roundtrip(const unsigned char *x, const char *where)
{
    rt_check(md, 0, x, where);
}

static void gen_record(wbuf *ex)
{
    random_record(md, ex);
}

int main(int argc, char **argv)
{
    const char *name;
    long bad;
    msg_a = (unsigned char *)calloc(1, md->size);
    msg_b = (unsigned char *)calloc(1, md->size);
    if (msg_a == NULL || msg_b == NULL) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 2;
    }
    bc_init_example(md);
    bad = check_run(argc, argv, "check", compare, gen_record, &rng, 1);
    if (bad < 0)
        return 64;
    name = argv[2];
    failed += bad;
    if (strcmp(argv[1], "random") == 0)
        rt_random_structs(md, 0, atol(argv[4]) / 4);
    if (rt_out != NULL)
        fclose(rt_out);
    printf("roundtrip-%s: %ld passed, %ld failed\n", name, rt_passed, rt_failed);
    bc_finish(name);
    printf("%s: %ld passed, %ld failed\n", name, passed, failed);
    free(msg_a);
    free(msg_b);
    return failed == 0 && bc_failed == 0 && rt_failed == 0 ? 0 : 1;
}
