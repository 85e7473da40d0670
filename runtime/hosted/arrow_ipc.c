/* Arrow arrays into Arrow's IPC format (fc_arrow.h): the streaming format
 * and the file format, as https://arrow.apache.org/docs/format/Columnar.html
 * describes them.
 *
 * A stream is encapsulated messages: the Schema, then a RecordBatch per
 * array, then the end-of-stream marker.  A message is the continuation
 * word 0xFFFFFFFF, the metadata's size, the metadata (a flatbuffer of
 * Message.fbs's Message, padded to 8 bytes), and the body: the buffers of
 * every node in pre-order, each padded to 8 bytes.  The file format wraps
 * the stream in the magic "ARROW1" and ends it with a footer (the schema
 * again and where each record batch starts) for random access.
 *
 * The flatbuffers are written front to back: a table's vtable just before
 * it, then the table, then what it points to (an offset in a flatbuffer
 * only points forward), every scalar at an address aligned to its size,
 * little-endian whatever the host.  The buffers are written as the host
 * holds them; the schema says which byte order that is.
 *
 * The types written are those fc_arrow_export gives: int64, float32,
 * binary and large_binary, list and large_list, fixed_size_list and
 * struct, without dictionaries.  Memory: the flatbuffer under construction and the list
 * of a batch's buffers, grown as needed and freed at the end. */
#include "featc/fc_arrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_ipc.h"
#include "byte_order.h"

/* ------------------------------------------------------------ flatbuffers */

typedef struct fbb {
    unsigned char *p;
    size_t n, cap;
    int oom;
} fbb;

static void fb_room(fbb *b, size_t k)
{
    size_t cap = b->cap > 0 ? b->cap : 256;
    unsigned char *q;
    if (b->oom || b->n + k <= b->cap)
        return;
    while (cap < b->n + k)
        cap *= 2;
    q = (unsigned char *)realloc(b->p, cap);
    if (q == NULL) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = cap;
}

/* Little-endian v (k bytes) at position at. */
static void fb_set(fbb *b, size_t at, uint64_t v, size_t k)
{
    size_t i;
    if (b->oom)
        return;
    for (i = 0; i < k; i++)
        b->p[at + i] = (unsigned char)(v >> (8 * i));
}

static size_t fb_add(fbb *b, uint64_t v, size_t k)
{
    size_t at = b->n;
    fb_room(b, k);
    if (b->oom)
        return at;
    fb_set(b, at, v, k);
    b->n += k;
    return at;
}

static void fb_pad(fbb *b, size_t align)
{
    while (b->n % align != 0 && !b->oom)
        fb_add(b, 0, 1);
}

/* A forward offset at `at` to `target`. */
static void fb_point(fbb *b, size_t at, size_t target)
{
    fb_set(b, at, (uint64_t)(target - at), 4);
}

/* A table field: size 0 absent, else 1, 2, 4 or 8 bytes; ref: a 4-byte
 * offset filled in later with fb_point (v unused). */
typedef struct fb_slot {
    unsigned size;
    int ref;
    uint64_t v;
} fb_slot;

#define FB_MAX_SLOTS 8

/* The vtable and the table of n slots (field ids 0..n-1); at[i] is where
 * slot i's value lies.  Returns the table's position. */
