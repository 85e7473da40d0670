/* Arrow IPC files and streams read back as C Data Interface arrays
 * (fc_arrow.h), for featc convert's way from Arrow to TFRecords.
 *
 * The bytes are untrusted: every flatbuffer offset, vtable, vector and
 * string is checked to lie inside the metadata before it is read; every
 * buffer inside the body and aligned to its values; every count, offset
 * and length against what holds it; offsets in order; the number of
 * fields bounded (a flatbuffer may point many times at one table, so a
 * schema's size is not bounded by its bytes) and its depth too.  What the
 * reader does not know (dictionaries, compressed bodies, views, other
 * types, the other byte order) is an error that names it.
 *
 * The arrays view the bytes given to fc_arrow_ipc_read_open (no copy),
 * which must outlive them.  Memory: the schema's nodes, each batch's
 * nodes. */
#include "featc/fc_arrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_order.h"

#define MAX_DEPTH 32
#define MAX_NODES 4096

/* ------------------------------------------------------------ flatbuffers */

typedef struct fbr {
    const unsigned char *p;
    size_t n;
} fbr;

typedef struct fbt {
    size_t pos, vt;
    unsigned vtsize, tsize;
} fbt;

static uint64_t le(const unsigned char *p, size_t k)
{
    uint64_t v = 0;
    while (k-- > 0)
        v = (v << 8) | p[k];
    return v;
}

static int fb_table_at(const fbr *b, size_t pos, fbt *t)
{
    int64_t so;
    uint64_t vt;
    if (pos > b->n || b->n - pos < 4)
        return -1;
    so = (int64_t)(int32_t)(uint32_t)le(b->p + pos, 4);
    vt = (uint64_t)((int64_t)pos - so);
    if ((int64_t)pos - so < 0 || vt > b->n || b->n - vt < 4)
        return -1;
    t->pos = pos;
    t->vt = (size_t)vt;
    t->vtsize = (unsigned)le(b->p + vt, 2);
    t->tsize = (unsigned)le(b->p + vt + 2, 2);
    if (t->vtsize < 4 || t->vtsize > b->n - vt || t->tsize < 4 ||
        t->tsize > b->n - pos)
        return -1;
    return 0;
}

/* Where field id (size bytes) lies, or 0 when absent; -1 when it would
 * pass the table. */
static long fb_field(const fbr *b, const fbt *t, unsigned id, unsigned size)
{
    unsigned off;
    if (4 + 2 * id + 2 > t->vtsize)
        return 0;
    off = (unsigned)le(b->p + t->vt + 4 + 2 * id, 2);
    if (off == 0)
        return 0;
    if (off < 4 || off + size > t->tsize)
        return -1;
    return (long)(t->pos + off);
}

static int fb_scalar(const fbr *b, const fbt *t, unsigned id, unsigned size, uint64_t dflt,
                     uint64_t *v)
{
    long at = fb_field(b, t, id, size);
    if (at < 0)
        return -1;
    *v = at == 0 ? dflt : le(b->p + at, size);
    return 0;
}

/* The position a reference field points to; 0 when absent, -1 bad. */
static long fb_ref(const fbr *b, const fbt *t, unsigned id)
{
    long at = fb_field(b, t, id, 4);
    uint64_t target;
    if (at <= 0)
        return at;
    target = (uint64_t)at + le(b->p + at, 4);
    if (target >= b->n)
        return -1;
    return (long)target;
}

/* A vector at pos: its count and where its elements start. */
static int fb_vec(const fbr *b, long pos, size_t elem, size_t *count, size_t *start)
{
    uint64_t n;
    if (pos <= 0 || (size_t)pos > b->n || b->n - (size_t)pos < 4)
        return -1;
    n = le(b->p + pos, 4);
    if (n > (b->n - (size_t)pos - 4) / (elem > 0 ? elem : 1))
        return -1;
    *count = (size_t)n;
    *start = (size_t)pos + 4;
    return 0;
}

/* Element i of a vector of tables. */
static int fb_vec_table(const fbr *b, size_t start, size_t i, fbt *t)
{
    size_t at = start + 4 * i;
    uint64_t target = (uint64_t)at + le(b->p + at, 4);
    if (target >= b->n)
        return -1;
    return fb_table_at(b, (size_t)target, t);
}

static int fb_root(const fbr *b, fbt *t)
{
    if (b->n < 4)
        return -1;
    return fb_vec_table(b, 0, 0, t);
}

