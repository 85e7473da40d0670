/* Protocol buffers' text format as a tree of fields: see pbtxt.h. */
#include "pbtxt.h"

#include <stdio.h>
#include <string.h>

typedef enum tok_kind {
    T_END,
    T_IDENT,
    T_NUMBER,
    T_STRING,
    T_PUNCT, /* one of { } < > [ ] : , ; - / . */
    T_BAD    /* a byte no token starts with, or a string cut short */
} tok_kind;

typedef struct lexer {
    pool *p;
    diag *d;
    const char *s;
    size_t n, at;
    int line, col; /* of s[at] */
    /* the current token */
    tok_kind kind;
    const char *text; /* T_IDENT, T_NUMBER: in s; T_STRING: the bytes, in the pool */
    size_t len;
    char punct;
    spec_loc loc;
    const char *why; /* T_BAD */
} lexer;

static int is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hex_value(int c)
{
    return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void advance(lexer *x, size_t k)
{
    while (k-- > 0 && x->at < x->n) {
        if (x->s[x->at] == '\n') {
            x->line++;
            x->col = 1;
        } else {
            x->col++;
        }
        x->at++;
    }
}

static void skip_space(lexer *x)
{
    while (x->at < x->n) {
        char c = x->s[x->at];
        if (c == '#') {
            while (x->at < x->n && x->s[x->at] != '\n')
                advance(x, 1);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            advance(x, 1);
        } else {
            break;
        }
    }
}

/* Appends code point cp as UTF-8 (a \u or \U escape); with o NULL, only
 * its length. */
static size_t put_utf8(char *o, unsigned long cp)
{
    if (o == NULL)
        return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* One quoted string at s[at] into o, or with o NULL only its length (the
 * caller measures first, then allocates that, so that a string takes the
 * memory of its value and nothing more).  Returns the bytes written, or
 * (size_t)-1 with x->why. */
#define PUT(c)           \
    do {                 \
        if (o != NULL)   \
            o[k] = (c);  \
        k++;             \
    } while (0)
static size_t string_body(lexer *x, char *o)
{
    char q = x->s[x->at];
    size_t k = 0;
    advance(x, 1);
    for (;;) {
        char c;
        if (x->at >= x->n || x->s[x->at] == '\n') {
            x->why = "a string without its closing quote";
            return (size_t)-1;
        }
        c = x->s[x->at];
        if (c == q) {
            advance(x, 1);
            return k;
        }
        if (c != '\\') {
            PUT(c);
            advance(x, 1);
            continue;
        }
        if (x->at + 1 >= x->n) {
            x->why = "a string without its closing quote";
            return (size_t)-1;
        }
        c = x->s[x->at + 1];
        advance(x, 2);
        switch (c) {
        case 'n': PUT('\n'); break;
        case 't': PUT('\t'); break;
        case 'r': PUT('\r'); break;
        case 'a': PUT('\a'); break;
        case 'b': PUT('\b'); break;
        case 'f': PUT('\f'); break;
        case 'v': PUT('\v'); break;
        case '\\': case '\'': case '"': case '?': PUT(c); break;
        case 'x': case 'X': {
            unsigned v = 0, i = 0;
            while (i < 2 && x->at < x->n && is_hex((unsigned char)x->s[x->at])) {
                v = v * 16 + (unsigned)hex_value((unsigned char)x->s[x->at]);
                advance(x, 1);
                i++;
            }
            if (i == 0) {
                x->why = "\\x without a hex digit";
                return (size_t)-1;
            }
            PUT((char)v);
            break;
        }
        case 'u': case 'U': {
            unsigned long v = 0;
            unsigned i, want = c == 'u' ? 4 : 8;
            for (i = 0; i < want; i++) {
                if (x->at >= x->n || !is_hex((unsigned char)x->s[x->at])) {
                    x->why = c == 'u' ? "\\u needs 4 hex digits" : "\\U needs 8 hex digits";
                    return (size_t)-1;
                }
                v = v * 16 + (unsigned long)hex_value((unsigned char)x->s[x->at]);
                advance(x, 1);
            }
            if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
                x->why = "an escape that is not a Unicode scalar value";
                return (size_t)-1;
            }
            k += put_utf8(o != NULL ? o + k : NULL, v); /* at most 4 bytes for 6 or 10 read */
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned v = (unsigned)(c - '0'), i = 1;
                while (i < 3 && x->at < x->n && x->s[x->at] >= '0' && x->s[x->at] <= '7') {
                    v = v * 8 + (unsigned)(x->s[x->at] - '0');
                    advance(x, 1);
                    i++;
                }
                if (v > 255) {
                    x->why = "an octal escape over \\377";
                    return (size_t)-1;
                }
                PUT((char)v);
                break;
            }
            x->why = "an unknown escape in a string";
            return (size_t)-1;
        }
    }
}
#undef PUT

/* Reads the next token into x. */
static void next(lexer *x)
{
    char c;
    skip_space(x);
    x->loc.first_line = x->loc.last_line = x->line;
    x->loc.first_column = x->col;
    x->text = x->s + x->at;
    x->len = 0;
    if (x->at >= x->n) {
        x->kind = T_END;
        x->loc.last_column = x->col;
        return;
    }
    c = x->s[x->at];
    if (is_alpha((unsigned char)c)) {
        size_t k = x->at;
        while (k < x->n && (is_alpha((unsigned char)x->s[k]) || is_digit((unsigned char)x->s[k])))
            k++;
        x->kind = T_IDENT;
        x->len = k - x->at;
        advance(x, x->len);
    } else if (is_digit((unsigned char)c) || (c == '.' && x->at + 1 < x->n &&
                                              is_digit((unsigned char)x->s[x->at + 1]))) {
        size_t k = x->at;
        /* digits, letters (0x, e, f suffixes), '.', and a sign after an
         * exponent: checked when the value is used */
        while (k < x->n) {
            char d = x->s[k];
            if (is_digit((unsigned char)d) || is_alpha((unsigned char)d) || d == '.')
                k++;
            else if ((d == '-' || d == '+') && (x->s[k - 1] == 'e' || x->s[k - 1] == 'E') &&
                     !(x->s[x->at] == '0' && k > x->at + 1 && (x->s[x->at + 1] | 0x20) == 'x'))
                k++;
            else
                break;
        }
        x->kind = T_NUMBER;
        x->len = k - x->at;
        advance(x, x->len);
    } else if (c == '"' || c == '\'') {
        /* adjacent strings are one value: measured, then read into
         * memory of that size (x is put back between the two passes) */
        lexer start = *x;
        size_t k = 0, got;
        char *o = NULL;
        int pass;
        for (pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                o = (char *)fcc_pool_alloc(x->p, k + 1);
                if (o == NULL) {
                    x->kind = T_BAD;
                    x->why = "out of memory";
                    return;
                }
                *x = start;
                k = 0;
            }
            for (;;) {
                got = string_body(x, o != NULL ? o + k : NULL);
                if (got == (size_t)-1) {
                    x->kind = T_BAD;
                    break;
                }
                k += got;
                skip_space(x);
                if (x->at >= x->n || (x->s[x->at] != '"' && x->s[x->at] != '\'')) {
                    x->kind = T_STRING;
                    break;
                }
            }
            if (x->kind == T_BAD)
                break;
        }
        if (o == NULL) { /* a bad string: its text is not used */
            x->text = "";
            x->len = 0;
        } else {
            o[k] = '\0';
            x->text = o;
            x->len = k;
        }
    } else if (strchr("{}<>[]:,;-/.", c) != NULL) {
        x->kind = T_PUNCT;
        x->punct = c;
        x->len = 1;
        advance(x, 1);
    } else {
        x->kind = T_BAD;
        x->why = "a character that starts no token";
        x->len = 1;
        advance(x, 1);
    }
    x->loc.last_line = x->line;
    x->loc.last_column = x->col > 1 ? x->col - 1 : 1;
    if (x->loc.last_line != x->loc.first_line) /* a string over lines ends where it started */
        x->loc.last_line = x->loc.first_line, x->loc.last_column = x->loc.first_column;
}

