/* featc breaking: what changed from one spec to the next that breaks data
 * already written, or the code and jobs built on the old spec.
 *
 * Both specs are checked as featc_compile checks them; then each message of
 * OLD is matched by name in NEW, and each feature by its key (the data's
 * name for it, not the C name).  Every finding is an error at its place in
 * NEW, its rule's name in brackets at the end, with a note at the place in
 * OLD it came from.  docs/compiler.md's table gives each rule and the
 * TensorFlow behaviour that makes it breaking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* The rules, in the order of the documentation's table. */
enum {
    R_MESSAGE_REMOVED,
    R_MESSAGE_KIND,
    R_KEY_REMOVED,
    R_REQUIRED_ADDED,
    R_TYPE,
    R_KIND,
    R_SHAPE,
    R_DEFAULT_REMOVED,
    R_DEFAULT_CHANGED,
    R_BOUND,
    R_LIST_POLICY,
    R_MOVED,
    R_HASH,
    R_SPARSE,
    R_RAGGED,
    R_AS,
    R_COUNT
};

static const char *const rule_names[R_COUNT] = {
    "message-removed", "message-kind-changed", "key-removed", "required-added",
    "type-changed", "kind-changed", "shape-changed", "default-removed", "default-changed",
    "bound-lowered", "list-policy-tightened", "moved", "hash-buckets-changed",
    "sparse-changed", "ragged-changed", "as-changed"};

static const char *const rule_whys[R_COUNT] = {
    "a message of OLD is gone: its readers and its generated code with it",
    "an example became a sequence_example or back: its generated code and tensors change "
    "(an Example's features read as the context, a SequenceExample's lists are dropped)",
    "a key OLD reads is gone: code using its field no longer builds, jobs lose the feature",
    "a new FixedLen key without a default (or a list that may not be missing): records "
    "written under OLD lack it and fail (\"Feature: K (data type: T) is required but could "
    "not be found.\")",
    "the value type changed: records written under OLD fail (\"Data types don't match\")",
    "the kind changed (FixedLen, VarLen, SparseFeature, RaggedFeature, FixedLenSequence): "
    "the tensors read are of another form",
    "a FixedLen shape or a sequence's row shape changed: OLD's value counts fail its count "
    "check (\"Number of float values != expected\", and int64, bytes)",
    "a default is gone: records written under OLD without the key, which read the default, "
    "now fail as required",
    "a default (or a padding value) changed: records without the key read other values, "
    "with no error",
    "a bound (max values, rows, frames, entries) is lower: records within OLD's bound fail "
    "NEW's",
    "a feature list policy is stricter (allow_missing dropped, aligned or uniform added): "
    "sequences OLD accepts fail",
    "a key moved between a sequence_example's context and its feature lists: it is read "
    "from another part of the record",
    "hash_buckets changed, or a one_hot/multi_hot vector changed or dropped: the bucket "
    "ids or the vectors read are others",
    "a SparseFeature's index or value keys, or its dense size, changed",
    "a RaggedFeature's partitions or its row_splits dtype changed",
    "a feature's tensor type ('as') changed, was added or dropped: the tensors read are of "
    "another dtype or shape, and a narrower type or another decode refuses records OLD "
    "read"};

const char *featc_breaking_rule(size_t i, const char **why)
{
    if (i >= R_COUNT)
        return NULL;
    if (why != NULL)
        *why = rule_whys[i];
    return rule_names[i];
}

typedef struct cmp {
    diag *dn, *dold;      /* NEW's diagnostics (the findings), OLD's (their notes) */
    unsigned rules;       /* 1 << rule: checked */
    int found;
    size_t old_frames, new_frames; /* the messages' feature lists bound */
} cmp;