/* ------------------------------------------------------------ errors */

static int fail(fc_error *err, int status, uint64_t offset, const char *what, const char *more)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, offset);
    fc_msg_str(&m, "arrow ipc: ");
    fc_msg_str(&m, what);
    if (more != NULL)
        fc_msg_str(&m, more);
    if (offset != FC_NO_INDEX) {
        fc_msg_str(&m, " (at byte ");
        fc_msg_u64(&m, offset);
        fc_msg_str(&m, ")");
    }
    return status;
}

/* ------------------------------------------------------------ the schema */

typedef struct snode {
    char format[24];
    char *name;
    int64_t size;    /* fixed_size_list */
    int64_t flags;
    size_t nkids;
    struct snode *kids;
} snode;

struct fc_arrow_ipc_reader {
    const unsigned char *data;
    size_t len, pos;      /* pos: the next message */
    int file_format, done;
    int schema_read;      /* the stream's schema message was read (a file's may come) */
    uint64_t batches;
    snode root;
    size_t nnodes;        /* nodes under root */
    uint64_t footer_batches;
    const unsigned char *blocks; /* the footer's record batch Blocks (24 bytes each) */
};

static void snode_free(snode *s)
{
    size_t i;
    for (i = 0; i < s->nkids; i++)
        snode_free(&s->kids[i]);
    free(s->kids);
    free(s->name);
    memset(s, 0, sizeof *s);
}

/* Schema.fbs's Type union tags */
enum { T_NULL = 1, T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_UTF8 = 5, T_BOOL = 6, T_LIST = 12,
       T_STRUCT = 13, T_FIXED_BINARY = 15, T_FIXED_LIST = 16, T_LARGE_BINARY = 19,
       T_LARGE_UTF8 = 20, T_LARGE_LIST = 21 };

static int read_type(const fbr *b, const fbt *field, int tag, snode *s, fc_error *err,
                     uint64_t at)
{
    fbt t;
    long tp = fb_ref(b, field, 3);
    uint64_t v, w;
    if (tp < 0 || (tp > 0 && fb_table_at(b, (size_t)tp, &t) != 0))
        return fail(err, FC_ERR_PARSE, at, "a damaged field type", NULL);
    switch (tag) {
    case T_INT:
        if (tp == 0 || fb_scalar(b, &t, 0, 4, 0, &v) != 0 || fb_scalar(b, &t, 1, 1, 0, &w) != 0)
            return fail(err, FC_ERR_PARSE, at, "a damaged Int type", NULL);
        if (v != 8 && v != 16 && v != 32 && v != 64)
            return fail(err, FC_ERR_PARSE, at, "an Int of a width other than 8, 16, 32, 64",
                        NULL);
        s->format[0] = "cCsSiIlL"[(v == 8 ? 0 : v == 16 ? 2 : v == 32 ? 4 : 6) + (w ? 0 : 1)];
        return FC_OK;
    case T_FLOAT:
        if (tp == 0 || fb_scalar(b, &t, 0, 2, 0, &v) != 0 || v > 2)
            return fail(err, FC_ERR_PARSE, at, "a damaged FloatingPoint type", NULL);
        s->format[0] = "efg"[v];
        return FC_OK;
    case T_BINARY:
    case T_UTF8:
    case T_LARGE_BINARY:
    case T_LARGE_UTF8:
        s->format[0] = tag == T_BINARY ? 'z' : tag == T_UTF8 ? 'u' : tag == T_LARGE_BINARY ? 'Z' : 'U';
        return FC_OK;
    case T_LIST:
    case T_LARGE_LIST:
    case T_STRUCT:
        memcpy(s->format, tag == T_LIST ? "+l" : tag == T_LARGE_LIST ? "+L" : "+s", 3);
        return FC_OK;
    case T_FIXED_LIST:
        if (tp == 0 || fb_scalar(b, &t, 0, 4, 0, &v) != 0 || v > INT32_MAX)
            return fail(err, FC_ERR_PARSE, at, "a damaged FixedSizeList type", NULL);
        s->size = (int64_t)v;
        snprintf(s->format, sizeof s->format, "+w:%u", (unsigned)v);
        return FC_OK;
    default: {
        char what[64];
        snprintf(what, sizeof what, "%d", tag);
        return fail(err, FC_ERR_UNSUPPORTED, at,
                    "a column of a type featc does not read (Type union tag ", what);
    }
    }
}

