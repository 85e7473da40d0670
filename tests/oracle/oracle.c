/* See oracle.h.  Test code: it may use stdio and an arena on the stack. */
#include "oracle.h"

#include <string.h>

#include <featc/fc_driver.h>
#include <featc/fc_fallback.h>

static unsigned char arena_mem[8u << 20];

/* The entry TensorFlow's single-Example path would use for key: the last
 * occurrence whose Feature has a list (Feature{} never counts). */
static const FcPb__Feature *pick(const FcPb__Example *ex, const char *key, size_t key_len)
{
    size_t i;
    if (ex->features == NULL)
        return NULL;
    for (i = ex->features->n_feature; i-- > 0;) {
        const FcPb__FeatureEntry *e = ex->features->feature[i];
        if (e->key.len == key_len && (key_len == 0 || memcmp(e->key.data, key, key_len) == 0) &&
            e->value != NULL && e->value->kind_case != FC_PB__FEATURE__KIND__NOT_SET)
            return e->value;
    }
    return NULL;
}

fc_type oracle_kind_type(const FcPb__Feature *f)
{
    switch (f->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST: return FC_TYPE_BYTES;
    case FC_PB__FEATURE__KIND_FLOAT_LIST: return FC_TYPE_FLOAT;
    case FC_PB__FEATURE__KIND_INT64_LIST: return FC_TYPE_INT64;
    default: return FC_TYPE_NONE;
    }
}

size_t oracle_kind_count(const FcPb__Feature *f)
{
    switch (f->kind_case) {
    case FC_PB__FEATURE__KIND_BYTES_LIST: return f->bytes_list->n_value;
    case FC_PB__FEATURE__KIND_FLOAT_LIST: return f->float_list->n_value;
    case FC_PB__FEATURE__KIND_INT64_LIST: return f->int64_list->n_value;
    default: return 0;
    }
}

void oracle_copy_values(const FcPb__Feature *f, unsigned char *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (f->kind_case == FC_PB__FEATURE__KIND_INT64_LIST) {
            memcpy(dst + i * sizeof(int64_t), &f->int64_list->value[i], sizeof(int64_t));
        } else if (f->kind_case == FC_PB__FEATURE__KIND_FLOAT_LIST) {
            memcpy(dst + i * sizeof(float), &f->float_list->value[i], sizeof(float));
        } else {
            fc_bytes b;
            b.data = f->bytes_list->value[i].data;
            b.size = f->bytes_list->value[i].len;
            memcpy(dst + i * sizeof b, &b, sizeof b);
        }
    }
}

int oracle_parse(const fc_message_desc *md, void *out, const void *data, size_t len)
{
    fc_arena arena;
    fc_fallback fb;
    unsigned char *m = (unsigned char *)out;
    uint32_t *present = (uint32_t *)(void *)(m + md->present_offset);
    size_t i;
    fc_arena_init(&arena, arena_mem, sizeof arena_mem);
    if (fc_fallback_decode(data, len, FC_PAYLOAD_EXAMPLE,
                           FC_FALLBACK_LENIENT | FC_FALLBACK_SKIP_UNKNOWN, &arena, &fb, NULL) !=
        FC_OK)
        return FC_ERR_PARSE;
    md->init(out);
    for (i = 0; i < md->nfields; i++) {
        const fc_field_desc *fd = &md->fields[i];
        const FcPb__Feature *f = pick(fb.example, fd->key, fd->key_len);
        unsigned char *vals = m + fd->value_offset;
        size_t n, cnt;
        if (f == NULL) {
            if (fd->kind == FC_KIND_FIXED && fd->default_value == NULL)
                return FC_ERR_PARSE; /* required */
            if (fd->kind != FC_KIND_FIXED) {
                cnt = 0;
                memcpy(m + fd->count_offset, &cnt, sizeof cnt);
            }
            continue; /* init filled the default */
        }
        if (oracle_kind_type(f) != fd->type)
            return FC_ERR_PARSE;
        n = oracle_kind_count(f);
        switch (fd->kind) {
        case FC_KIND_FIXED:
            if (n != fd->elems)
                return FC_ERR_PARSE;
            if (n > 0)
                oracle_copy_values(f, vals, n);
            break;
        case FC_KIND_VARLEN:
            if (n > fd->max)
                return FC_ERR_PARSE;
            oracle_copy_values(f, vals, n);
            memcpy(m + fd->count_offset, &n, sizeof n);
            break;
        default:
            if (n % fd->elems != 0 || n / fd->elems > fd->max)
                return FC_ERR_PARSE;
            oracle_copy_values(f, vals, n);
            cnt = n / fd->elems;
            memcpy(m + fd->count_offset, &cnt, sizeof cnt);
            break;
        }
        present[i / 32] |= 1u << (i % 32);
    }
    return FC_OK;
}

void oracle_json(const fc_message_desc *md, const void *msg, char *buf, size_t cap)
{
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) {
        snprintf(buf, cap, "(fmemopen failed)");
        return;
    }
    fc_json_features(f, md, msg);
    fclose(f);
}