static int is_punct(const lexer *x, char c)
{
    return x->kind == T_PUNCT && x->punct == c;
}

static const char *describe(const lexer *x, char *buf, size_t cap)
{
    switch (x->kind) {
    case T_END: return "the end of the file";
    case T_STRING: return "a string";
    case T_NUMBER: return "a number";
    case T_IDENT:
        snprintf(buf, cap, "'%.*s'", (int)(x->len > 40 ? 40 : x->len), x->text);
        return buf;
    case T_PUNCT:
        snprintf(buf, cap, "'%c'", x->punct);
        return buf;
    default: return x->why;
    }
}

static void expected(lexer *x, const char *what)
{
    char buf[64];
    if (x->kind == T_BAD)
        fcc_diag_error(x->d, x->loc, "%s", x->why);
    else
        fcc_diag_error(x->d, x->loc, "expected %s, got %s", what, describe(x, buf, sizeof buf));
}

static pt_field *new_field(lexer *x)
{
    pt_field *f = (pt_field *)fcc_pool_alloc(x->p, sizeof *f);
    if (f == NULL)
        fcc_diag_fail(x->d, "out of memory while reading the text format");
    return f;
}

static int message_body(lexer *x, pt_field *m, char close, int depth);

/* A value after `name:` (or an item of a list) into f; f->name is set. */
static int value(lexer *x, pt_field *f, int depth)
{
    f->vloc = x->loc;
    if (is_punct(x, '{') || is_punct(x, '<')) {
        char close = x->punct == '{' ? '}' : '>';
        if (depth >= PT_MAX_DEPTH) {
            fcc_diag_error(x->d, x->loc, "messages nested deeper than %d levels", PT_MAX_DEPTH);
            return -1;
        }
        f->kind = PT_MESSAGE;
        next(x);
        return message_body(x, f, close, depth + 1);
    }
    if (is_punct(x, '-')) {
        f->neg = 1;
        next(x);
        if (x->kind != T_NUMBER && x->kind != T_IDENT) {
            expected(x, "a number after '-'");
            return -1;
        }
    }
    if (x->kind == T_NUMBER || x->kind == T_IDENT || x->kind == T_STRING) {
        if (x->kind == T_STRING && f->neg) {
            expected(x, "a number after '-'");
            return -1;
        }
        f->kind = x->kind == T_NUMBER ? PT_NUMBER : x->kind == T_IDENT ? PT_IDENT : PT_STRING;
        /* (a string's bytes are already the pool's, with a NUL after) */
        f->text = x->kind == T_STRING ? x->text : fcc_pool_strndup(x->p, x->text, x->len);
        if (f->text == NULL) {
            fcc_diag_fail(x->d, "out of memory while reading the text format");
            return -1;
        }
        f->len = x->len;
        if (!f->neg)
            f->vloc = x->loc;
        else
            f->vloc.last_column = x->loc.last_column;
        next(x);
        return 0;
    }
    expected(x, "a value");
    return -1;
}

