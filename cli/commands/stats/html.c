/* featc stats --html: one self-contained page (inline CSS and SVG; no
 * script, no font, no request): a summary table with a row per feature and
 * its histogram as a sparkline, then each feature's details below (linked
 * from its name): histograms of values and of values per record,
 * quantiles, and the top values as bars. */
#include "reports.h"

#include <math.h>
#include <string.h>

void st_html_text(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void st_html_bytes(FILE *f, const uint8_t *p, size_t n, size_t full)
{
    char buf[400];
    st_show_bytes(buf, sizeof buf, p, n, full);
    st_html_text(f, buf);
}

/* A number in one style throughout the page, never e-notation: whole
 * numbers (and any of 10,000 or more) in full with thousands grouped,
 * "1,703,000,000"; others to 4 significant digits; a power of ten,
 * "1.23×10<sup>-5</sup>", below 0.001 and from `big` on (10^15 in the
 * details, 10^6 in the overview, whose columns must fit the page). */
static void html_num(FILE *f, double v, double big)
{
    char buf[64];
    double a = fabs(v);
    size_t n, i, lead;
    if (v != v) {
        fputs("nan", f);
        return;
    }
    if (a > 1.7976931348623157e308) {
        fputs(v < 0 ? "-inf" : "inf", f);
        return;
    }
    if (a != 0 && (a < 1e-3 || a >= big)) {
        int e = (int)floor(log10(a));
        double m = v / pow(10.0, e);
        if (fabs(m) >= 9.9995) { /* %.4g would print 9.9996 as 10 */
            m /= 10;
            e++;
        }
        fprintf(f, "%.4g&#215;10<sup>%d</sup>", m, e);
        return;
    }
    if (a != floor(a) && a < 1e4) {
        fprintf(f, "%.4g", v);
        return;
    }
    n = (size_t)snprintf(buf, sizeof buf, "%.0f", v);
    lead = buf[0] == '-' ? 1 : 0;
    for (i = lead; i < n; i++) {
        fputc(buf[i], f);
        if (i + 1 < n && (n - i - 1) % 3 == 0)
            fputc(',', f);
    }
}

void st_html_number(FILE *f, double v)
{
    html_num(f, v, 1e15);
}

/* The overview's form: 4 significant digits from a million on. */
void st_html_short(FILE *f, double v)
{
    html_num(f, v, 1e6);
}

void st_html_percent(FILE *f, uint64_t part, uint64_t whole)
{
    double p = whole == 0 ? 0 : 100.0 * (double)part / (double)whole;
    if (part == whole)
        fputs("100%", f);
    else if (p >= 99.95)
        fputs("&gt;99.9%", f);
    else if (part > 0 && p < 0.05)
        fputs("&lt;0.1%", f);
    else
        fprintf(f, "%.1f%%", p);
}

const char *const st_html_style =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;background:#fff}"
    "h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere}p{overflow-wrap:break-word}h2{font-size:16px;margin:24px 0 8px}"
    "h3{font-size:15px;margin:0 0 8px;font-family:monospace;overflow-wrap:anywhere}"
    "table{border-collapse:collapse}"
    "th,td{padding:3px 6px;text-align:right;border-bottom:1px solid #e4e4e4;white-space:nowrap}"
    "th{background:#f4f4f4;font-weight:600;white-space:normal}"
    "td.n,th.n{text-align:left;font-family:monospace}td.t{text-align:left}"
    "td.p{white-space:normal;overflow-wrap:anywhere}"
    "a{color:#1a5fb4;text-decoration:none}a:hover{text-decoration:underline}"
    ".sum{color:#555;margin:0 0 12px}.bad{color:#b00}"
    "section{border:1px solid #ddd;border-radius:6px;padding:12px;margin:12px 0}"
    ".row{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}"
    "figure{margin:0}figcaption{color:#555;font-size:12px}"
    "svg text{font:11px sans-serif;fill:#444}"
    "rect.bin{fill:#4a7fc1}rect.top{fill:#6aa84f}rect.pres{fill:#4a7fc1}rect.bg{fill:#e8e8e8}"
    "line.axis{stroke:#888;stroke-width:1}"
    ".scroll{max-width:100%;overflow-x:auto}"
    ".q{display:flex;flex-wrap:wrap;gap:4px 0;margin:8px 0}"
    ".q div{padding:2px 10px;border-left:1px solid #e4e4e4;text-align:right}"
    ".q b{display:block;font-weight:600;background:#f4f4f4;margin:0 -10px;padding:0 10px}"
    ".note{color:#555;font-size:12px;margin:4px 0 0}";

/* A histogram as SVG bars: w x h, with axis labels when labelled. */
static void svg_hist(FILE *f, const char *cls, const sk_moments *m, const sk_quant *q, int w,
                     int h, int labelled)
{
    uint64_t bins[ST_BINS], top = 0;
    double low[ST_BINS], high[ST_BINS];
    size_t j, nb;
    int plot_h = labelled ? h - 16 : h, axis = labelled ? 44 : 0, top_y = labelled ? 6 : 0;
    int plot_w = w - axis;
    if (m->n == 0)
        return;
    nb = st_histogram(m, q, bins, low, high);
    for (j = 0; j < nb; j++)
        if (bins[j] > top)
            top = bins[j];
    fprintf(f, "<svg class=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "role=\"img\">",
            cls, w, h, w, h);
    if (labelled) /* the count axis: 0 at the base, the fullest bin at the top */
        fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                   "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                   "<text class=\"ytick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%llu</text>"
                   "<text class=\"ytick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>",
                axis - 1, top_y, axis - 1, plot_h, axis - 4, top_y, axis - 1, top_y, axis - 6,
                top_y + 8, (unsigned long long)top, axis - 6, plot_h);
    for (j = 0; j < nb; j++) {
        double bw = (double)plot_w / (double)nb;
        double bh = top == 0 ? 0 : (double)(plot_h - top_y) * (double)bins[j] / (double)top;
        if (bins[j] > 0 && bh < 1)
            bh = 1;
        fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
                   "<title>",
                (double)axis + bw * (double)j + 0.5, (double)plot_h - bh, bw > 2 ? bw - 1 : bw,
                bh);
        st_html_number(f, low[j]);
        if (high[j] != low[j]) {
            fputs(" to ", f);
            st_html_number(f, high[j]);
        }
        fprintf(f, ": %llu</title></rect>", (unsigned long long)bins[j]);
    }
    if (labelled) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">", axis, h - 2);
        st_html_number(f, m->min);
        fprintf(f, "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", w, h - 2);
        st_html_number(f, m->max);
        fputs("</text>", f);
    }
    fputs("</svg>", f);
}

