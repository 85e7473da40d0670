/* The spec grammar.  A pure parser with locations; it builds the syntax tree
 * of spec.h and nothing else: every meaning (types, shapes, defaults, names)
 * is checked in sema.c, where the diagnostics can say what is wrong. */
%require "3.6"
%define api.pure full
%define api.prefix {fcc_yy}
%define api.location.type {spec_loc}
%define parse.error custom
/* lookahead correction: "expecting" lists exactly the tokens that can
 * follow (the lists built last first end in a unit rule, whose default
 * reduction before an unexpected token dropped the ones that could have
 * gone on the list) */
%define parse.lac full
%locations
%expect 0
%param {void *scanner}
%parse-param {struct spec_parse_ctx *ctx}

%code requires {
#include "spec.h"

struct spec_lex_extra {
    pool *pool;
    diag *diag;
    const char *src;
    size_t len, pos;
    int line, col;
    spec_loc comment_loc;
    /* the last two tokens the parser was given: a missing ';' is reported
     * after the one before the lookahead, where it belongs */
    spec_loc before_loc, last_loc;
    char before_text[24], last_text[24];
    unsigned tokens;
};

struct spec_parse_ctx {
    pool *pool;
    diag *diag;
    ast_spec *spec;
    ast_message **msg_tail;
};

struct spec_str {
    const char *text;
    size_t len;
};
}

%code provides {
int fcc_yylex(FCC_YYSTYPE *yylval, spec_loc *yylloc, void *scanner);
}

%code {
static void fcc_yyerror(spec_loc *loc, void *scanner, struct spec_parse_ctx *ctx,
                         const char *msg)
{
    (void)scanner;
    fcc_diag_error(ctx->diag, *loc, "%s", msg);
}

#define NEW(T) ((T *)fcc_pool_alloc(ctx->pool, sizeof(T)))

static ast_value *value_new(struct spec_parse_ctx *ctx, ast_value_kind k, spec_loc loc,
                            const char *text, size_t len, int neg)
{
    ast_value *v = NEW(ast_value);
    if (v != NULL) {
        v->kind = k;
        v->loc = loc;
        v->text = text;
        v->len = len;
        v->neg = neg;
    }
    return v;
}

/* A list built last first, in source order (each kind of node has next). */
#define REVERSE(type, list) reverse_##type(list)
#define DEFINE_REVERSE(type)                                                                       \
    static type *reverse_##type(type *l)                                                           \
    {                                                                                              \
        type *r = NULL;                                                                            \
        while (l != NULL) {                                                                        \
            type *n = l->next;                                                                     \
            l->next = r;                                                                           \
            r = l;                                                                                 \
            l = n;                                                                                 \
        }                                                                                          \
        return r;                                                                                  \
    }
DEFINE_REVERSE(ast_feature)
DEFINE_REVERSE(ast_block)
DEFINE_REVERSE(ast_setting)
DEFINE_REVERSE(ast_attr)
DEFINE_REVERSE(ast_part)
DEFINE_REVERSE(ast_key)
DEFINE_REVERSE(ast_dim)
DEFINE_REVERSE(ast_value)

/* A list value of the items (built last first). */
static ast_value *list_value(struct spec_parse_ctx *ctx, spec_loc loc, ast_value *items_rev)
{
    ast_value *v = value_new(ctx, AV_LIST, loc, NULL, 0, 0), *i;
    items_rev = REVERSE(ast_value, items_rev);
    if (v != NULL) {
        v->items = items_rev;
        for (i = items_rev; i != NULL; i = i->next)
            v->nitems++;
    }
    return v;
}

/* Puts an attribute before a list built last first; returns the list. */
static ast_attr *attr_push(struct spec_parse_ctx *ctx, ast_attr *list, const char *name,
                           spec_loc loc, const char *arg, spec_loc arg_loc)
{
    ast_attr *a = NEW(ast_attr);
    if (a == NULL)
        return list;
    a->name = name;
    a->loc = loc;
    a->arg = arg;
    a->arg_loc = arg_loc;
    a->next = list;
    return a;
}


static ast_setting *setting_new(struct spec_parse_ctx *ctx, const char *word, spec_loc loc,
                                const char *value, spec_loc value_loc, int has_max,
                                ast_feature *state, spec_loc item_loc)
{
    ast_setting *t = NEW(ast_setting);
    if (t != NULL) {
        t->word = word;
        t->loc = loc;
        t->value = value;
        t->value_loc = value_loc;
        t->has_max = has_max;
        t->state = state;
        t->item_loc = item_loc;
    }
    return t;
}

/* Joins two locations into one span. */
static spec_loc span(spec_loc a, spec_loc b)
{
    spec_loc r = a;
    r.last_line = b.last_line;
    r.last_column = b.last_column;
    return r;
}
}

