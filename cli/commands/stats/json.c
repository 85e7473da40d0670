/* featc stats --json: one object (docs/record-tools.md, "featc stats", names its
 * fields). */
#include "reports.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_json.h>

/* ------------------------------------------------------------- JSON */

/* A double that reads back as itself; integers without a fraction. */
static void json_double(FILE *f, double v)
{
    char buf[40];
    int p;
    if (v != v || isinf(v)) {
        fputs(v != v ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"", f);
        return;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        fprintf(f, "%.0f", v);
        return;
    }
    for (p = 15; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, f);
}

/* A float32 value (min, max, a quantile the sketch kept) as cat prints it:
 * the shortest text that reads back as that float32; anything else (a bin
 * edge, a mean) as a double. */
static void json_value(FILE *f, double v, int f32)
{
    if (f32 && (double)(float)v == v) {
        fc_json_float(f, (float)v);
        return;
    }
    json_double(f, v);
}

static void json_u64(FILE *f, const char *name, uint64_t v)
{
    fprintf(f, "\"%s\":%llu", name, (unsigned long long)v);
}

/* f32: the values are float32 (a float list's), else integers or lengths. */
static void json_dist(FILE *f, const sk_moments *m, const sk_quant *q, int f32)
{
    uint64_t bins[ST_BINS];
    double low[ST_BINS], high[ST_BINS];
    size_t j, nb;
    fprintf(f, "{\"count\":%llu", (unsigned long long)m->n);
    if (m->n > 0) {
        fputs(",\"min\":", f);
        json_value(f, m->min, f32);
        fputs(",\"max\":", f);
        json_value(f, m->max, f32);
        fputs(",\"mean\":", f);
        json_double(f, m->mean);
        fputs(",\"std\":", f);
        json_double(f, sk_moments_std(m));
        fputs(",\"quantiles\":{", f);
        for (j = 0; j < ST_NQ; j++) {
            fprintf(f, "%s\"%s\":", j > 0 ? "," : "", st_quantile_names[j]);
            json_value(f, sk_quant_value(q, st_quantiles[j]), f32);
        }
        fputs("},\"histogram\":[", f);
        nb = st_histogram(m, q, bins, low, high);
        for (j = 0; j < nb; j++) {
            fputs(j > 0 ? ",[" : "[", f);
            json_value(f, low[j], f32);
            fputc(',', f);
            json_value(f, high[j], f32);
            fprintf(f, ",%llu]", (unsigned long long)bins[j]);
        }
        fputc(']', f);
        fprintf(f, ",\"exact\":%s", sk_quant_exact(q) ? "true" : "false");
        if (q->collapsed > 0)
            fprintf(f, ",\"collapsed\":%llu", (unsigned long long)q->collapsed);
    }
    fputc('}', f);
}

static void json_distinct(FILE *f, const sk_distinct *d)
{
    int exact;
    double v = sk_distinct_value(d, &exact);
    fputs("\"distinct\":{\"value\":", f);
    json_double(f, exact ? v : floor(v + 0.5));
    fprintf(f, ",\"exact\":%s}", exact ? "true" : "false");
}

static void json_num(FILE *f, const char *kind, const st_num *x, int integer)
{
    fprintf(f, ",\"%s\":{", kind);
    json_u64(f, "count", x->values);
    fputc(',', f);
    json_u64(f, "zeros", x->zeros);
    if (!integer) {
        fputc(',', f);
        json_u64(f, "nan", x->nan);
        fputc(',', f);
        json_u64(f, "inf", x->inf);
        fputc(',', f);
        json_u64(f, "-inf", x->ninf);
    }
    fputs(",\"finite\":", f);
    json_dist(f, &x->m, &x->q, !integer);
    if (integer && x->values > 0)
        fprintf(f, ",\"min\":%lld,\"max\":%lld", (long long)x->imin, (long long)x->imax);
    if (integer) {
        fputc(',', f);
        json_distinct(f, &x->d);
    }
    fputc('}', f);
}

static void json_bytes(FILE *f, const st_bytes *x, unsigned ntop)
{
    uint32_t j;
    fputs(",\"bytes\":{", f);
    json_u64(f, "count", x->values);
    fputc(',', f);
    json_u64(f, "empty", x->empty);
    fputc(',', f);
    json_u64(f, "utf8", x->utf8);
    fputs(",\"length\":", f);
    json_dist(f, &x->len, &x->lenq, 0);
    fputc(',', f);
    json_distinct(f, &x->d);
    fputs(",\"top\":[", f);
    for (j = 0; j < x->top.n && j < ntop; j++) {
        const sk_top_item *it = &x->top.item[j];
        size_t shown = it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX;
        fputs(j > 0 ? ",{\"value\":" : "{\"value\":", f);
        if (shown < it->len) {
            /* cut between UTF-8 characters when the value is text */
            size_t k = shown;
            while (k > 0 && k + 4 > shown && !fc_utf8_valid(it->prefix, k))
                k--;
            if (k + 4 > shown && k > 0)
                shown = k;
            fputs("{\"shortened\":", f);
            fc_json_string(f, it->prefix, shown, 1);
            fprintf(f, ",\"bytes\":%llu}", (unsigned long long)it->len);
        } else {
            fc_json_string(f, it->prefix, shown, 1);
        }
        fprintf(f, ",\"count\":%llu}", (unsigned long long)it->count);
    }
    fputs("],", f);
    json_u64(f, "top_error", x->top.error);
    fputc('}', f);
}