static size_t fb_table(fbb *b, const fb_slot *s, unsigned n, size_t *at)
{
    static const unsigned sizes[] = {8, 4, 2, 1};
    size_t off[FB_MAX_SLOTS], size = 4, vt, t;
    unsigned i, k;
    for (k = 0; k < 4; k++)
        for (i = 0; i < n; i++) {
            unsigned sz = s[i].ref ? 4u : s[i].size;
            if (sz != sizes[k])
                continue;
            size = (size + sz - 1) / sz * sz;
            off[i] = size;
            size += sz;
        }
    fb_pad(b, 2);
    vt = fb_add(b, 4u + 2u * n, 2);
    fb_add(b, size, 2);
    for (i = 0; i < n; i++)
        fb_add(b, s[i].ref || s[i].size > 0 ? off[i] : 0, 2);
    fb_pad(b, 8);
    t = b->n;
    fb_room(b, size);
    if (b->oom)
        return t;
    memset(b->p + t, 0, size);
    b->n += size;
    fb_set(b, t, (uint64_t)(t - vt), 4); /* soffset: the vtable lies before */
    for (i = 0; i < n; i++) {
        at[i] = t + (s[i].ref || s[i].size > 0 ? off[i] : 0);
        if (!s[i].ref && s[i].size > 0)
            fb_set(b, at[i], s[i].v, s[i].size);
    }
    return t;
}

/* A vector's length word, placed so that its elements (elem_align) are
 * aligned; returns the position a reference points to. */
static size_t fb_vector(fbb *b, size_t count, size_t elem_align)
{
    size_t a = elem_align > 4 ? elem_align : 4;
    while ((b->n + 4) % a != 0 && !b->oom)
        fb_add(b, 0, 1);
    return fb_add(b, count, 4);
}

static size_t fb_string(fbb *b, const char *s)
{
    size_t n = strlen(s), at = fb_vector(b, n, 1);
    fb_room(b, n + 1);
    if (b->oom)
        return at;
    memcpy(b->p + b->n, s, n + 1);
    b->n += n + 1;
    return at;
}

/* ------------------------------------------------------------ schemas */

/* Message.fbs / Schema.fbs numbers */
enum { V5 = 4 };
enum { HEADER_SCHEMA = 1, HEADER_RECORD_BATCH = 3 };
enum { T_INT = 2, T_FLOAT = 3, T_BINARY = 4, T_LIST = 12, T_STRUCT = 13, T_FIXED_LIST = 16,
       T_LARGE_BINARY = 19, T_LARGE_LIST = 21 };

static int fail(fc_error *err, int status, const char *what, const char *detail)
{
    fc_msg m = fc_error_begin(err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "arrow ipc: ");
    fc_msg_str(&m, what);
    if (detail != NULL)
        fc_msg_str(&m, detail);
    return status;
}

/* The numbers this writer knows: a format, its bytes, for Int whether it
 * is signed, for FloatingPoint its Precision (HALF 0, SINGLE 1, DOUBLE 2). */
static const struct num_format {
    char format;
    unsigned char bytes, is_signed, precision;
} num_formats[] = {{'c', 1, 1, 0}, {'C', 1, 0, 0}, {'s', 2, 1, 0}, {'S', 2, 0, 0},
                   {'i', 4, 1, 0}, {'l', 8, 1, 0}, {'e', 2, 0, 0}, {'f', 4, 0, 1},
                   {'g', 8, 0, 2}};

static const struct num_format *num_of(const char *f)
{
    size_t k;
    if (f[0] == '\0' || f[1] != '\0')
        return NULL;
    for (k = 0; k < sizeof num_formats / sizeof num_formats[0]; k++)
        if (num_formats[k].format == f[0])
            return &num_formats[k];
    return NULL;
}

/* The type of a format string this writer knows: its union tag, and for a
 * fixed-size list its size; 0 when not known. */
static int type_of(const char *f, int64_t *size)
{
    const struct num_format *nf = num_of(f);
    *size = 0;
    if (nf != NULL)
        return nf->format == 'e' || nf->format == 'f' || nf->format == 'g' ? T_FLOAT : T_INT;
    if (strcmp(f, "Z") == 0)
        return T_LARGE_BINARY;
    if (strcmp(f, "z") == 0)
        return T_BINARY;
    if (strcmp(f, "+L") == 0)
        return T_LARGE_LIST;
    if (strcmp(f, "+l") == 0)
        return T_LIST;
    if (strcmp(f, "+s") == 0)
        return T_STRUCT;
    return fc_arrow_fixed_size(f, size) ? T_FIXED_LIST : 0;
}

