/* Batches as Arrow arrays (fc_arrow.h), read back by a consumer written from
 * the C Data Interface specification: every corpus spec over its corpus
 * files, in batches of 37 records, exported and then walked as Arrow says
 * (formats, lengths, offsets, fixed sizes, the values at the leaves), each
 * value compared with the batch's own columns (which the batch suites check
 * against TensorFlow); the schema alone equals the schema that comes with
 * the arrays; release callbacks: a child moved out of its parent outlives
 * it, the batch's block is freed once, when the last array viewing it goes
 * (ASan, in test-unit-asan, finds what is freed twice or never).  Records
 * built here for tests/specs/batch.feat bring what the corpus lacks: rows
 * with padding, SparseFeature, RaggedFeature with partitions, hashed
 * features, VarLen feature lists of bytes. */
/* test-specs: specs/mnist.feat specs/penguin.feat specs/pascal_voc.feat specs/taxi.feat specs/hadoop.feat specs/fake_sequence.feat specs/transform_sequence.feat specs/tfx_sequence.feat specs/tutorial.feat tests/specs/batch.feat */
#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_input.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "fake_sequence.h"
#include "hadoop.h"
#include "harness.h"
#include "mnist.h"
#include "pascal_voc.h"
#include "penguin.h"
#include "taxi.h"
#include "tfx_sequence.h"
#include "transform_sequence.h"
#include "tutorial.h"
#include "wire.h"

/* ------------------------------------------------------------ the consumer */

static int fmt_is(const struct ArrowSchema *s, const char *f)
{
    return s != NULL && s->format != NULL && strcmp(s->format, f) == 0;
}

/* The export's mode: 32-bit offsets (list "+l", binary "z"), or 64-bit
 * ones with FC_ARROW_LARGE ("+L", "Z"); every check runs in both. */
static unsigned mode;
#define LIST (mode != 0 ? "+L" : "+l")
#define BIN (mode != 0 ? "Z" : "z")

/* Offset i of a list or binary array, in either width. */
static int64_t off(const struct ArrowArray *a, int64_t i)
{
    if (mode != 0)
        return ((const int64_t *)a->buffers[1])[a->offset + i];
    return ((const int32_t *)a->buffers[1])[a->offset + i];
}

/* Leaf element k of a (format "l", "f" or "Z") equals column element j. */
static int leaf_eq(const struct ArrowSchema *s, const struct ArrowArray *a, size_t k, fc_type t,
                   const void *v, size_t j)
{
    if (t == FC_TYPE_INT64)
        return fmt_is(s, "l") && ((const int64_t *)a->buffers[1])[a->offset + (int64_t)k] ==
                                     ((const int64_t *)v)[j];
    if (t == FC_TYPE_FLOAT)
        return fmt_is(s, "f") &&
               memcmp((const float *)a->buffers[1] + a->offset + (int64_t)k,
                      (const float *)v + j, sizeof(float)) == 0;
    {
        const fc_bytes *b = (const fc_bytes *)v + j;
        int64_t at = off(a, (int64_t)k);
        size_t len = (size_t)(off(a, (int64_t)k + 1) - at);
        return fmt_is(s, BIN) && len == b->size &&
               (len == 0 || memcmp((const unsigned char *)a->buffers[2] + at, b->data, len) == 0);
    }
}

/* What a column is, as the batch's layouts say (fc_batch.h). */
typedef struct want {
    fc_type type;
    fc_kind kind;
    int list;
    unsigned rank;
    const size_t *dims;
    size_t elems;
    unsigned nparts;
} want;

static int check_fixed_levels(const struct ArrowSchema **s, const struct ArrowArray **a,
                              const want *w, size_t *len)
{
    unsigned k;
    for (k = 0; k < w->rank; k++) {
        char fmt[32];
        snprintf(fmt, sizeof fmt, "+w:%zu", w->dims[k]);
        if (!fmt_is(*s, fmt) || (*s)->n_children != 1 || (*a)->length != (int64_t)*len)
            return 0;
        *len *= w->dims[k];
        *s = (*s)->children[0];
        *a = (*a)->children[0];
    }
    return (*a)->length == (int64_t)*len;
}

static int check_list(const struct ArrowSchema **s, const struct ArrowArray **a,
                      const int64_t *splits, size_t *len)
{
    size_t i;
    if (!fmt_is(*s, LIST) || (*a)->length != (int64_t)*len || (*s)->n_children != 1)
        return 0;
    for (i = 0; i <= *len; i++)
        if (off(*a, (int64_t)i) != splits[i])
            return 0;
    *len = (size_t)splits[*len];
    *s = (*s)->children[0];
    *a = (*a)->children[0];
    return (*a)->length == (int64_t)*len;
}

/* Column c of n records (values v: the values or the bucket ids, of type t)
 * as the Arrow column (s, a) holds it. */