static void json_key(FILE *f, const st_key *k, uint64_t records, int list, unsigned ntop)
{
    size_t j;
    int first = 1;
    fputs("{\"name\":", f);
    fc_json_string(f, k->key, k->key_len, 1);
    fputs(",\"types\":{", f);
    for (j = 0; j < ST_KINDS; j++)
        if (k->kind[j] > 0) {
            fprintf(f, "%s\"%s\":%llu", first ? "" : ",", st_kind_names[j],
                    (unsigned long long)k->kind[j]);
            first = 0;
        }
    fputs("},", f);
    json_u64(f, "present", k->present);
    fputc(',', f);
    json_u64(f, "missing", records - k->present);
    fputc(',', f);
    json_u64(f, list ? "empty_frames" : "empty", k->empty);
    if (list) {
        fputs(",\"frames\":", f);
        json_dist(f, &k->frames, &k->framesq, 0);
    }
    fprintf(f, ",\"%s\":", list ? "values_per_frame" : "values_per_record");
    json_dist(f, &k->per, &k->perq, 0);
    if (k->i != NULL)
        json_num(f, "int64", k->i, 1);
    if (k->f != NULL)
        json_num(f, "float", k->f, 0);
    if (k->b != NULL)
        json_bytes(f, k->b, ntop);
    fputc('}', f);
}

void st_print_json(FILE *f, const st_stats *s, const st_report *r)
{
    size_t i;
    unsigned ntop = r->top;
    fputs("{\"featc_stats\":1,\"files\":[", f);
    for (i = 0; i < r->nfiles; i++) {
        fputs(i > 0 ? ",{\"path\":" : "{\"path\":", f);
        fc_json_string(f, r->files[i].path, strlen(r->files[i].path), 1);
        fprintf(f, ",\"records\":%llu,\"bytes\":%llu,\"compression\":\"%s\"",
                (unsigned long long)r->files[i].records, (unsigned long long)r->files[i].bytes,
                r->files[i].compression);
        if (r->files[i].failed) {
            fputs(",\"error\":", f);
            fc_json_string(f, r->files[i].error, strlen(r->files[i].error), 1);
        }
        fputc('}', f);
    }
    fputs("],", f);
    json_u64(f, "records", s->records);
    fputc(',', f);
    json_u64(f, "examples", s->examples);
    fputc(',', f);
    json_u64(f, "sequence_examples", s->sequences);
    fputc(',', f);
    json_u64(f, "other", s->other);
    fputs(",\"other_records\":[", f);
    for (i = 0; i < s->nbad; i++) {
        const st_bad *b = &s->bad[i];
        fputs(i > 0 ? ",{\"path\":" : "{\"path\":", f);
        fc_json_string(f, r->files[b->file].path, strlen(r->files[b->file].path), 1);
        fprintf(f, ",\"record\":%llu,\"offset\":%llu,\"error\":", (unsigned long long)b->record,
                (unsigned long long)b->offset);
        fc_json_string(f, b->message, strlen(b->message), 1);
        fputc('}', f);
    }
    fputs("],", f);
    json_u64(f, "dropped_keys", s->dropped);
    fputs(",\"spec\":", f);
    if (r->spec == NULL) {
        fputs("null", f);
    } else {
        fputs("{\"path\":", f);
        fc_json_string(f, r->spec_path, strlen(r->spec_path), 1);
        fputs(",\"message\":", f);
        fc_json_string(f, st_spec_message(r->spec), strlen(st_spec_message(r->spec)), 1);
        fprintf(f, ",\"parsed\":%llu,\"failed\":%llu,\"errors\":[",
                (unsigned long long)s->spec_parsed, (unsigned long long)s->spec_failed);
        for (i = 0; i < s->spec_errors.n; i++) {
            const cli_error_kind *e = &s->spec_errors.kind[i];
            size_t k;
            fputs(i > 0 ? ",{\"error\":" : "{\"error\":", f);
            fc_json_string(f, e->text, strlen(e->text), 1);
            fprintf(f, ",\"count\":%llu,\"path\":", (unsigned long long)e->count);
            fc_json_string(f, r->files[e->file].path, strlen(r->files[e->file].path), 1);
            fprintf(f, ",\"record\":%llu,\"offset\":%llu,\"at_byte\":[", (unsigned long long)e->index,
                    (unsigned long long)e->offset);
            for (k = 0; k < e->n_at; k++)
                fprintf(f, "%s%llu", k > 0 ? "," : "", (unsigned long long)e->at[k]);
            fputs("]}", f);
        }
        fprintf(f, "],\"other_errors\":%llu}", (unsigned long long)s->spec_errors.other);
    }
    fputs(",\"sketches\":{\"quantile_relative_error\":", f);
    json_double(f, SK_ALPHA);
    fprintf(f, ",\"distinct_exact_up_to\":%d,\"distinct_standard_error\":", SK_EXACT);
    json_double(f, 1.04 / sqrt((double)(1u << SK_HLL_P)));
    fprintf(f, ",\"top_counters\":%d},\"features\":[", SK_TOP);
    for (i = 0; i < s->features.n; i++) {
        if (i > 0)
            fputc(',', f);
        json_key(f, &s->features.v[i], s->records, 0, ntop);
    }
    fputs("],\"feature_lists\":[", f);
    for (i = 0; i < s->lists.n; i++) {
        if (i > 0)
            fputc(',', f);
        json_key(f, &s->lists.v[i], s->records, 1, ntop);
    }
    fputs("]}\n", f);
}