int fc_arrow_fixed_size(const char *format, int64_t *size)
{
    char *end;
    long long v;
    if (strncmp(format, "+w:", 3) != 0 || format[3] < '0' || format[3] > '9')
        return 0;
    v = strtoll(format + 3, &end, 10);
    if (*end != '\0' || v > INT32_MAX)
        return 0;
    *size = (int64_t)v;
    return 1;
}

/* Checks a schema tree before anything is written. */
static int check_schema(const struct ArrowSchema *s, unsigned depth, fc_error *err)
{
    int64_t size, i;
    int t;
    if (depth > 64)
        return fail(err, FC_ERR_UNSUPPORTED, "a schema nested more than 64 levels", NULL);
    if (s == NULL || s->format == NULL || s->release == NULL)
        return fail(err, FC_ERR_ARG, "a released or incomplete schema", NULL);
    t = type_of(s->format, &size);
    if (t == 0)
        return fail(err, FC_ERR_UNSUPPORTED, "no IPC writer for the format ", s->format);
    if (s->dictionary != NULL)
        return fail(err, FC_ERR_UNSUPPORTED, "a dictionary-encoded field", NULL);
    if (t == T_LARGE_LIST || t == T_LIST || t == T_FIXED_LIST ? s->n_children != 1
        : t == T_STRUCT                         ? s->n_children < 0 ||
                                                      (s->n_children > 0 && s->children == NULL)
                                                : s->n_children != 0)
        return fail(err, FC_ERR_ARG, "a schema node with the wrong number of children: ",
                    s->format);
    for (i = 0; i < s->n_children; i++) {
        int rc = check_schema(s->children[i], depth + 1, err);
        if (rc != FC_OK)
            return rc;
    }
    return FC_OK;
}

/* Field table of s (and after it, what it points to). */
static size_t put_field(fbb *b, const struct ArrowSchema *s)
{
    fb_slot slot[6];
    size_t at[6], t, kids, name, type;
    int64_t size, i;
    int tag = type_of(s->format, &size);
    memset(slot, 0, sizeof slot);
    slot[0].ref = 1;                                           /* name */
    slot[1].size = 1;                                          /* nullable */
    slot[1].v = (s->flags & ARROW_FLAG_NULLABLE) != 0;
    slot[2].size = 1;                                          /* type_type */
    slot[2].v = (uint64_t)tag;
    slot[3].ref = 1;                                           /* type */
    slot[5].ref = 1;                                           /* children */
    t = fb_table(b, slot, 6, at);
    (void)t;
    name = fb_string(b, s->name != NULL ? s->name : "");
    fb_point(b, at[0], name);
    {
        fb_slot ts[2];
        size_t tat[2];
        memset(ts, 0, sizeof ts);
        if (tag == T_INT) {
            ts[0].size = 4; /* bitWidth */
            ts[0].v = 8u * num_of(s->format)->bytes;
            ts[1].size = 1; /* is_signed */
            ts[1].v = num_of(s->format)->is_signed;
            type = fb_table(b, ts, 2, tat);
        } else if (tag == T_FLOAT) {
            ts[0].size = 2; /* precision */
            ts[0].v = num_of(s->format)->precision;
            type = fb_table(b, ts, 1, tat);
        } else if (tag == T_FIXED_LIST) {
            ts[0].size = 4; /* listSize */
            ts[0].v = (uint64_t)size;
            type = fb_table(b, ts, 1, tat);
        } else {
            type = fb_table(b, ts, 0, tat);
        }
    }
    fb_point(b, at[3], type);
    kids = fb_vector(b, (size_t)s->n_children, 4);
    fb_point(b, at[5], kids);
    fb_room(b, 4 * (size_t)s->n_children);
    for (i = 0; i < s->n_children && !b->oom; i++)
        fb_add(b, 0, 4);
    for (i = 0; i < s->n_children && !b->oom; i++) {
        size_t child = put_field(b, s->children[i]);
        fb_point(b, kids + 4 + 4 * (size_t)i, child);
    }
    return t;
}