void st_svg_presence(FILE *f, uint64_t present, uint64_t records)
{
    double w = records == 0 ? 0 : 60.0 * (double)present / (double)records;
    fprintf(f, "<svg width=\"60\" height=\"10\"><rect class=\"bg\" width=\"60\" height=\"10\"/>"
               "<rect class=\"pres\" width=\"%.1f\" height=\"10\"/></svg> ",
            w);
}


void st_types_text(FILE *f, const st_key *k)
{
    size_t j;
    int any = 0;
    for (j = 0; j < ST_KINDS; j++)
        if (k->kind[j] > 0) {
            fprintf(f, "%s%s", any ? "+" : "", st_kind_names[j]);
            any = 1;
        }
    if (!any) /* every occurrence an empty Feature{}: no list, so no type */
        fputs("<span title=\"only empty Feature{} seen: no value list, so no type\">"
              "empty</span>",
              f);
}

/* The values' distribution that stands for the feature in its row. */
void st_main_dist(const st_key *k, const sk_moments **m, const sk_quant **q)
{
    *m = NULL;
    *q = NULL;
    if (k->i != NULL && k->i->m.n > 0) {
        *m = &k->i->m;
        *q = &k->i->q;
    } else if (k->f != NULL && k->f->m.n > 0) {
        *m = &k->f->m;
        *q = &k->f->q;
    } else if (k->b != NULL && k->b->len.n > 0) {
        *m = &k->b->len;
        *q = &k->b->lenq;
    }
}