static int check_column(const struct ArrowSchema *s, const struct ArrowArray *a, const want *w,
                        const fc_column *c, size_t n, fc_type t, const void *v)
{
    size_t len = n, i, k;
    unsigned q;
    if (w->kind == FC_KIND_FIXED && !w->list) {
        if (!check_fixed_levels(&s, &a, w, &len) || len != c->nvalues)
            return 0;
        for (k = 0; k < len; k++)
            if (!leaf_eq(s, a, k, t, v, k))
                return 0;
        return 1;
    }
    if (w->kind == FC_KIND_ROWS || (w->list && w->kind == FC_KIND_FIXED)) {
        /* rows (frames) packed: record i's come from its padded block */
        size_t most = (size_t)c->shape[1], at = 0, r;
        if (!fmt_is(s, LIST) || a->length != (int64_t)n)
            return 0;
        for (i = 0; i < n; i++)
            if (off(a, (int64_t)i + 1) - off(a, (int64_t)i) != c->lengths[i] || off(a, 0) != 0)
                return 0;
        len = (size_t)off(a, (int64_t)n);
        s = s->children[0];
        a = a->children[0];
        if (!check_fixed_levels(&s, &a, w, &len))
            return 0;
        for (i = 0; i < n; i++)
            for (r = 0; r < (size_t)c->lengths[i]; r++)
                for (k = 0; k < w->elems; k++, at++)
                    if (!leaf_eq(s, a, at, t, v, c->packed ? at : (i * most + r) * w->elems + k))
                        return 0;
        return at == len;
    }
    if (w->kind == FC_KIND_SPARSE) {
        /* struct<indices: large_list<fixed_size_list<int64, rank>>, values:
         * large_list<value>>: record i's entries, their indices without the
         * record's */
        const struct ArrowSchema *is, *vs;
        const struct ArrowArray *ia, *va;
        size_t width = (size_t)w->rank + 1u, j, d;
        char fmt[32];
        if (!fmt_is(s, "+s") || s->n_children != 2 || strcmp(s->children[0]->name, "indices") ||
            strcmp(s->children[1]->name, "values") || a->length != (int64_t)n)
            return 0;
        is = s->children[0];
        ia = a->children[0];
        vs = s->children[1];
        va = a->children[1];
        snprintf(fmt, sizeof fmt, "+w:%u", w->rank);
        if (!fmt_is(is, LIST) || !fmt_is(vs, LIST) || !fmt_is(is->children[0], fmt) ||
            !fmt_is(is->children[0]->children[0], "l") || ia->length != (int64_t)n ||
            va->length != (int64_t)n || off(ia, (int64_t)n) != (int64_t)c->nindices ||
            off(va, (int64_t)n) != (int64_t)c->nvalues)
            return 0;
        for (i = 0; i < n; i++)
            for (j = (size_t)off(ia, (int64_t)i); j < (size_t)off(ia, (int64_t)i + 1); j++) {
                const struct ArrowArray *leaf = ia->children[0]->children[0];
                if (c->indices[j * width] != (int64_t)i || off(va, (int64_t)i) != off(ia, (int64_t)i) ||
                    !leaf_eq(vs->children[0], va->children[0], j, t, v, j))
                    return 0;
                for (d = 0; d < w->rank; d++)
                    if (((const int64_t *)leaf->buffers[1])[leaf->offset +
                                                           (int64_t)(j * w->rank + d)] !=
                        c->indices[j * width + 1 + d])
                        return 0;
            }
        return 1;
    }
    if (!check_list(&s, &a, c->row_splits, &len))
        return 0;
    if (w->list && !check_list(&s, &a, c->inner_splits, &len))
        return 0;
    for (q = 0; q < w->nparts; q++)
        if (!check_list(&s, &a, c->part_splits[q], &len))
            return 0;
    if (len != c->nvalues)
        return 0;
    for (k = 0; k < len; k++)
        if (!leaf_eq(s, a, k, t, v, k))
            return 0;
    return 1;
}

static void want_field(const fc_field_desc *f, want *w)
{
    memset(w, 0, sizeof *w);
    w->type = f->type;
    w->kind = f->kind;
    w->rank = f->rank;
    w->dims = f->dims;
    w->elems = f->elems;
    w->nparts = f->kind == FC_KIND_RAGGED ? f->extra->nparts : 0;
}

static void want_list(const fc_list_desc *l, want *w)
{
    memset(w, 0, sizeof *w);
    w->type = l->type;
    w->kind = l->kind;
    w->list = 1;
    w->rank = l->rank;
    w->dims = l->dims;
    w->elems = l->elems;
    w->nparts = l->kind == FC_KIND_RAGGED && l->extra != NULL ? l->extra->nparts : 0;
}

/* Every column of the batch in the struct array (s, a); the count of
 * columns checked. */