/* A finding of rule r at loc in NEW, then a note at was in OLD. */
static void finding(cmp *c, int r, spec_loc loc, spec_loc was, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void finding(cmp *c, int r, spec_loc loc, spec_loc was, const char *fmt, ...)
{
    sbuf b = {NULL, 0, 0, 0};
    va_list ap;
    if (!(c->rules & (1u << r)))
        return;
    c->found++;
    va_start(ap, fmt);
    fcc_sb_vprintf(&b, fmt, ap);
    va_end(ap);
    fcc_diag_error(c->dn, loc, "%s [%s]", b.s != NULL ? b.s : "", rule_names[r]);
    if (was.first_line > 0 && !c->dn->stopped)
        fcc_diag_note(c->dold, was, "in the old spec");
    free(b.s);
}

/* TensorFlow's DataTypeString of t, as its parse errors spell it (and the
 * runtime's fc_type_tf_name): "string" for bytes, as the parser says it. */
static const char *tf_data_type(fc_type t)
{
    return t == FC_TYPE_INT64 ? "int64" : t == FC_TYPE_FLOAT ? "float" : "string";
}

static int same_key(const schema_feature *a, const schema_feature *b)
{
    return a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0;
}

static const schema_feature *find(const schema_feature *fs, size_t n, const schema_feature *f)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!fs[i].hidden && same_key(&fs[i], f))
            return &fs[i];
    return NULL;
}

static const char *kind_word(const schema_feature *f)
{
    switch (f->kind) {
    case FC_KIND_FIXED: return f->list ? "FixedLenSequence list" : "FixedLen";
    case FC_KIND_VARLEN: return f->list ? "VarLen list" : "VarLen";
    case FC_KIND_ROWS: return "FixedLenSequence";
    case FC_KIND_SPARSE: return "SparseFeature";
    case FC_KIND_RAGGED: return f->list ? "RaggedFeature list" : "RaggedFeature";
    default: return "feature";
    }
}

/* "uint8", "uint8[28,28]", or the record's type when there is no `as`. */
static void as_text(const schema_feature *f, char *buf, size_t len)
{
    size_t at;
    unsigned r;
    if (f->as == FC_AS_NONE) {
        snprintf(buf, len, "%s (no 'as')", fcc_type_word(f->type));
        return;
    }
    snprintf(buf, len, "%s", fc_as_name(f->as));
    for (r = 0; r < f->as_rank; r++) {
        at = strlen(buf);
        snprintf(buf + at, len - at, "%s%zu", r == 0 ? "[" : ",", f->as_dims[r]);
    }
    at = strlen(buf);
    if (f->as_rank > 0)
        snprintf(buf + at, len - at, "]");
}

/* The shape as the spec writes it, "[2, 3]" ("[]" for a scalar). */
static void shape_text(const schema_feature *f, char *out, size_t size)
{
    size_t at = 0;
    unsigned k;
    at += (size_t)snprintf(out, size, "[");
    for (k = 0; k < f->rank && at < size; k++)
        at += (size_t)snprintf(out + at, size - at, k > 0 ? ", %zu" : "%zu", f->dims[k]);
    if (at < size)
        snprintf(out + at, size - at, "]");
}

static int same_shape(const schema_feature *a, const schema_feature *b)
{
    unsigned k;
    if (a->rank != b->rank)
        return 0;
    for (k = 0; k < a->rank; k++)
        if (a->dims[k] != b->dims[k])
            return 0;
    return 1;
}

static int same_default(const schema_feature *a, const schema_feature *b)
{
    size_t i;
    if (a->ndefault != b->ndefault)
        return 0;
    for (i = 0; i < a->ndefault; i++) {
        if (a->type == FC_TYPE_INT64 && a->def_int[i] != b->def_int[i])
            return 0;
        if (a->type == FC_TYPE_FLOAT && memcmp(&a->def_float[i], &b->def_float[i],
                                               sizeof(float)) != 0)
            return 0;
        if (a->type == FC_TYPE_BYTES &&
            (a->def_bytes_len[i] != b->def_bytes_len[i] ||
             memcmp(a->def_bytes[i], b->def_bytes[i], a->def_bytes_len[i]) != 0))
            return 0;
    }
    return 1;
}

static const spec_loc nowhere = {0, 0, 0, 0};

static spec_loc where(spec_loc specific, const schema_feature *f)
{
    return specific.first_line > 0 ? specific : f->ast->loc;
}

/* A bound of NEW below OLD's: what, and the two numbers. */
static void bound(cmp *c, const schema_feature *o, const schema_feature *n, const char *what,
                  size_t was, size_t is, spec_loc at)
{
    if (is < was)
        finding(c, R_BOUND, where(at, n), where(o->ast->max_loc, o),
                "feature '%.*s': %s lowered from %zu to %zu: records with more fail",
                (int)n->key_len, n->key, what, was, is);
}