%union {
    struct spec_str str;
    ast_value *value;
    ast_dim *dim;
    ast_feature *feature;
    ast_message *message;
    ast_block *block;
    ast_attr *attr;
    ast_key *key;
    ast_part *part;
    ast_setting *setting;
}

%token END_OF_FILE 0 "end of file"
%token KW_PACKAGE "'package'"
%token KW_EXAMPLE "'example'"
%token KW_SEQUENCE_EXAMPLE "'sequence_example'"
%token KW_CONTEXT "'context'"
%token KW_FEATURE_LISTS "'feature_lists'"
%token KW_SEGMENTS "'segments'"
%token KW_ALLOW_MISSING "'allow_missing'"
%token KW_ALIGNED "'aligned'"
%token KW_UNIFORM "'uniform'"
%token KW_HASH_BUCKETS "'hash_buckets'"
%token KW_ONE_HOT "'one_hot'"
%token KW_MULTI_HOT "'multi_hot'"
%token KW_ALREADY_SORTED "'already_sorted'"
%token KW_SPARSE "'sparse'"
%token KW_RAGGED "'ragged'"
%token KW_PARTITIONS "'partitions'"
%token KW_SPLIT "'split'"
%token KW_INDEX "'index'"
%token KW_VALUE "'value'"
%token KW_AS "'as'"
%token KW_MAX "'max'"
%token <str> IDENT "identifier"
%token <str> INTEGER "integer"
%token <str> FLOATING "floating-point number"
%token <str> STRING "string"

%type <str> name policy
%type <value> value scalar values_rev
%type <dim> dims dims_rev dim
%type <feature> feature features features_rev fkey
%type <block> blocks blocks_rev block
%type <attr> attrs attrs_rev
%type <key> skey skeys skeys_rev index_keys
%type <part> part parts parts_rev
%type <setting> seg_items seg_items_rev seg_item

%%

spec
    : package_opt messages
    ;

package_opt
    : %empty
    | KW_PACKAGE name ';'
        { ctx->spec->package = $2.text; ctx->spec->package_loc = @2; }
    /* a package line without its ';', or with something else than a name:
     * go on at the first message */
    | KW_PACKAGE error
    ;

messages
    : %empty
    | messages message
    ;

message
    : KW_EXAMPLE name '{' features '}'
        {
            ast_message *m = NEW(ast_message);
            if (m != NULL) {
                m->kind = AM_EXAMPLE;
                m->name = $2.text;
                m->name_loc = @2;
                m->loc = span(@1, @5);
                m->features = $4;
                *ctx->msg_tail = m;
                ctx->msg_tail = &m->next;
            }
            yyerrok; /* after its '}', syntax errors are reported again */
        }
    | KW_SEQUENCE_EXAMPLE name '{' blocks '}'
        {
            ast_message *m = NEW(ast_message);
            if (m != NULL) {
                m->kind = AM_SEQUENCE_EXAMPLE;
                m->name = $2.text;
                m->name_loc = @2;
                m->loc = span(@1, @5);
                m->blocks = $4;
                *ctx->msg_tail = m;
                ctx->msg_tail = &m->next;
            }
            yyerrok; /* after its '}', syntax errors are reported again */
        }
    /* anything else: skip to a '}' (a message's end, as likely as any);
     * the yyerrok of a rule that ends in a token it consumed is safe: the
     * parser has moved on, so the next error is reported, not a cascade */
    | error '}'         { yyerrok; }
    ;

