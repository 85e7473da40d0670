/* Semantic checks (sema.h): a message whole (its features and lists, the
 * names generated code will use), its segments block, and fcc_check over
 * the spec. */
#include "sema.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ segments */

/* Limits of a segments block: the generated segmenter is one struct of
 * static storage, capacity examples plus a batch. */
#define FEATC_MAX_SEGMENT_PARAM (1u << 20)
#define FEATC_MAX_SEGMENTER ((uint64_t)1 << 30)

/* `state NAME : float|int64 [shape];`: a fixed shape, nothing else. */
static int check_state(pool *p, diag *d, schema_message *m, struct schema_state *st,
                       const ast_feature *a, symtab *globals)
{
    const ast_dim *dm;
    uint64_t v, elems = 1;
    const char *owner;
    st->ast = a;
    st->name = a->key;
    if (a->key_quoted || a->cname != NULL) {
        fcc_diag_error(d, a->key_loc, "a state is named by a C identifier, not a quoted key");
        return 0;
    }
    if (!fcc_check_c_name(d, a->key_loc, a->key, "state"))
        return 0;
    if (strcmp(a->type, "float") == 0) {
        st->type = FC_TYPE_FLOAT;
    } else if (strcmp(a->type, "int64") == 0) {
        st->type = FC_TYPE_INT64;
    } else {
        fcc_diag_error(d, a->type_loc, "state '%s' has type '%s'; a state is float or int64",
                       a->key, a->type);
        return 0;
    }
    if (a->has_shape && a->dims == NULL) {
        fcc_diag_error(d, a->shape_loc,
                       "state '%s' needs a fixed shape ('[]' is a VarLen feature; write "
                       "'float' for a scalar or 'float[8]')", a->key);
        return 0;
    }
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        if (dm->unknown || !fcc_parse_u64(dm->text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, dm->loc, "state '%s': a dimension is an integer from 1 to %u",
                           a->key, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
        if (st->rank == FC_MAX_RANK) {
            fcc_diag_error(d, dm->loc, "state '%s' has more than %d dimensions", a->key,
                           FC_MAX_RANK);
            return 0;
        }
        st->dims[st->rank++] = (size_t)v;
        elems *= v;
        if (elems > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, a->shape_loc, "state '%s' holds more than %u values", a->key,
                           (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
    }
    st->elems = (size_t)elems;
    if (a->max_text != NULL) {
        fcc_diag_error(d, a->max_loc, "state '%s' takes no 'max': its shape is fixed", a->key);
        return 0;
    }
    if (a->def != NULL) {
        fcc_diag_error(d, a->def->loc,
                       "state '%s' takes no default: the initial states come with each example "
                       "(NULL gives zeros)", a->key);
        return 0;
    }
    if (a->attrs != NULL || a->sparse || a->ragged) {
        fcc_diag_error(d, a->attrs != NULL ? a->attrs->loc : a->type_loc,
                       "state '%s' takes no attributes", a->key);
        return 0;
    }
    st->macro = fcc_upper_of(p, fcc_cat(p, m->c_type, "_STATE_", a->key));
    owner = fcc_cat(p, "state '", a->key, "'");
    return fcc_sym_add(p, d, globals, st->macro, owner, a->key_loc) &&
                       fcc_sym_add(p, d, globals, fcc_cat(p, st->macro, "_SIZE", ""), owner, a->key_loc) &&
                       fcc_sym_add(p, d, globals, fcc_cat(p, m->c_type, "_seg_save_", a->key), owner, a->key_loc);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* Bytes of the generated segmenter: capacity examples, states, keys and
 * records, and one batch of every context feature, list and state. */
static uint64_t segmenter_bytes(const schema_message *m, uint64_t example_bytes)
{
    uint64_t b = m->batch_size, u = m->num_unroll, per, total = 0, states = 0;
    size_t i;
    for (i = 0; i < m->nstates; i++)
        states = add_sat(states, mul_sat(m->states[i].elems, 8));
    for (i = 0; i < m->nfeatures; i++) {
        const schema_feature *f = &m->features[i];
        per = mul_sat(f->kind == FC_KIND_VARLEN ? f->max : f->elems, fcc_elem_bytes(f->type));
        total = add_sat(total, mul_sat(b, per + 8));
    }
    for (i = 0; i < m->nlists; i++) {
        const schema_feature *f = &m->lists[i];
        per = mul_sat(f->kind == FC_KIND_VARLEN ? f->max : f->elems, fcc_elem_bytes(f->type));
        total = add_sat(total, mul_sat(mul_sat(b, u), per + 8));
    }
    total = add_sat(total, mul_sat(b, states + 2 * (m->key_max + 48) + 128));
    per = add_sat(add_sat(example_bytes, states), add_sat(m->key_max, m->record_max) + 64);
    return add_sat(total, mul_sat(m->capacity, per));
}

/* The words of a segments block: three counts [0, SEG_COUNTS), two bounds
 * (`max N`) up to SEG_BOUNDS, two switches up to SEG_SETTINGS, then `state`. */
static const char *const segment_words[] = {"num_unroll", "batch_size", "capacity", "key",
                                            "record", "allow_small_batch", "unpadded", "state",
                                            NULL};
enum { SEG_COUNTS = 3, SEG_BOUNDS = 5, SEG_SETTINGS = 7 };

/* One setting t, segment_words[k] (not a state): its form, once, its value. */
static int check_setting(diag *d, schema_message *m, const ast_setting *t, size_t k,
                         const ast_setting **first)
{
    uint64_t v;
    int want_max = k >= SEG_COUNTS;
    if (t->state != NULL) {
        fcc_diag_error(d, t->item_loc, "'%s' is a setting, not a declaration: write '%s%s;'",
                       t->word, t->word, k < SEG_COUNTS ? " N" : k < SEG_BOUNDS ? " max N" : "");
        return 0;
    }
    if (first[k] != NULL) {
        fcc_diag_error(d, t->loc, "'%s' is given twice", t->word);
        fcc_diag_note(d, first[k]->loc, "the first one is here");
        return 0;
    }
    first[k] = t;
    if (k >= SEG_BOUNDS) { /* a switch */
        if (t->value != NULL || t->has_max) {
            fcc_diag_error(d, t->item_loc, "'%s' takes no value: write '%s;'", t->word, t->word);
            return 0;
        }
        if (k == SEG_BOUNDS)
            m->allow_small_batch = 1;
        else
            m->unpadded = 1;
        return 1;
    }
    if (t->value == NULL || t->has_max != want_max) {
        fcc_diag_error(d, t->item_loc, "write '%s %sN;'", t->word, want_max ? "max " : "");
        return 0;
    }
    if (!fcc_parse_u64(t->value, &v) || v > (k == 4 ? FEATC_MAX_STORAGE : FEATC_MAX_SEGMENT_PARAM)) {
        fcc_diag_error(d, t->value_loc, "%s %s is larger than the limit of %u", t->word, t->value,
                       k == 4 ? (unsigned)FEATC_MAX_STORAGE : (unsigned)FEATC_MAX_SEGMENT_PARAM);
        return 0;
    }
    if (v == 0) {
        fcc_diag_error(d, t->value_loc, "%s must be at least 1", t->word);
        return 0;
    }
    switch (k) {
    case 0: m->num_unroll = (size_t)v; break;
    case 1: m->batch_size = (size_t)v; break;
    case 2: m->capacity = (size_t)v; break;
    case 3: m->key_max = (size_t)v; break;
    default: m->record_max = (size_t)v; break;
    }
    return 1;
}

/* Every item of the block: a known word in its form; states counted. */
static int read_settings(diag *d, schema_message *m, const ast_block *b,
                         const ast_setting **first, size_t *nstates)
{
    const ast_setting *t;
    size_t k;
    int ok = 1;
    for (t = b->settings; t != NULL; t = t->next) {
        for (k = 0; segment_words[k] != NULL; k++)
            if (strcmp(t->word, segment_words[k]) == 0)
                break;
        if (segment_words[k] == NULL) {
            fcc_diag_error(d, t->loc,
                           "unknown segments setting '%s' (the settings are num_unroll N, "
                           "batch_size N, capacity N, key max N, record max N, "
                           "allow_small_batch, unpadded and state NAME : TYPE[shape])",
                           t->word);
            ok = 0;
        } else if (k == SEG_SETTINGS) { /* state */
            if (t->state == NULL) {
                fcc_diag_error(d, t->item_loc, "write a state as 'state NAME : float[shape];'");
                ok = 0;
            } else {
                (*nstates)++;
            }
        } else if (!check_setting(d, m, t, k, first)) {
            ok = 0;
        }
    }
    return ok;
}

/* What a segments block must have: the three counts, capacity >= batch_size,
 * 1 to 32 states, and feature lists to split. */
static int check_required(diag *d, const schema_message *m, const ast_block *b,
                          const ast_setting *const *first, size_t nstates)
{
    size_t k;
    int ok = 1;
    for (k = 0; k < SEG_COUNTS; k++)
        if (first[k] == NULL) {
            fcc_diag_error(d, b->loc, "segments need '%s N;'%s", segment_words[k],
                           k == 2 ? " (the most examples in flight: the storage is sized by it)"
                           : "");
            ok = 0;
        }
    if (ok && m->capacity < m->batch_size) {
        fcc_diag_error(d, first[2]->value_loc,
                       "capacity must be larger or equal to batch_size (capacity %zu, "
                       "batch_size %zu)",
                       m->capacity, m->batch_size);
        ok = 0;
    }
    if (nstates == 0) {
        fcc_diag_error(d, b->loc,
                       "initial_states may not be empty: at least one state variable is "
                       "required to properly enqueue split sequences to run in separate "
                       "iterations (declare 'state NAME : float[shape];')");
        ok = 0;
    }
    if (nstates > 32) {
        fcc_diag_error(d, b->loc, "segments declare %zu states; the limit is 32", nstates);
        ok = 0;
    }
    if (m->nlists == 0) {
        fcc_diag_error(d, b->loc,
                       "segments split feature lists, and sequence_example '%s' declares none",
                       m->name);
        ok = 0;
    }
    return ok;
}

/* The states, in order, each declared once. */
static int check_states(pool *p, diag *d, schema_message *m, const ast_block *b, size_t nstates,
                        symtab *globals)
{
    const ast_setting *t, *u;
    int ok = 1;
    m->states = (struct schema_state *)fcc_pool_alloc(p, nstates * sizeof *m->states);
    if (m->states == NULL)
        return 0;
    for (t = b->settings; t != NULL; t = t->next) {
        if (t->state == NULL)
            continue;
        for (u = b->settings; u != t; u = u->next)
            if (u->state != NULL && strcmp(u->state->key, t->state->key) == 0)
                break;
        if (u != t) {
            fcc_diag_error(d, t->state->key_loc, "state '%s' is declared twice", t->state->key);
            fcc_diag_note(d, u->state->key_loc, "the first one is here");
            ok = 0;
            continue;
        }
        if (!check_state(p, d, m, &m->states[m->nstates], t->state, globals))
            ok = 0;
        m->nstates++;
    }
    return ok;
}

/* The file-wide names the segmenter adds. */
static int add_segment_names(pool *p, diag *d, const schema_message *m, const ast_block *b,
                             symtab *globals)
{
    static const char *const fns[] = {"_seg_init", "_seg_insert", "_seg_insert_record",
                                      "_seg_next", "_seg_refresh", "_seg_save_state",
                                      "_seg_close", "_seg_config", "_states", "_segments",
                                      "_segmenter", "_state", "_state_descs", NULL};
    static const char *const macros[] = {"_SEG_NUM_UNROLL", "_SEG_BATCH_SIZE", "_SEG_CAPACITY",
                                         "_SEG_KEY_MAX", "_SEG_RECORD_MAX", "_SEG_KEY_TEXT",
                                         "_STATE_COUNT", NULL};
    const char *owner = fcc_cat(p, "the segments of '", m->name, "'");
    size_t k;
    for (k = 0; fns[k] != NULL; k++)
        if (!fcc_sym_add(p, d, globals, fcc_cat(p, m->c_type, fns[k], ""), owner, b->loc))
            return 0;
    for (k = 0; macros[k] != NULL; k++)
        if (!fcc_sym_add(p, d, globals, fcc_cat(p, m->upper, macros[k], ""), owner, b->loc))
            return 0;
    return 1;
}

/* The feature of g[0..n) whose key is KEY followed by suffix, or NULL. */
static const schema_feature *key_with_suffix(const schema_feature *g, size_t n, const char *key,
                                             size_t key_len, const char *suffix)
{
    size_t sl = strlen(suffix), j;
    for (j = 0; j < n; j++)
        if (!g[j].hidden && g[j].ast != NULL && g[j].key_len == key_len + sl &&
            memcmp(g[j].key, key, key_len) == 0 && memcmp(g[j].key + key_len, suffix, sl) == 0)
            return &g[j];
    return NULL;
}

/* A feature's key that is the name of a column read() and the Arrow and
 * Parquet outputs put beside a hashed feature of the same group (KEY/buckets,
 * and KEY/one_hot or KEY/multi_hot) would give two columns one name: one
 * would hide the other.  Refused. */
static int check_derived_keys(diag *d, const schema_message *m, const schema_feature *g, size_t n)
{
    static const char *const derived[] = {"/buckets", "/one_hot", "/multi_hot"};
    size_t i, q;
    for (i = 0; i < n; i++)
        for (q = 0; g[i].hash_buckets > 0 && q < 3; q++) {
            const schema_feature *c;
            if (q > 0 && (int)q != g[i].hot)
                continue;
            c = key_with_suffix(g, n, g[i].key, g[i].key_len, derived[q]);
            if (c != NULL) {
                fcc_diag_error(d, c->ast->key_loc,
                               "feature key \"%.*s\" in '%s' is the name of the %s "
                               "column of hashed feature '%s' (read(), Arrow and Parquet "
                               "put it beside the values): rename one",
                               (int)c->key_len, c->key, m->name, derived[q] + 1, g[i].cname);
                return 0;
            }
        }
    return 1;
}

/* A segments message's batch dict puts a VarLen feature's counts under
 * KEY/lengths beside its values: no feature of the same group may have that
 * key. */
static int check_lengths_keys(diag *d, const schema_message *m, const schema_feature *g, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const schema_feature *c;
        if (g[i].kind != FC_KIND_VARLEN || g[i].hidden)
            continue;
        c = key_with_suffix(g, n, g[i].key, g[i].key_len, "/lengths");
        if (c != NULL) {
            fcc_diag_error(d, c->ast->key_loc,
                           "feature key \"%.*s\" in '%s' is the name of the lengths of VarLen "
                           "feature '%s' (a segment batch puts them beside its values): "
                           "rename one",
                           (int)c->key_len, c->key, m->name, g[i].cname);
            return 0;
        }
    }
    return 1;
}

/* A sequence_example's segments block: settings, requirements, states, the
 * segmenter's size and names. */
static int check_segments(pool *p, diag *d, schema_message *m, const ast_block *b,
                          uint64_t example_bytes, symtab *globals)
{
    const ast_setting *first[SEG_SETTINGS] = {NULL};
    size_t nstates = 0, i;
    int ok;
    for (i = 0; i < m->nfeatures + m->nlists; i++) {
        const schema_feature *f =
            i < m->nfeatures ? &m->features[i] : &m->lists[i - m->nfeatures];
        if (f->kind == FC_KIND_RAGGED) {
            fcc_diag_error(d, b->loc,
                           "segments take dense and VarLen features, as TensorFlow's "
                           "SequenceQueueingStateSaver takes Tensors and SparseTensors; "
                           "RaggedFeature '%s' has no segment layout",
                           f->cname);
            fcc_diag_note(d, f->ast->ragged_loc, "'%s' is declared here", f->cname);
            return 0;
        }
    }
    if (!check_lengths_keys(d, m, m->features, m->nfeatures) ||
        !check_lengths_keys(d, m, m->lists, m->nlists))
        return 0;
    if (!read_settings(d, m, b, first, &nstates) || !check_required(d, m, b, first, nstates))
        return 0;
    if (m->key_max == 0)
        m->key_max = 64;
    ok = check_states(p, d, m, b, nstates, globals);
    if (ok && segmenter_bytes(m, example_bytes) > FEATC_MAX_SEGMENTER) {
        fcc_diag_error(d, b->loc,
                       "the segmenter of '%s' needs about %llu bytes; the limit is %u MiB "
                       "(lower capacity, batch_size, num_unroll or the bounds, or give the "
                       "runtime a block: fc_seg_init_block)",
                       m->name, (unsigned long long)segmenter_bytes(m, example_bytes),
                       (unsigned)(FEATC_MAX_SEGMENTER >> 20));
        ok = 0;
    }
    ok = ok && add_segment_names(p, d, m, b, globals);
    m->segments = ok;
    return ok && !p->failed;
}

/* A sequence_example's blocks into found[kind] (ast_block_kind order), each
 * kind at most once. */
static int find_blocks(diag *d, const ast_message *am, const ast_block **found)
{
    static const char *const words[] = {"context", "feature_lists", "segments"};
    const ast_block *b;
    int ok = 1;
    for (b = am->blocks; b != NULL; b = b->next) {
        if (found[b->kind] != NULL) {
            fcc_diag_error(d, b->loc, "sequence_example '%s' has a second '%s' block", am->name,
                           words[b->kind]);
            fcc_diag_note(d, found[b->kind]->loc, "the first one is here");
            ok = 0;
            continue;
        }
        found[b->kind] = b;
    }
    return ok;
}

/* How many hidden VarLen fields the SparseFeatures and RaggedFeatures among
 * features may add (one per key they read): room to make for them. */
static size_t hidden_room(const ast_feature *features)
{
    const ast_feature *a;
    const ast_part *q;
    const ast_key *k;
    size_t extra = 0;
    for (a = features; a != NULL; a = a->next) {
        if (a->ragged) {
            for (q = a->parts; q != NULL; q = q->next)
                extra++;
            extra++;
        }
        if (a->sparse) {
            for (k = a->index_keys; k != NULL; k = k->next)
                extra++;
            extra++;
        }
    }
    return extra;
}

static int check_message(pool *p, diag *d, const schema *s, schema_message *m,
                         const ast_message *am, symtab *globals)
{
    const ast_feature *a;
    const ast_block *found[3] = {NULL, NULL, NULL}, *ctx_block = NULL, *lists_block = NULL;
    const ast_block *seg_block = NULL;
    const ast_feature *ctx_features = NULL, *list_features = NULL;
    size_t n, nl = 0, i, extra, lextra, total;
    int ok = 1, all_missing = 0, all_uniform = 0;
    uint64_t storage = 0;
    symtab members = {NULL, 0, 0, NULL};
    const char *word = am->kind == AM_SEQUENCE_EXAMPLE ? "sequence_example" : "example";
    m->ast = am;
    m->name = am->name;
    m->sequence = am->kind == AM_SEQUENCE_EXAMPLE;
    m->c_type = fcc_cat(p, s->package, "_", am->name);
    m->upper = fcc_upper_of(p, m->c_type);
    if (p->failed)
        return 0;
    if (!fcc_check_c_name(d, am->name_loc, am->name, word))
        ok = 0;
    if (m->sequence) {
        if (!find_blocks(d, am, found))
            ok = 0;
        ctx_block = found[AB_CONTEXT];
        lists_block = found[AB_FEATURE_LISTS];
        seg_block = found[AB_SEGMENTS];
        if (ctx_block != NULL)
            ctx_features = ctx_block->features;
        if (lists_block != NULL) {
            list_features = lists_block->features;
            if (!fcc_check_lists_block(d, m, lists_block, &all_missing, &all_uniform))
                return 0;
        }
    } else {
        ctx_features = am->features;
    }
    n = fcc_count_features(ctx_features);
    nl = fcc_count_features(list_features);
    if (n + nl == 0) {
        fcc_diag_error(d, am->name_loc, "%s '%s' declares no features", word, am->name);
        /* parse_example says the first; parse_single_example and the
         * sequence_example functions the second */
        if (!m->sequence)
            fcc_diag_tf(d, am->name_loc, "Missing: features was {}.");
        fcc_diag_tf(d, am->name_loc, "Missing features.");
        return 0;
    }
    if (n + nl > FEATC_MAX_FEATURES) {
        fcc_diag_error(d, am->name_loc, "%s '%s' declares %zu features; the limit is %d", word,
                       am->name, n + nl, FEATC_MAX_FEATURES);
        return 0;
    }
    extra = hidden_room(ctx_features);
    m->features = (schema_feature *)fcc_pool_alloc(p, (n + extra ? n + extra : 1) *
                                                      sizeof *m->features);
    m->missing_order =
        (uint16_t *)fcc_pool_alloc(p, (n + extra ? n + extra : 1) * sizeof *m->missing_order);
    lextra = hidden_room(list_features);
    m->lists = (schema_feature *)fcc_pool_alloc(p, (nl + lextra ? nl + lextra : 1) *
                                                   sizeof *m->lists);
    m->list_missing_order =
        (uint16_t *)fcc_pool_alloc(p, (nl + lextra ? nl + lextra : 1) * sizeof(uint16_t));
    if (p->failed)
        return 0;
    m->nfeatures = n;
    m->nlists = nl;
    fcc_sym_add(p, d, &members, "present", "the presence bits", am->name_loc);
    for (a = ctx_features, i = 0; a != NULL; a = a->next, i++)
        if (!fcc_check_feature(p, d, m, m->features, i, a, m->sequence ? ROLE_CONTEXT : ROLE_EXAMPLE,
                           &members, globals, &storage))
            ok = 0;
    total = n;
    for (i = 0; ok && i < n; i++)
        if ((m->features[i].kind == FC_KIND_SPARSE &&
             !fcc_resolve_sparse(p, d, m, i, &total, &members, globals)) ||
            (m->features[i].kind == FC_KIND_RAGGED &&
             !fcc_resolve_ragged(p, d, m, m->features, i, &total, &members, globals)))
            ok = 0;
    if (ok && total > n) {
        if (total > FEATC_MAX_FEATURES) {
            fcc_diag_error(d, am->name_loc, "%s '%s' reads %zu features; the limit is %d", word,
                           am->name, total, FEATC_MAX_FEATURES);
            return 0;
        }
        m->nfeatures = n = total;
        storage += fcc_hidden_storage(m->features, n);
    }
    for (a = list_features, i = 0; a != NULL; a = a->next, i++) {
        schema_feature *f = &m->lists[i];
        if (!fcc_check_feature(p, d, m, m->lists, i, a, ROLE_LIST, &members, globals, &storage)) {
            ok = 0;
            continue;
        }
        if (all_missing && f->kind == FC_KIND_FIXED)
            f->allow_missing = 1;
        if (all_uniform && f->kind == FC_KIND_VARLEN)
            f->uniform = 1;
    }
    total = nl;
    for (i = 0; ok && i < nl; i++)
        if (m->lists[i].kind == FC_KIND_RAGGED &&
            !fcc_resolve_ragged(p, d, m, m->lists, i, &total, &members, globals))
            ok = 0;
    if (ok && total > nl) {
        if (n + total > FEATC_MAX_FEATURES) {
            fcc_diag_error(d, am->name_loc, "%s '%s' reads %zu features; the limit is %d", word,
                           am->name, n + total, FEATC_MAX_FEATURES);
            return 0;
        }
        m->nlists = nl = total;
        storage += fcc_hidden_storage(m->lists, nl);
    }
    if (storage > FEATC_MAX_STORAGE && ok) {
        fcc_diag_error(d, am->name_loc,
                       "%s '%s' needs %llu bytes of storage; the limit is %u MiB (lower the "
                       "bounds or shapes)",
                       word, am->name, (unsigned long long)storage,
                       (unsigned)(FEATC_MAX_STORAGE >> 20));
        ok = 0;
    }
    if (ok && (!check_derived_keys(d, m, m->features, n) || !check_derived_keys(d, m, m->lists, nl)))
        ok = 0;
    if (ok) {
        fcc_sort_by_key(m->features, n, m->missing_order);
        fcc_sort_by_key(m->lists, nl, m->list_missing_order);
    }
    if (ok && seg_block != NULL && !check_segments(p, d, m, seg_block, storage, globals))
        ok = 0;
    return ok && !p->failed;
}

static const char *const message_suffixes[] = {"", "_field", "_init", "_parse", "_has", "_desc",
                                                "_lookup", "_decode", "_fields",
                                                "_missing_order", "_parse_any", "_init_any",
                                                "_context", "_context_order", "_lists",
                                                "_list_order", "_context_lookup", "_list_lookup",
                                                NULL};
static const char *const message_macros[] = {"_FIELD_COUNT", "_PRESENT_WORDS", "_CONTEXT_COUNT",
                                             "_LIST_COUNT", NULL};

schema *fcc_check(pool *p, diag *d, const ast_spec *ast, const char *default_package)
{
    schema *s = (schema *)fcc_pool_alloc(p, sizeof *s);
    const ast_message *am;
    size_t n = 0, i;
    int ok = 1;
    symtab globals = {NULL, 0, 0, NULL}, names = {NULL, 0, 0, NULL};
    spec_loc top = {1, 1, 1, 1};
    if (s == NULL)
        return NULL;
    if (ast->package != NULL) {
        s->package = ast->package;
        if (!fcc_check_c_name(d, ast->package_loc, ast->package, "package"))
            return NULL;
    } else {
        s->package = default_package;
        if (default_package == NULL || !fcc_is_ident(default_package, strlen(default_package)) ||
            default_package[0] == '_' || strstr(default_package, "__") != NULL ||
            fcc_is_reserved(default_package)) {
            fcc_diag_error(d, top,
                           "no 'package' declared and the file name does not make a C prefix; "
                           "start the spec with 'package NAME;'");
            return NULL;
        }
    }
    if (strcmp(s->package, "fc") == 0 || strncmp(s->package, "fc_", 3) == 0 ||
        strcmp(s->package, "FC") == 0 || strncmp(s->package, "FC_", 3) == 0) {
        fcc_diag_error(d, ast->package != NULL ? ast->package_loc : top,
                       "package '%s' would put generated names in the runtime's fc_ namespace",
                       s->package);
        return NULL;
    }
    s->upper = fcc_upper_of(p, s->package);
    for (am = ast->messages; am != NULL; am = am->next) {
        if (++n > FEATC_MAX_MESSAGES) {
            fcc_diag_error(d, am->name_loc, "the spec declares more than %d messages, the limit",
                           FEATC_MAX_MESSAGES);
            return NULL;
        }
    }
    if (n == 0) {
        fcc_diag_error(d, top, "the spec declares no messages (write 'example NAME { ... }')");
        return NULL;
    }
    s->messages = (schema_message *)fcc_pool_alloc(p, n * sizeof *s->messages);
    if (s->messages == NULL)
        return NULL;
    s->nmessages = n;
    for (am = ast->messages, i = 0; am != NULL; am = am->next, i++) {
        schema_message *m = &s->messages[i];
        const symbol *was = fcc_sym_get(&names, am->name);
        if (was != NULL) {
            fcc_diag_error(d, am->name_loc, "duplicate message name '%s'", am->name);
            fcc_diag_note(d, was->loc, "previous definition here");
            ok = 0;
            m->name = am->name;
            m->ast = am;
            continue;
        }
        (void)fcc_sym_put(p, &names, am->name, am->name, am->name_loc);
        {
            const char *owner = fcc_cat(p, am->kind == AM_SEQUENCE_EXAMPLE ? "sequence_example '"
                                                                      : "example '",
                                    am->name, "'");
            const char *lower = fcc_cat(p, s->package, "_", am->name);
            const char *upper = fcc_upper_of(p, lower);
            size_t k;
            int clash = 0;
            for (k = 0; message_suffixes[k] != NULL && !clash; k++)
                clash = !fcc_sym_add(p, d, &globals, fcc_cat(p, lower, message_suffixes[k], ""), owner,
                                 am->name_loc);
            for (k = 0; message_macros[k] != NULL && !clash; k++)
                clash = !fcc_sym_add(p, d, &globals, fcc_cat(p, upper, message_macros[k], ""), owner,
                                 am->name_loc);
            if (clash)
                ok = 0;
        }
        if (!check_message(p, d, s, m, am, &globals))
            ok = 0;
    }
    return ok && d->errors == 0 && !p->failed ? s : NULL;
}