static void summary_row(FILE *f, const st_key *k, const char *id, uint64_t records, int list)
{
    const sk_moments *m;
    const sk_quant *q;
    st_main_dist(k, &m, &q);
    fprintf(f, "<tr><td class=\"n\"><a href=\"#%s\">", id);
    st_html_bytes(f, k->key, k->key_len, k->key_len);
    fputs("</a></td><td class=\"t\">", f);
    st_types_text(f, k);
    fputs("</td><td>", f);
    st_svg_presence(f, k->present, records);
    st_html_percent(f, k->present, records);
    fputs("</td><td>", f);
    st_html_percent(f, records - k->present, records);
    fputs("</td><td>", f);
    if (list) {
        if (k->frames.n > 0) {
            st_html_number(f, k->frames.mean);
            fputs("</td><td>", f);
        } else {
            fputs("-</td><td>", f);
        }
    }
    if (k->per.n > 0)
        st_html_number(f, k->per.mean);
    else
        fputs("-", f);
    fputs("</td><td>", f);
    if (m != NULL) {
        /* a bytes feature's figures are of its values' lengths: " B" says so */
        const char *unit = k->b != NULL && m == &k->b->len ? " B" : "";
        double cell[5];
        size_t c;
        cell[0] = m->min;
        cell[1] = m->mean;
        cell[2] = sk_moments_std(m);
        cell[3] = sk_quant_value(q, 0.5);
        cell[4] = m->max;
        svg_hist(f, "spark", m, q, 100, 24, 0);
        for (c = 0; c < 5; c++) {
            fputs("</td><td>", f);
            st_html_short(f, cell[c]);
            fputs(unit, f);
        }
        fputs("</td><td>", f);
    } else {
        fputs("-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>", f);
    }
    if (k->b != NULL) {
        int exact;
        double d = sk_distinct_value(&k->b->d, &exact);
        fprintf(f, "%s%.0f distinct", exact ? "" : "~", d);
    } else if (k->i != NULL || k->f != NULL) {
        const st_num *x = k->i != NULL ? k->i : k->f;
        st_html_percent(f, x->zeros, x->values);
        fputs(" zeros", f);
        if (k->f != NULL && k->f->nan + k->f->inf + k->f->ninf > 0)
            fprintf(f, " <span class=\"bad\">%llu nan/inf</span>",
                    (unsigned long long)(k->f->nan + k->f->inf + k->f->ninf));
    }
    fputs("</td></tr>\n", f);
}

/* min, the quantiles, max, mean and std: a row of cells that wraps where
 * the page is narrow (a table of 14 columns did not fit its card). */
static void quantile_table(FILE *f, const sk_moments *m, const sk_quant *q, const char *unit)
{
    size_t j;
    fputs("<div class=\"q\"><div><b>min</b>", f);
    st_html_number(f, m->min);
    fputs(unit, f);
    for (j = 0; j < ST_NQ; j++) {
        fprintf(f, "</div><div><b>%s</b>", st_quantile_names[j]);
        st_html_number(f, sk_quant_value(q, st_quantiles[j]));
        fputs(unit, f);
    }
    fputs("</div><div><b>max</b>", f);
    st_html_number(f, m->max);
    fputs(unit, f);
    fputs("</div><div><b>mean</b>", f);
    st_html_number(f, m->mean);
    fputs(unit, f);
    fputs("</div><div><b>std</b>", f);
    st_html_number(f, sk_moments_std(m));
    fputs(unit, f);
    fputs("</div></div>", f);
}

static void num_detail(FILE *f, const char *kind, const st_num *x)
{
    fprintf(f, "<h4>%s values: %llu (zeros %llu", kind, (unsigned long long)x->values,
            (unsigned long long)x->zeros);
    if (x->nan + x->inf + x->ninf > 0)
        fprintf(f, ", <span class=\"bad\">nan %llu, inf %llu, -inf %llu</span>",
                (unsigned long long)x->nan, (unsigned long long)x->inf,
                (unsigned long long)x->ninf);
    if (strcmp(kind, "int64") == 0) {
        int exact;
        double d = sk_distinct_value(&x->d, &exact);
        fprintf(f, ", %s%.0f distinct", exact ? "" : "~", d);
    }
    fputs(")</h4>", f);
    if (x->m.n == 0)
        return;
    fputs("<div class=\"row\"><figure>", f);
    svg_hist(f, "hist", &x->m, &x->q, 420, 140, 1);
    fprintf(f, "<figcaption>histogram of the values (%s)</figcaption></figure></div>",
            sk_quant_exact(&x->q) ? "exact"
                                  : "from the sketch: each 1%-wide bucket spread over its bins");
    quantile_table(f, &x->m, &x->q, "");
}