/* The blocks of a sequence_example, in source order (sema checks which and
 * how many). */
blocks
    : blocks_rev        { $$ = REVERSE(ast_block, $1); }
    ;

blocks_rev
    : %empty            { $$ = NULL; }
    | blocks_rev block
        { $$ = $1; if ($2 != NULL) { $2->next = $1; $$ = $2; } }
    ;

block
    : KW_CONTEXT '{' features '}'
        {
            $$ = NEW(ast_block);
            if ($$ != NULL) {
                $$->kind = AB_CONTEXT;
                $$->loc = @1;
                $$->features = $3;
            }
            yyerrok;
        }
    | KW_FEATURE_LISTS attrs '{' features '}'
        {
            $$ = NEW(ast_block);
            if ($$ != NULL) {
                $$->kind = AB_FEATURE_LISTS;
                $$->loc = @1;
                $$->attrs = $2;
                $$->features = $4;
            }
            yyerrok;
        }
    | KW_FEATURE_LISTS KW_MAX INTEGER attrs '{' features '}'
        {
            $$ = NEW(ast_block);
            if ($$ != NULL) {
                $$->kind = AB_FEATURE_LISTS;
                $$->loc = @1;
                $$->max_text = $3.text;
                $$->max_loc = @3;
                $$->attrs = $4;
                $$->features = $6;
            }
            yyerrok;
        }
    | KW_SEGMENTS '{' seg_items '}'
        {
            $$ = NEW(ast_block);
            if ($$ != NULL) {
                $$->kind = AB_SEGMENTS;
                $$->loc = @1;
                $$->settings = $3;
            }
            yyerrok;
        }
    /* a block that goes wrong: on after its ';' (a feature outside the
     * blocks) or after its '{ ... }', braces balanced */
    | error ';'         { $$ = NULL; yyerrok; }
    | error '{' skipped '}'
                        { $$ = NULL; yyerrok; }
    ;

/* Tokens passed over after a syntax error, to the '}' that balances the
 * '{' before them: so that the recovery from a block in the wrong place
 * does not stop at that block's own '}' (one error, not a cascade). */
skipped
    : %empty
    | skipped any_token
    | skipped '{' skipped '}'
    ;

any_token
    : KW_PACKAGE | KW_EXAMPLE | KW_SEQUENCE_EXAMPLE | KW_CONTEXT | KW_FEATURE_LISTS
    | KW_SEGMENTS | KW_ALLOW_MISSING | KW_ALIGNED | KW_UNIFORM | KW_HASH_BUCKETS
    | KW_ONE_HOT | KW_MULTI_HOT | KW_ALREADY_SORTED | KW_SPARSE | KW_RAGGED
    | KW_PARTITIONS | KW_SPLIT | KW_INDEX | KW_VALUE | KW_AS | KW_MAX
    | IDENT | INTEGER | FLOATING | STRING
    | '(' | ')' | ',' | '-' | ':' | ';' | '=' | '?' | '[' | ']'
    ;

/* The items of a segments block, in source order; sema says which words
 * exist and what they take. */
seg_items
    : seg_items_rev     { $$ = REVERSE(ast_setting, $1); }
    ;

seg_items_rev
    : %empty            { $$ = NULL; }
    | seg_items_rev seg_item
        { $$ = $1; if ($2 != NULL) { $2->next = $1; $$ = $2; } }
    ;

seg_item
    : IDENT INTEGER ';'
        { $$ = setting_new(ctx, $1.text, @1, $2.text, @2, 0, NULL, span(@1, @3)); }
    | IDENT ';'
        { $$ = setting_new(ctx, $1.text, @1, NULL, @1, 0, NULL, span(@1, @2)); }
    | IDENT KW_MAX INTEGER ';'
        { $$ = setting_new(ctx, $1.text, @1, $3.text, @3, 1, NULL, span(@1, @4)); }
    | IDENT feature
        { $$ = setting_new(ctx, $1.text, @1, NULL, @1, 0, $2, span(@1, @2)); }
    | error ';'         { $$ = NULL; yyerrok; }
    | error             { $$ = NULL; }
    ;

/* Policy words and `hash_buckets N`, in source order; sema says which
 * apply where. */