/* A Schema table: the top-level struct's children are the fields. */
static size_t put_schema(fbb *b, const struct ArrowSchema *s)
{
    fb_slot slot[2];
    size_t at[2], t, v;
    int64_t i;
    memset(slot, 0, sizeof slot);
    slot[0].size = 2; /* endianness */
    slot[0].v = fc_host_big_endian() ? 1u : 0u;
    slot[1].ref = 1;  /* fields */
    t = fb_table(b, slot, 2, at);
    v = fb_vector(b, (size_t)s->n_children, 4);
    fb_point(b, at[1], v);
    for (i = 0; i < s->n_children && !b->oom; i++)
        fb_add(b, 0, 4);
    for (i = 0; i < s->n_children && !b->oom; i++)
        fb_point(b, v + 4 + 4 * (size_t)i, put_field(b, s->children[i]));
    return t;
}

/* A Message with its header table's position left in *header_at. */
static void put_message(fbb *b, int header, uint64_t body, size_t *header_at)
{
    fb_slot slot[4];
    size_t at[4], root = fb_add(b, 0, 4);
    memset(slot, 0, sizeof slot);
    slot[0].size = 2; /* version */
    slot[0].v = V5;
    slot[1].size = 1; /* header_type */
    slot[1].v = (uint64_t)header;
    slot[2].ref = 1;  /* header */
    slot[3].size = 8; /* bodyLength */
    slot[3].v = body;
    fb_point(b, root, fb_table(b, slot, 4, at));
    *header_at = at[2];
}

/* ------------------------------------------------------------ the writer */

typedef struct ipc_buf {
    const void *p; /* NULL: zeros */
    size_t len;
} ipc_buf;

typedef struct ipc_node {
    int64_t length, null_count;
} ipc_node;

typedef struct ipc_block {
    uint64_t offset, body;
    uint32_t meta;
} ipc_block;

