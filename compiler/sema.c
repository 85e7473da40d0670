/* Semantic checks: from the syntax tree to a schema the emitter can trust.
 * Every rule that can reject a spec lives here, with a diagnostic that says
 * what is wrong and, where there is one, how to write it instead. */
#include "spec.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

static const char *const reserved_words[] = {
    /* C99 and C11 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while",
    /* C++ (generated code compiles as C++ too) */
    "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "bool", "catch",
    "char16_t", "char32_t", "char8_t", "class", "compl", "concept", "consteval", "constexpr",
    "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype", "delete",
    "dynamic_cast", "explicit", "export", "false", "friend", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
    "public", "reinterpret_cast", "requires", "static_assert", "static_cast", "template",
    "this", "thread_local", "throw", "true", "try", "typeid", "typename", "using", "virtual",
    "wchar_t", "xor", "xor_eq",
    NULL};

static int is_reserved(const char *s)
{
    size_t i;
    for (i = 0; reserved_words[i] != NULL; i++)
        if (strcmp(s, reserved_words[i]) == 0)
            return 1;
    return 0;
}

static int is_ident(const char *s, size_t n)
{
    size_t i;
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return 0;
    for (i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return 0;
    return 1;
}

int featc_c_name_ok(const char *s)
{
    return is_ident(s, strlen(s)) && s[0] != '_' && strstr(s, "__") == NULL && !is_reserved(s);
}

/* A name that becomes part of C identifiers.  what: "package", "example", "field". */
static int check_c_name(diag *d, spec_loc loc, const char *s, const char *what)
{
    if (!is_ident(s, strlen(s))) {
        fcc_diag_error(d, loc, "%s name '%s' is not a C identifier", what, s);
        return 0;
    }
    if (s[0] == '_') {
        fcc_diag_error(d, loc, "%s name '%s' starts with '_'; C reserves such names", what, s);
        return 0;
    }
    if (strstr(s, "__") != NULL) {
        fcc_diag_error(d, loc, "%s name '%s' contains '__'; C++ reserves such names", what, s);
        return 0;
    }
    if (is_reserved(s)) {
        fcc_diag_error(d, loc, "%s name '%s' is a C or C++ keyword", what, s);
        return 0;
    }
    return 1;
}

static char *upper_of(pool *p, const char *s)
{
    size_t i, n = strlen(s);
    char *u = fcc_pool_strndup(p, s, n);
    if (u != NULL)
        for (i = 0; i < n; i++)
            u[i] = (char)toupper((unsigned char)u[i]);
    return u;
}

static char *cat(pool *p, const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *r = (char *)fcc_pool_alloc(p, na + nb + nc + 1);
    if (r != NULL) {
        memcpy(r, a, na);
        memcpy(r + na, b, nb);
        memcpy(r + na + nb, c, nc);
    }
    return r;
}

/* Generated identifiers, to catch clashes before the C compiler does. */
typedef struct symbol {
    const char *name;
    const char *owner; /* "feature 'x'" etc. */
    spec_loc loc;
} symbol;

typedef struct symtab {
    symbol *v;
    size_t n, cap;
    size_t *index; /* open addressing over v: 1 + the symbol's place, 0 empty; 2 x cap slots */
} symtab;

static size_t sym_hash(const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *name != '\0'; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211u;
    return (size_t)(h ^ (h >> 32));
}

/* The slot of name in t->index: where it is, or the empty one where it goes. */
static size_t sym_slot(const symtab *t, const char *name)
{
    size_t mask = 2 * t->cap - 1, i = sym_hash(name) & mask;
    while (t->index[i] != 0 && strcmp(t->v[t->index[i] - 1].name, name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* The symbol of that name, or NULL. */
static const symbol *sym_get(const symtab *t, const char *name)
{
    size_t i;
    if (t->cap == 0)
        return NULL;
    i = sym_slot(t, name);
    return t->index[i] != 0 ? &t->v[t->index[i] - 1] : NULL;
}

/* Adds a name not in t; 0 when out of memory (the pool says so). */
static int sym_put(pool *p, symtab *t, const char *name, const char *owner, spec_loc loc)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64, k;
        symbol *nv = (symbol *)fcc_pool_alloc(p, cap * sizeof *nv);
        size_t *ni = (size_t *)fcc_pool_alloc(p, 2 * cap * sizeof *ni);
        if (nv == NULL || ni == NULL)
            return 0;
        if (t->n > 0)
            memcpy(nv, t->v, t->n * sizeof *nv);
        memset(ni, 0, 2 * cap * sizeof *ni);
        t->v = nv;
        t->cap = cap;
        t->index = ni;
        for (k = 0; k < t->n; k++)
            t->index[sym_slot(t, t->v[k].name)] = k + 1;
    }
    t->v[t->n].name = name;
    t->v[t->n].owner = owner;
    t->v[t->n].loc = loc;
    t->index[sym_slot(t, name)] = ++t->n;
    return 1;
}

/* Returns 0 after reporting a clash: callers stop adding the names of that
 * owner, so one clash gives one error.  A hash index keeps it linear in the
 * names (a spec of 4,000 messages has some 100,000). */
static int sym_add(pool *p, diag *d, symtab *t, const char *name, const char *owner,
                   spec_loc loc)
{
    const symbol *was;
    if (name == NULL || owner == NULL)
        return 1;
    was = sym_get(t, name);
    if (was != NULL) {
        fcc_diag_error(d, loc, "generated name '%s' of %s clashes with the one of %s", name, owner,
                       was->owner);
        fcc_diag_note(d, was->loc, "%s is defined here", was->owner);
        return 0;
    }
    (void)sym_put(p, t, name, owner, loc);
    return 1;
}

/* ------------------------------------------------------------ numbers */

/* Parses a decimal or 0x integer token into *v; 0 on overflow of uint64. */
static int parse_u64(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    for (; *s; s++) {
        unsigned dgt = isdigit((unsigned char)*s) ? (unsigned)(*s - '0')
                                                 : (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
        if (x > (UINT64_MAX - dgt) / base)
            return 0;
        x = x * base + dgt;
    }
    *v = x;
    return 1;
}

const char *fcc_type_word(fc_type t)
{
    switch (t) {
    case FC_TYPE_BYTES: return "bytes";
    case FC_TYPE_FLOAT: return "float";
    default: return "int64";
    }
}

static const char *value_word(const ast_value *v)
{
    switch (v->kind) {
    case AV_INT: return "an integer";
    case AV_FLOAT: return "a floating-point number";
    case AV_NAME: return "a name";
    case AV_STRING: return "a string";
    default: return "a list";
    }
}

/* One default scalar into slot i of f. */
static int default_scalar(pool *p, diag *d, schema_feature *f, const ast_value *v, size_t i)
{
    (void)p;
    if (v->kind == AV_LIST) {
        fcc_diag_error(d, v->loc, "default of '%s' has a list where a %s value belongs", f->cname,
                       fcc_type_word(f->type));
        return 0;
    }
    switch (f->type) {
    case FC_TYPE_INT64: {
        uint64_t u;
        if (v->kind != AV_INT) {
            fcc_diag_error(d, v->loc, "default of int64 feature '%s' is %s, not an integer",
                           f->cname, value_word(v));
            return 0;
        }
        if (!parse_u64(v->text, &u) || (!v->neg && u > (uint64_t)INT64_MAX) ||
            (v->neg && u > (uint64_t)INT64_MAX + 1u)) {
            fcc_diag_error(d, v->loc,
                           "default %s%s of '%s' is out of range for int64 "
                           "(-9223372036854775808 to 9223372036854775807)",
                           v->neg ? "-" : "", v->text, f->cname);
            return 0;
        }
        f->def_int[i] = v->neg ? (int64_t)(0u - u) : (int64_t)u;
        return 1;
    }
    case FC_TYPE_FLOAT: {
        double x;
        if (v->kind == AV_NAME) {
            if (strcmp(v->text, "inf") == 0) {
                f->def_float[i] = v->neg ? -INFINITY : INFINITY;
                return 1;
            }
            if (strcmp(v->text, "nan") == 0 && !v->neg) {
                f->def_float[i] = NAN;
                return 1;
            }
            fcc_diag_error(d, v->loc,
                           "'%s%s' is not a float value; non-finite defaults are written nan, inf "
                           "and -inf",
                           v->neg ? "-" : "", v->text);
            return 0;
        }
        if (v->kind != AV_INT && v->kind != AV_FLOAT) {
            fcc_diag_error(d, v->loc, "default of float feature '%s' is %s, not a number", f->cname,
                           value_word(v));
            return 0;
        }
        if (v->kind == AV_INT && (v->text[0] == '0' && (v->text[1] == 'x' || v->text[1] == 'X'))) {
            uint64_t u;
            if (!parse_u64(v->text, &u)) {
                fcc_diag_error(d, v->loc, "default %s of '%s' is out of range for float", v->text,
                               f->cname);
                return 0;
            }
            x = (double)u;
        } else {
            errno = 0;
            x = strtod(v->text, NULL);
        }
        if (v->neg)
            x = -x;
        /* A literal beyond float's range is an error, not an infinity:
         * infinities are written inf and -inf. */
        if (!isfinite(x) || !isfinite((float)x)) {
            fcc_diag_error(d, v->loc,
                           "default %s%s of '%s' is out of range for float (largest finite is "
                           "3.40282347e+38); write inf or -inf for infinity",
                           v->neg ? "-" : "", v->text, f->cname);
            return 0;
        }
        f->def_float[i] = (float)x;
        return 1;
    }
    default:
        if (v->kind != AV_STRING) {
            fcc_diag_error(d, v->loc, "default of bytes feature '%s' is %s, not a string", f->cname,
                           value_word(v));
            return 0;
        }
        f->def_bytes[i] = v->text;
        f->def_bytes_len[i] = v->len;
        return 1;
    }
}

/* TensorFlow reshapes a FixedLenFeature's default to its shape when the
 * configuration is built, so a default of the wrong size fails there. */
static void tf_reshape(diag *d, spec_loc loc, size_t have, const char *shape, size_t need)
{
    fcc_diag_tf(d, loc, "Cannot reshape a tensor with %zu elements to shape %s (%zu elements)", have,
                shape, need);
}

/* A '?' past the first dimension: TensorFlow names the shape as Python
 * prints a tuple, None for each unknown dimension. */
static void tf_unknown_dims(diag *d, spec_loc loc, const schema_feature *f, const ast_feature *a)
{
    char tuple[256];
    size_t n = 0, k = 0;
    const ast_dim *dm;
    tuple[0] = '\0';
    for (dm = a->dims; dm != NULL && n < sizeof tuple - 32; dm = dm->next, k++) {
        int w = snprintf(tuple + n, sizeof tuple - n, "%s%s", k > 0 ? ", " : "",
                         dm->unknown ? "None" : dm->text);
        if (w < 0)
            return;
        n += (size_t)w < sizeof tuple - n ? (size_t)w : sizeof tuple - n - 1;
    }
    fcc_diag_tf(d, loc, "All dimensions of shape for feature %.*s need to be known but received (%s%s).",
                (int)f->key_len, f->key, tuple, k == 1 ? "," : "");
}

static void shape_text(const schema_feature *f, char *buf, size_t cap)
{
    size_t k = 0;
    unsigned i;
    k += (size_t)snprintf(buf + k, cap - k, "[");
    if (f->kind == FC_KIND_ROWS)
        k += (size_t)snprintf(buf + k, cap - k, f->rank ? "?," : "?");
    for (i = 0; i < f->rank && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%zu", i ? "," : "", f->dims[i]);
    if (k < cap)
        snprintf(buf + k, cap - k, "]");
}

/* A nested list matching dims[level..]: fills slots from *pos. */
static int default_nested(pool *p, diag *d, schema_feature *f, const ast_value *v,
                          unsigned level, size_t *pos)
{
    const ast_value *it;
    if (level == f->rank)
        return default_scalar(p, d, f, v, (*pos)++);
    if (v->kind != AV_LIST) {
        char sh[128];
        shape_text(f, sh, sizeof sh);
        fcc_diag_error(d, v->loc,
                       "default of '%s' needs a list of %zu items here (dimension %u of shape %s)",
                       f->cname, f->dims[level], level, sh);
        return 0;
    }
    if (v->nitems != f->dims[level]) {
        char sh[128];
        shape_text(f, sh, sizeof sh);
        fcc_diag_error(d, v->loc,
                       "default of '%s' has %zu items here but dimension %u of shape %s is %zu",
                       f->cname, v->nitems, level, sh, f->dims[level]);
        return 0;
    }
    for (it = v->items; it != NULL; it = it->next)
        if (!default_nested(p, d, f, it, level + 1, pos))
            return 0;
    return 1;
}

static int all_scalars(const ast_value *v)
{
    const ast_value *it;
    for (it = v->items; it != NULL; it = it->next)
        if (it->kind == AV_LIST)
            return 0;
    return 1;
}

static int check_default(pool *p, diag *d, schema_feature *f, const ast_value *v)
{
    size_t i, n;
    if (f->kind == FC_KIND_VARLEN) {
        fcc_diag_error(d, v->loc,
                       "VarLen feature '%s' cannot have a default: a missing VarLen feature has "
                       "zero values",
                       f->cname);
        return 0;
    }
    n = f->kind == FC_KIND_ROWS ? 1 : f->elems;
    if (f->kind == FC_KIND_FIXED && n == 0) {
        fcc_diag_error(d, v->loc,
                       "feature '%s' holds no values, so it cannot have a default: TensorFlow "
                       "takes an empty default to mean 'required'",
                       f->cname);
        return 0;
    }
    f->ndefault = n;
    f->has_default = 1;
    if (f->type == FC_TYPE_INT64)
        f->def_int = (int64_t *)fcc_pool_alloc(p, n * sizeof(int64_t));
    else if (f->type == FC_TYPE_FLOAT)
        f->def_float = (float *)fcc_pool_alloc(p, n * sizeof(float));
    else {
        f->def_bytes = (const char **)fcc_pool_alloc(p, n * sizeof(char *));
        f->def_bytes_len = (size_t *)fcc_pool_alloc(p, n * sizeof(size_t));
    }
    if (p->failed)
        return 0;
    if (f->kind == FC_KIND_ROWS) {
        if (v->kind == AV_LIST) {
            fcc_diag_error(d, v->loc,
                           "the default of sequence feature '%s' is its padding value: one %s "
                           "value, not a list",
                           f->cname, fcc_type_word(f->type));
            if (v->kind == AV_LIST)
                tf_reshape(d, v->loc, v->nitems, "[]", 1);
            return 0;
        }
        return default_scalar(p, d, f, v, 0);
    }
    if (v->kind != AV_LIST) { /* a scalar fills the whole shape */
        if (!default_scalar(p, d, f, v, 0))
            return 0;
        if (n != 1) { /* TF reshapes the default as given */
            char sh[128], tf[256];
            shape_text(f, sh, sizeof sh);
            snprintf(tf, sizeof tf, "Cannot reshape a tensor with 1 elements to shape %s (%zu "
                     "elements)", sh, n);
            fcc_diag_tf_warning(d, v->loc, tf,
                                "the scalar default of '%s' fills its shape %s in featc; "
                                "TensorFlow takes a default of exactly %zu values (featc "
                                "export --tf writes them out)",
                                f->cname, sh, n);
        }
        for (i = 1; i < n; i++) {
            if (f->type == FC_TYPE_INT64)
                f->def_int[i] = f->def_int[0];
            else if (f->type == FC_TYPE_FLOAT)
                f->def_float[i] = f->def_float[0];
            else {
                f->def_bytes[i] = f->def_bytes[0];
                f->def_bytes_len[i] = f->def_bytes_len[0];
            }
        }
        return 1;
    }
    if (f->rank >= 2 && all_scalars(v)) { /* a flat list, row-major */
        const ast_value *it;
        char sh[128];
        if (v->nitems != n) {
            shape_text(f, sh, sizeof sh);
            fcc_diag_error(d, v->loc, "default of '%s' has %zu values but shape %s holds %zu",
                           f->cname, v->nitems, sh, n);
            tf_reshape(d, v->loc, v->nitems, sh, n);
            return 0;
        }
        for (i = 0, it = v->items; it != NULL; it = it->next, i++)
            if (!default_scalar(p, d, f, it, i))
                return 0;
        return 1;
    }
    if (f->rank == 0) {
        if (v->nitems != 1) {
            fcc_diag_error(d, v->loc, "default of scalar feature '%s' has %zu values, not 1",
                           f->cname, v->nitems);
            tf_reshape(d, v->loc, v->nitems, "[]", 1);
            return 0;
        }
        return default_scalar(p, d, f, v->items, 0);
    }
    {
        size_t pos = 0;
        if (f->rank == 1 && v->nitems != n) {
            char sh[128];
            shape_text(f, sh, sizeof sh);
            fcc_diag_error(d, v->loc, "default of '%s' has %zu values but shape %s holds %zu",
                           f->cname, v->nitems, sh, n);
            tf_reshape(d, v->loc, v->nitems, sh, n);
            return 0;
        }
        return default_nested(p, d, f, v, 0, &pos);
    }
}

/* ------------------------------------------------------------ features */

static size_t elem_bytes(fc_type t)
{
    return t == FC_TYPE_BYTES ? sizeof(fc_bytes) : t == FC_TYPE_FLOAT ? sizeof(float)
                                                                     : sizeof(int64_t);
}

static int check_type(diag *d, schema_feature *f, const ast_feature *a)
{
    static const struct {
        const char *word, *hint;
    } hints[] = {{"string", "bytes"}, {"str", "bytes"},     {"tf.string", "bytes"},
                 {"int", "int64"},    {"int32", "int64"},   {"long", "int64"},
                 {"uint64", "int64"}, {"float32", "float"}, {"double", "float"},
                 {"float64", "float"}};
    size_t i;
    if (strcmp(a->type, "int64") == 0)
        f->type = FC_TYPE_INT64;
    else if (strcmp(a->type, "float") == 0)
        f->type = FC_TYPE_FLOAT;
    else if (strcmp(a->type, "bytes") == 0)
        f->type = FC_TYPE_BYTES;
    else {
        for (i = 0; i < sizeof hints / sizeof hints[0]; i++) {
            if (strcmp(a->type, hints[i].word) == 0) {
                fcc_diag_error(d, a->type_loc,
                               "unknown type '%s'; did you mean '%s'? (the types are int64, float "
                               "and bytes, as in tf.train.Feature)",
                               a->type, hints[i].hint);
                return 0;
            }
        }
        fcc_diag_error(d, a->type_loc,
                       "unknown type '%s' (the types are int64, float and bytes, as in "
                       "tf.train.Feature)",
                       a->type);
        return 0;
    }
    return 1;
}

static int check_shape(diag *d, schema_feature *f, const ast_feature *a)
{
    const ast_dim *dm;
    unsigned rank = 0;
    uint64_t elems = 1, maxv = 0;
    int rows = 0;
    if (a->max_text != NULL && (!parse_u64(a->max_text, &maxv) || maxv > FEATC_MAX_ELEMENTS)) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' is larger than the limit of %u values",
                       a->max_text, f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (!a->has_shape) { /* FixedLen scalar */
        f->kind = FC_KIND_FIXED;
        if (a->max_text != NULL) {
            fcc_diag_error(d, a->max_loc,
                           "'max' bounds a VarLen ('[]') or sequence ('[?, ...]') feature; '%s' is "
                           "a FixedLen scalar",
                           f->cname);
            return 0;
        }
        f->rank = 0;
        f->elems = f->max = 1;
        return 1;
    }
    if (a->dims == NULL) { /* [] : VarLen */
        f->kind = FC_KIND_VARLEN;
        f->elems = 1;
        if (a->max_text == NULL) {
            fcc_diag_error(d, a->shape_loc,
                           "VarLen feature '%s' needs a bound: write '%s[] max N' (generated "
                           "structs hold their values in place)",
                           f->cname, fcc_type_word(f->type));
            return 0;
        }
        if (maxv == 0) {
            fcc_diag_error(d, a->max_loc, "a bound of 0 leaves no room for any value of '%s'",
                           f->cname);
            return 0;
        }
        f->max = (size_t)maxv;
        return 1;
    }
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        uint64_t v;
        if (dm->unknown) {
            if (dm != a->dims) {
                fcc_diag_error(d, dm->loc,
                               "only the first dimension can be '?' (a sequence of rows of a "
                               "fixed shape)");
                tf_unknown_dims(d, dm->loc, f, a);
                return 0;
            }
            rows = 1;
            continue;
        }
        if (rank == FC_MAX_RANK) {
            fcc_diag_error(d, dm->loc, "shape of '%s' has more than %d dimensions", f->cname,
                           FC_MAX_RANK);
            return 0;
        }
        if (!parse_u64(dm->text, &v) || v > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, dm->loc, "dimension %s of '%s' is larger than the limit of %u",
                           dm->text, f->cname, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
        if (v == 0 && rows) {
            fcc_diag_error(d, dm->loc,
                           "rows of sequence feature '%s' would hold no values (TensorFlow "
                           "divides by the row size)",
                           f->cname);
            return 0;
        }
        f->dims[rank++] = (size_t)v;
        elems *= v;
        if (elems > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, a->shape_loc, "shape of '%s' holds more than %u values", f->cname,
                           (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
    }
    f->rank = rank;
    f->elems = (size_t)elems;
    if (rows) {
        f->kind = FC_KIND_ROWS;
        if (a->max_text == NULL) {
            fcc_diag_error(d, a->shape_loc,
                           "sequence feature '%s' needs a bound on its rows: write '... max N'",
                           f->cname);
            return 0;
        }
        if (maxv == 0) {
            fcc_diag_error(d, a->max_loc, "a bound of 0 leaves no room for any row of '%s'",
                           f->cname);
            return 0;
        }
        if (maxv * elems > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, a->max_loc,
                           "%s rows of %zu values hold more than %u values; lower the bound",
                           a->max_text, f->elems, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        }
        f->max = (size_t)maxv;
        return 1;
    }
    f->kind = FC_KIND_FIXED;
    f->max = f->elems;
    if (a->max_text != NULL) {
        fcc_diag_error(d, a->max_loc,
                       "'max' bounds a VarLen ('[]') or sequence ('[?, ...]') feature; '%s' is "
                       "FixedLen and its size is its shape",
                       f->cname);
        return 0;
    }
    return 1;
}

static int key_cmp(const schema_feature *a, const schema_feature *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = n ? memcmp(a->key, b->key, n) : 0;
    if (c != 0)
        return c;
    return a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

/* Where a feature is declared: what it may be and how diagnostics name it. */
typedef enum role { ROLE_EXAMPLE, ROLE_CONTEXT, ROLE_LIST } role;

/* The shape of a feature-list feature: no brackets (a scalar per frame),
 * `[dims]` (a fixed frame shape) or `[] max N` (VarLen per frame). */
static int check_list_shape(diag *d, schema_feature *f, const ast_feature *a)
{
    const ast_dim *dm;
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        if (dm->unknown) {
            fcc_diag_error(d, dm->loc,
                           "feature list '%s' is a sequence already: give the shape of one frame, "
                           "without '?'",
                           f->cname);
            return 0;
        }
    }
    if (a->max_text != NULL && (!a->has_shape || a->dims != NULL)) {
        fcc_diag_error(d, a->max_loc,
                       "'max' bounds the values of one frame of a VarLen list ('%s[] max N'); the "
                       "frames of '%s' have a fixed shape (the frame bound is 'feature_lists max "
                       "N')",
                       fcc_type_word(f->type), f->cname);
        return 0;
    }
    if (a->has_shape && a->dims == NULL && a->max_text == NULL) {
        fcc_diag_error(d, a->shape_loc,
                       "VarLen feature list '%s' needs a bound on the values of one frame: write "
                       "'%s[] max N'",
                       f->cname, fcc_type_word(f->type));
        return 0;
    }
    if (!check_shape(d, f, a))
        return 0;
    if (f->kind == FC_KIND_FIXED && f->elems == 0) {
        fcc_diag_error(d, a->shape_loc,
                       "frames of feature list '%s' would hold no values (TensorFlow divides by "
                       "the frame size)",
                       f->cname);
        return 0;
    }
    return 1;
}

/* Policy words after a feature.  Only feature lists take them. */
/* `KEY : sparse TYPE [sizes] max N index KEYS value KEY`: TensorFlow's
 * SparseFeature.  Its keys are resolved to fields in resolve_sparse. */
static int check_sparse(diag *d, schema_feature *f, const ast_feature *a, role r)
{
    const ast_dim *dm;
    const ast_key *k;
    unsigned rank = 0, nkeys = 0;
    uint64_t maxv;
    if (r != ROLE_EXAMPLE) {
        fcc_diag_error(d, a->sparse_loc,
                       "SparseFeature '%s' belongs in an example: TensorFlow's sequence parsers "
                       "take no SparseFeature",
                       f->cname);
        return 0;
    }
    for (dm = a->dims; dm != NULL; dm = dm->next) {
        uint64_t v;
        if (dm->unknown || rank == FC_MAX_RANK || !parse_u64(dm->text, &v) || v == 0 ||
            v > INT64_MAX) {
            fcc_diag_error(d, dm->loc,
                           "the size of SparseFeature '%s' is a dense shape: one known dimension "
                           "of at least 1 per index key, at most %d of them",
                           f->cname, FC_MAX_RANK);
            return 0;
        }
        f->dims[rank++] = (size_t)v;
    }
    for (k = a->index_keys; k != NULL; k = k->next)
        nkeys++;
    if (nkeys != rank) {
        fcc_diag_error(d, a->index_loc,
                       "SparseFeature '%s' has %u index key%s for a size of %u dimension%s: one "
                       "index key per dimension",
                       f->cname, nkeys, nkeys == 1 ? "" : "s", rank, rank == 1 ? "" : "s");
        return 0;
    }
    if (!parse_u64(a->max_text, &maxv) || maxv > FEATC_MAX_ELEMENTS || maxv == 0) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' must be from 1 to %u values", a->max_text,
                       f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (a->def != NULL) {
        fcc_diag_error(d, a->def->loc, "SparseFeature '%s' takes no default", f->cname);
        return 0;
    }
    f->kind = FC_KIND_SPARSE;
    f->rank = rank;
    f->elems = 1;
    f->max = (size_t)maxv;
    return 1;
}

/* `KEY : ragged TYPE max N [value K] [partitions (...)] [split T]`:
 * TensorFlow's RaggedFeature.  The row bound of each partition follows from
 * the one inside it; keys are resolved to fields in resolve_ragged. */
static int check_ragged(diag *d, schema_feature *f, const ast_feature *a)
{
    static const struct {
        const char *word;
        fc_part_kind kind;
    } kinds[] = {{"row_splits", FC_PART_ROW_SPLITS},     {"row_lengths", FC_PART_ROW_LENGTHS},
                 {"row_starts", FC_PART_ROW_STARTS},     {"row_limits", FC_PART_ROW_LIMITS},
                 {"value_rowids", FC_PART_VALUE_ROWIDS},
                 {"uniform_row_length", FC_PART_UNIFORM_ROW_LENGTH}};
    const ast_part *pa;
    uint64_t v;
    size_t inner;
    unsigned np = 0, q, k;
    if (!parse_u64(a->max_text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, a->max_loc, "bound %s of '%s' must be from 1 to %u values", a->max_text,
                       f->cname, (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    f->kind = FC_KIND_RAGGED;
    f->elems = 1;
    f->max = (size_t)v;
    f->split64 = 0; /* TensorFlow's default: int32 */
    if (a->split_text != NULL) {
        if (strcmp(a->split_text, "int64") == 0) {
            f->split64 = 1;
        } else if (strcmp(a->split_text, "int32") != 0) {
            fcc_diag_error(d, a->split_loc,
                           "row_splits_dtype must be int32 or int64; got %s (RaggedFeature '%s')",
                           a->split_text, f->cname);
            return 0;
        }
    }
    for (pa = a->parts; pa != NULL; pa = pa->next) {
        struct schema_part *sp;
        if (np == FC_MAX_RANK - 1) {
            fcc_diag_error(d, pa->kind_loc, "RaggedFeature '%s' has more than %d partitions",
                           f->cname, FC_MAX_RANK - 1);
            return 0;
        }
        sp = &f->parts[np++];
        sp->ast = pa;
        for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            if (strcmp(pa->kind, kinds[k].word) == 0)
                break;
        if (k == sizeof kinds / sizeof kinds[0]) {
            fcc_diag_error(d, pa->kind_loc,
                           "unknown partition '%s': row_splits, row_lengths, row_starts, "
                           "row_limits or value_rowids KEY max ROWS, or uniform_row_length N",
                           pa->kind);
            return 0;
        }
        sp->kind = kinds[k].kind;
        if ((sp->kind == FC_PART_UNIFORM_ROW_LENGTH) != (pa->key == NULL)) {
            fcc_diag_error(d, pa->kind_loc,
                           sp->kind == FC_PART_UNIFORM_ROW_LENGTH
                           ? "'uniform_row_length' takes a length: 'uniform_row_length N'"
                           : "'%s' takes a key and a bound on rows: '%s KEY max ROWS'",
                           pa->kind, pa->kind);
            return 0;
        }
        if (pa->key == NULL) {
            if (!parse_u64(pa->length_text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
                fcc_diag_error(d, pa->length_loc, "a uniform row length must be from 1 to %u",
                               (unsigned)FEATC_MAX_ELEMENTS);
                return 0;
            }
            sp->length = (size_t)v;
        } else if (!parse_u64(pa->max_text, &v) || v > FEATC_MAX_ELEMENTS) {
            fcc_diag_error(d, pa->max_loc, "a bound of %s rows is larger than the limit of %u",
                           pa->max_text, (unsigned)FEATC_MAX_ELEMENTS);
            return 0;
        } else {
            sp->max_rows = (size_t)v;
        }
    }
    f->nparts = np;
    /* rows bounds, innermost first: a uniform length divides what is inside */
    inner = f->max;
    for (q = np; q-- > 0;) {
        if (f->parts[q].kind == FC_PART_UNIFORM_ROW_LENGTH)
            f->parts[q].max_rows = inner / f->parts[q].length;
        inner = f->parts[q].max_rows;
    }
    return 1;
}

/* `hash_buckets N [one_hot | multi_hot]` on an Example or context feature;
 * `hash_buckets N` on a VarLen feature list (TensorFlow's
 * sequence_categorical_column_with_hash_bucket, whose feature is VarLen). */
static int check_hash_attr(diag *d, schema_feature *f, const ast_attr *t, role r)
{
    uint64_t v;
    if (r == ROLE_LIST && strcmp(t->name, "hash_buckets") != 0) {
        fcc_diag_error(d, t->loc,
                       "'%s' applies to Example and context features; a feature list's "
                       "bucket ids are per frame value ('hash_buckets N' alone)",
                       t->name);
        return 0;
    }
    if (r == ROLE_LIST && f->kind != FC_KIND_VARLEN) {
        fcc_diag_error(d, t->loc,
                       "'hash_buckets' on feature list '%s' needs VarLen frames ('%s[] max N'): "
                       "TensorFlow's sequence_categorical_column_with_hash_bucket reads a "
                       "VarLenFeature",
                       f->cname, fcc_type_word(f->type));
        return 0;
    }
    if (strcmp(t->name, "hash_buckets") != 0) {
        f->hot = strcmp(t->name, "one_hot") == 0 ? 1 : 2;
        return 1;
    }
    if (f->type == FC_TYPE_FLOAT) {
        fcc_diag_error(d, t->loc,
                       "'%s' is a float feature; hash buckets take bytes or int64 features "
                       "(TensorFlow's categorical_column_with_hash_bucket)",
                       f->cname);
        return 0;
    }
    if (f->kind == FC_KIND_ROWS) {
        fcc_diag_error(d, t->loc,
                       "'%s' has rows; hash buckets take FixedLen or VarLen features", f->cname);
        return 0;
    }
    if (!parse_u64(t->arg, &v) || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, t->arg_loc, "%s hash buckets are more than the limit of %u", t->arg,
                       (unsigned)FEATC_MAX_ELEMENTS);
        return 0;
    }
    if (v == 0) {
        fcc_diag_error(d, t->arg_loc, "0 hash buckets: a value needs at least one bucket");
        return 0;
    }
    f->hash_buckets = (size_t)v;
    return 1;
}

static int check_feature_attrs(diag *d, schema_feature *f, const ast_feature *a, role r)
{
    const ast_attr *t, *u, *hot = NULL;
    int ok = 1;
    for (t = a->attrs; t != NULL; t = t->next) {
        int is_hash = strcmp(t->name, "hash_buckets") == 0 || strcmp(t->name, "one_hot") == 0 ||
                      strcmp(t->name, "multi_hot") == 0;
        for (u = a->attrs; u != t; u = u->next) {
            if (strcmp(u->name, t->name) == 0)
                break;
        }
        if (u != t) {
            fcc_diag_error(d, t->loc, "'%s' is given twice", t->name);
            ok = 0;
        } else if (strcmp(t->name, "already_sorted") == 0) {
            if (f->kind != FC_KIND_SPARSE) {
                fcc_diag_error(d, t->loc,
                               "'already_sorted' belongs to a SparseFeature ('%s : sparse ...')",
                               f->cname);
                ok = 0;
            }
            f->already_sorted = 1;
        } else if (f->kind == FC_KIND_SPARSE) {
            fcc_diag_error(d, t->loc, "SparseFeature '%s' takes 'already_sorted' only", f->cname);
            ok = 0;
        } else if (is_hash) {
            if (strcmp(t->name, "hash_buckets") != 0) {
                if (hot != NULL) {
                    fcc_diag_error(d, t->loc, "'%s' and '%s': choose one", hot->name, t->name);
                    ok = 0;
                    continue;
                }
                hot = t;
            }
            if (!check_hash_attr(d, f, t, r))
                ok = 0;
        } else if (r != ROLE_LIST) {
            fcc_diag_error(d, t->loc,
                           "'%s' is a policy of feature-list features; '%s' is %s feature", t->name,
                           f->cname, r == ROLE_CONTEXT ? "a context" : "an Example");
            ok = 0;
        } else if (strcmp(t->name, "allow_missing") == 0) {
            if (f->kind == FC_KIND_VARLEN) {
                fcc_diag_error(d, t->loc,
                               "VarLen feature list '%s' is empty when missing already; "
                               "'allow_missing' applies to lists of a fixed frame shape",
                               f->cname);
                ok = 0;
            }
            f->allow_missing = 1;
        } else if (strcmp(t->name, "uniform") == 0) {
            if (f->kind == FC_KIND_FIXED) {
                fcc_diag_error(d, t->loc,
                               "every frame of '%s' holds %zu value%s by its shape; 'uniform' "
                               "applies to VarLen lists ('%s[] max N')",
                               f->cname, f->elems, f->elems == 1 ? "" : "s",
                               fcc_type_word(f->type));
                ok = 0;
            }
            f->uniform = 1;
        } else { /* aligned */
            fcc_diag_error(d, t->loc,
                           "'%s' concerns all the lists of a record: write it after "
                           "'feature_lists max N' (a feature list takes 'allow_missing' or "
                           "'uniform')",
                           t->name);
            ok = 0;
        }
    }
    if (ok && hot != NULL && f->hash_buckets == 0) {
        fcc_diag_error(d, hot->loc, "'%s' needs 'hash_buckets N' before it", hot->name);
        ok = 0;
    }
    if (ok && f->hot == 1 && f->kind != FC_KIND_FIXED) {
        fcc_diag_error(d, hot->loc,
                       "'one_hot' gives one vector per value of a FixedLen feature; VarLen "
                       "'%s' takes 'multi_hot' (a count per bucket)",
                       f->cname);
        ok = 0;
    }
    return ok;
}

/* A feature's key and C name: an identifier, or `as NAME`, and a key not
 * used before in its group.  f is group[i]. */
static int check_feature_key(diag *d, const schema_message *m, schema_feature *group, size_t i,
                             const ast_feature *a, role r)
{
    static const char *const group_words[] = {"feature key", "context feature key",
                                              "feature list key"};
    schema_feature *f = &group[i];
    size_t j;
    if (a->cname != NULL) {
        f->cname = a->cname;
        if (!check_c_name(d, a->cname_loc, a->cname, "field"))
            return 0;
    } else if (!is_ident(a->key, a->key_len) || memchr(a->key, 0, a->key_len) != NULL) {
        fcc_diag_error(d, a->key_loc,
                       "feature key \"%.*s\" is not a C identifier; name its field: \"%.*s\" as "
                       "NAME",
                       (int)a->key_len, a->key, (int)a->key_len, a->key);
        return 0;
    } else {
        f->cname = a->key;
        if (!check_c_name(d, a->key_loc, a->key, "field"))
            return 0;
    }
    for (j = 0; j < i; j++) {
        const schema_feature *g = &group[j];
        if (g->ast != NULL && g->key_len == f->key_len &&
            memcmp(g->key, f->key, f->key_len) == 0) {
            fcc_diag_error(d, a->key_loc, "duplicate %s \"%.*s\" in %s '%s'", group_words[r],
                           (int)a->key_len, a->key,
                           r == ROLE_EXAMPLE ? "example" : "sequence_example",
                           m->name);
            fcc_diag_note(d, g->ast->key_loc, "previous definition here");
            f->ast = NULL; /* not a previous definition for later duplicates */
            return 0;
        }
    }
    return 1;
}

/* A feature's type, its kind's shape or definition, its default and its
 * attributes. */
static int check_feature_kind(pool *p, diag *d, const schema_message *m, schema_feature *f,
                              const ast_feature *a, role r)
{
    if (!check_type(d, f, a))
        return 0;
    if (a->sparse) {
        if (!check_sparse(d, f, a, r))
            return 0;
    } else if (a->ragged) {
        if (!check_ragged(d, f, a))
            return 0;
        if (r == ROLE_LIST)
            f->max_frames = m->max_frames;
    } else if (r == ROLE_LIST) {
        if (!check_list_shape(d, f, a))
            return 0;
        if (a->def != NULL) {
            fcc_diag_error(d, a->def->loc,
                           "feature list '%s' takes no default (TensorFlow requires feature-list "
                           "defaults to be None): a missing list is an error, or empty with "
                           "'allow_missing'",
                           f->cname);
            fcc_diag_tf(d, a->def->loc, "Value feature_list.dense_defaults[%.*s] must be None",
                        (int)f->key_len, f->key);
            return 0;
        }
        f->max_frames = m->max_frames;
    } else {
        if (!check_shape(d, f, a))
            return 0;
        if (r == ROLE_CONTEXT && f->kind == FC_KIND_ROWS) {
            fcc_diag_error(d, a->shape_loc,
                           "context feature '%s' cannot be a sequence of rows ('[?, ...]'); "
                           "declare it in feature_lists",
                           f->cname);
            return 0;
        }
        if (a->def != NULL && !check_default(p, d, f, a->def))
            return 0;
    }
    return check_feature_attrs(d, f, a, r);
}

/* The bytes of struct storage f takes. */
static uint64_t feature_storage(const schema_feature *f, role r)
{
    uint64_t eb = elem_bytes(f->type), bytes;
    if (r == ROLE_LIST && f->hash_buckets > 0) /* bucket ids laid out as the values */
        bytes = (uint64_t)f->max_frames * (f->max * (eb + 8u) + sizeof(size_t)) + sizeof(size_t);
    else if (r == ROLE_LIST && f->kind == FC_KIND_RAGGED) {
        unsigned q;
        bytes = (uint64_t)f->max * eb + sizeof(size_t); /* one frame */
        for (q = 0; q < f->nparts; q++)
            bytes += ((uint64_t)f->parts[q].max_rows + 1u) * (f->split64 ? 8u : 4u) +
                     sizeof(size_t);
        bytes = bytes * f->max_frames + sizeof(size_t);
    } else if (r == ROLE_LIST)
        bytes = f->kind == FC_KIND_FIXED
                    ? (uint64_t)f->max_frames * f->elems * eb + sizeof(size_t)
                    : (uint64_t)f->max_frames * (f->max * eb + sizeof(size_t)) +
                          sizeof(size_t);
    else if (f->kind == FC_KIND_SPARSE)
        bytes = (uint64_t)f->max * (eb + 8u * f->rank) + sizeof(size_t);
    else if (f->kind == FC_KIND_RAGGED) {
        unsigned q;
        bytes = (uint64_t)f->max * eb + sizeof(size_t);
        for (q = 0; q < f->nparts; q++)
            bytes += ((uint64_t)f->parts[q].max_rows + 1u) * (f->split64 ? 8u : 4u) +
                     sizeof(size_t);
    } else {
        bytes = (f->kind == FC_KIND_ROWS     ? (uint64_t)f->max * f->elems
                 : f->kind == FC_KIND_VARLEN ? (uint64_t)f->max
                                             : (uint64_t)f->elems) *
                    eb +
                (f->kind == FC_KIND_FIXED ? 0u : sizeof(size_t));
    }
    if (f->hash_buckets > 0 && r != ROLE_LIST) {
        uint64_t ids = f->kind == FC_KIND_VARLEN ? (uint64_t)f->max : (uint64_t)f->elems;
        bytes += ids * 8u;
        if (f->hot == 1)
            bytes += ids * f->hash_buckets * 4u;
        else if (f->hot == 2)
            bytes += (uint64_t)f->hash_buckets * 4u;
    }
    return bytes;
}

/* The names f adds: struct members, then file-wide identifiers. */
static int add_feature_names(pool *p, diag *d, const schema_message *m, schema_feature *f,
                             const ast_feature *a, role r, symtab *members, symtab *globals)
{
    const char *what = r == ROLE_LIST      ? "feature list '"
                       : r == ROLE_CONTEXT ? "context feature '"
                                           : "feature '";
    char *owner = cat(p, what, f->cname, "'");
    char *up = upper_of(p, f->cname);
    char *base = cat(p, m->upper, "_", up);
    const char *names[16 + 4 * FC_MAX_RANK];
    symtab *where[16 + 4 * FC_MAX_RANK];
    size_t k = 0, q;
    unsigned rk;
    f->macro = base;
    names[k] = f->cname, where[k++] = members;
    if (r == ROLE_LIST)
        names[k] = cat(p, f->cname, "_frames", ""), where[k++] = members;
    if (f->kind != FC_KIND_FIXED)
        names[k] = cat(p, f->cname, "_count", ""), where[k++] = members;
    if (f->kind == FC_KIND_SPARSE) {
        names[k] = cat(p, f->cname, "_indices", ""), where[k++] = members;
        names[k] = cat(p, base, "_RANK", ""), where[k++] = globals;
    }
    if (f->kind == FC_KIND_RAGGED) {
        unsigned pq;
        names[k] = cat(p, base, "_PARTS", ""), where[k++] = globals;
        for (pq = 0; pq < f->nparts; pq++) {
            char num[32];
            snprintf(num, sizeof num, "%u", pq);
            names[k] = cat(p, f->cname, "_rows", num), where[k++] = members;
            names[k] = cat(p, f->cname, "_splits", num), where[k++] = members;
            names[k] = cat(p, cat(p, base, "_ROWS", num), "_MAX", ""), where[k++] = globals;
        }
    }
    names[k] = base, where[k++] = globals;
    names[k] = cat(p, base, "_SIZE", ""), where[k++] = globals;
    if (f->kind != FC_KIND_FIXED)
        names[k] = cat(p, base, "_MAX", ""), where[k++] = globals;
    if (r == ROLE_LIST)
        names[k] = cat(p, base, "_FRAMES_MAX", ""), where[k++] = globals;
    for (rk = 0; rk < f->rank; rk++) {
        char num[32];
        snprintf(num, sizeof num, "_DIM%u", rk);
        names[k] = cat(p, base, num, ""), where[k++] = globals;
    }
    if (f->has_default)
        names[k] = cat(p, m->c_type, "_default_", f->cname), where[k++] = globals;
    if (f->hash_buckets > 0 || f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED)
        names[k] = cat(p, m->c_type, "_extra_", f->cname), where[k++] = globals;
    if (f->hash_buckets > 0) {
        names[k] = cat(p, f->cname, "_bucket", ""), where[k++] = members;
        names[k] = cat(p, base, "_BUCKETS", ""), where[k++] = globals;
    }
    if (f->hot != 0)
        names[k] = cat(p, f->cname, "_hot", ""), where[k++] = members;
    for (q = 0; q < k; q++)
        if (!sym_add(p, d, where[q], names[q], owner, a->key_loc))
            return 0;
    return 1;
}

/* Checks one feature of a group (the features of an example, the context or
 * the feature lists: keys are unique within a group) and adds its generated
 * names.  f is group[i]. */
static int check_feature(pool *p, diag *d, schema_message *m, schema_feature *group, size_t i,
                         const ast_feature *a, role r, symtab *members, symtab *globals,
                         uint64_t *storage)
{
    schema_feature *f = &group[i];
    uint64_t bytes;
    f->ast = a;
    f->key = a->key;
    f->key_len = a->key_len;
    f->list = r == ROLE_LIST;
    if (!check_feature_key(d, m, group, i, a, r) || !check_feature_kind(p, d, m, f, a, r))
        return 0;
    bytes = feature_storage(f, r);
    f->storage = bytes > FEATC_MAX_STORAGE ? (size_t)FEATC_MAX_STORAGE + 1 : (size_t)bytes;
    *storage += bytes;
    return add_feature_names(p, d, m, f, a, r, members, globals);
}

/* Indices of group sorted by key bytes: TensorFlow reports missing features
 * in that order. */
static void sort_by_key(const schema_feature *group, size_t n, uint16_t *order)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        order[i] = (uint16_t)i;
    for (i = 1; i < n; i++) {
        uint16_t x = order[i];
        j = i;
        while (j > 0 && key_cmp(&group[order[j - 1]], &group[x]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
}

static size_t count_features(const ast_feature *a)
{
    size_t n = 0;
    for (; a != NULL; a = a->next)
        n++;
    return n;
}

/* The header of `feature_lists max N policies {`. */
static int check_lists_block(diag *d, schema_message *m, const ast_block *b, int *allow_missing,
                             int *uniform)
{
    const ast_attr *t, *u;
    uint64_t v;
    int ok = 1;
    if (b->max_text == NULL) {
        fcc_diag_error(d, b->loc,
                       "feature_lists needs a bound on the frames of a sequence: write "
                       "'feature_lists max N {'");
        ok = 0;
    } else if (!parse_u64(b->max_text, &v) || v > FEATC_MAX_ELEMENTS) {
        fcc_diag_error(d, b->max_loc, "frame bound %s is larger than the limit of %u", b->max_text,
                       (unsigned)FEATC_MAX_ELEMENTS);
        ok = 0;
    } else if (v == 0) {
        fcc_diag_error(d, b->max_loc, "a frame bound of 0 leaves no room for any frame");
        ok = 0;
    } else {
        m->max_frames = (size_t)v;
    }
    for (t = b->attrs; t != NULL; t = t->next) {
        for (u = b->attrs; u != t; u = u->next)
            if (strcmp(u->name, t->name) == 0)
                break;
        if (u != t) {
            fcc_diag_error(d, t->loc, "'%s' is given twice", t->name);
            ok = 0;
        } else if (strcmp(t->name, "allow_missing") == 0) {
            *allow_missing = 1;
        } else if (strcmp(t->name, "uniform") == 0) {
            *uniform = 1;
        } else if (strcmp(t->name, "aligned") == 0) {
            m->aligned = 1;
        } else {
            fcc_diag_error(d, t->loc,
                           "'%s' belongs to a bytes or int64 feature, not to the feature_lists "
                           "header (which takes 'allow_missing', 'aligned' or 'uniform')",
                           t->name);
            ok = 0;
        }
    }
    return ok;
}

/* The field among group[0..n) (features or feature lists) that reads key
 * from the data (built SparseFeatures and RaggedFeatures read no key of
 * their own), or n. */
static size_t key_field(const schema_feature *group, size_t n, const ast_key *key)
{
    size_t j;
    for (j = 0; j < n; j++) {
        const schema_feature *g = &group[j];
        if (g->kind != FC_KIND_SPARSE && g->kind != FC_KIND_RAGGED && g->key_len == key->len &&
            memcmp(g->key, key->key, key->len) == 0)
            break;
    }
    return j;
}

/* Adds a hidden VarLen field for key at group[*n] (room was made for it),
 * read only for a SparseFeature (why 1) or a RaggedFeature (2); in
 * m->lists, a VarLen feature list. */
static int add_hidden(pool *p, diag *d, schema_message *m, schema_feature *group, size_t *n,
                      const ast_key *key, fc_type type, size_t max, int why, const char *cname,
                      const char *owner, symtab *members, symtab *globals)
{
    schema_feature *h = &group[(*n)++];
    memset(h, 0, sizeof *h);
    if (group == m->lists) {
        h->list = 1;
        h->max_frames = m->max_frames;
        if (!sym_add(p, d, members, cat(p, cname, "_frames", ""), owner, key->loc) ||
            !sym_add(p, d, globals, cat(p, cat(p, m->upper, "_", upper_of(p, cname)),
                                        "_FRAMES_MAX", ""),
                     owner, key->loc))
            return 0;
    }
    h->key = key->key;
    h->key_len = key->len;
    h->type = type;
    h->kind = FC_KIND_VARLEN;
    h->elems = 1;
    h->max = max;
    h->hidden = why;
    h->cname = cname;
    h->macro = cat(p, m->upper, "_", upper_of(p, h->cname));
    if (p->failed)
        return 0;
    return sym_add(p, d, members, h->cname, owner, key->loc) &&
           sym_add(p, d, members, cat(p, h->cname, "_count", ""), owner, key->loc) &&
           sym_add(p, d, globals, h->macro, owner, key->loc) &&
           sym_add(p, d, globals, cat(p, h->macro, "_MAX", ""), owner, key->loc);
}

/* Resolves the index and value keys of SparseFeature f (field number fi)
 * to fields: a VarLen feature of the spec with that key and type is read
 * once for both (TensorFlow allows re-using a key with the same dtype); any
 * other declaration of the key is an error (TensorFlow: "Dense and sparse
 * keys must not intersect", "Conflicting type"); otherwise a hidden VarLen
 * field is added for it at m->features[*n]. */
static int resolve_sparse(pool *p, diag *d, schema_message *m, size_t fi, size_t *n,
                          symtab *members, symtab *globals)
{
    schema_feature *f = &m->features[fi];
    const ast_key *k = f->ast->index_keys;
    unsigned slot;
    for (slot = 0; slot <= f->rank; slot++, k = k != NULL ? k->next : NULL) {
        const ast_key *key = slot < f->rank ? k : f->ast->value_key;
        fc_type want = slot < f->rank ? FC_TYPE_INT64 : f->type;
        const char *role_word = slot < f->rank ? "index" : "value";
        size_t j = key_field(m->features, *n, key);
        if (j < *n) {
            schema_feature *g = &m->features[j];
            if (g->hidden == 2) {
                fcc_diag_error(d, key->loc,
                               "%s key \"%.*s\" of SparseFeature '%s' is read by a RaggedFeature "
                               "(TensorFlow: Ragged and sparse keys must not intersect)",
                               role_word, (int)key->len, key->key, f->cname);
                return 0;
            }
            if (g->kind != FC_KIND_VARLEN) {
                fcc_diag_error(d, key->loc,
                               "%s key \"%.*s\" of SparseFeature '%s' is declared as a %s feature "
                               "'%s'; a key read by a SparseFeature must be VarLen (TensorFlow: "
                               "Dense "
                               "and sparse keys must not intersect)",
                               role_word, (int)key->len, key->key, f->cname,
                               g->kind == FC_KIND_ROWS ? "FixedLenSequence" : "FixedLen", g->cname);
                return 0;
            }
            if (g->type != want) {
                fcc_diag_error(d, key->loc,
                               "Conflicting type %s vs %s for feature %.*s: %s key of "
                               "SparseFeature "
                               "'%s', and VarLen feature '%s'",
                               fcc_type_word(want), fcc_type_word(g->type), (int)key->len,
                               key->key, role_word, f->cname, g->cname);
                return 0;
            }
            if (g->hidden && g->max < f->max)
                g->max = f->max;
        } else {
            char num[32];
            snprintf(num, sizeof num, "%u", slot);
            if (!add_hidden(p, d, m, m->features, n, key, want, f->max, 1,
                            slot < f->rank ? cat(p, f->cname, "_index", num)
                                           : cat(p, f->cname, "_value", ""),
                            cat(p, "SparseFeature '", f->cname, "'"), members, globals))
                return 0;
        }
        f->sparse_fields[slot] = (uint16_t)j;
    }
    return 1;
}

/* Resolves the value and partition keys of RaggedFeature f = group[fi]
 * (an Example's or context's features, or the feature lists) to hidden
 * VarLen fields (lists), shared with other RaggedFeatures reading the same
 * key with the same type; a key the spec declares otherwise, or that a
 * SparseFeature reads, is an error in TensorFlow's words. */
static int resolve_ragged(pool *p, diag *d, schema_message *m, schema_feature *group, size_t fi,
                          size_t *n, symtab *members, symtab *globals)
{
    schema_feature *f = &group[fi];
    int list = group == m->lists;
    ast_key own;
    unsigned slot;
    own.key = f->key;
    own.len = f->key_len;
    own.loc = f->ast->key_loc;
    own.next = NULL;
    for (slot = 0; slot <= f->nparts; slot++) {
        const ast_key *key;
        fc_type want = slot == 0 ? f->type : FC_TYPE_INT64;
        size_t max, j;
        const struct schema_part *sp = slot > 0 ? &f->parts[slot - 1] : NULL;
        char num[32];
        if (sp != NULL && sp->kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        key = slot == 0 ? (f->ast->value_key != NULL ? f->ast->value_key : &own) : sp->ast->key;
        /* values: the bound; row_splits: rows + 1; value_rowids: one per inner value */
        max = slot == 0 ? f->max
              : sp->kind == FC_PART_ROW_SPLITS ? sp->max_rows + 1
              : sp->kind == FC_PART_VALUE_ROWIDS
                  ? (slot == f->nparts ? f->max : f->parts[slot].max_rows)
                  : sp->max_rows;
        j = key_field(group, *n, key);
        if (j < *n) {
            schema_feature *g = &group[j];
            if (g->hidden != 2) {
                fcc_diag_error(d, key->loc,
                               "key \"%.*s\" of RaggedFeature '%s' is %s '%s' (TensorFlow: %s "
                               "keys must not intersect)",
                               (int)key->len, key->key, f->cname,
                               g->hidden == 1 ? "also read for a SparseFeature, as its field"
                               : list         ? "also declared as feature list"
                                              : "also declared as feature",
                               g->cname,
                               g->hidden == 1 || g->kind == FC_KIND_VARLEN ? "Ragged and sparse"
                                                                       : "Dense and ragged");
                return 0;
            }
            if (g->type != want) {
                fcc_diag_error(d, key->loc, "Conflicting type %s vs %s for feature %.*s",
                               fcc_type_word(want), fcc_type_word(g->type), (int)key->len,
                               key->key);
                return 0;
            }
            if (g->max < max)
                g->max = max;
        } else {
            snprintf(num, sizeof num, "%u", slot - 1);
            if (!add_hidden(p, d, m, group, n, key, want, max, 2,
                            slot == 0 ? cat(p, f->cname, "_value", "")
                                      : cat(p, f->cname, "_part", num),
                            cat(p, "RaggedFeature '", f->cname, "'"), members, globals))
                return 0;
        }
        if (slot == 0)
            f->sparse_fields[0] = (uint16_t)j;
        else
            f->parts[slot - 1].field = (uint16_t)j;
    }
    return 1;
}

/* Storage of the hidden fields (or lists) of group[0..n), once their
 * bounds are final. */
static uint64_t hidden_storage(schema_feature *group, size_t n)
{
    uint64_t total = 0;
    size_t i;
    for (i = 0; i < n; i++)
        if (group[i].hidden) {
            schema_feature *h = &group[i];
            uint64_t b = (uint64_t)h->max * elem_bytes(h->type) + sizeof(size_t);
            if (h->list)
                b = b * h->max_frames + sizeof(size_t);
            h->storage = b > FEATC_MAX_STORAGE ? (size_t)FEATC_MAX_STORAGE + 1 : (size_t)b;
            total += b;
        }
    return total;
}

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
    if (!check_c_name(d, a->key_loc, a->key, "state"))
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
        if (dm->unknown || !parse_u64(dm->text, &v) || v == 0 || v > FEATC_MAX_ELEMENTS) {
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
    st->macro = upper_of(p, cat(p, m->c_type, "_STATE_", a->key));
    owner = cat(p, "state '", a->key, "'");
    return sym_add(p, d, globals, st->macro, owner, a->key_loc) &&
           sym_add(p, d, globals, cat(p, st->macro, "_SIZE", ""), owner, a->key_loc) &&
           sym_add(p, d, globals, cat(p, m->c_type, "_seg_save_", a->key), owner, a->key_loc);
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
        per = mul_sat(f->kind == FC_KIND_VARLEN ? f->max : f->elems, elem_bytes(f->type));
        total = add_sat(total, mul_sat(b, per + 8));
    }
    for (i = 0; i < m->nlists; i++) {
        const schema_feature *f = &m->lists[i];
        per = mul_sat(f->kind == FC_KIND_VARLEN ? f->max : f->elems, elem_bytes(f->type));
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
    if (!parse_u64(t->value, &v) || v > (k == 4 ? FEATC_MAX_STORAGE : FEATC_MAX_SEGMENT_PARAM)) {
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
    const char *owner = cat(p, "the segments of '", m->name, "'");
    size_t k;
    for (k = 0; fns[k] != NULL; k++)
        if (!sym_add(p, d, globals, cat(p, m->c_type, fns[k], ""), owner, b->loc))
            return 0;
    for (k = 0; macros[k] != NULL; k++)
        if (!sym_add(p, d, globals, cat(p, m->upper, macros[k], ""), owner, b->loc))
            return 0;
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
    m->c_type = cat(p, s->package, "_", am->name);
    m->upper = upper_of(p, m->c_type);
    if (p->failed)
        return 0;
    if (!check_c_name(d, am->name_loc, am->name, word))
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
            if (!check_lists_block(d, m, lists_block, &all_missing, &all_uniform))
                return 0;
        }
    } else {
        ctx_features = am->features;
    }
    n = count_features(ctx_features);
    nl = count_features(list_features);
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
    sym_add(p, d, &members, "present", "the presence bits", am->name_loc);
    for (a = ctx_features, i = 0; a != NULL; a = a->next, i++)
        if (!check_feature(p, d, m, m->features, i, a, m->sequence ? ROLE_CONTEXT : ROLE_EXAMPLE,
                           &members, globals, &storage))
            ok = 0;
    total = n;
    for (i = 0; ok && i < n; i++)
        if ((m->features[i].kind == FC_KIND_SPARSE &&
             !resolve_sparse(p, d, m, i, &total, &members, globals)) ||
            (m->features[i].kind == FC_KIND_RAGGED &&
             !resolve_ragged(p, d, m, m->features, i, &total, &members, globals)))
            ok = 0;
    if (ok && total > n) {
        if (total > FEATC_MAX_FEATURES) {
            fcc_diag_error(d, am->name_loc, "%s '%s' reads %zu features; the limit is %d", word,
                           am->name, total, FEATC_MAX_FEATURES);
            return 0;
        }
        m->nfeatures = n = total;
        storage += hidden_storage(m->features, n);
    }
    for (a = list_features, i = 0; a != NULL; a = a->next, i++) {
        schema_feature *f = &m->lists[i];
        if (!check_feature(p, d, m, m->lists, i, a, ROLE_LIST, &members, globals, &storage)) {
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
            !resolve_ragged(p, d, m, m->lists, i, &total, &members, globals))
            ok = 0;
    if (ok && total > nl) {
        if (n + total > FEATC_MAX_FEATURES) {
            fcc_diag_error(d, am->name_loc, "%s '%s' reads %zu features; the limit is %d", word,
                           am->name, n + total, FEATC_MAX_FEATURES);
            return 0;
        }
        m->nlists = nl = total;
        storage += hidden_storage(m->lists, nl);
    }
    if (storage > FEATC_MAX_STORAGE && ok) {
        fcc_diag_error(d, am->name_loc,
                       "%s '%s' needs %llu bytes of storage; the limit is %u MiB (lower the "
                       "bounds or shapes)",
                       word, am->name, (unsigned long long)storage,
                       (unsigned)(FEATC_MAX_STORAGE >> 20));
        ok = 0;
    }
    if (ok) {
        sort_by_key(m->features, n, m->missing_order);
        sort_by_key(m->lists, nl, m->list_missing_order);
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
        if (!check_c_name(d, ast->package_loc, ast->package, "package"))
            return NULL;
    } else {
        s->package = default_package;
        if (default_package == NULL || !is_ident(default_package, strlen(default_package)) ||
            default_package[0] == '_' || strstr(default_package, "__") != NULL ||
            is_reserved(default_package)) {
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
    s->upper = upper_of(p, s->package);
    for (am = ast->messages; am != NULL; am = am->next)
        n++;
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
        const symbol *was = sym_get(&names, am->name);
        if (was != NULL) {
            fcc_diag_error(d, am->name_loc, "duplicate message name '%s'", am->name);
            fcc_diag_note(d, was->loc, "previous definition here");
            ok = 0;
            m->name = am->name;
            m->ast = am;
            continue;
        }
        (void)sym_put(p, &names, am->name, am->name, am->name_loc);
        {
            const char *owner = cat(p, am->kind == AM_SEQUENCE_EXAMPLE ? "sequence_example '"
                                                                      : "example '",
                                    am->name, "'");
            const char *lower = cat(p, s->package, "_", am->name);
            const char *upper = upper_of(p, lower);
            size_t k;
            int clash = 0;
            for (k = 0; message_suffixes[k] != NULL && !clash; k++)
                clash = !sym_add(p, d, &globals, cat(p, lower, message_suffixes[k], ""), owner,
                                 am->name_loc);
            for (k = 0; message_macros[k] != NULL && !clash; k++)
                clash = !sym_add(p, d, &globals, cat(p, upper, message_macros[k], ""), owner,
                                 am->name_loc);
            if (clash)
                ok = 0;
        }
        if (!check_message(p, d, s, m, am, &globals))
            ok = 0;
    }
    return ok && d->errors == 0 && !p->failed ? s : NULL;
}