static void bytes_detail(FILE *f, const st_bytes *x)
{
    uint32_t j;
    uint64_t top = x->top.n > 0 ? x->top.item[0].count : 0;
    int exact;
    double d = sk_distinct_value(&x->d, &exact);
    fprintf(f, "<h4>bytes values: %llu (empty %llu, UTF-8 %llu, %s%.0f distinct)</h4>",
            (unsigned long long)x->values, (unsigned long long)x->empty,
            (unsigned long long)x->utf8, exact ? "" : "~", d);
    fputs("<div class=\"row\">", f);
    if (x->len.n > 0) {
        fputs("<figure>", f);
        svg_hist(f, "hist", &x->len, &x->lenq, 300, 120, 1);
        fputs("<figcaption>histogram of the lengths (bytes)</figcaption></figure>", f);
    }
    if (x->top.n > 0) {
        uint32_t n = x->top.n < 10 ? x->top.n : 10;
        fprintf(f, "<figure><svg class=\"tops\" width=\"520\" height=\"%u\">", 18 * n);
        for (j = 0; j < n; j++) {
            const sk_top_item *it = &x->top.item[j];
            double w = top == 0 ? 0 : 200.0 * (double)it->count / (double)top;
            fprintf(f, "<text x=\"0\" y=\"%u\">", 18 * j + 13);
            st_html_bytes(f, it->prefix, it->len < SK_TOP_PREFIX ? it->len : SK_TOP_PREFIX, it->len);
            fprintf(f, "</text><rect class=\"top\" x=\"260\" y=\"%u\" width=\"%.1f\" "
                       "height=\"14\"/><text x=\"%.1f\" y=\"%u\">%llu</text>",
                    18 * j + 2, w < 1 ? 1 : w, 265 + (w < 1 ? 1 : w), 18 * j + 13,
                    (unsigned long long)it->count);
        }
        fputs("</svg><figcaption>most frequent values", f);
        if (x->top.error > 0)
            fprintf(f, " (counts may be up to %llu below the truth)",
                    (unsigned long long)x->top.error);
        fputs("</figcaption></figure>", f);
    }
    fputs("</div>", f);
    if (x->len.n > 0) {
        fputs("<p class=\"note\">lengths in bytes:</p>", f);
        quantile_table(f, &x->len, &x->lenq, " B");
    }
}

static void detail(FILE *f, const st_key *k, const char *id, uint64_t records, int list)
{
    fprintf(f, "<section id=\"%s\"><h3>", id);
    st_html_bytes(f, k->key, k->key_len, k->key_len);
    fputs("</h3><p>", f);
    st_types_text(f, k);
    fprintf(f, "; present in %llu of %llu records (", (unsigned long long)k->present,
            (unsigned long long)records);
    st_html_percent(f, k->present, records);
    fputs(")", f);
    if (!list && k->empty > 0)
        fprintf(f, "; %llu records hold an empty Feature{} (missing to TensorFlow)",
                (unsigned long long)k->empty);
    if (list && k->empty > 0)
        fprintf(f, "; %llu frames are an empty Feature{}", (unsigned long long)k->empty);
    fputs("</p><div class=\"row\">", f);
    if (list && k->frames.n > 0) {
        fputs("<figure>", f);
        svg_hist(f, "hist", &k->frames, &k->framesq, 240, 100, 1);
        fputs("<figcaption>frames per record</figcaption></figure>", f);
    }
    if (k->per.n > 0 && k->per.min != k->per.max) {
        fputs("<figure>", f);
        svg_hist(f, "hist", &k->per, &k->perq, 240, 100, 1);
        fprintf(f, "<figcaption>values per %s</figcaption></figure>", list ? "frame" : "record");
    }
    fputs("</div>", f);
    if (k->per.n > 0 && k->per.min == k->per.max) {
        fputs("<p>always ", f);
        st_html_number(f, k->per.min);
        fprintf(f, " value%s per %s</p>", k->per.min == 1 ? "" : "s", list ? "frame" : "record");
    }
    if (k->i != NULL)
        num_detail(f, "int64", k->i);
    if (k->f != NULL)
        num_detail(f, "float", k->f);
    if (k->b != NULL)
        bytes_detail(f, k->b);
    fputs("</section>\n", f);
}

static void key_section(FILE *f, const st_table *t, const char *title, const char *prefix,
                        uint64_t records, int list)
{
    size_t i;
    char id[32];
    if (t->n == 0)
        return;
    fprintf(f, "<h2>%s</h2><div class=\"scroll\"><table><tr><th class=\"n\">name</th>"
               "<th class=\"t\">type</th><th>present</th><th>missing</th>%s<th>per %s</th>"
               "<th>values</th><th>min</th><th>mean</th><th>std</th><th>median</th><th>max</th>"
               "<th>zeros / distinct</th></tr>\n",
            title, list ? "<th>frames</th>" : "", list ? "frame" : "record");
    for (i = 0; i < t->n; i++) {
        snprintf(id, sizeof id, "%s%zu", prefix, i);
        summary_row(f, &t->v[i], id, records, list);
    }
    fputs("</table></div><p class=\"note\">missing: records without the key (or with an "
          "empty Feature{}, which TensorFlow reads as missing). The figures of a bytes feature "
          "(B) are of its values' lengths in bytes. Figures are rounded to 4 digits from a "
          "million on; each feature's details below give them in full.</p>\n",
          f);
    for (i = 0; i < t->n; i++) {
        snprintf(id, sizeof id, "%s%zu", prefix, i);
        detail(f, &t->v[i], id, records, list);
    }
}