static int parts_equal(const schema_feature *a, const schema_feature *b)
{
    unsigned k;
    if (a->nparts != b->nparts || a->split64 != b->split64)
        return 0;
    for (k = 0; k < a->nparts; k++)
        if (a->parts[k].kind != b->parts[k].kind || a->parts[k].length != b->parts[k].length)
            return 0;
    return 1;
}

/* The keys (index keys, then the value key) a SparseFeature or a
 * RaggedFeature reads, as fields of its message. */
static int same_fields(const schema_feature *fs_a, const schema_feature *a,
                       const schema_feature *fs_b, const schema_feature *b, unsigned n)
{
    unsigned k;
    for (k = 0; k < n; k++)
        if (!same_key(&fs_a[a->sparse_fields[k]], &fs_b[b->sparse_fields[k]]))
            return 0;
    return 1;
}

/* One key in both: o in OLD (its message's features ofs), n in NEW (nfs). */
static void compare_feature(cmp *c, const schema_feature *ofs, const schema_feature *o,
                            const schema_feature *nfs, const schema_feature *n)
{
    const ast_feature *na = n->ast, *oa = o->ast;
    int key = (int)n->key_len;
    char a[96], b[96];
    if (o->type != n->type) {
        finding(c, R_TYPE, where(na->type_loc, n), oa->type_loc,
                "feature '%.*s': type %s became %s: records written under the old spec fail "
                "(TensorFlow: \"Data types don't match\")",
                key, n->key, fcc_type_word(o->type), fcc_type_word(n->type));
        return;
    }
    if (o->kind != n->kind) {
        finding(c, R_KIND, where(na->type_loc, n), oa->loc, "feature '%.*s': a %s became a %s", key,
                n->key, kind_word(o), kind_word(n));
        return;
    }
    /* (a one_hot or multi_hot vector added beside the ids changes nothing read before) */
    if (o->hash_buckets != n->hash_buckets || (o->hot != 0 && o->hot != n->hot))
        finding(c, R_HASH, n->ast->loc, oa->loc,
                "feature '%.*s': hash_buckets %zu%s became %zu%s: the bucket ids read are "
                "others", key,
                n->key, o->hash_buckets, o->hot == 1 ? " one_hot" : o->hot == 2 ? " multi_hot" : "",
                n->hash_buckets, n->hot == 1 ? " one_hot" : n->hot == 2 ? " multi_hot" : "");
    if (o->as != n->as || o->as_rank != n->as_rank ||
        memcmp(o->as_dims, n->as_dims, n->as_rank * sizeof n->as_dims[0]) != 0) {
        as_text(o, a, sizeof a);
        as_text(n, b, sizeof b);
        finding(c, R_AS, n->as != FC_AS_NONE ? n->ast->as_loc : n->ast->loc,
                o->as != FC_AS_NONE ? oa->as_loc : oa->loc,
                "feature '%.*s': its tensor %s became %s: the tensors read are others%s", key,
                n->key, a, b,
                n->as != FC_AS_NONE && n->type != FC_TYPE_BYTES
                    ? ", and values outside the new type's range fail"
                : n->as != FC_AS_NONE ? ", and values of other lengths fail" : "");
    }
    switch (n->kind) {
    case FC_KIND_FIXED:
    case FC_KIND_ROWS:
        if (!same_shape(o, n)) {
            shape_text(o, a, sizeof a);
            shape_text(n, b, sizeof b);
            finding(c, R_SHAPE, where(na->shape_loc, n), where(oa->shape_loc, o),
                    "feature '%.*s': shape %s became %s: records written under the old spec fail "
                    "its "
                    "count check",
                    key, n->key, a, b);
        } else if (o->has_default && !n->has_default && !n->list) {
            finding(c, R_DEFAULT_REMOVED, where(na->key_loc, n), where(oa->def->loc, o),
                    "feature '%.*s': its default is gone: records without it, which read the "
                    "default, "
                    "now fail (TensorFlow: \"Feature: %.*s (data type: %s) is required but "
                    "could not be found.\")",
                    key, n->key, key, n->key, tf_data_type(n->type));
        } else if (o->has_default && n->has_default && !same_default(o, n)) {
            finding(c, R_DEFAULT_CHANGED, where(na->def->loc, n), where(oa->def->loc, o),
                    "feature '%.*s': its %s changed: records without it read other values, with "
                    "no error",
                    key, n->key, n->kind == FC_KIND_ROWS ? "padding value" : "default");
        }
        if (n->kind == FC_KIND_ROWS)
            bound(c, o, n, "max rows", o->max, n->max, na->max_loc);
        break;
    case FC_KIND_VARLEN:
        bound(c, o, n, "max values", o->max, n->max, na->max_loc);
        break;
    case FC_KIND_SPARSE:
        if (!same_shape(o, n)) {
            shape_text(o, a, sizeof a);
            shape_text(n, b, sizeof b);
            finding(c, R_SPARSE, where(na->sparse_loc, n), where(oa->sparse_loc, o),
                    "feature '%.*s': its dense size %s became %s: the tensor read has another "
                    "shape, and indices past the new size are kept as they are",
                    key, n->key, a, b);
        } else if (!same_fields(ofs, o, nfs, n, o->rank + 1)) {
            finding(c, R_SPARSE, where(na->index_loc, n), where(oa->index_loc, o),
                    "feature '%.*s': its index or value keys changed: the entries are read "
                    "from other features",
                    key, n->key);
        }
        bound(c, o, n, "max entries", o->max, n->max, na->max_loc);
        break;
    case FC_KIND_RAGGED:
        if (!parts_equal(o, n) || !same_fields(ofs, o, nfs, n, 1))
            finding(c, R_RAGGED, where(na->ragged_loc, n), where(oa->ragged_loc, o),
                    "feature '%.*s': its value key, partitions or row_splits dtype "
                    "changed", key, n->key);
        else {
            unsigned k;
            for (k = 0; k < n->nparts; k++)
                bound(c, o, n, "a partition's max rows", o->parts[k].max_rows,
                      n->parts[k].max_rows, n->parts[k].ast->max_loc);
        }
        bound(c, o, n, "max values", o->max, n->max, na->max_loc);
        break;
    default:
        break;
    }
    if (n->list) {
        if (o->max_frames != c->old_frames || n->max_frames != c->new_frames)
            bound(c, o, n, "max frames", o->max_frames, n->max_frames, na->max_loc);
        if (o->allow_missing && !n->allow_missing)
            finding(c, R_LIST_POLICY, n->ast->loc, oa->loc,
                    "feature list '%.*s': allow_missing dropped: sequences without this list now "
                    "fail",
                    key, n->key);
        if (!o->uniform && n->uniform)
            finding(c, R_LIST_POLICY, n->ast->loc, oa->loc,
                    "feature list '%.*s': uniform added: sequences whose frames differ in length "
                    "now fail",
                    key, n->key);
    }
}

