/* featc stats --html=FILE --compare=OTHER: two datasets in one
 * self-contained page, as Facets Overview draws them: per feature a row
 * for each dataset (presence, values per record, the figures), the two
 * histograms overlaid on a common range (shares, since the datasets differ
 * in size), a string feature's top values side by side, and the drift
 * between them as validate --against measures it (drift.c over both
 * sides' TFDV statistics: Jensen-Shannon divergence for numbers, L-infinity
 * distance for strings).  Hosted: it allocates (the statistics). */
#include "drift.h"
#include "reports.h"

#include <stdlib.h>
#include <string.h>

static const char *const compare_style =
    "tr.kb td{border-bottom:1px solid #ccc}tr.ka td{border-bottom:none}"
    ".la{color:#4a7fc1}.lb{color:#e69138}rect.a{fill:#4a7fc1;opacity:.6}"
    "rect.b{fill:#e69138;opacity:.6}td.c{text-align:left;white-space:normal}"
    ".tv{display:grid;grid-template-columns:minmax(0,120px) 60px auto;gap:1px 6px;"
    "font-size:12px;align-items:center}.tv span{overflow-wrap:anywhere}"
    "td.drift{font-weight:600}td.hot{color:#b00}tr.kb rect.pres{fill:#e69138}";

#define COLS 6 /* the figures of a dataset's row, after its label */

/* The list type most of k's records hold (ST_*), or -1 without values. */
static int main_kind(const st_key *k)
{
    int kind = k->kind[ST_INT64] >= k->kind[ST_FLOAT] ? ST_INT64 : ST_FLOAT;
    if (k->kind[ST_BYTES] > k->kind[kind])
        kind = ST_BYTES;
    return k->kind[kind] > 0 ? kind : -1;
}

static void label(FILE *f, int side, const char *name)
{
    fprintf(f, "<span class=\"%s\">&#9632;</span> ", side == 0 ? "la" : "lb");
    st_html_text(f, name);
}

/* A dataset's row of figures for k (NULL: the dataset has no such key). */
static void figures(FILE *f, const st_key *k, uint64_t records, int side, const char *name)
{
    const sk_moments *m;
    const sk_quant *q;
    double cell[4];
    size_t c;
    fputs("<td class=\"t\" title=\"", f);
    st_html_text(f, name);
    fprintf(f, "\"><span class=\"%s\">&#9632;</span></td>", side == 0 ? "la" : "lb");
    if (k == NULL) {
        fprintf(f, "<td colspan=\"%d\" class=\"t\">not in this data</td>", COLS);
        return;
    }
    fputs("<td>", f);
    st_svg_presence(f, k->present, records);
    st_html_percent(f, k->present, records);
    fputs("</td><td>", f);
    if (k->per.n > 0)
        st_html_short(f, k->per.mean);
    else
        fputs("-", f);
    fputs("</td>", f);
    st_main_dist(k, &m, &q);
    if (m == NULL) {
        fputs("<td>-</td><td>-</td><td>-</td><td>-</td>", f);
        return;
    }
    cell[0] = m->mean;
    cell[1] = m->min;
    cell[2] = sk_quant_value(q, 0.5);
    cell[3] = m->max;
    for (c = 0; c < 4; c++) {
        fputs("<td>", f);
        st_html_short(f, cell[c]);
        if (k->b != NULL && m == &k->b->len)
            fputs(" B", f);
        fputs("</td>", f);
    }
}