/* `[a.b.c]` or `[type.googleapis.com/a.b]`: the name as written. */
static const char *bracket_name(lexer *x)
{
    size_t from = x->at, to;
    next(x);
    while (x->kind == T_IDENT || is_punct(x, '.') || is_punct(x, '/'))
        next(x);
    if (!is_punct(x, ']')) {
        expected(x, "']' after an extension's name");
        return NULL;
    }
    to = x->at - 1;
    next(x);
    return fcc_pool_strndup(x->p, x->s + from - 1, to - from + 2);
}

/* A field `name` (written at `at`) with the value at the lexer, linked at
 * *tail; the next link, or NULL after an error. */
static pt_field **add_field(lexer *x, const char *name, spec_loc at, int depth, pt_field **tail)
{
    pt_field *f = new_field(x);
    if (f == NULL)
        return NULL;
    f->name = name;
    f->loc = at;
    if (value(x, f, depth) != 0)
        return NULL;
    *tail = f;
    return &f->next;
}

/* Fields up to `close` ('}' or '>'; 0: the end of the file). */
static int message_body(lexer *x, pt_field *m, char close, int depth)
{
    pt_field **tail = &m->fields;
    for (;;) {
        const char *name;
        spec_loc at = x->loc;
        if (close == 0 ? x->kind == T_END : is_punct(x, close)) {
            next(x);
            return 0;
        }
        if (x->kind == T_IDENT) {
            name = fcc_pool_strndup(x->p, x->text, x->len);
            next(x);
        } else if (is_punct(x, '[')) {
            name = bracket_name(x);
            if (name == NULL)
                return -1;
        } else {
            expected(x, close == 0 ? "a field name" : "a field name or the message's end");
            return -1;
        }
        if (name == NULL) {
            fcc_diag_fail(x->d, "out of memory while reading the text format");
            return -1;
        }
        if (is_punct(x, ':')) {
            next(x);
        } else if (!is_punct(x, '{') && !is_punct(x, '<')) {
            expected(x, "':' or '{' after a field name");
            return -1;
        }
        if (is_punct(x, '[')) { /* a list: each item a field of its own */
            next(x);
            while (!is_punct(x, ']')) {
                if ((tail = add_field(x, name, at, depth, tail)) == NULL)
                    return -1;
                if (is_punct(x, ','))
                    next(x);
                else if (!is_punct(x, ']')) {
                    expected(x, "',' or ']' in a list");
                    return -1;
                }
            }
            next(x);
        } else if ((tail = add_field(x, name, at, depth, tail)) == NULL) {
            return -1;
        }
        if (is_punct(x, ',') || is_punct(x, ';'))
            next(x);
    }
}

pt_field *fcc_pbtxt_parse(pool *p, diag *d)
{
    lexer x;
    pt_field *top;
    memset(&x, 0, sizeof x);
    x.p = p;
    x.d = d;
    x.s = d->src;
    x.n = d->src_len;
    x.line = x.col = 1;
    top = (pt_field *)fcc_pool_alloc(p, sizeof *top);
    if (top == NULL) {
        fcc_diag_fail(d, "out of memory while reading the text format");
        return NULL;
    }
    top->kind = PT_MESSAGE;
    top->name = "";
    next(&x);
    if (message_body(&x, top, 0, 0) != 0)
        return NULL;
    return top;
}