struct fc_arrow_ipc {
    FILE *out;
    int file_format;
    const struct ArrowSchema *sch; /* the caller's, alive until close */
    uint64_t pos;              /* bytes written */
    fbb fb;
    ipc_buf *bufs;
    size_t nbufs, bufs_cap;
    ipc_node *nodes;
    size_t nnodes, nodes_cap;
    ipc_block *blocks;
    size_t nblocks, blocks_cap;
    int failed;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    void *q;
    size_t c = *cap > 0 ? *cap * 2 : 16;
    if (n < *cap)
        return 1;
    q = realloc(*p, c * size);
    if (q == NULL)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

static int out_write(fc_arrow_ipc *w, const void *p, size_t n, fc_error *err)
{
    static const unsigned char zeros[64];
    if (n == 0)
        return FC_OK;
    if (p == NULL) {
        while (n > 0) {
            size_t k = n < sizeof zeros ? n : sizeof zeros;
            if (fwrite(zeros, 1, k, w->out) != k)
                break;
            n -= k;
            w->pos += k;
        }
    } else if (fwrite(p, 1, n, w->out) == n) {
        w->pos += n;
        n = 0;
    }
    if (n != 0) {
        w->failed = 1;
        return fail(err, FC_ERR_IO, "write failed", NULL);
    }
    return FC_OK;
}

/* The padding that takes n to a multiple of 8. */
static size_t pad8(size_t n)
{
    return (8 - n % 8) % 8;
}

/* One encapsulated message: the metadata in w->fb, then body_len bytes
 * of buffers (written by the caller after). */
static int put_envelope(fc_arrow_ipc *w, uint64_t body_len, fc_error *err)
{
    unsigned char head[8];
    size_t meta = w->fb.n + pad8(w->fb.n);
    int rc;
    if (w->fb.oom) {
        w->failed = 1;
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    }
    if (meta > INT32_MAX - 8)
        return fail(err, FC_ERR_UNSUPPORTED, "metadata over 2 GiB", NULL);
    if (w->file_format && !grow((void **)&w->blocks, &w->blocks_cap, w->nblocks,
                                sizeof *w->blocks)) {
        w->failed = 1;
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    }
    if (w->file_format && body_len != UINT64_MAX) {
        w->blocks[w->nblocks].offset = w->pos;
        w->blocks[w->nblocks].meta = (uint32_t)(8 + meta);
        w->blocks[w->nblocks].body = body_len;
        w->nblocks++;
    }
    memset(head, 0xFF, 4);
    head[4] = (unsigned char)meta;
    head[5] = (unsigned char)(meta >> 8);
    head[6] = (unsigned char)(meta >> 16);
    head[7] = (unsigned char)(meta >> 24);
    if ((rc = out_write(w, head, 8, err)) != FC_OK ||
        (rc = out_write(w, w->fb.p, w->fb.n, err)) != FC_OK ||
        (rc = out_write(w, NULL, pad8(w->fb.n), err)) != FC_OK)
        return rc;
    return FC_OK;
}

int fc_arrow_ipc_open(fc_arrow_ipc **out, FILE *f, int format, const struct ArrowSchema *schema,
                      fc_error *err)
{
    fc_arrow_ipc *w;
    size_t at;
    int rc;
    *out = NULL;
    if (format != FC_ARROW_IPC_FILE && format != FC_ARROW_IPC_STREAM)
        return fail(err, FC_ERR_ARG, "the format is FC_ARROW_IPC_FILE or FC_ARROW_IPC_STREAM",
                    NULL);
    if ((rc = check_schema(schema, 0, err)) != FC_OK)
        return rc;
    if (strcmp(schema->format, "+s") != 0)
        return fail(err, FC_ERR_ARG, "a record batch's schema is a struct (\"+s\"), not ",
                    schema->format);
    w = (fc_arrow_ipc *)calloc(1, sizeof *w);
    if (w == NULL)
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    w->out = f;
    w->file_format = format == FC_ARROW_IPC_FILE;
    w->sch = schema;
    if (w->file_format && (rc = out_write(w, "ARROW1\0\0", 8, err)) != FC_OK) {
        free(w);
        return rc;
    }
    put_message(&w->fb, HEADER_SCHEMA, 0, &at);
    fb_point(&w->fb, at, put_schema(&w->fb, schema));
    /* (the schema message is not a record batch: no block for it) */
    if ((rc = put_envelope(w, UINT64_MAX, err)) != FC_OK) {
        free(w->fb.p);
        free(w->blocks);
        free(w);
        return rc;
    }
    *out = w;
    return FC_OK;
}

static int add_buf(fc_arrow_ipc *w, const void *p, size_t len)
{
    if (!grow((void **)&w->bufs, &w->bufs_cap, w->nbufs, sizeof *w->bufs))
        return 0;
    w->bufs[w->nbufs].p = p;
    w->bufs[w->nbufs].len = len;
    w->nbufs++;
    return 1;
}

/* The nodes and buffers of array a (schema s), in pre-order. */
static int collect(fc_arrow_ipc *w, const struct ArrowSchema *s, const struct ArrowArray *a,
                   fc_error *err)
{
    int64_t size, i, n = a->length;
    int tag = type_of(s->format, &size);
    int bin = tag == T_LARGE_BINARY || tag == T_BINARY, list = tag == T_LARGE_LIST || tag == T_LIST;
    int nb = bin ? 3 : tag == T_INT || tag == T_FLOAT || list ? 2 : 1;
    size_t w8 = tag == T_LARGE_BINARY || tag == T_LARGE_LIST ? 8 : 4;
    if (a->release == NULL || a->n_buffers != nb || a->n_children != s->n_children)
        return fail(err, FC_ERR_ARG, "an array that does not match its schema: ", s->format);
    if (a->offset != 0 || n < 0 || a->null_count < 0 || a->dictionary != NULL)
        return fail(err, FC_ERR_UNSUPPORTED, "an array with an offset or a dictionary: ",
                    s->format);
    if (!grow((void **)&w->nodes, &w->nodes_cap, w->nnodes, sizeof *w->nodes))
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    w->nodes[w->nnodes].length = n;
    w->nodes[w->nnodes].null_count = a->null_count;
    w->nnodes++;
    if (!add_buf(w, a->null_count > 0 ? a->buffers[0] : NULL,
                 a->null_count > 0 ? (size_t)(n + 7) / 8 : 0))
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    if (nb > 1 && n > 0 && a->buffers[1] == NULL)
        return fail(err, FC_ERR_ARG, "no data buffer in a ", s->format);
    if (tag == T_INT || tag == T_FLOAT) {
        if (!add_buf(w, n > 0 ? a->buffers[1] : NULL, (size_t)n * num_of(s->format)->bytes))
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    } else if (bin || list) {
        const void *off = a->buffers[1];
        int64_t first = 0, end = 0;
        if (off != NULL) {
            first = w8 == 8 ? ((const int64_t *)off)[0] : ((const int32_t *)off)[0];
            end = w8 == 8 ? ((const int64_t *)off)[n] : ((const int32_t *)off)[n];
            if (first < 0 || end < first)
                return fail(err, FC_ERR_ARG, "offsets out of order in a ", s->format);
        } else if (n > 0) {
            return fail(err, FC_ERR_ARG, "no offsets in a ", s->format);
        }
        if (!add_buf(w, off, (size_t)(n + 1) * w8))
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
        if (bin && end > 0 && a->buffers[2] == NULL)
            return fail(err, FC_ERR_ARG, "no data buffer in a ", s->format);
        if (bin && !add_buf(w, a->buffers[2], (size_t)end))
            return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
        if (list && a->children[0]->length < end)
            return fail(err, FC_ERR_ARG, "a list's child shorter than its offsets", NULL);
    } else if (tag == T_FIXED_LIST && a->children[0]->length < n * size) {
        return fail(err, FC_ERR_ARG, "a fixed-size list's child shorter than its rows", NULL);
    }
    for (i = 0; i < a->n_children; i++) {
        int rc;
        if (tag == T_STRUCT && a->children[i]->length < n)
            return fail(err, FC_ERR_ARG, "a struct's child shorter than the struct", NULL);
        if ((rc = collect(w, s->children[i], a->children[i], err)) != FC_OK)
            return rc;
    }
    return FC_OK;
}

int fc_arrow_ipc_write(fc_arrow_ipc *w, const struct ArrowArray *batch, fc_error *err)
{
    fb_slot slot[3];
    size_t at[3], hdr, i, v;
    uint64_t body = 0, off = 0;
    int rc;
    if (w->failed)
        return fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    w->nbufs = w->nnodes = 0;
    /* the batch's struct has no node of its own: its columns do */
    if (batch->release == NULL || batch->n_children != w->sch->n_children || batch->offset != 0 ||
        batch->null_count != 0 || batch->length < 0)
        return fail(err, FC_ERR_ARG, "a record batch that does not match its schema", NULL);
    for (i = 0; i < (size_t)batch->n_children; i++) {
        if (batch->children[i]->length < batch->length)
            return fail(err, FC_ERR_ARG, "a column shorter than its record batch", NULL);
        if ((rc = collect(w, w->sch->children[i], batch->children[i], err)) != FC_OK)
            return rc;
    }
    for (i = 0; i < w->nbufs; i++)
        body += w->bufs[i].len + pad8(w->bufs[i].len);
    w->fb.n = 0;
    put_message(&w->fb, HEADER_RECORD_BATCH, body, &hdr);
    memset(slot, 0, sizeof slot);
    slot[0].size = 8; /* length */
    slot[0].v = (uint64_t)batch->length;
    slot[1].ref = 1;  /* nodes */
    slot[2].ref = 1;  /* buffers */
    fb_point(&w->fb, hdr, fb_table(&w->fb, slot, 3, at));
    v = fb_vector(&w->fb, w->nnodes, 8);
    fb_point(&w->fb, at[1], v);
    for (i = 0; i < w->nnodes; i++) {
        fb_add(&w->fb, (uint64_t)w->nodes[i].length, 8);
        fb_add(&w->fb, (uint64_t)w->nodes[i].null_count, 8);
    }
    v = fb_vector(&w->fb, w->nbufs, 8);
    fb_point(&w->fb, at[2], v);
    for (i = 0; i < w->nbufs; i++) {
        fb_add(&w->fb, off, 8);
        fb_add(&w->fb, w->bufs[i].len, 8);
        off += w->bufs[i].len + pad8(w->bufs[i].len);
    }
    if ((rc = put_envelope(w, body, err)) != FC_OK)
        return rc;
    for (i = 0; i < w->nbufs; i++)
        if ((rc = out_write(w, w->bufs[i].p, w->bufs[i].len, err)) != FC_OK ||
            (rc = out_write(w, NULL, pad8(w->bufs[i].len), err)) != FC_OK)
            return rc;
    return FC_OK;
}

/* The file format's footer: the schema and the record batches' blocks. */
static int put_footer(fc_arrow_ipc *w, fc_error *err)
{
    fb_slot slot[4];
    size_t at[4], root, v, i;
    unsigned char tail[10];
    int rc;
    w->fb.n = 0;
    root = fb_add(&w->fb, 0, 4);
    memset(slot, 0, sizeof slot);
    slot[0].size = 2; /* version */
    slot[0].v = V5;
    slot[1].ref = 1;  /* schema */
    slot[2].ref = 1;  /* dictionaries */
    slot[3].ref = 1;  /* recordBatches */
    fb_point(&w->fb, root, fb_table(&w->fb, slot, 4, at));
    fb_point(&w->fb, at[1], put_schema(&w->fb, w->sch));
    fb_point(&w->fb, at[2], fb_vector(&w->fb, 0, 8));
    v = fb_vector(&w->fb, w->nblocks, 8);
    fb_point(&w->fb, at[3], v);
    for (i = 0; i < w->nblocks; i++) {
        fb_add(&w->fb, w->blocks[i].offset, 8);
        fb_add(&w->fb, w->blocks[i].meta, 4);
        fb_add(&w->fb, 0, 4);
        fb_add(&w->fb, w->blocks[i].body, 8);
    }
    if (w->fb.oom)
        return fail(err, FC_ERR_NO_MEMORY, "out of memory", NULL);
    if (w->fb.n > INT32_MAX)
        return fail(err, FC_ERR_UNSUPPORTED, "a footer over 2 GiB", NULL);
    for (i = 0; i < 4; i++)
        tail[i] = (unsigned char)(w->fb.n >> (8 * i));
    memcpy(tail + 4, "ARROW1", 6);
    if ((rc = out_write(w, w->fb.p, w->fb.n, err)) != FC_OK ||
        (rc = out_write(w, tail, 10, err)) != FC_OK)
        return rc;
    return FC_OK;
}

int fc_arrow_ipc_close(fc_arrow_ipc *w, fc_error *err)
{
    static const unsigned char eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    int rc = FC_OK;
    if (w == NULL)
        return FC_OK;
    if (w->failed)
        rc = fail(err, FC_ERR_ARG, "the writer failed before", NULL);
    if (rc == FC_OK)
        rc = out_write(w, eos, 8, err);
    if (rc == FC_OK && w->file_format)
        rc = put_footer(w, err);
    free(w->fb.p);
    free(w->bufs);
    free(w->nodes);
    free(w->blocks);
    free(w);
    return rc;
}

uint64_t fc_arrow_ipc_bytes(const fc_arrow_ipc *w)
{
    return w->pos;
}
