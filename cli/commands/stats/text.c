/* featc stats' table: the aligned text report on standard output. */
#include "reports.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- display */

/* A text table: rows of cells, printed with aligned columns (the first left
 * aligned, the others right aligned unless marked with a leading '<'). */
typedef struct text_table {
    char **cell;
    size_t ncol, nrow, cap;
} text_table;

static void tt_row(text_table *t, int *oom, ...)
{
    va_list ap;
    size_t c;
    if (t->nrow == t->cap) {
        size_t cap = t->cap != 0 ? 2 * t->cap : 16;
        char **p = (char **)realloc(t->cell, cap * t->ncol * sizeof *p);
        if (p == NULL) {
            *oom = 1;
            return;
        }
        t->cell = p;
        t->cap = cap;
    }
    va_start(ap, oom);
    for (c = 0; c < t->ncol; c++) {
        const char *s = va_arg(ap, const char *);
        char *d = (char *)malloc(strlen(s) + 1);
        if (d == NULL)
            *oom = 1;
        else
            strcpy(d, s);
        t->cell[t->nrow * t->ncol + c] = d;
    }
    va_end(ap);
    t->nrow++;
}

/* Display width of UTF-8 text: code points (wide characters count one). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s != '\0'; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static void tt_print(FILE *f, text_table *t, const char *align)
{
    size_t r, c, *w = (size_t *)calloc(t->ncol, sizeof *w);
    if (w == NULL)
        return;
    for (r = 0; r < t->nrow; r++)
        for (c = 0; c < t->ncol; c++) {
            const char *s = t->cell[r * t->ncol + c];
            if (s != NULL && text_width(s) > w[c])
                w[c] = text_width(s);
        }
    for (r = 0; r < t->nrow; r++) {
        for (c = 0; c < t->ncol; c++) {
            const char *s = t->cell[r * t->ncol + c];
            size_t pad;
            if (s == NULL)
                s = "?";
            pad = w[c] - text_width(s);
            if (c + 1 == t->ncol && align[c] == 'l') {
                fprintf(f, "%s", s); /* no trailing blanks */
                break;
            }
            if (align[c] == 'l')
                fprintf(f, "%s%*s", s, (int)pad, "");
            else
                fprintf(f, "%*s%s", (int)pad, "", s);
            if (c + 1 < t->ncol)
                fputs("  ", f);
        }
        fputc('\n', f);
    }
    free(w);
    for (r = 0; r < t->nrow * t->ncol; r++)
        free(t->cell[r]);
    free(t->cell);
    memset(t, 0, sizeof *t);
}


static void show_types(char *out, size_t max, const st_key *k)
{
    size_t j, o = 0;
    out[0] = '\0';
    for (j = 0; j < ST_KINDS; j++)
        if (k->kind[j] > 0 && o + 8 < max)
            o += (size_t)snprintf(out + o, max - o, "%s%s", o > 0 ? "+" : "", st_kind_names[j]);
    if (o == 0)
        snprintf(out, max, "-");
}

static void show_percent(char *out, size_t max, uint64_t part, uint64_t whole)
{
    double p = whole == 0 ? 0 : 100.0 * (double)part / (double)whole;
    if (part == whole)
        snprintf(out, max, "100%%");
    else if (part == 0)
        snprintf(out, max, "0%%");
    else if (p >= 99.95)
        snprintf(out, max, ">99.9%%");
    else if (p < 0.05)
        snprintf(out, max, "<0.1%%");
    else
        snprintf(out, max, "%.1f%%", p);
}

/* "n", or "min-max (mean)" */
static void show_range(char *out, size_t max, const sk_moments *m)
{
    char a[32], b[32], c[32];
    if (m->n == 0) {
        snprintf(out, max, "-");
        return;
    }
    st_show_number(a, sizeof a, m->min);
    st_show_number(b, sizeof b, m->max);
    st_show_number(c, sizeof c, m->mean);
    if (m->min == m->max)
        snprintf(out, max, "%s", a);
    else
        snprintf(out, max, "%s-%s (%s)", a, b, c);
}

static void show_size(char *out, size_t max, double bytes)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(out, max, "%.0f B", bytes);
    else
        snprintf(out, max, "%.1f %s", bytes, unit[u]);
}