/* Both distributions over one range, as shares of their values. */
static void overlay(FILE *f, const st_key *const k[2])
{
    const sk_moments *m[2];
    const sk_quant *q[2];
    uint64_t bins[2][ST_BINS];
    double lo = 0, hi = 0, top = 0, share[2][ST_BINS];
    size_t j, nb;
    int s, any = 0, w = 240, h = 56, plot = 40;
    for (s = 0; s < 2; s++) {
        m[s] = NULL;
        if (k[s] != NULL)
            st_main_dist(k[s], &m[s], &q[s]);
        if (m[s] == NULL)
            continue;
        lo = any && lo < m[s]->min ? lo : m[s]->min;
        hi = any && hi > m[s]->max ? hi : m[s]->max;
        any = 1;
    }
    if (!any)
        return;
    nb = lo == hi ? 1 : ST_BINS;
    for (s = 0; s < 2; s++) {
        uint64_t n = 0;
        if (m[s] == NULL)
            continue;
        sk_quant_histogram(q[s], lo, hi, bins[s], nb);
        for (j = 0; j < nb; j++)
            n += bins[s][j];
        for (j = 0; j < nb; j++) {
            share[s][j] = n > 0 ? (double)bins[s][j] / (double)n : 0;
            if (share[s][j] > top)
                top = share[s][j];
        }
    }
    fprintf(f, "<svg class=\"cmp\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
            w, h, w, h);
    for (s = 0; s < 2; s++) {
        if (m[s] == NULL)
            continue;
        for (j = 0; j < nb; j++) {
            double bw = (double)w / (double)nb, bh = top > 0 ? (double)plot * share[s][j] / top : 0;
            if (share[s][j] > 0 && bh < 1)
                bh = 1;
            fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>%s: ",
                    s == 0 ? "a" : "b", bw * (double)j + 0.5, (double)plot - bh,
                    bw > 2 ? bw - 1 : bw, bh, s == 0 ? "first" : "second");
            st_html_number(f, nb == 1 ? lo : lo + (hi - lo) * (double)j / (double)nb);
            fputs(" to ", f);
            st_html_number(f, nb == 1 ? hi : lo + (hi - lo) * (double)(j + 1) / (double)nb);
            fprintf(f, ": %.1f%%</title></rect>", 100 * share[s][j]);
        }
    }
    fprintf(f, "<text x=\"0\" y=\"%d\">", h - 2);
    st_html_number(f, lo);
    fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", w, h - 2);
    st_html_number(f, hi);
    fputs("</text></svg>", f);
}

typedef struct tv {
    const sk_top_item *item;
    double share[2];
} tv;

static int by_share(const void *x, const void *y)
{
    const tv *a = (const tv *)x, *b = (const tv *)y;
    double ma = a->share[0] > a->share[1] ? a->share[0] : a->share[1];
    double mb = b->share[0] > b->share[1] ? b->share[0] : b->share[1];
    return ma > mb ? -1 : ma < mb;
}

/* The top values of both, side by side: each value the sketches are sure
 * of (count above their error), as a share of the feature's values. */
static int top_values(FILE *f, const st_key *const k[2], unsigned top)
{
    tv v[2 * SK_TOP];
    size_t n = 0, i, j;
    int s;
    for (s = 0; s < 2; s++) {
        const st_bytes *b = k[s] != NULL ? k[s]->b : NULL;
        for (i = 0; b != NULL && i < b->top.n; i++) {
            const sk_top_item *it = &b->top.item[i];
            if (it->count <= b->top.error)
                continue;
            for (j = 0; j < n; j++) /* the same value: hash, length and kept bytes */
                if (v[j].item->hash == it->hash && v[j].item->len == it->len &&
                    memcmp(v[j].item->prefix, it->prefix,
                           it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX) == 0)
                    break;
            if (j == n) {
                v[n].item = it;
                v[n].share[0] = v[n].share[1] = 0;
                n++;
            }
            v[j].share[s] = (double)it->count / (double)b->values;
        }
    }
    if (n == 0 || top == 0)
        return 0;
    qsort(v, n, sizeof *v, by_share);
    fputs("<div class=\"tv\">", f);
    for (i = 0; i < n && i < top; i++) {
        const sk_top_item *it = v[i].item;
        size_t shown = it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX;
        fputs("<span>", f);
        st_html_bytes(f, it->prefix, shown, it->len);
        fprintf(f, "</span><svg width=\"60\" height=\"12\">"
                   "<rect class=\"a\" width=\"%.1f\" height=\"6\"/>"
                   "<rect class=\"b\" y=\"6\" width=\"%.1f\" height=\"6\"/></svg>"
                   "<span>%.1f%% / %.1f%%</span>",
                60 * v[i].share[0], 60 * v[i].share[1], 100 * v[i].share[0],
                100 * v[i].share[1]);
    }
    fputs("</div>", f);
    return 1;
}

