/* Semantic checks (sema.h): numbers, and defaults checked against their
 * feature's type and shape, with TensorFlow's texts. */
#include "sema.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ numbers */

/* Parses a decimal or 0x integer token into *v; 0 on overflow of uint64. */
int fcc_parse_u64(const char *s, uint64_t *v)
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
        if (!fcc_parse_u64(v->text, &u) || (!v->neg && u > (uint64_t)INT64_MAX) ||
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
            if (!fcc_parse_u64(v->text, &u)) {
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
void fcc_tf_unknown_dims(diag *d, spec_loc loc, const schema_feature *f, const ast_feature *a)
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

int fcc_check_default(pool *p, diag *d, schema_feature *f, const ast_value *v)
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