attrs
    : attrs_rev         { $$ = REVERSE(ast_attr, $1); }
    ;

attrs_rev
    : %empty            { $$ = NULL; }
    | attrs_rev policy  { $$ = attr_push(ctx, $1, $2.text, @2, NULL, @2); }
    | attrs_rev KW_HASH_BUCKETS INTEGER
                        { $$ = attr_push(ctx, $1, "hash_buckets", @2, $3.text, @3); }
    ;

/* Features in source order.  Every list of the grammar is built last
 * first, one step per item, and put in source order once, by the rule
 * above it (a walk to the tail per item was quadratic in 40,000 features). */
features
    : features_rev      { $$ = REVERSE(ast_feature, $1); }
    ;

features_rev
    : %empty            { $$ = NULL; }
    | features_rev feature
        { $$ = $1; if ($2 != NULL) { $2->next = $1; $$ = $2; } }
    ;

feature
    : fkey ':' name shape_opt_into max_opt_into as_opt_into default_opt_into attrs ';'
        {
            $$ = $1;
            if ($$ != NULL) {
                $$->loc = span(@1, @9);
                $$->type = $3.text;
                $$->type_loc = @3;
                $$->attrs = $8;
            }
        }
    | fkey ':' KW_SPARSE name '[' dims ']' KW_MAX INTEGER sparse_as_into KW_INDEX index_keys
      KW_VALUE skey attrs ';'
        {
            $$ = $1;
            if ($$ != NULL) {
                $$->loc = span(@1, @16);
                $$->sparse = 1;
                $$->sparse_loc = @3;
                $$->type = $4.text;
                $$->type_loc = @4;
                $$->has_shape = 1;
                $$->dims = $6;
                $$->shape_loc = span(@5, @7);
                $$->max_text = $9.text;
                $$->max_loc = @9;
                $$->index_keys = $12;
                $$->index_loc = span(@11, @12);
                $$->value_key = $14;
                $$->attrs = $15;
            }
        }
    | fkey ':' KW_RAGGED name KW_MAX INTEGER
        {
            if ($1 != NULL) {
                $1->ragged = 1;
                $1->ragged_loc = @3;
                $1->type = $4.text;
                $1->type_loc = @4;
                $1->max_text = $6.text;
                $1->max_loc = @6;
            }
        }
      ragged_opts ';'
        {
            $$ = $1;
            if ($$ != NULL)
                $$->loc = span(@1, @9);
        }
    /* A feature that goes wrong ends at its ';', or where the next feature
     * or the block's '}' can start (a missing ';' costs one diagnostic, and
     * the recovery never runs past a '}' into the next message). */
    | error ';'         { $$ = NULL; yyerrok; }
    | error '{' skipped '}'
                        { $$ = NULL; yyerrok; }
    | error             { $$ = NULL; }
    ;

/* `as TYPE` of a SparseFeature (its values' type) writes into the fkey
 * eight symbols down. */
sparse_as_into
    : %empty
    | KW_AS name
        { ast_feature *f = $<feature>-8; if (f) { f->as_type = $2.text; f->as_loc = @2; } }
    ;

/* The options of a RaggedFeature write into it: $<feature>0 is the fkey
 * two symbols down, seen through the mid-rule action. */
ragged_opts
    : %empty
    | ragged_opts KW_VALUE skey
        { ast_feature *f = $<feature>-6; if (f) f->value_key = $3; }
    | ragged_opts KW_PARTITIONS '(' parts ')'
        { ast_feature *f = $<feature>-6; if (f) { f->parts = $4; f->parts_loc = span(@2, @5); } }
    | ragged_opts KW_SPLIT name
        { ast_feature *f = $<feature>-6; if (f) { f->split_text = $3.text; f->split_loc = @3; } }
    | ragged_opts KW_AS name
        { ast_feature *f = $<feature>-6; if (f) { f->as_type = $3.text; f->as_loc = @3; } }
    ;

parts
    : parts_rev         { $$ = REVERSE(ast_part, $1); }
    ;

parts_rev
    : part              { $$ = $1; }
    | parts_rev ',' part
        { $$ = $1; if ($3 != NULL) { $3->next = $1; $$ = $3; } }
    ;