static void numeric_rows(text_table *t, const st_key *k, const st_num *x, const char *kind,
                         uint64_t records, const char *per_what, int *oom)
{
    char name[160], pres[32], miss[32], per[112], mean[32], sd[32], zeros[32], mn[32], med[32],
        mx[32], odd[64];
    st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
    show_percent(pres, sizeof pres, k->present, records);
    snprintf(miss, sizeof miss, "%llu", (unsigned long long)(records - k->present));
    show_range(per, sizeof per, &k->per);
    (void)per_what;
    if (x->m.n > 0) {
        st_show_number(mean, sizeof mean, x->m.mean);
        st_show_number(sd, sizeof sd, sk_moments_std(&x->m));
        st_show_number(med, sizeof med, sk_quant_value(&x->q, 0.5));
        if (x == k->i) {
            snprintf(mn, sizeof mn, "%lld", (long long)x->imin);
            snprintf(mx, sizeof mx, "%lld", (long long)x->imax);
        } else {
            st_show_number(mn, sizeof mn, x->m.min);
            st_show_number(mx, sizeof mx, x->m.max);
        }
    } else {
        strcpy(mean, "-");
        strcpy(sd, "-");
        strcpy(med, "-");
        strcpy(mn, "-");
        strcpy(mx, "-");
    }
    show_percent(zeros, sizeof zeros, x->zeros, x->values);
    odd[0] = '\0';
    if (x->nan + x->inf + x->ninf > 0)
        snprintf(odd, sizeof odd, "nan %llu, inf %llu, -inf %llu", (unsigned long long)x->nan,
                 (unsigned long long)x->inf, (unsigned long long)x->ninf);
    else
        strcpy(odd, "-");
    tt_row(t, oom, name, kind, pres, miss, per, mean, sd, zeros, mn, med, mx, odd);
}

static void bytes_row(text_table *t, const st_key *k, uint64_t records, unsigned ntop, int *oom)
{
    const st_bytes *x = k->b;
    char name[160], pres[32], miss[32], per[112], dist[32], len[112], utf[32], top[400];
    size_t o = 0;
    uint32_t j;
    int exact;
    double dv = sk_distinct_value(&x->d, &exact);
    st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
    show_percent(pres, sizeof pres, k->present, records);
    snprintf(miss, sizeof miss, "%llu", (unsigned long long)(records - k->present));
    show_range(per, sizeof per, &k->per);
    if (exact)
        snprintf(dist, sizeof dist, "%.0f", dv);
    else
        snprintf(dist, sizeof dist, "~%.0f", dv);
    show_range(len, sizeof len, &x->len);
    show_percent(utf, sizeof utf, x->utf8, x->values);
    top[0] = '\0';
    for (j = 0; j < x->top.n && j < ntop && j < 3 && o + 60 < sizeof top; j++) {
        char v[48], pc[16];
        const sk_top_item *it = &x->top.item[j];
        st_show_bytes(v, sizeof v, it->prefix, it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX,
                      it->len);
        show_percent(pc, sizeof pc, it->count, x->values);
        o += (size_t)snprintf(top + o, sizeof top - o, "%s\"%s\" %s", j > 0 ? ", " : "", v, pc);
    }
    if (o == 0)
        strcpy(top, "-");
    tt_row(t, oom, name, pres, miss, per, dist, len, utf, top);
}

