/* The TensorFlow Metadata schema as read (tfmd_read.c), shared by import
 * (tfmd_import.c: the schema as a spec) and by validate's constraints
 * (tfmd_constraints.c).  Private to the compiler. */
#ifndef FEATC_TFMD_H
#define FEATC_TFMD_H

#include "pbtxt.h"

enum { TYPE_UNKNOWN, TYPE_BYTES, TYPE_INT, TYPE_FLOAT, TYPE_STRUCT };

/* One Feature of the schema, as read. */
typedef struct feat {
    const pt_field *msg;
    const char *name; /* NUL-terminated; name_len may include NULs */
    size_t name_len;
    int type;
    int has_shape, shape_ok;
    size_t rank;
    long long dims[8];
    int has_count;
    long long count_min, count_max;
    int has_counts; /* value_counts */
    int has_presence, has_min_fraction, has_min_count;
    double min_fraction;
    long long min_count;
    int has_int_domain;
    long long int_min, int_max;
    int has_int_min, has_int_max;
    const pt_field *domain; /* the domain_info field, for the comment */
    const pt_field *struct_domain;
    const char *skip; /* why it is left out, or NULL */
    int used;         /* read by a SparseFeature or a representation */
} feat;

typedef struct importer {
    pool *p;
    diag *d;
    const featc_import_options *io;
    sbuf *out;
    const pt_field *schema;
    feat *feats;
    size_t nfeats;
    feat *lists; /* ##SEQUENCE##'s struct_domain */
    size_t nlists;
    int ragged_varlen; /* represent_variable_length_as_ragged */
    const char *indent; /* of a feature line: in an example, or in a context */
    size_t written;     /* features written */
    /* C names given so far (uniqueness) */
    const char **names;
    size_t nnames, names_cap;
} importer;

/* tfmd_read.c: fields and values.  Each reports its own errors (0 or NULL
 * after one). */
/* Warns about each field of m that `message` does not have. */
void fcc_tfmd_check_fields(importer *im, const pt_field *m, const char *message);
/* The last field `name` of message m (the text format keeps the last of a
 * singular field), or NULL. */
const pt_field *fcc_tfmd_get(const pt_field *m, const char *name);
/* fcc_tfmd_get, and an error unless it is a message (its fields checked). */
const pt_field *fcc_tfmd_get_message(importer *im, const pt_field *m, const char *name,
                                     const char *message);
int fcc_tfmd_int(importer *im, const pt_field *f, long long *v);
int fcc_tfmd_double(importer *im, const pt_field *f, double *v);
/* 1 true, 0 false or an error */
int fcc_tfmd_bool(importer *im, const pt_field *f);
int fcc_tfmd_string(importer *im, const pt_field *f);
/* An enum field: its value's name, or its number's name in names[]. */
const char *fcc_tfmd_enum(importer *im, const pt_field *f, const char *const *names, size_t n);
extern const char *const fcc_tfmd_feature_types[5];
extern const char *const fcc_tfmd_stages[10];
extern const char *const fcc_tfmd_partition_dtypes[3];

/* tfmd_read.c: features. */
/* A FixedShape's dims (at most 8) into dims[*rank]; *ok 0 when one is
 * negative (not a fixed shape). */
int fcc_tfmd_read_shape(importer *im, const pt_field *shape, size_t *rank,
                        long long *dims, int *ok);
feat *fcc_tfmd_find(feat *fs, size_t n, const char *name, size_t len);
/* Reads the Feature messages among m's fields (a schema, a struct domain). */
feat *fcc_tfmd_read_features(importer *im, const pt_field *m, size_t *n);
/* The feature lists: the struct_domain of a STRUCT feature ##SEQUENCE##
 * (not left out), into im->lists, and that feature (marked used) in *seq,
 * NULL without one.  0 after an error. */
int fcc_tfmd_read_lists(importer *im, feat **seq);

#endif /* FEATC_TFMD_H */
