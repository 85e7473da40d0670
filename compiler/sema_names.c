/* Semantic checks (sema.h): C names, reserved words, and the symbol table
 * of generated identifiers that catches clashes before the C compiler does. */
#include "sema.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

/* TensorFlow's order of keys (Python sorts them: bytewise, a prefix first). */
int fcc_key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen;
}


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

int fcc_is_reserved(const char *s)
{
    size_t i;
    for (i = 0; reserved_words[i] != NULL; i++)
        if (strcmp(s, reserved_words[i]) == 0)
            return 1;
    return 0;
}

int fcc_is_ident(const char *s, size_t n)
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
    return fcc_is_ident(s, strlen(s)) && s[0] != '_' && strstr(s, "__") == NULL && !fcc_is_reserved(s);
}

/* A name that becomes part of C identifiers.  what: "package", "example", "field". */
int fcc_check_c_name(diag *d, spec_loc loc, const char *s, const char *what)
{
    if (!fcc_is_ident(s, strlen(s))) {
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
    if (fcc_is_reserved(s)) {
        fcc_diag_error(d, loc, "%s name '%s' is a C or C++ keyword", what, s);
        return 0;
    }
    return 1;
}

char *fcc_upper_of(pool *p, const char *s)
{
    size_t i, n = strlen(s);
    char *u = fcc_pool_strndup(p, s, n);
    if (u != NULL)
        for (i = 0; i < n; i++)
            u[i] = (char)toupper((unsigned char)u[i]);
    return u;
}

char *fcc_cat(pool *p, const char *a, const char *b, const char *c)
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
const symbol *fcc_sym_get(const symtab *t, const char *name)
{
    size_t i;
    if (t->cap == 0)
        return NULL;
    i = sym_slot(t, name);
    return t->index[i] != 0 ? &t->v[t->index[i] - 1] : NULL;
}

/* Adds a name not in t; 0 when out of memory (the pool says so). */
int fcc_sym_put(pool *p, symtab *t, const char *name, const char *owner, spec_loc loc)
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
int fcc_sym_add(pool *p, diag *d, symtab *t, const char *name, const char *owner,
                spec_loc loc)
{
    const symbol *was;
    if (name == NULL || owner == NULL)
        return 1;
    was = fcc_sym_get(t, name);
    if (was != NULL) {
        fcc_diag_error(d, loc, "generated name '%s' of %s clashes with the one of %s", name, owner,
                       was->owner);
        fcc_diag_note(d, was->loc, "%s is defined here", was->owner);
        return 0;
    }
    (void)fcc_sym_put(p, t, name, owner, loc);
    return 1;
}