/* A feature of NEW that OLD does not have: breaking when records written
 * under OLD, which lack it, fail. */
static void added(cmp *c, const schema_feature *n)
{
    if (n->hidden)
        return;
    if (!n->list && n->kind == FC_KIND_FIXED && !n->has_default)
        finding(c, R_REQUIRED_ADDED, n->ast->loc, nowhere,
                "feature '%.*s': new and required: records written under the old spec lack it "
                "and fail (TensorFlow: \"Feature: %.*s (data type: %s) is required but could "
                "not be found.\")",
                (int)n->key_len, n->key, (int)n->key_len, n->key, tf_data_type(n->type));
    if (n->list && n->kind == FC_KIND_FIXED && !n->allow_missing)
        finding(c, R_REQUIRED_ADDED, n->ast->loc, nowhere,
                "feature list '%.*s': new, and may not be missing: sequences written under "
                "the old spec lack it and fail",
                (int)n->key_len, n->key);
}

static void compare_part(cmp *c, const schema_message *om, const schema_message *nm, int lists)
{
    const schema_feature *ofs = lists ? om->lists : om->features;
    const schema_feature *nfs = lists ? nm->lists : nm->features;
    const schema_feature *other = lists ? nm->features : nm->lists;
    size_t on = lists ? om->nlists : om->nfeatures, nn = lists ? nm->nlists : nm->nfeatures;
    size_t nother = lists ? nm->nfeatures : nm->nlists, i;
    for (i = 0; i < on; i++) {
        const schema_feature *o = &ofs[i], *n;
        if (o->hidden)
            continue;
        n = find(nfs, nn, o);
        if (n != NULL) {
            compare_feature(c, ofs, o, nfs, n);
        } else if ((n = find(other, nother, o)) != NULL) {
            finding(c, R_MOVED, n->ast->loc, o->ast->loc,
                    "feature '%.*s': moved from the %s to the %s", (int)o->key_len, o->key,
                    lists ? "feature lists" : "context", lists ? "context" : "feature lists");
        } else {
            finding(c, R_KEY_REMOVED, nm->ast->name_loc, o->ast->loc,
                    "%s: %s feature '%.*s' removed: code using its field no longer builds, "
                    "and jobs lose the feature",
                    nm->name, kind_word(o), (int)o->key_len, o->key);
        }
    }
    for (i = 0; i < nn; i++)
        if (find(ofs, on, &nfs[i]) == NULL &&
            find(lists ? om->features : om->lists, lists ? om->nfeatures : om->nlists,
                 &nfs[i]) == NULL)
            added(c, &nfs[i]);
}