static size_t check_batch(const struct ArrowSchema *s, const struct ArrowArray *a,
                          const fc_message_desc *md, const fc_seq_desc *sd, const fc_column *cols,
                          size_t n, const char *what)
{
    size_t nf = md != NULL ? md->nfields : sd->ncontext + sd->nlists, i, k = 0;
    CHECK_MSG(fmt_is(s, "+s") && a->length == (int64_t)n && a->n_children == s->n_children &&
                  a->null_count == 0,
              "%s: a struct of %zu rows", what, n);
    for (i = 0; i < nf; i++) {
        const fc_field_desc *f = md != NULL ? &md->fields[i] : i < sd->ncontext ? &sd->context[i]
                                                                                 : NULL;
        const fc_list_desc *l = f == NULL ? &sd->lists[i - sd->ncontext] : NULL;
        const fc_field_extra *x = f != NULL ? f->extra : l->extra;
        const char *key = f != NULL ? f->key : l->key;
        want w;
        if (x != NULL && x->hidden)
            continue;
        if (f != NULL)
            want_field(f, &w);
        else
            want_list(l, &w);
        if (k >= (size_t)s->n_children) {
            CHECK_MSG(0, "%s: column '%s' missing", what, key);
            return k;
        }
        {
            /* a feature list's key that the context also has: feature_lists/KEY */
            char name[600];
            size_t c;
            int taken = 0;
            for (c = 0; l != NULL && c < sd->ncontext; c++)
                taken |= strcmp(sd->context[c].key, key) == 0;
            snprintf(name, sizeof name, "%s%s", taken ? "feature_lists/" : "", key);
            CHECK_MSG(strcmp(s->children[k]->name, name) == 0,
                      "%s: column %zu is '%s', not '%s'", what, k, s->children[k]->name, name);
        }
        CHECK_MSG(check_column(s->children[k], a->children[k], &w, &cols[i], n, w.type,
                               cols[i].values),
                  "%s: column '%s' (%s) differs from the batch", what, key,
                  s->children[k]->format);
        k++;
        if (x != NULL && x->hash_buckets > 0) {
            char name[600];
            snprintf(name, sizeof name, "%s/buckets", s->children[k - 1]->name);
            CHECK_MSG(k < (size_t)s->n_children && strcmp(s->children[k]->name, name) == 0,
                      "%s: no column %s", what, name);
            if (k < (size_t)s->n_children)
                CHECK_MSG(check_column(s->children[k], a->children[k], &w, &cols[i], n,
                                       FC_TYPE_INT64, cols[i].buckets),
                          "%s: %s differs", what, name);
            k++;
        }
    }
    CHECK_MSG(k == (size_t)s->n_children, "%s: %zu columns, the schema has %lld", what, k,
              (long long)s->n_children);
    return k;
}

/* Every buffer of the array tree starts at a multiple of 64 bytes. */
static int aligned64(const struct ArrowArray *a)
{
    int64_t k;
    for (k = 0; k < a->n_buffers; k++)
        if (a->buffers[k] != NULL && (uintptr_t)a->buffers[k] % 64u != 0)
            return 0;
    for (k = 0; k < a->n_children; k++)
        if (!aligned64(a->children[k]))
            return 0;
    return 1;
}

/* The same formats and names, all the way down. */
static int same_schema(const struct ArrowSchema *x, const struct ArrowSchema *y)
{
    int64_t k;
    if (strcmp(x->format, y->format) != 0 || strcmp(x->name, y->name) != 0 ||
        x->n_children != y->n_children)
        return 0;
    for (k = 0; k < x->n_children; k++)
        if (!same_schema(x->children[k], y->children[k]))
            return 0;
    return 1;
}

/* A hash of every value an array holds, walked as its formats say (rows
 * [from, from + len) of it): what a consumer reads. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

static uint64_t digest(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t from,
                       int64_t len, uint64_t h)
{
    int64_t k;
    from += a->offset;
    if (fmt_is(s, "l") || fmt_is(s, "f"))
        return fnv(h, (const unsigned char *)a->buffers[1] + from * (fmt_is(s, "l") ? 8 : 4),
                   (size_t)len * (fmt_is(s, "l") ? 8u : 4u));
    if (fmt_is(s, BIN) || fmt_is(s, LIST)) {
        int64_t lo, hi;
        from -= a->offset; /* (off() adds it) */
        for (k = 0; k <= len; k++) {
            int64_t o = off(a, from + k);
            h = fnv(h, &o, sizeof o);
        }
        lo = off(a, from);
        hi = off(a, from + len);
        if (fmt_is(s, BIN))
            return fnv(h, (const unsigned char *)a->buffers[2] + lo, (size_t)(hi - lo));
        return digest(s->children[0], a->children[0], lo, hi - lo, h);
    }
    if (strncmp(s->format, "+w:", 3) == 0) {
        int64_t size = atoll(s->format + 3);
        return digest(s->children[0], a->children[0], from * size, len * size, h);
    }
    for (k = 0; k < s->n_children; k++) /* "+s" */
        h = digest(s->children[k], a->children[k], from, len, h);
    return h;
}

/* ------------------------------------------------------------ the batches */

static int frees;
static void count_free(void *p)
{
    frees++;
    free(p);
}

/* Parses views[0..n) as a batch of md (or sd), exports it and checks it;
 * with move, a child is moved out before the parent is released. */