void st_print_table(FILE *out, const st_stats *s, const st_report *r, int *oom)
{
    text_table t;
    size_t i;
    uint64_t bytes = 0;
    char size[32];
    const char *what = s->sequences > 0 ? "context features" : "features";
    for (i = 0; i < r->nfiles; i++)
        bytes += r->files[i].bytes;
    show_size(size, sizeof size, (double)bytes);
    fprintf(out, "%llu record%s (%llu Example%s, %llu SequenceExample%s", (unsigned long long)s->records,
            s->records == 1 ? "" : "s", (unsigned long long)s->examples,
            s->examples == 1 ? "" : "s", (unsigned long long)s->sequences,
            s->sequences == 1 ? "" : "s");
    if (s->other > 0)
        fprintf(out, ", %llu other", (unsigned long long)s->other);
    fprintf(out, ") in %zu file%s, %s\n", r->nfiles, r->nfiles == 1 ? "" : "s", size);
    if (r->nfiles > 1) {
        memset(&t, 0, sizeof t);
        t.ncol = 4;
        for (i = 0; i < r->nfiles; i++) {
            char n[32];
            snprintf(n, sizeof n, "%llu", (unsigned long long)r->files[i].records);
            show_size(size, sizeof size, (double)r->files[i].bytes);
            tt_row(&t, oom, r->files[i].path, n, size,
                   r->files[i].failed ? "FAILED" : r->files[i].compression);
        }
        tt_print(out, &t, "lrrl");
    }
    if (s->dropped > 0)
        fprintf(out, "%llu occurrences of keys past --max-features=%zu left out\n",
                (unsigned long long)s->dropped, s->max_keys);
    if (r->spec != NULL) {
        uint64_t all = s->spec_parsed + s->spec_failed;
        fprintf(out, "\nspec %s, message %s: %llu of %llu record%s parse", r->spec_path,
                st_spec_message(r->spec), (unsigned long long)s->spec_parsed,
                (unsigned long long)all, all == 1 ? "" : "s");
        if (s->spec_failed == 0) {
            fputc('\n', out);
        } else {
            fprintf(out, "; %llu fail:\n", (unsigned long long)s->spec_failed);
            for (i = 0; i < s->spec_errors.n; i++) {
                char at[128];
                fprintf(out, "%10llu  %s (first: %s record %llu, offset %llu%s)\n",
                        (unsigned long long)s->spec_errors.kind[i].count,
                        s->spec_errors.kind[i].text, r->files[s->spec_errors.kind[i].file].path,
                        (unsigned long long)s->spec_errors.kind[i].index,
                        (unsigned long long)s->spec_errors.kind[i].offset,
                        cli_kind_at(&s->spec_errors.kind[i], at, sizeof at));
            }
            if (s->spec_errors.other > 0)
                fprintf(out, "%10llu  (other texts)\n", (unsigned long long)s->spec_errors.other);
        }
    }
    for (i = 0; i < 2; i++) {
        const st_table *tb = i == 0 ? &s->features : &s->lists;
        const char *per_what = i == 0 ? "values/record" : "values/frame";
        size_t j;
        int any_num = 0, any_bytes = 0;
        for (j = 0; j < tb->n; j++) {
            any_num |= tb->v[j].f != NULL || tb->v[j].i != NULL;
            any_bytes |= tb->v[j].b != NULL;
        }
        if (i == 1 && tb->n > 0) {
            fputc('\n', out);
            memset(&t, 0, sizeof t);
            t.ncol = 6;
            tt_row(&t, oom, "feature lists", "type", "present", "missing", "frames/record",
                   "empty frames");
            for (j = 0; j < tb->n; j++) {
                const st_key *k = &tb->v[j];
                char name[160], ty[32], pres[32], miss[32], fr[112], em[32];
                st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
                show_types(ty, sizeof ty, k);
                show_percent(pres, sizeof pres, k->present, s->records);
                snprintf(miss, sizeof miss, "%llu", (unsigned long long)(s->records - k->present));
                show_range(fr, sizeof fr, &k->frames);
                snprintf(em, sizeof em, "%llu", (unsigned long long)k->empty);
                tt_row(&t, oom, name, ty, pres, miss, fr, em);
            }
            tt_print(out, &t, "llrrrr");
        }
        if (any_num) {
            char head[64];
            fputc('\n', out);
            snprintf(head, sizeof head, "numeric %s", i == 0 ? what : "lists (per frame)");
            memset(&t, 0, sizeof t);
            t.ncol = 12;
            tt_row(&t, oom, head, "type", "present", "missing", per_what, "mean", "std", "zeros",
                   "min", "median", "max", "nan/inf");
            for (j = 0; j < tb->n; j++) {
                const st_key *k = &tb->v[j];
                if (k->i != NULL)
                    numeric_rows(&t, k, k->i, "int64", s->records, per_what, oom);
                if (k->f != NULL)
                    numeric_rows(&t, k, k->f, "float", s->records, per_what, oom);
            }
            tt_print(out, &t, "llrrrrrrrrrl");
        }
        for (j = 0; j < tb->n; j++) {
            const st_key *k = &tb->v[j];
            char name[160];
            /* in no table: the feature lists' table shows every list */
            if (i == 1 || k->f != NULL || k->i != NULL || k->b != NULL)
                continue;
            st_show_bytes(name, sizeof name, k->key, k->key_len, k->key_len);
            fprintf(out, "\nfeature %s: never a value (an empty Feature{} in %llu record%s)\n",
                    name, (unsigned long long)k->empty, k->empty == 1 ? "" : "s");
        }
        if (any_bytes) {
            char head[64];
            fputc('\n', out);
            snprintf(head, sizeof head, "bytes %s", i == 0 ? what : "lists (per frame)");
            memset(&t, 0, sizeof t);
            t.ncol = 8;
            tt_row(&t, oom, head, "present", "missing", per_what, "distinct", "length", "utf-8",
                   "top values");
            for (j = 0; j < tb->n; j++)
                if (tb->v[j].b != NULL)
                    bytes_row(&t, &tb->v[j], s->records, r->top, oom);
            tt_print(out, &t, "lrrrrrrl");
        }
    }
}