static void compare_message(cmp *c, const schema_message *om, const schema_message *nm)
{
    if (om->sequence != nm->sequence) {
        finding(c, R_MESSAGE_KIND, nm->ast->name_loc, om->ast->name_loc,
                "%s: %s became %s: its generated code and tensors change (an Example's "
                "features read as a SequenceExample's context, a SequenceExample's lists are "
                "dropped when it is read as an Example)",
                nm->name,
                om->sequence ? "a sequence_example" : "an example",
                nm->sequence ? "a sequence_example" : "an example");
        return;
    }
    c->old_frames = om->max_frames;
    c->new_frames = nm->max_frames;
    compare_part(c, om, nm, 0);
    if (!nm->sequence)
        return;
    compare_part(c, om, nm, 1);
    if (nm->max_frames < om->max_frames)
        finding(c, R_BOUND, nm->ast->name_loc, om->ast->name_loc,
                "%s: the feature lists' max frames lowered from %zu to %zu: longer sequences "
                "fail",
                nm->name, om->max_frames, nm->max_frames);
    if (!om->aligned && nm->aligned)
        finding(c, R_LIST_POLICY, nm->ast->name_loc, om->ast->name_loc,
                "%s: aligned added: sequences whose lists differ in frame count now fail",
                nm->name);
}

int fcc_breaking(const schema *os, diag *dold, const schema *ns, diag *dn, unsigned rules)
{
    cmp c;
    size_t i, j;
    c.dn = dn;
    c.dold = dold;
    c.rules = rules;
    c.found = 0;
    for (i = 0; i < os->nmessages; i++) {
        const schema_message *om = &os->messages[i], *nm = NULL;
        for (j = 0; j < ns->nmessages && nm == NULL; j++)
            if (strcmp(ns->messages[j].name, om->name) == 0)
                nm = &ns->messages[j];
        if (nm != NULL) {
            compare_message(&c, om, nm);
        } else if (rules & (1u << R_MESSAGE_REMOVED)) {
            c.found++;
            fcc_diag_fail(dn, "error: message %s removed [%s]", om->name,
                          rule_names[R_MESSAGE_REMOVED]);
            fcc_diag_note(dold, om->ast->name_loc, "in the old spec");
        }
    }
    return c.found;
}

/* The rules named in list ("a,b"; NULL or "all": every one): the mask, or
 * 0 with the unknown name reported through d. */
unsigned fcc_breaking_rules(const char *list, diag *d)
{
    unsigned mask = 0;
    const char *p = list;
    if (list == NULL || strcmp(list, "all") == 0)
        return (1u << R_COUNT) - 1u;
    while (*p != '\0') {
        size_t n = strcspn(p, ","), r;
        for (r = 0; r < R_COUNT; r++)
            if (strlen(rule_names[r]) == n && strncmp(rule_names[r], p, n) == 0)
                break;
        if (r == R_COUNT) {
            fcc_diag_fail(d, "error: no rule named '%.*s' (featc breaking --list-rules)",
                          (int)n, p);
            return 0;
        }
        mask |= 1u << r;
        p += n;
        if (*p == ',')
            p++;
    }
    return mask;
}
