/* What arrow_rows.c and arrow_rows_direct.c share (not installed): the
 * table fc_arrow_rows_open makes of the input's columns. */
#ifndef FEATC_ARROW_ROWS_H
#define FEATC_ARROW_ROWS_H

#include "featc/fc_arrow.h"

typedef struct rcol {
    const fc_field_desc *f; /* a field, or */
    const fc_list_desc *l;  /* a feature list */
    size_t bit;             /* its presence bit */
    int64_t child;          /* the schema child */
    char leaf;              /* format character of the leaf values */
    char ileaf;             /* SparseFeature: of its indices */
    size_t raw_at;          /* `bytes as T[dims]`: its bytes' place in the row's raw */
} rcol;

struct fc_arrow_rows {
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    size_t ncols;
    rcol *cols;
    /* a row's scratch: which fields are filled; a SparseFeature's entries
     * (indices, values: 8 or sizeof(fc_bytes) bytes each) and their order */
    unsigned char *filled;
    int64_t *ind;
    unsigned char *val;
    size_t *perm;
    unsigned char *used;
    unsigned char *tmp;     /* a RaggedFeature's field, before it is compared or stored */
    unsigned char *raw;     /* the bytes of the row's `bytes as T[dims]` features */
    int typed;              /* a feature has `as`: the row is checked as a parse would */
    int direct;             /* fc_arrow_rows_serialize takes the rows (fc_arrow_rows_plan) */
    void *plan;             /* its columns, and a row's values and sizes (arrow_rows_direct.c) */
};

/* After the columns are matched: whether fc_arrow_rows_serialize takes
 * r's rows (arrow_rows_direct.c), r->direct and r->plan set (free()d by
 * fc_arrow_rows_close).  FC_OK, or FC_ERR_NO_MEMORY. */
int fc_arrow_rows_plan(fc_arrow_rows *r, const struct ArrowSchema *schema);

#endif /* FEATC_ARROW_ROWS_H */