static void export_check(const fc_message_desc *md, const fc_seq_desc *sd, const fc_bytes *views,
                         size_t n, int move, const struct ArrowSchema *alone, const char *what)
{
    size_t ncols = md != NULL ? md->nfields : sd->ncontext + sd->nlists;
    fc_column *cols = (fc_column *)calloc(ncols + 1, sizeof *cols);
    void *scratch = malloc(md != NULL ? md->size : sd->size), *block;
    unsigned forms = FC_BATCH_RAGGED | FC_BATCH_SPARSE | (move ? FC_BATCH_PACKED : 0u);
    size_t need;
    struct ArrowArray arr;
    struct ArrowSchema sch;
    fc_error err;
    int rc;
    if (cols == NULL || scratch == NULL)
        abort();
    need = md != NULL ? fc_batch_bind(md, cols, n, forms, NULL, 0)
                      : fc_batch_bind_seq(sd, cols, n, forms, NULL, 0);
    if (posix_memalign(&block, 64, need) != 0)
        abort();
    if (md != NULL)
        fc_batch_bind(md, cols, n, forms, block, need);
    else
        fc_batch_bind_seq(sd, cols, n, forms, block, need);
    rc = md != NULL ? fc_batch_parse(md, cols, scratch, views, n, &err)
                    : fc_batch_parse_seq(sd, cols, scratch, views, n, &err);
    CHECK_MSG(rc == FC_OK, "%s: %s", what, err.message);
    frees = 0;
    rc = rc == FC_OK ? fc_arrow_export(md, sd, mode, cols, n, block, count_free, &arr, &sch, &err) : rc;
    CHECK_MSG(rc == FC_OK, "%s: export: %s", what, err.message);
    if (rc != FC_OK) {
        free(block);
    } else {
        check_batch(&sch, &arr, md, sd, cols, n, what);
        CHECK_MSG(aligned64(&arr), "%s: a buffer not aligned to 64 bytes", what);
        CHECK_MSG(same_schema(&sch, alone), "%s: the batch's schema is not fc_arrow_schema's",
                  what);
        if (move && arr.n_children > 0) {
            /* a child moved out (the last: VarLen, lists) outlives its parent:
             * it reads the same after the parent is released */
            int64_t last = arr.n_children - 1;
            struct ArrowArray child = *arr.children[last];
            uint64_t before = digest(sch.children[last], &child, 0, child.length, 0);
            arr.children[last]->release = NULL;
            arr.release(&arr);
            CHECK_MSG(digest(sch.children[last], &child, 0, child.length, 0) == before,
                      "%s: a moved child changed when its parent went", what);
            CHECK(child.length == (int64_t)n);
            child.release(&child);
            CHECK(child.release == NULL);
        } else {
            arr.release(&arr);
        }
        CHECK_MSG(arr.release == NULL && frees == 1, "%s: the block freed %d times", what,
                  frees);
        sch.release(&sch);
        CHECK(sch.release == NULL);
    }
    free(scratch);
    free(cols);
}

static void export_file(const fc_message_desc *md, const fc_seq_desc *sd, const char *file)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char path[1024];
    fc_input in;
    fc_input_options o;
    fc_record rec;
    fc_bytes views[37];
    unsigned char *copies[37];
    size_t n = 0, batches = 0, total = 0, k;
    fc_status s;
    struct ArrowSchema alone;
    fc_error err;
    if (corpus == NULL)
        abort();
    CHECK(fc_arrow_schema(md, sd, mode, &alone, &err) == FC_OK);
    snprintf(path, sizeof path, "%s/%s", corpus, file);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    if (fc_input_open(&in, path, &o) != FC_OK) {
        CHECK_MSG(0, "cannot open %s: %s", path, in.err.message);
        alone.release(&alone);
        return;
    }
    do {
        s = fc_input_next(&in, &rec);
        if (s == FC_OK) {
            copies[n] = (unsigned char *)malloc(rec.length + 1);
            if (copies[n] == NULL)
                abort();
            memcpy(copies[n], rec.data, rec.length);
            views[n].data = copies[n];
            views[n].size = rec.length;
            n++;
        }
        if (n == 37 || (s != FC_OK && n > 0)) {
            export_check(md, sd, views, n, batches % 2 == 1, &alone, file);
            for (k = 0; k < n; k++)
                free(copies[k]);
            total += n;
            n = 0;
            batches++;
        }
    } while (s == FC_OK);
    CHECK_MSG(s == FC_END, "%s: %s", file, in.err.message);
    CHECK_MSG(total > 0, "%s: no records", file);
    fc_input_close(&in);
    alone.release(&alone);
}

/* ---- every kind: records of tests/specs/batch.feat built here */

static wbuf recs[6];
static fc_bytes views[6];

