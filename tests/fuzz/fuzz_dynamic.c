/* libFuzzer harness for messages described at run time (featc_dynamic.h,
 * what `featc check --data` reads with): the compiler builds the
 * descriptors of five test specs in memory, and the runtime's general path
 * reads each input by them; the code featc generates for the same specs
 * reads it too.  The first input byte picks the spec (semantics.feat,
 * sparse.feat, ragged.feat, typed.feat: Examples; seqsem.feat,
 * seqragged.feat: SequenceExamples), the rest is the record.  Both must
 * give the same status and error text, and on success print the same JSON
 * (the dump contract's printer, driven by each side's descriptor) and hold
 * the same typed values (`as`); neither may crash or read outside the
 * record (ASan).
 *
 * Every input's record also goes, three times (and again with its first
 * half in the middle), through a batch of a FixedLen and VarLen message (PLAIN below, the kinds
 * the direct batch path of a run-time message takes:
 * fc_batch_parse_each_direct) and through the per-record path
 * (fc_batch_parse_each): the same status, error and record, and on
 * success the same counts, shapes, values and row splits. */
/* test-specs: tests/specs/semantics.feat tests/specs/sparse.feat tests/specs/ragged.feat */
/* test-specs: tests/specs/seqsem.feat tests/specs/seqragged.feat tests/specs/typed.feat */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_batch.h>
#include <featc/fc_fast.h>
#include <featc/fc_json.h>
#include <featc/featc_dynamic.h>

#include "ragged.h"
#include "semantics.h"
#include "seqragged.h"
#include "seqsem.h"
#include "sparse.h"
#include "typed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSPECS 6
static const char *const spec_files[NSPECS] = {"semantics.feat", "sparse.feat", "ragged.feat",
                                               "seqsem.feat", "seqragged.feat", "typed.feat"};
static const char *const spec_messages[NSPECS] = {"t", "s", "r", "s", "s", "e"};
static const fc_message_desc *const gen_md[NSPECS] = {&sem_t_desc, &spt_s_desc, &rgt_r_desc,
                                                      NULL, NULL, &ty_e_desc};
static const fc_seq_desc *const gen_sd[NSPECS] = {NULL, NULL, NULL, &seq_s_desc, &sqr_s_desc,
                                                  NULL};
static featc_dynamic *dyn[NSPECS];
static void *gen_msg[NSPECS], *dyn_msg[NSPECS];
static fc_feature_ref *refs[NSPECS];

static void setup(void)
{
    int k;
    for (k = 0; k < NSPECS; k++) {
        char path[4096], *text;
        FILE *f;
        long n;
        featc_options o = FEATC_OPTIONS_INIT;
        snprintf(path, sizeof path, "%s/%s", FUZZ_SPECS_DIR, spec_files[k]);
        f = fopen(path, "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) != 0)
            abort();
        text = (char *)malloc((size_t)n + 1);
        if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n)
            abort();
        fclose(f);
        o.spec_name = path;
        if (featc_dynamic_open(text, (size_t)n, &o, spec_messages[k], &dyn[k]) != 0)
            abort();
        free(text);
        gen_msg[k] = calloc(1, gen_md[k] != NULL ? gen_md[k]->size : gen_sd[k]->size);
        dyn_msg[k] = calloc(1, featc_dynamic_size(dyn[k]));
        refs[k] = (fc_feature_ref *)calloc(featc_dynamic_refs(dyn[k]), sizeof *refs[k]);
        if (gen_msg[k] == NULL || dyn_msg[k] == NULL || refs[k] == NULL)
            abort();
    }
}

/* semantics.feat's t without its rows (which the direct path leaves to
 * the per-record one), plus a FixedLen of no values and a VarLen float. */
static const char plain_spec[] =
    "package pln;\n"
    "example t {\n"
    "  s : int64;\n"
    "  d : int64 = 7;\n"
    "  f3 : float[3];\n"
    "  b2 : bytes[2] = [\"x\", \"y\"];\n"
    "  v : int64[] max 4;\n"
    "  vb : bytes[] max 3;\n"
    "  vf : float[] max 2;\n"
    "  z : float[0];\n"
    "  \"a/b\" as ab : float = 0.5;\n"
    "}\n";
#define PLAIN_B 3
static featc_dynamic *plain;
static void *plain_msg, *plain_blk[2];
static size_t plain_need;
static fc_feature_ref *plain_refs;