/* The drift cell: the measure validate --against would take. */
static void drift_cell(FILE *f, const dr_stats *da, const dr_stats *db, const st_key *const k[2],
                       int list)
{
    const dr_feature *fa, *fb;
    const dr_label *lab;
    const char *why = NULL;
    double v = 0;
    int m, r;
    if (k[0] == NULL || k[1] == NULL) {
        fputs("<td rowspan=\"2\" class=\"drift\">-</td>", f);
        return;
    }
    fa = dr_find(da, k[0]->key, k[0]->key_len, list);
    fb = dr_find(db, k[1]->key, k[1]->key_len, list);
    if (fa == NULL || fb == NULL) {
        fputs("<td rowspan=\"2\" class=\"drift\">-</td>", f);
        return;
    }
    m = fa->strings || fb->strings ? DR_LINF : DR_JSD;
    if (m == DR_JSD && !fa->standard.present && !fb->standard.present)
        r = -1, why = "bytes that are not all UTF-8 have no histogram or rank histogram";
    else
        r = dr_measure(m, fa, fb, 0, &v, &lab, &why);
    if (r != 0) {
        fputs("<td rowspan=\"2\" class=\"drift\" title=\"", f);
        st_html_text(f, r < 0 ? why : "no values on a side");
        fputs("\">-</td>", f);
        return;
    }
    fprintf(f, "<td rowspan=\"2\" class=\"drift%s\" data-drift=\"%s %.9g\">%s ",
            v > 0.1 ? " hot" : "", m == DR_LINF ? "L_INFTY" : "JENSEN_SHANNON_DIVERGENCE", v,
            m == DR_LINF ? "L&#8734;" : "JSD");
    st_html_short(f, v);
    fputs("</td>", f);
}

typedef struct side {
    const st_stats *s;
    const st_report *r;
    const char *name; /* the title: the heading's, and each row's tooltip */
    dr_stats d;
    uint8_t *bytes;
} side;