part
    : name skey KW_MAX INTEGER
        {
            $$ = NEW(ast_part);
            if ($$ != NULL) {
                $$->kind = $1.text;
                $$->kind_loc = @1;
                $$->key = $2;
                $$->max_text = $4.text;
                $$->max_loc = @4;
            }
        }
    | name INTEGER
        {
            $$ = NEW(ast_part);
            if ($$ != NULL) {
                $$->kind = $1.text;
                $$->kind_loc = @1;
                $$->length_text = $2.text;
                $$->length_loc = @2;
            }
        }
    ;

/* The data keys of a SparseFeature: `index k` or `index (k1, k2, ...)`. */
index_keys
    : skey              { $$ = $1; }
    | '(' skeys ')'     { $$ = $2; }
    ;

skeys
    : skeys_rev         { $$ = REVERSE(ast_key, $1); }
    ;

skeys_rev
    : skey              { $$ = $1; }
    | skeys_rev ',' skey
        { $$ = $1; if ($3 != NULL) { $3->next = $1; $$ = $3; } }
    ;

skey
    : name
        {
            $$ = NEW(ast_key);
            if ($$ != NULL) {
                $$->key = $1.text;
                $$->len = $1.len;
                $$->loc = @1;
            }
        }
    | STRING
        {
            $$ = NEW(ast_key);
            if ($$ != NULL) {
                $$->key = $1.text;
                $$->len = $1.len;
                $$->loc = @1;
            }
        }
    ;

fkey
    : name
        {
            $$ = NEW(ast_feature);
            if ($$ != NULL) {
                $$->key = $1.text;
                $$->key_len = $1.len;
                $$->key_loc = @1;
            }
        }
    | STRING
        {
            $$ = NEW(ast_feature);
            if ($$ != NULL) {
                $$->key = $1.text;
                $$->key_len = $1.len;
                $$->key_quoted = 1;
                $$->key_loc = @1;
            }
        }
    | STRING KW_AS name
        {
            $$ = NEW(ast_feature);
            if ($$ != NULL) {
                $$->key = $1.text;
                $$->key_len = $1.len;
                $$->key_quoted = 1;
                $$->key_loc = @1;
                $$->cname = $3.text;
                $$->cname_loc = @3;
            }
        }
    ;

/* The optional parts of a feature write into the feature being built, which
 * is the value of `fkey` further down the stack: $<feature>-2 seen from
 * shape_opt_into, -3 from max_opt_into, -4 from as_opt_into, -5 from
 * default_opt_into.  These four nonterminals are used in the `feature`
 * rule only. */
shape_opt_into
    : %empty
    | '[' ']'
        { ast_feature *f = $<feature>-2; if (f) { f->has_shape = 1; f->shape_loc = span(@1, @2); } }
    | '[' dims ']'
        { ast_feature *f = $<feature>-2;
          if (f) { f->has_shape = 1; f->dims = $2; f->shape_loc = span(@1, @3); } }
    ;

dims
    : dims_rev          { $$ = REVERSE(ast_dim, $1); }
    ;

dims_rev
    : dim               { $$ = $1; }
    | dims_rev ',' dim
        { $$ = $1; if ($3 != NULL) { $3->next = $1; $$ = $3; } }
    ;

dim
    : INTEGER
        { $$ = NEW(ast_dim); if ($$) { $$->text = $1.text; $$->loc = @1; } }
    | '?'
        { $$ = NEW(ast_dim); if ($$) { $$->unknown = 1; $$->text = "?"; $$->loc = @1; } }
    ;

max_opt_into
    : %empty
    | KW_MAX INTEGER
        { ast_feature *f = $<feature>-3; if (f) { f->max_text = $2.text; f->max_loc = @2; } }
    ;

/* `as TYPE [dims]`: the type (and for bytes, the shape) of the tensor the
 * feature gives */
as_opt_into
    : %empty
    | KW_AS name
        { ast_feature *f = $<feature>-4; if (f) { f->as_type = $2.text; f->as_loc = @2; } }
    | KW_AS name '[' dims ']'
        { ast_feature *f = $<feature>-4;
          if (f) { f->as_type = $2.text; f->as_loc = @2; f->as_dims = $4;
                   f->as_shape_loc = span(@3, @5); } }
    ;