static void seal(size_t i, const wbuf *feats)
{
    recs[i].n = 0;
    w_example(&recs[i], feats);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

/* Example i of bt_e: every feature, its counts growing with i. */
static void every_kind(size_t i)
{
    static const char *const words[] = {"alpha", "", "gamma", "delta"};
    static const char *const rids_words[] = {"a", "b", "c", "d"};
    static wbuf feats;
    int64_t a = (int64_t)i * 11 - 3, r[6], v[5], k64 = (int64_t)i, ix[6], iy[6], rv[8],
            rs[3], rid[4], pos[3];
    float m[4], val[6], fl[6];
    size_t k, rows = i % 4, nv = (i * 2) % 6, ns = i % 4, nsp = i % 4, nr = i % 7;
    feats.n = 0;
    w_entry_int64(&feats, "a", &a, 1);
    for (k = 0; k < 4; k++)
        m[k] = (float)i + (float)k / 4;
    w_entry_float(&feats, "m", m, 4);
    for (k = 0; k < 2 * rows; k++)
        r[k] = (int64_t)(100 * i + k);
    if (rows > 0)
        w_entry_int64(&feats, "r", r, 2 * rows);
    if (ns > 0)
        w_entry_bytes(&feats, "s", words, ns);
    for (k = 0; k < nv && k < 5; k++)
        v[k] = (int64_t)(i * 1000 + k);
    if (nv > 0)
        w_entry_int64(&feats, "v", v, nv < 5 ? nv : 5);
    w_entry_bytes(&feats, "h", words, i % 5);
    if (i % 2 == 0)
        w_entry_bytes(&feats, "c", words + (i % 4), 1);
    w_entry_int64(&feats, "k", &k64, 1);
    for (k = 0; k < nsp; k++) {
        ix[k] = (int64_t)((k * 7 + i) % 10);
        iy[k] = (int64_t)((k * 3 + i) % 20);
        val[k] = (float)(k + i) / 2;
        pos[k] = (int64_t)k;
    }
    if (nsp > 0) {
        w_entry_int64(&feats, "ix", ix, nsp);
        w_entry_int64(&feats, "iy", iy, nsp);
        w_entry_float(&feats, "val", val, nsp);
        w_entry_int64(&feats, "pos", pos, nsp < 3 ? nsp : 3);
        w_entry_bytes(&feats, "word", words, nsp < 3 ? nsp : 3);
    }
    for (k = 0; k < nr && k < 6; k++)
        fl[k] = (float)k * 1.5f;
    w_entry_float(&feats, "rflat", fl, nr < 6 ? nr : 6);
    if (i % 3 != 2) { /* rnest: 2 outer rows of 1 and 3 inner rows of 2 */
        for (k = 0; k < 8; k++)
            rv[k] = (int64_t)(10 * i + k);
        rs[0] = 0;
        rs[1] = 1;
        rs[2] = 4;
        w_entry_int64(&feats, "rv", rv, 8);
        w_entry_int64(&feats, "rs", rs, 3);
    }
    for (k = 0; k < i % 5 && k < 4; k++)
        rid[k] = (int64_t)(k / 2);
    if (i % 5 > 0) {
        w_entry_int64(&feats, "rid", rid, i % 5 < 4 ? i % 5 : 4);
        w_entry_bytes(&feats, "rids", rids_words, i % 5 < 4 ? i % 5 : 4);
    }
    seal(i, &feats);
}

/* SequenceExample i of bt_q: fixed frames x, VarLen bytes frames w, hashed tags. */
static void every_kind_seq(size_t i)
{
    static const char *const words[] = {"a", "bb", "ccc"};
    static wbuf ctx, lists, body, frame;
    int64_t id = (int64_t)i;
    size_t t, nx = (i * 2) % 6, nw = i % 5;
    ctx.n = lists.n = body.n = 0;
    w_entry_int64(&ctx, "id", &id, 1);
    w_entry_bytes(&ctx, "tags", words, i % 4);
    for (t = 0; t < nx && t < 5; t++) {
        float xv[2];
        xv[0] = (float)(i * 10 + t);
        xv[1] = -(float)t;
        frame.n = 0;
        f_float_packed(&frame, xv, 2);
        w_len(&body, 0x0A, frame.b, frame.n);
    }
    if (nx > 0)
        w_entry(&lists, "x", &body);
    body.n = 0;
    for (t = 0; t < nw; t++) {
        frame.n = 0;
        f_bytes(&frame, words, t % 4);
        w_len(&body, 0x0A, frame.b, frame.n);
    }
    if (nw > 0)
        w_entry(&lists, "w", &body);
    recs[i].n = 0;
    w_len(&recs[i], 0x0A, ctx.b, ctx.n);
    w_len(&recs[i], 0x12, lists.b, lists.n);
    views[i].data = recs[i].b;
    views[i].size = recs[i].n;
}

static void test_every_kind(void)
{
    struct ArrowSchema alone;
    fc_error err;
    size_t i;
    CHECK(fc_arrow_schema(&bt_e_desc, NULL, mode, &alone, &err) == FC_OK);
    for (i = 0; i < 6; i++)
        every_kind(i);
    export_check(&bt_e_desc, NULL, views, 6, 0, &alone, "batch.feat e");
    export_check(&bt_e_desc, NULL, views, 6, 1, &alone, "batch.feat e, a child moved");
    export_check(&bt_e_desc, NULL, views + 2, 1, 0, &alone, "batch.feat e, one record");
    export_check(&bt_e_desc, NULL, views, 0, 0, &alone, "batch.feat e, no record");
    alone.release(&alone);
    CHECK(fc_arrow_schema(NULL, &bt_q_desc, mode, &alone, &err) == FC_OK);
    for (i = 0; i < 6; i++)
        every_kind_seq(i);
    export_check(NULL, &bt_q_desc, views, 6, 0, &alone, "batch.feat q");
    export_check(NULL, &bt_q_desc, views, 6, 1, &alone, "batch.feat q, a child moved");
    alone.release(&alone);
}

static void test_corpus(void)
{
    if (getenv("FEATC_CORPUS") == NULL) {
        CHECK_MSG(0, "FEATC_CORPUS is not set");
        return;
    }
    export_file(&penguin_penguin_desc, NULL, "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz");
    export_file(&mnist_digit_desc, NULL, "tfx__mnist.tfrecord");
    export_file(&voc_segmentation_desc, NULL, "tf-models__pascal_voc_seg_val-00000-of-00001.tfrecord");
    export_file(&taxi_trip_desc, NULL, "tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz");
    export_file(&hadoop_row_desc, NULL, "tf-ecosystem__tf-records_part-m-00000");
    export_file(NULL, &fake_sequence_record_desc, "pytorch-data__sequence_example.tfrecord");
    export_file(NULL, &transform_sequence_record_desc,
                "tf-transform__sequence_example_data_tfrecord.gz");
    export_file(NULL, &tfx_sequence_record_desc,
                "tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz");
}

/* The stream's threads: 0 (the caller's), or parse threads (hooks). */
static unsigned threads;

static int open_stream(const fc_message_desc *md, const fc_seq_desc *sd, const char *const *paths,
                       size_t n, size_t bsize, const fc_input_options *o,
                       struct ArrowArrayStream *st, fc_error *err)
{
    fc_arrow_stream_hooks hooks;
    if (threads == 0)
        return fc_arrow_stream(md, sd, mode, paths, n, bsize, o, st, err);
    memset(&hooks, 0, sizeof hooks);
    hooks.threads = threads;
    return fc_arrow_stream_hooked(md, sd, mode, paths, n, bsize, o, &hooks, st, err);
}

/* fc_arrow_stream over files: the batches hold the files' records in order
 * (a batch may take records of two files), each as the direct export of the
 * same records gives it (by a digest of every value); the end is a NULL
 * release; a damaged file's error names it and the stream goes on. */
static uint64_t batch_digest(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    return digest(s, a, 0, a->length, 0);
}

static void test_stream(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char p1[1024], p2[1024], bad[1024];
    const char *paths[3];
    struct ArrowArrayStream st;
    struct ArrowSchema sch;
    struct ArrowArray arr;
    fc_input_options o;
    fc_error err;
    size_t rows = 0, batches = 0, errors = 0, rows_whole = 0;
    uint64_t h = 0, whole = 0;
    int rc;
    if (corpus == NULL)
        return;
    snprintf(p1, sizeof p1, "%s/tf-ecosystem__tf-records_part-m-00000", corpus);
    snprintf(p2, sizeof p2, "%s/tf-ecosystem__zipped-tf-records_part-m-00000.gz", corpus);
    snprintf(bad, sizeof bad, "%s/tf-models-CRLF-DAMAGED__pets_examples.record", corpus);
    paths[0] = p1;
    paths[1] = p2;
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    CHECK(open_stream(&hadoop_row_desc, NULL, paths, 2, 7, &o, &st, &err) == FC_OK);
    CHECK(st.get_schema(&st, &sch) == 0 && fmt_is(&sch, "+s"));
    while ((rc = st.get_next(&st, &arr)) == 0 && arr.release != NULL) {
        CHECK(arr.length <= 7 && arr.length > 0);
        rows += (size_t)arr.length;
        h = digest(&sch, &arr, 0, arr.length, h);
        batches++;
        arr.release(&arr);
    }
    CHECK_MSG(rc == 0, "stream: %d %s", rc, st.get_last_error(&st));
    CHECK(st.get_next(&st, &arr) == 0 && arr.release == NULL); /* the end stays the end */
    st.release(&st);
    CHECK(st.release == NULL);
    /* the same records in one batch each file, exported directly: the same values */
    {
        size_t i;
        for (i = 0; i < 2; i++) {
            struct ArrowArrayStream one;
            CHECK(open_stream(&hadoop_row_desc, NULL, paths + i, 1, 100000, &o, &one,
                                  &err) == FC_OK);
            while (one.get_next(&one, &arr) == 0 && arr.release != NULL) {
                whole = digest(&sch, &arr, 0, arr.length, whole);
                rows_whole += (size_t)arr.length;
                arr.release(&arr);
            }
            one.release(&one);
        }
    }
    CHECK_MSG(rows == rows_whole && rows > 7 && batches == (rows + 6) / 7 && h == whole,
              "stream: %zu rows in %zu batches of 7, digest %llx, in big batches %llx", rows,
              batches, (unsigned long long)h, (unsigned long long)whole);
    (void)batch_digest;
    sch.release(&sch);
    /* a damaged file between two good ones: the records before the damage,
     * its error, then the next file's */
    paths[0] = p1;
    paths[1] = bad;
    paths[2] = p1;
    {
        size_t per[2] = {0, 0}, i;
        for (i = 0; i < 2; i++) {
            struct ArrowArrayStream one;
            CHECK(open_stream(&tutorial_record_desc, NULL, paths + i, 1, 1000, &o, &one,
                                  &err) == FC_OK);
            while (one.get_next(&one, &arr) == 0 && arr.release != NULL) {
                per[i] += (size_t)arr.length;
                arr.release(&arr);
            }
            one.release(&one);
        }
        rows_whole = 2 * per[0] + per[1];
        CHECK_MSG(per[0] > 0, "damaged: %zu and %zu records", per[0], per[1]);
    }
    for (batches = 1000; batches > 0; batches = batches == 1000 ? rows_whole / 2 : 0) {
        /* (a batch ending at the damage, and one ending where the damaged file starts) */
        CHECK(open_stream(&tutorial_record_desc, NULL, paths, 3, batches, &o, &st, &err) ==
              FC_OK);
        rows = errors = 0;
        for (;;) {
            rc = st.get_next(&st, &arr);
            if (rc != 0) {
                errors++;
                CHECK_MSG(rc == EIO && strstr(st.get_last_error(&st), "pets_examples") != NULL,
                          "damaged: %d %s", rc, st.get_last_error(&st));
                if (errors > 3)
                    break;
                continue;
            }
            if (arr.release == NULL)
                break;
            rows += (size_t)arr.length;
            arr.release(&arr);
        }
        st.release(&st);
        CHECK_MSG(errors == 1 && rows == rows_whole, "damaged, batches of %zu: %zu errors, %zu "
                  "rows of %zu", batches, errors, rows, rows_whole);
    }
}

/* A tutorial batch's rows, one after another, into h: batches cut
 * anywhere give the same digest (digest() takes column after column). */
static uint64_t tutorial_rows(const struct ArrowArray *a, uint64_t h)
{
    int64_t r;
    for (r = 0; a->n_children == 4 && r < a->length; r++) {
        const struct ArrowArray *b = a->children[2];
        int64_t lo = off(b, r), hi = off(b, r + 1);
        h = fnv(h, (const int64_t *)a->children[0]->buffers[1] + a->children[0]->offset + r, 8);
        h = fnv(h, (const int64_t *)a->children[1]->buffers[1] + a->children[1]->offset + r, 8);
        h = fnv(h, (const unsigned char *)b->buffers[2] + lo, (size_t)(hi - lo));
        h = fnv(h, (const float *)a->children[3]->buffers[1] + a->children[3]->offset + r, 4);
    }
    return h;
}

/* Blocks kept for the next batch once released (malloc's, and of 2 MiB
 * and more a map each): 100,000 tutorial records written here, read in batches of
 * 80,000 (a block over 2 MiB on 32-bit hosts too: 2.24 MB) over the file three times, up to three batches
 * held while the next come, the last two held past the stream's release;
 * every value by the digest of the same records in batches of 1,000
 * (small blocks, malloc's).  ASan (test-unit-asan) finds a block freed
 * twice or read after its map went; ThreadSanitizer (test-pool-tsan) runs
 * it with threads. */
static void test_stream_big_blocks(void)
{
    char path[] = "/tmp/featc-test-arrow-XXXXXX";
    const char *paths[3];
    struct ArrowArrayStream st;
    struct ArrowSchema sch;
    struct ArrowArray held[3];
    fc_input_options o;
    fc_writer_options wo;
    fc_writer w;
    fc_error err;
    tutorial_record m;
    unsigned char buf[256];
    static const char *const animals[] = {"cat", "dog", "chicken", "horse", "goat"};
    uint64_t small = 0, big = 0;
    size_t i, nheld = 0, rows = 0, bsize;
    int fd = mkstemp(path), rc;
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    memset(&wo, 0, sizeof wo);
    CHECK(fc_writer_init_fd(&w, fd, &wo, &err) == FC_OK);
    for (i = 0; i < 100000; i++) {
        size_t len = 0;
        tutorial_record_init(&m);
        m.feature0 = (int64_t)(i % 2);
        m.feature1 = (int64_t)(i % 5);
        m.feature2.data = (const uint8_t *)animals[i % 5];
        m.feature2.size = strlen(animals[i % 5]);
        m.feature3 = (float)i * 0.5f;
        CHECK(tutorial_record_serialize(&m, 0, buf, sizeof buf, &len, &err) == FC_OK);
        CHECK(fc_writer_write(&w, buf, len) == FC_OK);
    }
    CHECK(fc_writer_close(&w) == FC_OK);
    close(fd);
    paths[0] = paths[1] = paths[2] = path;
    memset(&o, 0, sizeof o);
    for (bsize = 1000; bsize <= 80000; bsize += 79000) {
        uint64_t *h = bsize == 1000 ? &small : &big;
        CHECK(open_stream(&tutorial_record_desc, NULL, paths, 3, bsize, &o, &st, &err) ==
              FC_OK);
        CHECK(st.get_schema(&st, &sch) == 0);
        rows = 0;
        while ((rc = st.get_next(&st, &held[nheld])) == 0 && held[nheld].release != NULL) {
            rows += (size_t)held[nheld].length;
            *h = tutorial_rows(&held[nheld], *h);
            if (bsize == 1000 || ++nheld == 3) { /* (the oldest goes, the others stay) */
                held[0].release(&held[0]);
                if (nheld > 0) {
                    memmove(&held[0], &held[1], (nheld - 1) * sizeof held[0]);
                    nheld--;
                }
            }
        }
        CHECK_MSG(rc == 0 && rows == 300000, "batches of %zu: %d, %zu rows", bsize, rc, rows);
        st.release(&st);
        for (i = 0; i < nheld; i++) { /* (past the stream: their blocks still there) */
            size_t start = i == 0 ? 160000 : 240000, last;
            CHECK(held[i].length == (i == 0 ? 80000 : 60000) && held[i].n_children == 4);
            if (held[i].n_children == 4 && held[i].length > 0) {
                const int64_t *f1 = (const int64_t *)held[i].children[1]->buffers[1];
                last = (size_t)held[i].length - 1;
                CHECK(f1[0] == (int64_t)(start % 100000 % 5) &&
                      f1[last] == (int64_t)((start + last) % 100000 % 5));
            }
            held[i].release(&held[i]);
        }
        nheld = 0;
        sch.release(&sch);
    }
    CHECK(fc_batch_bind(&tutorial_record_desc, NULL, 80000, FC_BATCH_RAGGED | FC_BATCH_PACKED,
                        NULL, 0) >= ((size_t)2 << 20)); /* (what it means to test) */
    CHECK(small == big && small != 0);
    remove(path);
}

/* A record that does not parse fails its batch with EINVAL and featc's
 * message naming the record, and the stream goes on with the next batch. */
static void test_stream_parse_error(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char path[1024];
    const char *paths[1];
    struct ArrowArrayStream st;
    struct ArrowArray arr;
    fc_input_options o;
    fc_error err;
    int rc, fails = 0, calls = 0;
    if (corpus == NULL)
        return;
    snprintf(path, sizeof path, "%s/tf-ecosystem__tf-records_part-m-00000", corpus);
    paths[0] = path;
    memset(&o, 0, sizeof o);
    CHECK(open_stream(&mnist_digit_desc, NULL, paths, 1, 2, &o, &st, &err) == FC_OK);
    while (calls++ < 20) {
        rc = st.get_next(&st, &arr);
        if (rc == 0 && arr.release == NULL)
            break;
        if (rc == 0) {
            arr.release(&arr);
            continue;
        }
        fails++;
        CHECK_MSG(rc == EINVAL && strstr(st.get_last_error(&st), "of ") != NULL &&
                      strncmp(st.get_last_error(&st), "record ", 7) == 0 &&
                      strstr(st.get_last_error(&st), "is required but could not be found"),
                  "parse error: %d %s", rc, st.get_last_error(&st));
    }
    CHECK_MSG(fails == 3 && calls == 4, "%d batches failed in %d calls", fails, calls);
    st.release(&st);
}

/* The schema's formats for mnist (FixedLen [28, 28] floats, an int64
 * scalar) and a sequence spec, as docs/arrow.md's table says. */
static void test_schema_text(void)
{
    struct ArrowSchema s;
    fc_error err;
    int64_t k;
    char text[2048];
    size_t used = 0;
    CHECK(fc_arrow_schema(&mnist_digit_desc, NULL, mode, &s, &err) == FC_OK);
    for (k = 0; k < s.n_children; k++) {
        const struct ArrowSchema *c = s.children[k];
        used += (size_t)snprintf(text + used, sizeof text - used, "%s:", c->name);
        while (c != NULL) {
            used += (size_t)snprintf(text + used, sizeof text - used, " %s", c->format);
            c = c->n_children > 0 ? c->children[0] : NULL;
        }
        used += (size_t)snprintf(text + used, sizeof text - used, "; ");
    }
    CHECK_MSG(strcmp(text, "image_floats: +w:28 +w:28 f; image_class: l; ") == 0, "mnist: %s",
              text);
    s.release(&s);
    CHECK(fc_arrow_schema(NULL, NULL, mode, &s, &err) == FC_ERR_ARG);
}

int main(void)
{
    for (mode = 0; mode <= FC_ARROW_LARGE; mode += FC_ARROW_LARGE) {
        RUN(test_schema_text);
        RUN(test_corpus);
        RUN(test_every_kind);
        for (threads = 0; threads <= 3; threads += 3) {
            RUN(test_stream);
            RUN(test_stream_big_blocks);
            RUN(test_stream_parse_error);
        }
    }
    return harness_report("arrow");
}