static void key_rows(FILE *f, side *sd, const st_key *const k[2], int list, unsigned top)
{
    const st_key *any = k[0] != NULL ? k[0] : k[1];
    int s, kind[2];
    fputs("<tr class=\"ka\"><td class=\"n\" rowspan=\"2\">", f);
    st_html_bytes(f, any->key, any->key_len, any->key_len);
    fputs("</td><td class=\"t\" rowspan=\"2\">", f);
    for (s = 0; s < 2; s++) {
        kind[s] = k[s] != NULL ? main_kind(k[s]) : -1;
        if (k[s] != NULL && (s == 0 || k[0] == NULL || kind[0] != kind[1])) {
            fputs(s == 1 && k[0] != NULL ? " / " : "", f);
            st_types_text(f, k[s]);
        }
    }
    fputs("</td>", f);
    drift_cell(f, &sd[0].d, &sd[1].d, k, list);
    for (s = 0; s < 2; s++) {
        uint64_t records = list ? sd[s].s->sequences : sd[s].s->records;
        if (s == 1)
            fputs("<tr class=\"kb\">", f);
        figures(f, k[s], records, s, sd[s].name);
        if (s == 0) {
            fputs("<td rowspan=\"2\" class=\"c\">", f);
            if (k[0] != NULL && k[1] != NULL && kind[0] >= 0 && kind[1] >= 0 &&
                kind[0] != kind[1] && (kind[0] == ST_BYTES || kind[1] == ST_BYTES))
                fputs("types differ", f);
            else if (!((kind[0] == ST_BYTES || kind[1] == ST_BYTES) && top_values(f, k, top)))
                overlay(f, k);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
}

static int key_cmp(const st_key *a, const st_key *b)
{
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = n > 0 ? memcmp(a->key, b->key, n) : 0;
    return c != 0 ? c : a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

/* Every key of either table (both sorted by bytes), in order. */
static void section(FILE *f, side *sd, const st_table *ta, const st_table *tb, const char *title,
                    int list, unsigned top)
{
    size_t i = 0, j = 0;
    if (ta->n == 0 && tb->n == 0)
        return;
    fprintf(f, "<h2>%s</h2><div class=\"scroll\"><table><tr><th class=\"n\">name</th>"
               "<th class=\"t\">type</th><th>drift</th><th class=\"t\"></th><th>present</th>"
               "<th>per %s</th><th>mean</th><th>min</th><th>median</th><th>max</th>"
               "<th class=\"t\">distribution</th></tr>\n",
            title, list ? "frame" : "record");
    while (i < ta->n || j < tb->n) {
        const st_key *k[2];
        int c = i == ta->n ? 1 : j == tb->n ? -1 : key_cmp(&ta->v[i], &tb->v[j]);
        k[0] = c <= 0 ? &ta->v[i++] : NULL;
        k[1] = c >= 0 ? &tb->v[j++] : NULL;
        key_rows(f, sd, k, list, top);
    }
    fputs("</table></div>\n", f);
}

static void dataset_line(FILE *f, const side *sd, int s)
{
    size_t i;
    uint64_t bytes = 0;
    for (i = 0; i < sd->r->nfiles; i++)
        bytes += sd->r->files[i].bytes;
    fputs("<li>", f);
    label(f, s, sd->name);
    fprintf(f, ": %llu records (%llu Example, %llu SequenceExample) in %zu file%s, %llu bytes",
            (unsigned long long)sd->s->records, (unsigned long long)sd->s->examples,
            (unsigned long long)sd->s->sequences, sd->r->nfiles, sd->r->nfiles == 1 ? "" : "s",
            (unsigned long long)bytes);
    fputs("</li>\n", f);
}

int st_write_compare_html(FILE *f, const st_stats *a, const st_report *ra)
{
    const st_stats *b = ra->other;
    const st_report *rb = ra->other_report;
    side sd[2];
    char err[256];
    size_t n;
    int s, rc = 0;
    memset(sd, 0, sizeof sd);
    sd[0].s = a;
    sd[0].r = ra;
    sd[1].s = b;
    sd[1].r = rb;
    for (s = 0; s < 2; s++) {
        sd[s].name = sd[s].r->title;
        if (st_encode_tfdv(sd[s].s, sd[s].r, &sd[s].bytes, &n) != 0 ||
            dr_read(&sd[s].d, sd[s].bytes, n, err, sizeof err) != 0)
            rc = -1;
    }
    if (rc == 0) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<meta name=\"viewport\" content=\"width=device-width\"><title>featc stats: ", f);
        st_html_text(f, sd[0].name);
        fputs(" and ", f);
        st_html_text(f, sd[1].name);
        fprintf(f, "</title><style>%s%s</style></head><body>\n<h1>featc stats: ", st_html_style,
                compare_style);
        st_html_text(f, sd[0].name);
        fputs(" and ", f);
        st_html_text(f, sd[1].name);
        fputs("</h1><ul class=\"sum\">\n", f);
        dataset_line(f, &sd[0], 0);
        dataset_line(f, &sd[1], 1);
        fputs("</ul><p class=\"note\">Each feature has a row for each dataset; its histograms "
              "are drawn over one range as shares of each dataset's values, a string "
              "feature's top values side by side. Drift is what featc validate --against "
              "measures, as TFDV does: the approximate Jensen-Shannon divergence (JSD) of "
              "numeric histograms, the L-infinity distance (L&#8734;) of string values' "
              "shares; above 0.1 in red.</p>\n", f);
        section(f, sd, &a->features, &b->features,
                a->sequences + b->sequences > 0 ? "Context features" : "Features", 0,
                ra->top < 10 ? ra->top : 10);
        section(f, sd, &a->lists, &b->lists, "Feature lists", 1, ra->top < 10 ? ra->top : 10);
        fputs("</body></html>\n", f);
    }
    for (s = 0; s < 2; s++) {
        dr_free(&sd[s].d);
        free(sd[s].bytes);
    }
    return rc != 0 || ferror(f) ? -1 : 0;
}