default_opt_into
    : %empty
    | '=' value
        { ast_feature *f = $<feature>-5; if (f) f->def = $2; }
    ;

value
    : scalar            { $$ = $1; }
    | '[' ']'           { $$ = value_new(ctx, AV_LIST, span(@1, @2), NULL, 0, 0); }
    | '[' values_rev ']'
        { $$ = list_value(ctx, span(@1, @3), $2); }
    | '[' values_rev ',' ']'
        { $$ = list_value(ctx, span(@1, @4), $2); }
    ;

values_rev
    : value             { $$ = $1; }
    | values_rev ',' value
        { $$ = $1; if ($3 != NULL) { $3->next = $1; $$ = $3; } }
    ;

scalar
    : INTEGER           { $$ = value_new(ctx, AV_INT, @1, $1.text, $1.len, 0); }
    | '-' INTEGER       { $$ = value_new(ctx, AV_INT, span(@1, @2), $2.text, $2.len, 1); }
    | FLOATING          { $$ = value_new(ctx, AV_FLOAT, @1, $1.text, $1.len, 0); }
    | '-' FLOATING      { $$ = value_new(ctx, AV_FLOAT, span(@1, @2), $2.text, $2.len, 1); }
    | IDENT             { $$ = value_new(ctx, AV_NAME, @1, $1.text, $1.len, 0); }
    | '-' IDENT         { $$ = value_new(ctx, AV_NAME, span(@1, @2), $2.text, $2.len, 1); }
    | STRING            { $$ = value_new(ctx, AV_STRING, @1, $1.text, $1.len, 0); }
    ;

policy
    : KW_ALLOW_MISSING  { $$.text = "allow_missing"; $$.len = 13; }
    | KW_ALIGNED        { $$.text = "aligned"; $$.len = 7; }
    | KW_UNIFORM        { $$.text = "uniform"; $$.len = 7; }
    | KW_ONE_HOT        { $$.text = "one_hot"; $$.len = 7; }
    | KW_MULTI_HOT      { $$.text = "multi_hot"; $$.len = 9; }
    | KW_ALREADY_SORTED { $$.text = "already_sorted"; $$.len = 14; }
    ;

name
    : IDENT             { $$ = $1; }
    | policy            { $$ = $1; }
    | KW_PACKAGE        { $$.text = "package"; $$.len = 7; }
    | KW_EXAMPLE        { $$.text = "example"; $$.len = 7; }
    | KW_SEQUENCE_EXAMPLE { $$.text = "sequence_example"; $$.len = 16; }
    | KW_CONTEXT        { $$.text = "context"; $$.len = 7; }
    | KW_FEATURE_LISTS  { $$.text = "feature_lists"; $$.len = 13; }
    | KW_SEGMENTS       { $$.text = "segments"; $$.len = 8; }
    | KW_AS             { $$.text = "as"; $$.len = 2; }
    | KW_MAX            { $$.text = "max"; $$.len = 3; }
    | KW_HASH_BUCKETS   { $$.text = "hash_buckets"; $$.len = 12; }
    | KW_INDEX          { $$.text = "index"; $$.len = 5; }
    | KW_VALUE          { $$.text = "value"; $$.len = 5; }
    | KW_PARTITIONS     { $$.text = "partitions"; $$.len = 10; }
    | KW_SPLIT          { $$.text = "split"; $$.len = 5; }
    ;

%%

#include "spec_lex.h"

#include <limits.h>
#include <string.h>

/* A ';' that could end the line before the lookahead's is reported where
 * it is missing, just after the token before, as a C compiler does:
 *     spec.feat:3:12: error: syntax error, expected ';' before 'b'
 * (the lookahead, on a later line, would point at the wrong line). */
