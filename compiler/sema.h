/* What the files of the semantic checks share (not the emitter's
 * business): sema_names.c (C names, the symbol table of generated
 * identifiers, the order of keys), sema_values.c (numbers and defaults),
 * sema_tf.c (TensorFlow's texts), sema.c (features), sema_message.c
 * (messages, their segments, fcc_check): each calls only the ones before it. */
#ifndef FEATC_SEMA_H
#define FEATC_SEMA_H

#include "spec.h"

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

/* Where a feature is declared: what it may be and how diagnostics name it. */
typedef enum role { ROLE_EXAMPLE, ROLE_CONTEXT, ROLE_LIST } role;

/* sema_names.c */
char *fcc_cat(pool *p, const char *a, const char *b, const char *c);
int fcc_check_c_name(diag *d, spec_loc loc, const char *s, const char *what);
int fcc_is_ident(const char *s, size_t n);
int fcc_is_reserved(const char *s);
char *fcc_upper_of(pool *p, const char *s);
int fcc_sym_add(pool *p, diag *d, symtab *t, const char *name, const char *owner,
                spec_loc loc);
const symbol *fcc_sym_get(const symtab *t, const char *name);
int fcc_sym_put(pool *p, symtab *t, const char *name, const char *owner, spec_loc loc);
/* TensorFlow's order of keys (Python sorts them: bytewise, a prefix first). */
int fcc_key_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* sema_values.c */
int fcc_parse_u64(const char *s, uint64_t *v);
int fcc_check_default(pool *p, diag *d, schema_feature *f, const ast_value *v);
void fcc_tf_unknown_dims(diag *d, spec_loc loc, const schema_feature *f, const ast_feature *a);

/* sema_tf.c */
void fcc_tf_unsupported_rows(diag *d, spec_loc loc, const schema_feature *f);
void fcc_tf_intersect(diag *d, spec_loc loc, const char *what, const char *key, size_t len);
void fcc_tf_conflicting(diag *d, spec_loc loc, const schema_feature *first_by,
                        const schema_feature *other, fc_type first_type, fc_type other_type,
                        const char *key, size_t len);
void fcc_tf_conflicting_splits(diag *d, spec_loc loc, const schema_feature *first_by,
                               const schema_feature *other, const char *key, size_t len);
void fcc_tf_question_dims(diag *d, spec_loc loc, const schema_feature *f, const ast_feature *a,
                          const ast_feature *all);

/* sema.c */
int fcc_check_feature(pool *p, diag *d, schema_message *m, schema_feature *group, size_t i,
                      const ast_feature *a, role r, symtab *members, symtab *globals,
                      uint64_t *storage);
int fcc_check_lists_block(diag *d, schema_message *m, const ast_block *b, int *allow_missing,
                          int *uniform);
size_t fcc_count_features(const ast_feature *a);
size_t fcc_elem_bytes(fc_type t);
uint64_t fcc_hidden_storage(schema_feature *group, size_t n);
int fcc_resolve_ragged(pool *p, diag *d, schema_message *m, schema_feature *group, size_t fi,
                       size_t *n, symtab *members, symtab *globals);
int fcc_resolve_sparse(pool *p, diag *d, schema_message *m, size_t fi, size_t *n,
                       symtab *members, symtab *globals);
void fcc_sort_by_key(const schema_feature *group, size_t n, uint16_t *order);

#endif /* FEATC_SEMA_H */
