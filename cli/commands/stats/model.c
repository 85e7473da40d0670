/* featc stats' model (model.h): the per-key summaries, gathered from
 * decoded records and merged across splits and files, and what every
 * output shares (display forms of numbers and bytes, histograms, order). */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const st_kind_names[ST_KINDS] = {"bytes", "float", "int64"};
const double st_quantiles[ST_NQ] = {0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
const char *const st_quantile_names[ST_NQ] = {"p01", "p05", "p10", "p25", "p50",
                                              "p75", "p90", "p95", "p99"};

/* ------------------------------------------------------------- the table */

static uint64_t key_hash(const uint8_t *k, size_t n)
{
    return sk_hash(k, n);
}

static int table_rehash(st_table *t, size_t nslot)
{
    uint32_t *slot = (uint32_t *)calloc(nslot, sizeof *slot);
    size_t i;
    if (slot == NULL)
        return -1;
    for (i = 0; i < t->n; i++) {
        size_t h = (size_t)key_hash(t->v[i].key, t->v[i].key_len) & (nslot - 1);
        while (slot[h] != 0)
            h = (h + 1) & (nslot - 1);
        slot[h] = (uint32_t)(i + 1);
    }
    free(t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* The key's entry, added when new (NULL: past max keys, or out of memory:
 * *oom set). */
static st_key *table_get(st_table *t, const uint8_t *key, size_t len, size_t max_keys, int *oom)
{
    size_t h;
    st_key *k;
    if (t->nslot == 0 && table_rehash(t, 64) != 0) {
        *oom = 1;
        return NULL;
    }
    h = (size_t)key_hash(key, len) & (t->nslot - 1);
    while (t->slot[h] != 0) {
        k = &t->v[t->slot[h] - 1];
        if (k->key_len == len && (len == 0 || memcmp(k->key, key, len) == 0))
            return k;
        h = (h + 1) & (t->nslot - 1);
    }
    if (t->n >= max_keys)
        return NULL;
    if (t->n == t->cap) {
        size_t cap = t->cap != 0 ? 2 * t->cap : 16;
        st_key *v = (st_key *)realloc(t->v, cap * sizeof *v);
        if (v == NULL) {
            *oom = 1;
            return NULL;
        }
        t->v = v;
        t->cap = cap;
    }
    k = &t->v[t->n];
    memset(k, 0, sizeof *k);
    k->key = (uint8_t *)malloc(len != 0 ? len : 1);
    if (k->key == NULL) {
        *oom = 1;
        return NULL;
    }
    memcpy(k->key, key, len);
    k->key_len = len;
    t->slot[h] = (uint32_t)(++t->n);
    if (2 * t->n > t->nslot && table_rehash(t, 2 * t->nslot) != 0) {
        *oom = 1;
        return NULL;
    }
    return k;
}

static void num_free(st_num *x)
{
    if (x == NULL)
        return;
    sk_quant_free(&x->q);
    sk_distinct_free(&x->d);
    free(x);
}

static void bytes_free(st_bytes *x)
{
    if (x == NULL)
        return;
    sk_quant_free(&x->lenq);
    sk_distinct_free(&x->d);
    sk_top_free(&x->top);
    free(x);
}

static void table_free(st_table *t)
{
    size_t i;
    for (i = 0; i < t->n; i++) {
        st_key *k = &t->v[i];
        free(k->key);
        sk_quant_free(&k->perq);
        sk_quant_free(&k->framesq);
        num_free(k->f);
        num_free(k->i);
        bytes_free(k->b);
    }
    free(t->v);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

void st_free(st_stats *s)
{
    table_free(&s->features);
    table_free(&s->lists);
}

/* ------------------------------------------------------------- gathering */

static st_num *num_of(st_num **p, int *oom)
{
    if (*p == NULL && (*p = (st_num *)calloc(1, sizeof **p)) == NULL)
        *oom = 1;
    return *p;
}

static void add_float(st_num *x, float v, int *oom)
{
    double d = (double)v;
    x->values++;
    if (d != d) {
        x->nan++;
        return;
    }
    if (isinf(d)) {
        if (d > 0)
            x->inf++;
        else
            x->ninf++;
        return;
    }
    x->zeros += d == 0;
    sk_moments_add(&x->m, d);
    if (sk_quant_add(&x->q, d) != 0)
        *oom = 1;
}

static void add_int64(st_num *x, int64_t v, int *oom)
{
    double d = (double)v;
    if (x->values == 0 || v < x->imin)
        x->imin = v;
    if (x->values == 0 || v > x->imax)
        x->imax = v;
    x->values++;
    x->zeros += v == 0;
    sk_moments_add(&x->m, d);
    if (sk_quant_add(&x->q, d) != 0 || sk_distinct_add(&x->d, sk_hash64((uint64_t)v)) != 0)
        *oom = 1;
}

static void add_bytes(st_bytes *x, const uint8_t *p, size_t n, int *oom)
{
    uint64_t h = sk_hash(p, n);
    x->values++;
    x->empty += n == 0;
    x->utf8 += fc_utf8_valid(p, n) != 0;
    sk_moments_add(&x->len, (double)n);
    if (sk_quant_add(&x->lenq, (double)n) != 0 || sk_distinct_add(&x->d, h) != 0 ||
        sk_top_add(&x->top, p, n, h) != 0)
        *oom = 1;
}

/* One Feature's values into k; its list type, or -1 for Feature{}. */
static int add_feature(st_key *k, const fc_fb_value *f, int *oom)
{
    size_t j, n = 0;
    int kind = -1;
    switch (f->kind) {
    case FC_FB_BYTES: {
        kind = ST_BYTES;
        n = f->n;
        if (k->b == NULL && (k->b = (st_bytes *)calloc(1, sizeof *k->b)) == NULL) {
            *oom = 1;
            return kind;
        }
        for (j = 0; j < n; j++)
            add_bytes(k->b, f->bytes[j].data, f->bytes[j].len, oom);
        break;
    }
    case FC_FB_FLOAT:
        kind = ST_FLOAT;
        n = f->n;
        if (num_of(&k->f, oom) != NULL)
            for (j = 0; j < n; j++)
                add_float(k->f, f->floats[j], oom);
        break;
    case FC_FB_INT64:
        kind = ST_INT64;
        n = f->n;
        if (num_of(&k->i, oom) != NULL)
            for (j = 0; j < n; j++)
                add_int64(k->i, f->int64s[j], oom);
        break;
    default:
        return -1;
    }
    k->kind[kind]++;
    sk_moments_add(&k->per, (double)n);
    if (sk_quant_add(&k->perq, (double)n) != 0)
        *oom = 1;
    return kind;
}

void st_gather(st_stats *s, const fc_fallback *fb)
{
    size_t i, f;
    s->records++;
    if (fb->kind == FC_PAYLOAD_SEQUENCE_EXAMPLE)
        s->sequences++;
    else
        s->examples++;
    for (i = 0; i < fb->n_features; i++) {
        const fc_fb_feature *e = &fb->features[i];
        st_key *k = table_get(&s->features, e->key, e->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            s->dropped++;
            continue;
        }
        if (add_feature(k, e->value, &s->oom) < 0)
            k->empty++;
        else
            k->present++;
    }
    for (i = 0; i < fb->n_feature_lists; i++) {
        const fc_fb_feature_list *e = &fb->feature_lists[i];
        const fc_fb_feature_list *fl = e;
        st_key *k = table_get(&s->lists, e->key, e->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            s->dropped++;
            continue;
        }
        k->present++;
        sk_moments_add(&k->frames, (double)fl->n_frames);
        if (sk_quant_add(&k->framesq, (double)fl->n_frames) != 0)
            s->oom = 1;
        for (f = 0; f < fl->n_frames; f++)
            if (add_feature(k, &fl->frames[f], &s->oom) < 0)
                k->empty++;
    }
}

void st_note_bad(st_stats *s, size_t file, const fc_record *rec, const fc_error *err)
{
    s->other++;
    if (s->nbad < ST_BAD_KEPT) {
        st_bad *b = &s->bad[s->nbad++];
        b->file = file;
        b->record = rec->index;
        b->offset = rec->offset;
        snprintf(b->message, sizeof b->message, "%s", err->message);
    }
}

/* ------------------------------------------------------------- merging */

static int merge_num(st_num **into, const st_num *o)
{
    st_num *x;
    int oom = 0;
    if (o == NULL)
        return 0;
    if ((x = num_of(into, &oom)) == NULL)
        return -1;
    if (o->values > 0 && (x->values == 0 || o->imin < x->imin))
        x->imin = o->imin;
    if (o->values > 0 && (x->values == 0 || o->imax > x->imax))
        x->imax = o->imax;
    x->values += o->values;
    x->zeros += o->zeros;
    x->nan += o->nan;
    x->inf += o->inf;
    x->ninf += o->ninf;
    sk_moments_merge(&x->m, &o->m);
    return sk_quant_merge(&x->q, &o->q) | sk_distinct_merge(&x->d, &o->d);
}

static int merge_bytes(st_bytes **into, const st_bytes *o)
{
    st_bytes *x;
    if (o == NULL)
        return 0;
    if (*into == NULL && (*into = (st_bytes *)calloc(1, sizeof **into)) == NULL)
        return -1;
    x = *into;
    x->values += o->values;
    x->empty += o->empty;
    x->utf8 += o->utf8;
    sk_moments_merge(&x->len, &o->len);
    return sk_quant_merge(&x->lenq, &o->lenq) | sk_distinct_merge(&x->d, &o->d) |
           sk_top_merge(&x->top, &o->top);
}

static void merge_table(st_stats *s, st_table *t, const st_table *o)
{
    size_t i, j;
    for (i = 0; i < o->n; i++) {
        const st_key *ok = &o->v[i];
        st_key *k = table_get(t, ok->key, ok->key_len, s->max_keys, &s->oom);
        if (k == NULL) {
            /* left out: its occurrences count as dropped */
            s->dropped += ok->present + (t == &s->features ? ok->empty : 0);
            continue;
        }
        k->present += ok->present;
        k->empty += ok->empty;
        for (j = 0; j < ST_KINDS; j++)
            k->kind[j] += ok->kind[j];
        sk_moments_merge(&k->per, &ok->per);
        sk_moments_merge(&k->frames, &ok->frames);
        if (sk_quant_merge(&k->perq, &ok->perq) != 0 ||
            sk_quant_merge(&k->framesq, &ok->framesq) != 0 || merge_num(&k->f, ok->f) != 0 ||
            merge_num(&k->i, ok->i) != 0 || merge_bytes(&k->b, ok->b) != 0)
            s->oom = 1;
    }
}

void st_merge(st_stats *s, const st_stats *o)
{
    size_t i;
    s->records += o->records;
    s->examples += o->examples;
    s->sequences += o->sequences;
    s->other += o->other;
    s->dropped += o->dropped;
    s->oom |= o->oom;
    for (i = 0; i < o->nbad && s->nbad < ST_BAD_KEPT; i++)
        s->bad[s->nbad++] = o->bad[i];
    s->spec_parsed += o->spec_parsed;
    s->spec_failed += o->spec_failed;
    cli_kinds_merge(&s->spec_errors, &o->spec_errors);
    merge_table(s, &s->features, &o->features);
    merge_table(s, &s->lists, &o->lists);
}


void st_show_number(char *out, size_t max, double v)
{
    double a = fabs(v);
    if (v != v)
        snprintf(out, max, "nan");
    else if ((a == floor(a) && a < 1e15) || (a >= 1e4 && a < 1e9))
        snprintf(out, max, "%.0f", v);
    else if (a != 0 && (a < 1e-3 || a >= 1e9))
        snprintf(out, max, "%.3e", v);
    else
        snprintf(out, max, "%.4g", v);
}

void st_show_bytes(char *out, size_t max, const uint8_t *p, size_t n, size_t full_len)
{
    size_t i = 0, o = 0;
    int text = fc_utf8_valid(p, n) != 0;
    if (max < 8) {
        if (max > 0)
            out[0] = '\0';
        return;
    }
    /* a prefix cut inside a UTF-8 character: drop the partial character */
    if (!text && n < full_len) {
        size_t k = n;
        while (k > 0 && k + 4 > n && !fc_utf8_valid(p, k))
            k--;
        if (k + 4 > n && fc_utf8_valid(p, k)) {
            n = k;
            text = 1;
        }
    }
    while (i < n) {
        uint8_t c = p[i];
        char esc[8];
        size_t len = 0, step = 1;
        if (c == '\\' || c == '"') {
            esc[0] = '\\';
            esc[1] = (char)c;
            len = 2;
        } else if (c >= 0x20 && c < 0x7f) {
            esc[0] = (char)c;
            len = 1;
        } else if (text && c >= 0x80) {
            step = fc_utf8_seq(p + i, n - i);
            if (step < 1)
                step = 1;
            len = step;
        } else {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned)c);
            len = 4;
        }
        if (o + len + 4 > max) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (text && c >= 0x80)
            memcpy(out + o, p + i, len);
        else
            memcpy(out + o, esc, len);
        o += len;
        i += step;
    }
    if (i >= n && n < full_len && o + 4 <= max) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

size_t st_histogram(const sk_moments *m, const sk_quant *q, uint64_t *bins, double *low,
                    double *high)
{
    size_t j, n = ST_BINS;
    if (m->n == 0)
        return 0;
    if (q->integer && m->max - m->min < ST_BINS) {
        n = (size_t)(m->max - m->min) + 1;
        sk_quant_histogram(q, m->min, m->min + (double)n, bins, n);
        for (j = 0; j < n; j++)
            low[j] = high[j] = m->min + (double)j;
        return n;
    }
    if (m->max == m->min) {
        bins[0] = m->n;
        low[0] = high[0] = m->min;
        return 1;
    }
    sk_quant_histogram(q, m->min, m->max, bins, n);
    for (j = 0; j < n; j++) {
        low[j] = m->min + (m->max - m->min) * (double)j / (double)n;
        high[j] = j + 1 == n ? m->max : m->min + (m->max - m->min) * (double)(j + 1) / (double)n;
    }
    return n;
}

static int key_cmp(const void *a, const void *b)
{
    const st_key *x = (const st_key *)a, *y = (const st_key *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = n == 0 ? 0 : memcmp(x->key, y->key, n);
    if (c != 0)
        return c;
    return x->key_len < y->key_len ? -1 : x->key_len > y->key_len;
}

/* The spec's name of its message. */
const char *st_spec_message(const cli_spec *t)
{
    return t->md != NULL ? t->md->name : t->sd->name;
}

void st_sort(st_stats *s)
{
    int k;
    if (s->features.n > 1)
        qsort(s->features.v, s->features.n, sizeof *s->features.v, key_cmp);
    if (s->lists.n > 1)
        qsort(s->lists.v, s->lists.n, sizeof *s->lists.v, key_cmp);
    for (k = 0; k < 2; k++) {
        st_table *t = k == 0 ? &s->features : &s->lists;
        size_t j;
        for (j = 0; j < t->n; j++)
            if (t->v[j].b != NULL)
                sk_top_sort(&t->v[j].b->top);
    }
    cli_kinds_sort(&s->spec_errors);
}
