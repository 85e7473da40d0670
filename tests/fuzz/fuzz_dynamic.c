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
 * record (ASan). */
/* test-specs: tests/specs/semantics.feat tests/specs/sparse.feat tests/specs/ragged.feat */
/* test-specs: tests/specs/seqsem.feat tests/specs/seqragged.feat tests/specs/typed.feat */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        ready = 1;
    }
    if (size == 0)
        return 0;
    k = data[0] % NSPECS;
    data++;
    size--;
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