static int plain_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *err)
{
    return fc_ex_parse_desc(featc_dynamic_example((const featc_dynamic *)ctx), msg, data, size,
                            featc_dynamic_lookup, ctx, plain_refs, err);
}

static void plain_setup(void)
{
    featc_options o = FEATC_OPTIONS_INIT;
    const fc_message_desc *md;
    int k;
    if (featc_dynamic_open(plain_spec, sizeof plain_spec - 1, &o, NULL, &plain) != 0)
        abort();
    md = featc_dynamic_example(plain);
    if (!fc_batch_direct_fits(md))
        abort(); /* the check below would test nothing */
    plain_need = fc_batch_bind(md, NULL, PLAIN_B, FC_BATCH_RAGGED, NULL, 0);
    plain_msg = calloc(1, featc_dynamic_size(plain));
    plain_refs = (fc_feature_ref *)calloc(featc_dynamic_refs(plain) + 1, sizeof *plain_refs);
    for (k = 0; k < 2; k++)
        plain_blk[k] = malloc(plain_need);
    if (plain_need == 0 || plain_msg == NULL || plain_refs == NULL || plain_blk[0] == NULL ||
        plain_blk[1] == NULL)
        abort();
}

/* The record with its map entries reordered (swap: the first two swapped;
 * else all of them backwards) into out: its size, or 0 when it is not one
 * Features field of at most 64 entries in at most REORDER_MAX bytes. */
#define REORDER_MAX 4096
static size_t reordered(const uint8_t *data, size_t size, int swap, uint8_t *out)
{
    const uint8_t *p = data, *end = data + size, *body, *at[64];
    size_t len[64], blen, n = 0, o, i;
    if (size > REORDER_MAX || !fc_fast_field(&p, end, 0x0a, &body, &blen) || p != end)
        return 0;
    for (p = body; p < end; n++) {
        const uint8_t *e = p, *ebody;
        size_t elen;
        if (n == 64 || !fc_fast_field(&p, end, 0x0a, &ebody, &elen))
            return 0;
        at[n] = e;
        len[n] = (size_t)(p - e);
    }
    o = (size_t)(body - data);
    memcpy(out, data, o); /* the Features field's tag and length, as they were */
    for (i = 0; i < n; i++) {
        size_t j = !swap ? n - 1 - i : i < 2 && n >= 2 ? 1 - i : i;
        memcpy(out + o, at[j], len[j]);
        o += len[j];
    }
    return o;
}

/* A batch of record and (half 1) its first half, or (half 2, 3) the
 * record with its entries backwards or its first two swapped, between two
 * copies: both paths alike.  (The reordered records put other keys where
 * the direct path's guesses, the record before's keys, expect theirs.) */
static void plain_check(const uint8_t *data, size_t size, int half)
{
    static uint8_t moved[REORDER_MAX];
    const fc_message_desc *md = featc_dynamic_example(plain);
    fc_column cols[2][16];
    fc_bytes views[PLAIN_B];
    fc_error e[2];
    int rc[2], k;
    size_t j;
    views[0].data = views[2].data = views[1].data = data;
    views[0].size = views[2].size = size;
    views[1].size = half == 1 ? size / 2 : size;
    if (half >= 2) {
        views[1].size = reordered(data, size, half == 3, moved);
        views[1].data = moved;
        if (views[1].size == 0)
            return;
    }
    if (md->nfields > 16)
        abort();
    for (k = 0; k < 2; k++) {
        memset(plain_blk[k], 0xA5, plain_need);
        fc_batch_bind(md, cols[k], PLAIN_B, FC_BATCH_RAGGED, plain_blk[k], plain_need);
        fc_error_clear(&e[k]);
    }
    rc[0] = fc_batch_parse_each(md, plain_parse, plain, cols[0], plain_msg, views, PLAIN_B, &e[0]);
    rc[1] = fc_batch_parse_each_direct(md, featc_dynamic_lookup, plain, plain_parse, plain,
                                       cols[1], plain_msg, views, PLAIN_B, &e[1]);
    if (rc[0] != rc[1] || (rc[0] != FC_OK && (e[0].record != e[1].record ||
                                             strcmp(e[0].message, e[1].message) != 0))) {
        fprintf(stderr, "plain batch: per-record %d (record %llu) \"%s\", direct %d (record "
                "%llu) \"%s\"\n", rc[0], (unsigned long long)e[0].record, e[0].message, rc[1],
                (unsigned long long)e[1].record, e[1].message);
        abort();
    }
    if (rc[0] != FC_OK)
        return;
    for (j = 0; j < md->nfields; j++) {
        const fc_column *a = &cols[0][j], *b = &cols[1][j];
        size_t ts = fc_type_size(md->fields[j].type);
        if (a->nvalues != b->nvalues || a->rank != b->rank ||
            memcmp(a->shape, b->shape, sizeof a->shape) != 0 ||
            (a->nvalues > 0 && memcmp(a->values, b->values, a->nvalues * ts) != 0) ||
            ((a->row_splits == NULL) != (b->row_splits == NULL)) ||
            (a->row_splits != NULL &&
             memcmp(a->row_splits, b->row_splits, (PLAIN_B + 1) * sizeof(int64_t)) != 0)) {
            fprintf(stderr, "plain batch: column %s differs between the paths\n",
                    md->fields[j].c_name);
            abort();
        }
    }
}