static int missing_semicolon(const yypcontext_t *yyctx, void *scanner,
                             struct spec_parse_ctx *ctx, const yysymbol_kind_t *expected, int n)
{
    const struct spec_lex_extra *x = fcc_yyget_extra(scanner);
    const spec_loc *look = yypcontext_location(yyctx);
    spec_loc at;
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(yysymbol_name(expected[i]), "';'") == 0)
            break;
    if (i == n || x->tokens < 2 || look->first_line <= x->before_loc.last_line)
        return 0;
    at = x->before_loc;
    at.first_line = at.last_line;
    at.first_column = at.last_column = at.last_column + 1;
    if (yypcontext_token(yyctx) == YYSYMBOL_YYEOF)
        fcc_diag_error(ctx->diag, at, "syntax error, expected ';' before the end of the spec");
    else
        fcc_diag_error(ctx->diag, at, "syntax error, expected ';' before '%s'", x->last_text);
    return 1;
}

/* "syntax error, unexpected X, expecting A or B": bison's detailed wording,
 * except that the words that may follow a feature's type (policies, hash
 * buckets) are named once as "an attribute", last: bison's own list stops
 * at 4 tokens, and 6 attribute words would bury the one that is missing. */
static int yyreport_syntax_error(const yypcontext_t *yyctx, void *scanner,
                                 struct spec_parse_ctx *ctx)
{
    enum { MAX_EXPECTED = 16 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    yysymbol_kind_t look = yypcontext_token(yyctx);
    char msg[512];
    size_t len;
    int n = yypcontext_expected_tokens(yyctx, expected, MAX_EXPECTED), i, shown = 0, attrs = 0;
    if (missing_semicolon(yyctx, scanner, ctx, expected, n))
        return 0;
    snprintf(msg, sizeof msg, "syntax error");
    if (look != YYSYMBOL_YYEMPTY) {
        len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, ", unexpected %s", yysymbol_name(look));
    }
    for (i = 0; i < n; i++) {
        switch (expected[i]) {
        case YYSYMBOL_KW_ALLOW_MISSING:
        case YYSYMBOL_KW_ALIGNED:
        case YYSYMBOL_KW_UNIFORM:
        case YYSYMBOL_KW_HASH_BUCKETS:
        case YYSYMBOL_KW_ONE_HOT:
        case YYSYMBOL_KW_MULTI_HOT:
        case YYSYMBOL_KW_ALREADY_SORTED:
            attrs = 1;
            continue;
        default:
            break;
        }
        len = strlen(msg);
        snprintf(msg + len, sizeof msg - len, "%s%s", shown++ == 0 ? ", expecting " : " or ",
                 yysymbol_name(expected[i]));
    }
    if (attrs) {
        len = strlen(msg);
        snprintf(msg + len, sizeof msg - len,
                 "%san attribute ('allow_missing', 'uniform', 'hash_buckets N', ...)",
                 shown == 0 ? ", expecting " : " or ");
    }
    fcc_diag_error(ctx->diag, *yypcontext_location(yyctx), "%s", msg);
    return 0;
}

ast_spec *fcc_parse(pool *p, diag *d)
{
    struct spec_lex_extra x;
    struct spec_parse_ctx ctx;
    void *scanner = NULL;
    ast_spec *spec = (ast_spec *)fcc_pool_alloc(p, sizeof *spec);
    if (spec == NULL)
        return NULL;
    x.pool = p;
    x.diag = d;
    x.src = d->src;
    x.len = d->src_len;
    x.pos = 0;
    x.line = 1;
    x.col = 1;
    x.tokens = 0;
    x.last_text[0] = x.before_text[0] = '\0';
    ctx.pool = p;
    ctx.diag = d;
    ctx.spec = spec;
    ctx.msg_tail = &spec->messages;
    if (fcc_yylex_init_extra(&x, &scanner) != 0)
        return NULL;
    /* the whole spec as flex's buffer: read in pieces, a token longer than
     * a piece is scanned again from its start at every refill (quadratic
     * in a long identifier) */
    if (x.len <= (size_t)INT_MAX - 2 && fcc_yy_scan_bytes(x.src, (int)x.len, scanner) == NULL) {
        fcc_yylex_destroy(scanner);
        return NULL;
    }
    (void)fcc_yyparse(scanner, &ctx);
    fcc_yylex_destroy(scanner);
    return p->failed ? NULL : spec;
}