static int read_field(fc_arrow_ipc_reader *r, const fbr *b, const fbt *f, unsigned depth,
                      snode *s, uint64_t at, fc_error *err)
{
    long np = fb_ref(b, f, 0), kp;
    uint64_t nullable, tag;
    size_t nlen, nstart, nk, kstart, i;
    int rc;
    if (depth > MAX_DEPTH)
        return fail(err, FC_ERR_UNSUPPORTED, at, "a schema nested more than 32 levels", NULL);
    if (++r->nnodes > MAX_NODES)
        return fail(err, FC_ERR_UNSUPPORTED, at, "a schema of more than 4096 fields", NULL);
    if (np < 0 || fb_scalar(b, f, 1, 1, 0, &nullable) != 0 || fb_scalar(b, f, 2, 1, 0, &tag) != 0)
        return fail(err, FC_ERR_PARSE, at, "a damaged field", NULL);
    nlen = 0;
    nstart = 0;
    if (np > 0 && fb_vec(b, np, 1, &nlen, &nstart) != 0)
        return fail(err, FC_ERR_PARSE, at, "a damaged field name", NULL);
    s->name = (char *)malloc(nlen + 1);
    if (s->name == NULL)
        return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    if (nlen > 0)
        memcpy(s->name, b->p + nstart, nlen);
    s->name[nlen] = '\0';
    if (strlen(s->name) != nlen)
        return fail(err, FC_ERR_UNSUPPORTED, at, "a field name with a NUL byte", NULL);
    s->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
    if (fb_field(b, f, 4, 4) != 0)
        return fail(err, FC_ERR_UNSUPPORTED, at, "a dictionary-encoded column: ", s->name);
    if ((rc = read_type(b, f, (int)tag, s, err, at)) != FC_OK)
        return rc;
    kp = fb_ref(b, f, 5);
    nk = 0;
    kstart = 0;
    if (kp < 0 || (kp > 0 && fb_vec(b, kp, 4, &nk, &kstart) != 0))
        return fail(err, FC_ERR_PARSE, at, "a damaged field's children", NULL);
    if ((s->format[0] == '+' && s->format[1] != 's') ? nk != 1
        : s->format[0] != '+'                        ? nk != 0
                                                     : 0)
        return fail(err, FC_ERR_PARSE, at, "a field with the wrong number of children: ",
                    s->name);
    if (nk > 0) {
        s->kids = (snode *)calloc(nk, sizeof *s->kids);
        if (s->kids == NULL)
            return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
        s->nkids = nk;
    }
    for (i = 0; i < nk; i++) {
        fbt k;
        if (fb_vec_table(b, kstart, i, &k) != 0)
            return fail(err, FC_ERR_PARSE, at, "a damaged child field", NULL);
        if ((rc = read_field(r, b, &k, depth + 1, &s->kids[i], at, err)) != FC_OK)
            return rc;
    }
    return FC_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int read_schema(fc_arrow_ipc_reader *r, const fbr *b, const fbt *sch, uint64_t at,
                       fc_error *err)
{
    uint64_t endian;
    long fp = fb_ref(b, sch, 1);
    size_t n = 0, start = 0, i;
    int rc;
    if (fb_scalar(b, sch, 0, 2, 0, &endian) != 0 || fp < 0 ||
        (fp > 0 && fb_vec(b, fp, 4, &n, &start) != 0))
        return fail(err, FC_ERR_PARSE, at, "a damaged schema", NULL);
    if (endian != (fc_host_big_endian() ? 1u : 0u))
        return fail(err, FC_ERR_UNSUPPORTED, at,
                    "data of the other byte order than this machine's", NULL);
    memcpy(r->root.format, "+s", 3);
    r->root.name = (char *)calloc(1, 1);
    r->root.kids = (snode *)calloc(n + 1, sizeof *r->root.kids);
    if (r->root.name == NULL || r->root.kids == NULL)
        return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    r->root.nkids = n;
    for (i = 0; i < n; i++) {
        fbt f;
        if (fb_vec_table(b, start, i, &f) != 0)
            return fail(err, FC_ERR_PARSE, at, "a damaged field", NULL);
        if ((rc = read_field(r, b, &f, 1, &r->root.kids[i], at, err)) != FC_OK)
            return rc;
    }
    /* a column is found by its name: two of one name would leave one unread */
    if (n > 1) {
        const char **names = (const char **)malloc(n * sizeof *names);
        if (names == NULL)
            return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
        for (i = 0; i < n; i++)
            names[i] = r->root.kids[i].name;
        qsort(names, n, sizeof *names, by_name);
        for (i = 1; i < n; i++)
            if (strcmp(names[i - 1], names[i]) == 0) {
                rc = fail(err, FC_ERR_PARSE, at, "two columns named ", names[i]);
                free(names);
                return rc;
            }
        free(names);
    }
    return FC_OK;
}

/* ------------------------------------------------------------ messages */

enum { HEADER_SCHEMA = 1, HEADER_DICTIONARY = 2, HEADER_RECORD_BATCH = 3 };

typedef struct message {
    fbr meta;
    fbt header;
    int type;
    const unsigned char *body;
    size_t body_len;
    uint64_t at; /* where it starts */
} message;

/* The message at r->pos: 1 with *m, 0 at the end of the stream, or the
 * error status (negative). */
static int next_message(fc_arrow_ipc_reader *r, message *m, fc_error *err)
{
    size_t p = r->pos, left = r->len - r->pos, meta_len, body_at;
    uint64_t len, body, version, type;
    fbt msg;
    long hp;
    m->at = p;
    if (left == 0)
        return 0; /* a stream may end without its end marker */
    if (left < 4)
        return -fail(err, FC_ERR_PARSE, p, "truncated: a message's length is cut off", NULL);
    len = le(r->data + p, 4);
    if (len == 0xFFFFFFFFu) {
        if (left < 8)
            return -fail(err, FC_ERR_PARSE, p, "truncated: a message's length is cut off",
                         NULL);
        len = le(r->data + p + 4, 4);
        p += 8;
    } else {
        p += 4; /* the format before Arrow 0.15: no continuation word */
    }
    if (len == 0) {
        r->pos = p;
        return 0;
    }
    if (len > r->len - p)
        return -fail(err, FC_ERR_PARSE, m->at, "truncated: a message's metadata runs past the "
                                               "end", NULL);
    if (len > INT32_MAX)
        return -fail(err, FC_ERR_PARSE, m->at, "a message's metadata over 2 GiB", NULL);
    meta_len = (size_t)len;
    m->meta.p = r->data + p;
    m->meta.n = meta_len;
    if (fb_root(&m->meta, &msg) != 0 || fb_scalar(&m->meta, &msg, 0, 2, 0, &version) != 0 ||
        fb_scalar(&m->meta, &msg, 1, 1, 0, &type) != 0 ||
        fb_scalar(&m->meta, &msg, 3, 8, 0, &body) != 0)
        return -fail(err, FC_ERR_PARSE, m->at, "a damaged message", NULL);
    if (version < 3)
        return -fail(err, FC_ERR_UNSUPPORTED, m->at, "metadata older than version V4", NULL);
    hp = fb_ref(&m->meta, &msg, 2);
    if (hp <= 0 || fb_table_at(&m->meta, (size_t)hp, &m->header) != 0)
        return -fail(err, FC_ERR_PARSE, m->at, "a message without its header", NULL);
    body_at = p + meta_len;
    if (body > r->len - body_at)
        return -fail(err, FC_ERR_PARSE, m->at, "truncated: a message's body runs past the end",
                     NULL);
    m->type = (int)type;
    m->body = r->data + body_at;
    m->body_len = (size_t)body;
    r->pos = body_at + (size_t)body;
    return 1;
}

int fc_arrow_ipc_read_open(fc_arrow_ipc_reader **out, const void *data, size_t len,
                           fc_error *err)
{
    fc_arrow_ipc_reader *r;
    message m;
    int rc;
    *out = NULL;
    r = (fc_arrow_ipc_reader *)calloc(1, sizeof *r);
    if (r == NULL)
        return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    r->data = (const unsigned char *)data;
    r->len = len;
    if (len >= 6 && memcmp(data, "ARROW1", 6) == 0) {
        uint64_t flen;
        fbr fb;
        fbt foot, sch;
        long bp, sp;
        size_t nb = 0, start;
        r->file_format = 1;
        if (len < 8 + 10 || memcmp(r->data + len - 6, "ARROW1", 6) != 0) {
            free(r);
            return fail(err, FC_ERR_PARSE, len,
                        "truncated: an IPC file without its footer (\"ARROW1\" at the end)",
                        NULL);
        }
        flen = le(r->data + len - 10, 4);
        if (flen > len - 8 - 10) {
            free(r);
            return fail(err, FC_ERR_PARSE, len - 10, "a damaged footer length", NULL);
        }
        fb.p = r->data + len - 10 - flen;
        fb.n = (size_t)flen;
        if (fb_root(&fb, &foot) != 0 || (bp = fb_ref(&fb, &foot, 3)) < 0 ||
            (bp > 0 && fb_vec(&fb, bp, 24, &nb, &start) != 0)) {
            free(r);
            return fail(err, FC_ERR_PARSE, len - 10 - flen, "a damaged footer", NULL);
        }
        r->footer_batches = nb;
        r->blocks = nb > 0 ? fb.p + start : NULL;
        r->len = len - 10 - (size_t)flen; /* the stream ends before the footer */
        r->pos = 8;
        /* the file's schema is the footer's (a writer may leave the stream's
         * schema message out: Arrow's JavaScript one does) */
        sp = fb_ref(&fb, &foot, 1);
        if (sp <= 0 || fb_table_at(&fb, (size_t)sp, &sch) != 0) {
            free(r);
            return fail(err, FC_ERR_PARSE, len - 10 - flen, "a footer without its schema",
                        NULL);
        }
        if ((rc = read_schema(r, &fb, &sch, len - 10 - flen, err)) != FC_OK) {
            snode_free(&r->root);
            free(r);
            return rc;
        }
        *out = r;
        return FC_OK;
    }
    rc = next_message(r, &m, err);
    if (rc <= 0 || m.type != HEADER_SCHEMA) {
        free(r);
        if (rc < 0)
            return -rc;
        return fail(err, FC_ERR_PARSE, 0, "not an Arrow IPC file or stream: no schema first",
                    NULL);
    }
    if ((rc = read_schema(r, &m.meta, &m.header, m.at, err)) != FC_OK) {
        snode_free(&r->root);
        free(r);
        return rc;
    }
    r->schema_read = 1;
    *out = r;
    return FC_OK;
}

static void schema_release(struct ArrowSchema *s)
{
    int64_t i;
    for (i = 0; i < s->n_children; i++) {
        if (s->children[i]->release != NULL)
            s->children[i]->release(s->children[i]);
        free(s->children[i]); /* (a child moved out was copied first: its struct is ours) */
    }
    free(s->children);
    free(s->private_data);
    s->release = NULL;
}

/* A schema node copied from s: format, name and the children. */
static int export_schema(const snode *s, struct ArrowSchema *out)
{
    size_t fl = strlen(s->format) + 1, nl = strlen(s->name) + 1, i;
    char *mem;
    memset(out, 0, sizeof *out);
    mem = (char *)malloc(fl + nl + (s->nkids + 1) * (sizeof(struct ArrowSchema) +
                                                     sizeof(struct ArrowSchema *)) + 16);
    if (mem == NULL)
        return -1;
    out->private_data = mem;
    out->children = (struct ArrowSchema **)malloc((s->nkids + 1) * sizeof *out->children);
    if (out->children == NULL) {
        free(mem);
        return -1;
    }
    memcpy(mem, s->format, fl);
    memcpy(mem + fl, s->name, nl);
    out->format = mem;
    out->name = mem + fl;
    out->flags = s->flags;
    out->release = schema_release;
    for (i = 0; i < s->nkids; i++) {
        out->children[i] = (struct ArrowSchema *)malloc(sizeof **out->children);
        if (out->children[i] == NULL || export_schema(&s->kids[i], out->children[i]) != 0) {
            free(out->children[i]);
            schema_release(out);
            return -1;
        }
        out->n_children = (int64_t)i + 1;
    }
    return 0;
}

int fc_arrow_ipc_read_schema(const fc_arrow_ipc_reader *r, struct ArrowSchema *out, fc_error *err)
{
    if (export_schema(&r->root, out) != 0)
        return fail(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    return FC_OK;
}

/* ------------------------------------------------------------ batches */

typedef struct batch_reader {
    const fbr *meta;
    size_t nodes_start, nnodes, node_i;
    size_t bufs_start, nbufs, buf_i;
    const unsigned char *body;
    size_t body_len;
    uint64_t at;
    fc_error *err;
} batch_reader;

static void array_release(struct ArrowArray *a)
{
    int64_t i;
    for (i = 0; i < a->n_children; i++)
        if (a->children[i]->release != NULL)
            a->children[i]->release(a->children[i]);
    if (a->n_children > 0) {
        for (i = 0; i < a->n_children; i++)
            free(a->children[i]);
    }
    free(a->children);
    free(a->buffers);
    a->release = NULL;
}

static const int64_t zero_offsets[2];

/* The next buffer: *p (NULL when empty) and its length. */
static int take_buffer(batch_reader *br, const void **p, size_t *len)
{
    const unsigned char *e;
    uint64_t off, n;
    if (br->buf_i >= br->nbufs)
        return fail(br->err, FC_ERR_PARSE, br->at, "a record batch with too few buffers", NULL);
    e = br->meta->p + br->bufs_start + 16 * br->buf_i++;
    off = le(e, 8);
    n = le(e + 8, 8);
    if (off > br->body_len || n > br->body_len - off)
        return fail(br->err, FC_ERR_PARSE, br->at, "a buffer outside the message body", NULL);
    *p = n > 0 ? br->body + off : NULL;
    *len = (size_t)n;
    return FC_OK;
}

/* Offset i of a 64-bit ("Z", "U", "+L") or 32-bit offsets buffer. */
static int64_t offset_at(const void *off, int big, int64_t i)
{
    return big ? ((const int64_t *)off)[i] : ((const int32_t *)off)[i];
}

/* n + 1 offsets from 0 up, in order, the last within limit. */
static int check_offsets(batch_reader *br, const void *off, int big, int64_t n, int64_t limit)
{
    int64_t i;
    if (offset_at(off, big, 0) < 0)
        return fail(br->err, FC_ERR_PARSE, br->at, "a negative first offset", NULL);
    for (i = 0; i < n; i++)
        if (offset_at(off, big, i + 1) < offset_at(off, big, i))
            return fail(br->err, FC_ERR_PARSE, br->at, "offsets out of order", NULL);
    if (offset_at(off, big, n) > limit)
        return fail(br->err, FC_ERR_PARSE, br->at, "offsets past the end of their values", NULL);
    return FC_OK;
}

static int read_array(batch_reader *br, const snode *s, struct ArrowArray *a);

static size_t value_size(char f)
{
    switch (f) {
    case 'c': case 'C': return 1;
    case 's': case 'S': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    default: return 8;
    }
}

static int read_array(batch_reader *br, const snode *s, struct ArrowArray *a)
{
    const unsigned char *e;
    int64_t n, nulls;
    const void *vb;
    size_t vlen, i;
    int nb, rc, big = s->format[0] == 'Z' || s->format[0] == 'U' || strcmp(s->format, "+L") == 0;
    int offs = big || s->format[0] == 'z' || s->format[0] == 'u' || strcmp(s->format, "+l") == 0;
    memset(a, 0, sizeof *a);
    if (br->node_i >= br->nnodes)
        return fail(br->err, FC_ERR_PARSE, br->at, "a record batch with too few field nodes",
                    NULL);
    e = br->meta->p + br->nodes_start + 16 * br->node_i++;
    n = (int64_t)le(e, 8);
    nulls = (int64_t)le(e + 8, 8);
    if (n < 0 || nulls < 0 || nulls > n || n > (int64_t)1 << 48)
        return fail(br->err, FC_ERR_PARSE, br->at, "a field node with a bad length", NULL);
    nb = s->format[0] == '+' ? (offs ? 2 : 1) : (s->format[0] == 'z' || s->format[0] == 'u' ||
                                               s->format[0] == 'Z' || s->format[0] == 'U')
                                                  ? 3
                                                  : 2;
    a->buffers = (const void **)calloc(3, sizeof *a->buffers);
    a->children = s->nkids > 0 ? (struct ArrowArray **)calloc(s->nkids, sizeof *a->children)
                               : NULL;
    a->release = array_release;
    if (a->buffers == NULL || (s->nkids > 0 && a->children == NULL))
        return fail(br->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    a->length = n;
    a->null_count = nulls;
    a->n_buffers = nb;
    /* validity */
    if ((rc = take_buffer(br, &vb, &vlen)) != FC_OK)
        return rc;
    if (nulls > 0) {
        int64_t zeros = 0, k;
        const unsigned char *bits = (const unsigned char *)vb;
        if (vb == NULL || vlen < (size_t)(n + 7) / 8)
            return fail(br->err, FC_ERR_PARSE, br->at, "a validity bitmap shorter than its "
                                                       "column", NULL);
        for (k = 0; k < n; k++)
            zeros += !((bits[k / 8] >> (k % 8)) & 1);
        if (zeros != nulls)
            return fail(br->err, FC_ERR_PARSE, br->at, "a null count that its validity "
                                                       "bitmap does not give", NULL);
        a->buffers[0] = vb;
    }
    if (offs) {
        size_t w = big ? 8 : 4;
        if ((rc = take_buffer(br, &vb, &vlen)) != FC_OK)
            return rc;
        if (vb == NULL && n == 0) {
            vb = zero_offsets;
        } else if (vb == NULL || vlen / w < (size_t)n + 1) {
            return fail(br->err, FC_ERR_PARSE, br->at, "an offsets buffer shorter than its "
                                                       "column", NULL);
        } else if ((uintptr_t)vb % w != 0) {
            return fail(br->err, FC_ERR_PARSE, br->at, "a misaligned offsets buffer", NULL);
        }
        a->buffers[1] = vb;
        if (s->format[0] != '+') {
            const void *db;
            size_t dlen;
            if ((rc = take_buffer(br, &db, &dlen)) != FC_OK)
                return rc;
            rc = check_offsets(br, vb, big, n, (int64_t)dlen);
            if (rc != FC_OK)
                return rc;
            a->buffers[2] = db != NULL ? db : (const void *)zero_offsets;
            return FC_OK;
        }
    } else if (s->format[0] != '+') {
        size_t sz = value_size(s->format[0]);
        if ((rc = take_buffer(br, &vb, &vlen)) != FC_OK)
            return rc;
        if ((vb == NULL && n > 0) || vlen / sz < (size_t)n)
            return fail(br->err, FC_ERR_PARSE, br->at, "a values buffer shorter than its column",
                        NULL);
        if ((uintptr_t)vb % sz != 0)
            return fail(br->err, FC_ERR_PARSE, br->at, "a misaligned values buffer", NULL);
        a->buffers[1] = vb != NULL ? vb : (const void *)zero_offsets;
        return FC_OK;
    }
    for (i = 0; i < s->nkids; i++) {
        int64_t need;
        a->children[i] = (struct ArrowArray *)calloc(1, sizeof **a->children);
        if (a->children[i] == NULL)
            return fail(br->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
        a->n_children = (int64_t)i + 1;
        if ((rc = read_array(br, &s->kids[i], a->children[i])) != FC_OK)
            return rc;
        if (s->format[1] == 'w' && s->size > 0 && n > INT64_MAX / (int64_t)s->size)
            return fail(br->err, FC_ERR_PARSE, br->at, "a fixed-size list whose rows times "
                                                       "their size overflow 64 bits", NULL);
        need = s->format[1] == 's' ? n : s->format[1] == 'w' ? n * (int64_t)s->size : 0;
        if (offs)
            rc = check_offsets(br, a->buffers[1], big, n, a->children[i]->length);
        else if (a->children[i]->length < need)
            rc = fail(br->err, FC_ERR_PARSE, br->at, "a child shorter than its parent needs",
                      NULL);
        if (rc != FC_OK)
            return rc;
    }
    return FC_OK;
}

/* The batch's struct: no field node of its own, a child per field. */
static int read_root(batch_reader *br, const snode *s, int64_t length, struct ArrowArray *a)
{
    size_t i;
    int rc;
    memset(a, 0, sizeof *a);
    a->buffers = (const void **)calloc(1, sizeof *a->buffers);
    a->children = (struct ArrowArray **)calloc(s->nkids + 1, sizeof *a->children);
    a->release = array_release;
    if (a->buffers == NULL || a->children == NULL)
        return fail(br->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
    a->length = length;
    a->n_buffers = 1;
    for (i = 0; i < s->nkids; i++) {
        a->children[i] = (struct ArrowArray *)calloc(1, sizeof **a->children);
        if (a->children[i] == NULL)
            return fail(br->err, FC_ERR_NO_MEMORY, FC_NO_INDEX, "out of memory", NULL);
        a->n_children = (int64_t)i + 1;
        if ((rc = read_array(br, &s->kids[i], a->children[i])) != FC_OK)
            return rc;
        if (a->children[i]->length != length)
            return fail(br->err, FC_ERR_PARSE, br->at,
                        a->children[i]->length < length
                            ? "a column shorter than its record batch"
                            : "a column longer than its record batch (Arrow's validation "
                              "refuses a batch whose columns are not its length)",
                        NULL);
    }
    return FC_OK;
}

int fc_arrow_ipc_read_next(fc_arrow_ipc_reader *r, struct ArrowArray *out, fc_error *err)
{
    message m;
    batch_reader br;
    uint64_t length, comp;
    long np, bp;
    int rc;
    memset(out, 0, sizeof *out);
    if (r->done)
        return FC_END;
    for (;;) {
        rc = next_message(r, &m, err);
        if (rc < 0)
            return -rc;
        if (rc == 0) {
            r->done = 1;
            if (r->file_format && r->batches != r->footer_batches)
                return fail(err, FC_ERR_PARSE, r->pos, "the footer lists a different number "
                                                       "of record batches than the file holds",
                            NULL);
            return FC_END;
        }
        if (m.type == HEADER_DICTIONARY)
            return fail(err, FC_ERR_UNSUPPORTED, m.at, "a dictionary batch (dictionary-encoded "
                                                       "columns are not read)", NULL);
        if (m.type == HEADER_RECORD_BATCH)
            break;
        if (m.type == HEADER_SCHEMA) {
            /* a file's stream part may start with the schema the footer has */
            if (r->schema_read || r->batches > 0)
                return fail(err, FC_ERR_PARSE, m.at, "a second schema in one stream", NULL);
            r->schema_read = 1;
            continue;
        }
        /* other messages (tensors) carry no rows: passed over */
    }
    memset(&br, 0, sizeof br);
    br.meta = &m.meta;
    br.body = m.body;
    br.body_len = m.body_len;
    br.at = m.at;
    br.err = err;
    if ((uintptr_t)m.body % 8 != 0)
        return fail(err, FC_ERR_PARSE, m.at, "a message body not aligned to 8 bytes", NULL);
    if (fb_scalar(&m.meta, &m.header, 0, 8, 0, &length) != 0 ||
        (np = fb_ref(&m.meta, &m.header, 1)) < 0 || (bp = fb_ref(&m.meta, &m.header, 2)) < 0 ||
        fb_vec(&m.meta, np, 16, &br.nnodes, &br.nodes_start) != 0 ||
        fb_vec(&m.meta, bp, 16, &br.nbufs, &br.bufs_start) != 0 ||
        fb_scalar(&m.meta, &m.header, 3, 4, 0, &comp) != 0)
        return fail(err, FC_ERR_PARSE, m.at, "a damaged record batch", NULL);
    if (fb_field(&m.meta, &m.header, 3, 4) != 0)
        return fail(err, FC_ERR_UNSUPPORTED, m.at, "a compressed record batch (LZ4 or ZSTD "
                                                   "bodies are not read: write it uncompressed)",
                    NULL);
    if (length > (uint64_t)1 << 48)
        return fail(err, FC_ERR_PARSE, m.at, "a record batch with a bad length", NULL);
    /* every column featc reads holds at least a bit per row (values,
     * offsets, or a validity bitmap), but one of zero-width rows, which holds
     * none: rows past 8 per byte of the body are claimed, not held, and a
     * 674-byte file would otherwise give 2^48 records */
    if (length > 8 * (uint64_t)m.body_len + 64)
        return fail(err, FC_ERR_PARSE, m.at, "a record batch of more rows than its body holds "
                                             "(8 per byte)", NULL);
    /* a file is read as Arrow's readers read it, through its footer: the
     * footer's k-th block must be the stream's k-th record batch */
    if (r->file_format) {
        if (r->batches >= r->footer_batches)
            return fail(err, FC_ERR_PARSE, m.at, "a record batch the footer does not list",
                        NULL);
        if (le(r->blocks + 24 * r->batches, 8) != m.at)
            return fail(err, FC_ERR_PARSE, m.at, "the footer lists another record batch here "
                                                 "(its blocks out of the stream's order)",
                        NULL);
    }
    rc = read_root(&br, &r->root, (int64_t)length, out);
    if (rc == FC_OK && (br.node_i != br.nnodes ||
                        br.buf_i != br.nbufs))
        rc = fail(err, FC_ERR_PARSE, m.at, "a record batch whose nodes or buffers do not "
                                           "match its schema", NULL);
    if (rc != FC_OK) {
        if (out->release != NULL)
            out->release(out);
        return rc;
    }
    r->batches++;
    return FC_OK;
}

uint64_t fc_arrow_ipc_read_offset(const fc_arrow_ipc_reader *r)
{
    return r->pos;
}

void fc_arrow_ipc_read_close(fc_arrow_ipc_reader *r)
{
    if (r == NULL)
        return;
    snode_free(&r->root);
    free(r);
}