/* The JSON of a parsed message (malloc'd). */
static char *json_of(const fc_message_desc *md, const fc_seq_desc *sd, const void *msg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        abort();
    if (md != NULL) {
        fc_json_features(f, md, msg);
    } else {
        fc_json_context(f, sd, msg);
        fc_json_feature_lists(f, sd, msg);
    }
    if (fclose(f) != 0)
        abort();
    return text;
}

/* Whether the typed values (`as`) of two parses of one message agree. */
static int typed_same(const fc_message_desc *ma, const unsigned char *a,
                      const fc_message_desc *mb, const unsigned char *b)
{
    size_t i, count;
    for (i = 0; i < ma->nfields; i++) {
        const fc_field_desc *fa = &ma->fields[i], *fb = &mb->fields[i];
        if ((fa->extra->as == NULL) != (fb->extra->as == NULL))
            return 0;
        if (fa->extra->as == NULL)
            continue;
        if (fa->kind == FC_KIND_FIXED)
            count = fa->elems;
        else
            memcpy(&count, a + fa->count_offset, sizeof count);
        if (fa->kind == FC_KIND_ROWS) /* the count is of rows */
            count *= fa->elems;
        if (memcmp(a + fa->extra->as->offset, b + fb->extra->as->offset,
                   count * fa->extra->as->elems * fc_as_size(fa->extra->as->type)) != 0)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    fc_error ea, eb;
    int k, ra, rb;
    if (!ready) {
        setup();
        plain_setup();
        ready = 1;
    }
    if (size == 0)
        return 0;
    k = data[0] % NSPECS;
    data++;
    size--;
    plain_check(data, size, 0);
    plain_check(data, size, 1);
    plain_check(data, size, 2);
    plain_check(data, size, 3);
    fc_error_clear(&ea);
    fc_error_clear(&eb);
    if (gen_md[k] != NULL) {
        ra = gen_md[k]->parse(gen_msg[k], data, size, &ea);
        rb = fc_ex_parse_desc(featc_dynamic_example(dyn[k]), dyn_msg[k], data, size,
                              featc_dynamic_lookup, dyn[k], refs[k], &eb);
    } else {
        ra = gen_sd[k]->parse(gen_msg[k], data, size, &ea);
        rb = fc_seq_parse(featc_dynamic_sequence(dyn[k]), dyn_msg[k], data, size, refs[k], &eb);
    }
    if (ra != rb || (ra != FC_OK && strcmp(ea.message, eb.message) != 0)) {
        fprintf(stderr, "%s: generated %d \"%s\", dynamic %d \"%s\"\n", spec_files[k], ra,
                ea.message, rb, eb.message);
        abort();
    }
    if (ra == FC_OK) {
        char *a = json_of(gen_md[k], gen_sd[k], gen_msg[k]);
        char *b = json_of(featc_dynamic_example(dyn[k]), featc_dynamic_sequence(dyn[k]),
                          dyn_msg[k]);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "%s: values differ\ngenerated: %s\ndynamic:   %s\n", spec_files[k],
                    a, b);
            abort();
        }
        if (gen_md[k] != NULL && !typed_same(gen_md[k], (const unsigned char *)gen_msg[k],
                                             featc_dynamic_example(dyn[k]),
                                             (const unsigned char *)dyn_msg[k])) {
            fprintf(stderr, "%s: typed values differ\n", spec_files[k]);
            abort();
        }
        free(a);
        free(b);
    }
    return 0;
}