int st_write_html(FILE *f, const st_stats *s, const st_report *r)
{
    size_t i;
    uint64_t bytes = 0;
    for (i = 0; i < r->nfiles; i++)
        bytes += r->files[i].bytes;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\"><title>featc stats: ",
          f);
    st_html_text(f, r->title);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>featc stats: ", st_html_style);
    st_html_text(f, r->title);
    fprintf(f, "</h1><p class=\"sum\">%llu records (%llu Example, %llu SequenceExample",
            (unsigned long long)s->records, (unsigned long long)s->examples,
            (unsigned long long)s->sequences);
    if (s->other > 0)
        fprintf(f, ", <span class=\"bad\">%llu not Examples</span>", (unsigned long long)s->other);
    fprintf(f, ") in %zu file%s, %llu bytes", r->nfiles, r->nfiles == 1 ? "" : "s",
            (unsigned long long)bytes);
    if (s->dropped > 0)
        fprintf(f, "; %llu occurrences of keys past --max-features left out",
                (unsigned long long)s->dropped);
    fputs(". Quantiles are within 1% of the value; histograms spread each 1%-wide bucket "
          "of the sketch evenly over its bins.</p>\n<div class=\"scroll\"><table><tr>"
          "<th class=\"n\">file</th><th>records</th>"
          "<th>bytes</th><th class=\"t\">compression</th></tr>\n",
          f);
    for (i = 0; i < r->nfiles; i++) {
        fputs("<tr><td class=\"n p\">", f);
        st_html_text(f, r->files[i].path);
        fprintf(f, "</td><td>%llu</td><td>%llu</td><td class=\"t\">",
                (unsigned long long)r->files[i].records, (unsigned long long)r->files[i].bytes);
        if (r->files[i].failed) {
            fputs("<span class=\"bad\">failed: ", f);
            st_html_text(f, r->files[i].error);
            fputs("</span>", f);
        } else {
            st_html_text(f, r->files[i].compression);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table></div>\n", f);
    if (r->spec != NULL) {
        uint64_t all = s->spec_parsed + s->spec_failed;
        fputs("<h2>Spec</h2><p>", f);
        st_html_text(f, r->spec_path);
        fputs(", message ", f);
        st_html_text(f, st_spec_message(r->spec));
        fprintf(f, ": %llu of %llu records parse", (unsigned long long)s->spec_parsed,
                (unsigned long long)all);
        if (s->spec_failed > 0)
            fprintf(f, "; <span class=\"bad\">%llu fail</span>", (unsigned long long)s->spec_failed);
        fputs(".</p>\n", f);
        if (s->spec_errors.n > 0) {
            fputs("<div class=\"scroll\"><table><tr><th>records</th><th class=\"t\">error</th>"
                  "<th class=\"t\">first</th></tr>\n", f);
            for (i = 0; i < s->spec_errors.n; i++) {
                const cli_error_kind *e = &s->spec_errors.kind[i];
                char at[128];
                fprintf(f, "<tr><td>%llu</td><td class=\"t\">", (unsigned long long)e->count);
                st_html_text(f, e->text);
                fputs("</td><td class=\"t p\">", f);
                st_html_text(f, r->files[e->file].path);
                fprintf(f, " record %llu, offset %llu", (unsigned long long)e->index,
                        (unsigned long long)e->offset);
                st_html_text(f, cli_kind_at(e, at, sizeof at));
                fputs("</td></tr>\n", f);
            }
            if (s->spec_errors.other > 0)
                fprintf(f, "<tr><td>%llu</td><td class=\"t\">(other texts)</td><td></td></tr>\n",
                        (unsigned long long)s->spec_errors.other);
            fputs("</table></div>\n", f);
        }
    }
    key_section(f, &s->features, s->sequences > 0 ? "Context features" : "Features", "f",
                s->records, 0);
    key_section(f, &s->lists, "Feature lists", "l", s->records, 1);
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
