/* The oracle of test-export: the descriptors featc generates for a spec
 * (the runtime's fc_message_desc / fc_seq_desc, which the parsers run on),
 * printed as JSON, one object per message.  check.py compares what
 * `featc export --tf` prints for the same spec against them.  The messages
 * come from DESC_LIST, a list of X_EXAMPLE(sym) / X_SEQUENCE(sym) that
 * run.sh writes from the generated header. */
#include <stdio.h>
#include <string.h>

#include DESC_HEADER

static void hex(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++)
        printf("%02x", b[i]);
    putchar('"');
}

static const char *type_name(fc_type t)
{
    return t == FC_TYPE_INT64 ? "int64" : t == FC_TYPE_FLOAT ? "float" : "bytes";
}

static void dims(unsigned rank, const size_t *d)
{
    unsigned k;
    putchar('[');
    for (k = 0; k < rank; k++)
        printf("%s%zu", k > 0 ? "," : "", d[k]);
    putchar(']');
}

/* A RaggedFeature's value key, split type and partitions; its fields are
 * indices of fs (an Example's or a context's) or of ls (feature lists). */
static void ragged(const fc_field_extra *x, const fc_field_desc *fs, const fc_list_desc *ls)
{
    unsigned k;
#define KEY_OF(i) (fs != NULL ? fs[i].key : ls[i].key), (fs != NULL ? fs[i].key_len : ls[i].key_len)
    printf(",\"value\":");
    hex(KEY_OF(x->sparse_fields[0]));
    printf(",\"split64\":%d,\"parts\":[", x->split64);
    for (k = 0; k < x->nparts; k++) {
        const fc_part_desc *p = &x->parts[k];
        printf("%s[%d,", k > 0 ? "," : "", (int)p->kind);
        if (p->kind == FC_PART_UNIFORM_ROW_LENGTH)
            printf("%zu", p->length);
        else
            hex(KEY_OF(p->field));
        putchar(']');
    }
    putchar(']');
#undef KEY_OF
}

static void field(const fc_field_desc *fs, size_t i)
{
    const fc_field_desc *f = &fs[i];
    const fc_field_extra *x = f->extra;
    size_t k, n;
    printf("{\"key\":");
    hex(f->key, f->key_len);
    printf(",\"type\":\"%s\",\"kind\":%d,\"dims\":", type_name(f->type), (int)f->kind);
    dims(f->rank, f->dims);
    printf(",\"hidden\":%d,\"hash\":%zu,\"hot\":%d,\"default\":", x->hidden, x->hash_buckets, x->hot);
    n = f->kind == FC_KIND_FIXED ? f->elems : 1;
    if (f->default_value == NULL || (f->kind != FC_KIND_FIXED && f->kind != FC_KIND_ROWS)) {
        printf("null");
    } else {
        putchar('[');
        for (k = 0; k < n; k++) {
            if (k > 0)
                putchar(',');
            if (f->type == FC_TYPE_INT64) {
                printf("%lld", (long long)((const int64_t *)f->default_value)[k]);
            } else if (f->type == FC_TYPE_FLOAT) {
                hex(&((const float *)f->default_value)[k], 4);
            } else {
                const fc_bytes *b = &((const fc_bytes *)f->default_value)[k];
                hex(b->data, b->size);
            }
        }
        putchar(']');
    }
    if (f->kind == FC_KIND_SPARSE) {
        printf(",\"index\":[");
        for (k = 0; k < f->rank; k++) {
            if (k > 0)
                putchar(',');
            hex(fs[x->sparse_fields[k]].key, fs[x->sparse_fields[k]].key_len);
        }
        printf("],\"value\":");
        hex(fs[x->sparse_fields[f->rank]].key, fs[x->sparse_fields[f->rank]].key_len);
        printf(",\"sorted\":%d", x->already_sorted);
    }
    if (f->kind == FC_KIND_RAGGED)
        ragged(x, fs, NULL);
    putchar('}');
}

static void example(const fc_message_desc *md)
{
    size_t i;
    printf("{\"name\":\"%s\",\"sequence\":0,\"features\":[", md->name);
    for (i = 0; i < md->nfields; i++) {
        if (i > 0)
            putchar(',');
        field(md->fields, i);
    }
    printf("]}\n");
}

static void sequence(const fc_seq_desc *sd)
{
    size_t i;
    printf("{\"name\":\"%s\",\"sequence\":1,\"features\":[", sd->name);
    for (i = 0; i < sd->ncontext; i++) {
        if (i > 0)
            putchar(',');
        field(sd->context, i);
    }
    printf("],\"lists\":[");
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        printf("%s{\"key\":", i > 0 ? "," : "");
        hex(l->key, l->key_len);
        printf(",\"type\":\"%s\",\"kind\":%d,\"dims\":", type_name(l->type), (int)l->kind);
        dims(l->rank, l->dims);
        printf(",\"allow_missing\":%d,\"hidden\":%d,\"hash\":%zu", l->allow_missing,
               l->extra->hidden, l->extra->hash_buckets);
        if (l->kind == FC_KIND_RAGGED)
            ragged(l->extra, NULL, sd->lists);
        putchar('}');
    }
    printf("]}\n");
}

#define X_EXAMPLE(sym) example(&sym);
#define X_SEQUENCE(sym) sequence(&sym);

int main(void)
{
    DESC_LIST
    return fflush(stdout) != 0;
}
