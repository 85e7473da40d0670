/* The compiler as a library call (include/featc/featc.h): source text in,
 * diagnostics through the caller's callback, C out. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

#include <featc/fc_base.h>
#include <featc/featc_dynamic.h>

/* What a featc_output owns: the pool its texts live in. */
struct featc_mem {
    pool pool;
};

const char *featc_version(void)
{
    return FC_VERSION_STRING;
}

void featc_output_free(featc_output *out)
{
    if (out == NULL)
        return;
    if (out->mem != NULL) {
        fcc_pool_free(&out->mem->pool);
        free(out->mem);
    }
    memset(out, 0, sizeof *out);
}

/* The file name of path without its extension, into buf. */
static const char *stem(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    size_t n;
    base = base != NULL ? base + 1 : path;
    n = strcspn(base, ".");
    if (n >= size)
        n = size - 1;
    memcpy(buf, base, n);
    buf[n] = '\0';
    return buf;
}

static int is_identifier(const char *s)
{
    size_t i;
    for (i = 0; s[i] != '\0'; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (i > 0 && s[i] >= '0' && s[i] <= '9')))
            return 0;
    return i > 0;
}

/* The driver's message: the one named, or the spec's first; NULL (after a
 * diagnostic) when no message has that name. */
static const char *driver_message(diag *d, const schema *s, const char *name)
{
    size_t i;
    if (name == NULL)
        return s->messages[0].name;
    for (i = 0; i < s->nmessages; i++)
        if (strcmp(s->messages[i].name, name) == 0)
            return name;
    fcc_diag_fail(d, "error: no example named '%s' for the driver", name);
    return NULL;
}

/* Parses and checks; NULL (after diagnostics) when the spec is wrong. */
static schema *front_end(pool *p, diag *d, const char *pkg)
{
    ast_spec *ast;
    schema *s;
    const char *nul = d->src_len > 0 ? (const char *)memchr(d->src, '\0', d->src_len) : NULL;
    /* a binary file (an object file, a TFRecord given as the spec): one
     * error, not a page of stray bytes echoed to the terminal */
    if (nul != NULL) {
        fcc_diag_fail(d, "error: a binary file, not a spec (byte 0x00 at offset %lu)",
                      (unsigned long)(nul - d->src));
        fcc_diag_summary(d);
        return NULL;
    }
    ast = fcc_parse(p, d);
    if (ast == NULL) {
        fcc_diag_fail(d, "out of memory");
        return NULL;
    }
    if (d->errors > 0) {
        fcc_diag_summary(d);
        return NULL;
    }
    s = fcc_check(p, d, ast, pkg);
    if (s == NULL || d->errors > 0) {
        if (d->errors == 0)
            d->errors = 1;
        fcc_diag_summary(d);
        return NULL;
    }
    return s;
}

int featc_compile(const char *src, size_t len, const featc_options *options, featc_output *out)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<spec>";
    struct featc_mem *mem;
    diag d;
    schema *s;
    char pkg[128], base[128];
    emit_options eo;
    emit_output eout;
    if (out != NULL)
        memset(out, 0, sizeof *out);
    fcc_diag_init(&d, options->diag, options->diag_ctx, path, src, len);
    mem = (struct featc_mem *)malloc(sizeof *mem);
    if (mem == NULL) {
        fcc_diag_fail(&d, "out of memory");
        return 1;
    }
    fcc_pool_init(&mem->pool);
    s = front_end(&mem->pool, &d, stem(path, pkg, sizeof pkg));
    if (s == NULL || out == NULL)
        goto done; /* errors, or a check only */
    memset(&eo, 0, sizeof eo);
    eo.spec_name = path;
    eo.base = options->base != NULL ? options->base : stem(path, base, sizeof base);
    eo.driver = options->driver;
    if (eo.driver && (eo.driver_message = driver_message(&d, s, options->driver_message)) == NULL)
        goto done;
    eo.python = options->python;
    if (eo.python && !is_identifier(eo.base)) {
        fcc_diag_fail(&d, "error: the Python module's name '%s' is not an identifier (name it "
                          "with --base)", eo.base);
        goto done;
    }
    if (!fcc_emit_c(&mem->pool, s, &eo, &eout)) {
        fcc_diag_fail(&d, "out of memory while generating code");
        goto done;
    }
    out->header = eout.header;
    out->header_len = eout.header_len;
    out->source = eout.source;
    out->source_len = eout.source_len;
    out->driver = eout.driver;
    out->driver_len = eout.driver_len;
    out->python = eout.python;
    out->python_len = eout.python_len;
    out->mem = mem;
    return 0;
done:
    fcc_pool_free(&mem->pool);
    free(mem);
    return d.errors;
}

int featc_check_tf(const char *src, size_t len, const featc_options *options, int *warnings)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<spec>";
    pool mem;
    diag d;
    char pkg[128];
    fcc_diag_init(&d, options->diag, options->diag_ctx, path, src, len);
    d.tf = 1;
    fcc_pool_init(&mem);
    if (front_end(&mem, &d, stem(path, pkg, sizeof pkg)) != NULL)
        fcc_diag_summary(&d); /* the warnings' count (errors have theirs) */
    fcc_pool_free(&mem);
    if (warnings != NULL)
        *warnings = d.warnings;
    return d.errors;
}

static const char *after_colon(const char *path)
{
    const char *c = strrchr(path, ':');
    return c != NULL ? c + 1 : path;
}

int featc_breaking(const char *old_src, size_t old_len, const featc_options *old_options,
                   const char *new_src, size_t new_len, const featc_options *new_options,
                   const char *rules)
{
    const char *opath = old_options->spec_name != NULL ? old_options->spec_name : "<old spec>";
    const char *npath = new_options->spec_name != NULL ? new_options->spec_name : "<new spec>";
    pool mem;
    diag dold, dn;
    schema *os, *ns;
    char opkg[128], npkg[128];
    unsigned mask;
    int found = -1;
    fcc_diag_init(&dold, old_options->diag, old_options->diag_ctx, opath, old_src, old_len);
    fcc_diag_init(&dn, new_options->diag, new_options->diag_ctx, npath, new_src, new_len);
    fcc_pool_init(&mem);
    mask = fcc_breaking_rules(rules, &dn);
    /* (a spec at a revision, git:REV:PATH, takes its package from PATH) */
    os = mask != 0 ? front_end(&mem, &dold, stem(after_colon(opath), opkg, sizeof opkg)) : NULL;
    ns = os != NULL ? front_end(&mem, &dn, stem(after_colon(npath), npkg, sizeof npkg)) : NULL;
    if (ns != NULL) { /* (front_end summed up the errors of a spec that has them) */
        found = fcc_breaking(os, &dold, ns, &dn, mask);
        if (found > 0)
            fcc_diag_summary(&dn);
    }
    fcc_pool_free(&mem);
    return found;
}

/* featc export, either form: the spec checked, then written by emit_tf
 * (tfmd 0) or emit_tfmd (message: the one to write). */
static int export_spec(const char *src, size_t len, const featc_options *options, int tfmd,
                       const char *message, char **text, size_t *text_len)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<spec>";
    pool mem;
    diag d;
    schema *s;
    char pkg[128];
    sbuf b = {NULL, 0, 0, 0};
    *text = NULL;
    *text_len = 0;
    fcc_diag_init(&d, options->diag, options->diag_ctx, path, src, len);
    fcc_pool_init(&mem);
    /* a NULL schema or a failed write always counts an error */
    s = front_end(&mem, &d, stem(path, pkg, sizeof pkg));
    if (s != NULL && !(tfmd ? fcc_emit_tfmd(s, path, message, &d, &b) : fcc_emit_tf(s, path, &b)) &&
        d.errors == 0)
        fcc_diag_fail(&d, "error: out of memory while writing the export");
    fcc_pool_free(&mem);
    if (s != NULL && (d.errors != 0 || d.warnings != 0))
        fcc_diag_summary(&d);
    if (d.errors != 0) {
        free(b.s);
        return d.errors;
    }
    *text = b.s;
    *text_len = b.n;
    return 0;
}

int featc_export_tf(const char *src, size_t len, const featc_options *options, char **text,
                    size_t *text_len)
{
    return export_spec(src, len, options, 0, NULL, text, text_len);
}

int featc_export_tfmd(const char *src, size_t len, const featc_options *options,
                      const char *message, char **text, size_t *text_len)
{
    return export_spec(src, len, options, 1, message, text, text_len);
}

/* A package name from the schema's file name: its stem, with '_' for what
 * a C name cannot hold. */
static const char *package_of(const char *path, char *buf, size_t size)
{
    size_t i;
    stem(path, buf, size);
    for (i = 0; buf[i] != '\0'; i++)
        if (!(buf[i] == '_' || (buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
              (i > 0 && buf[i] >= '0' && buf[i] <= '9')))
            buf[i] = '_';
    if (!featc_c_name_ok(buf))
        return "imported";
    return buf;
}

int featc_import_tfmd(const char *src, size_t len, const featc_options *options,
                      const featc_import_options *io, char **text, size_t *text_len)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<schema>";
    pool mem;
    diag d, dg;
    char pkg[128];
    const char *package;
    sbuf b = {NULL, 0, 0, 0};
    featc_import_options none;
    int errors;
    *text = NULL;
    *text_len = 0;
    if (io == NULL) {
        memset(&none, 0, sizeof none);
        io = &none;
    }
    package = io->package != NULL ? io->package : package_of(path, pkg, sizeof pkg);
    fcc_diag_init(&d, options->diag, options->diag_ctx, path, src, len);
    fcc_pool_init(&mem);
    if (!fcc_tfmd_import(&mem, &d, io, package, &b) || b.failed) {
        if (d.errors == 0)
            fcc_diag_fail(&d, "error: out of memory while importing");
        fcc_diag_summary(&d);
        fcc_pool_free(&mem);
        free(b.s);
        return d.errors;
    }
    fcc_pool_free(&mem);
    /* the spec written, checked as a compile checks it: what it reports is
     * shown against the written text */
    fcc_diag_init(&dg, options->diag, options->diag_ctx, "<imported spec>", b.s, b.n);
    fcc_pool_init(&mem);
    if (front_end(&mem, &dg, package) == NULL && dg.errors == 0)
        dg.errors = 1;
    fcc_pool_free(&mem);
    errors = dg.errors;
    if (errors != 0) {
        free(b.s);
        return errors;
    }
    if (d.warnings > 0)
        fcc_diag_summary(&d);
    *text = b.s;
    *text_len = b.n;
    return 0;
}

int featc_tfmd_read(const char *src, size_t len, const featc_options *options,
                    const char *environment, featc_tfmd_schema *out)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<schema>";
    pool *mem = (pool *)malloc(sizeof *mem);
    diag d;
    memset(out, 0, sizeof *out);
    fcc_diag_init(&d, options->diag, options->diag_ctx, path, src, len);
    if (mem == NULL) {
        fcc_diag_fail(&d, "error: out of memory");
        return d.errors;
    }
    fcc_pool_init(mem);
    if (!fcc_tfmd_constraints(mem, &d, environment, out) || d.errors != 0) {
        if (d.errors == 0)
            fcc_diag_fail(&d, "error: out of memory");
        fcc_diag_summary(&d);
        fcc_pool_free(mem);
        free(mem);
        memset(out, 0, sizeof *out);
        return d.errors;
    }
    out->mem = mem;
    return 0;
}

void featc_tfmd_free(featc_tfmd_schema *s)
{
    if (s != NULL && s->mem != NULL) {
        fcc_pool_free((pool *)s->mem);
        free(s->mem);
    }
    if (s != NULL)
        memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ dynamic */

int fcc_dynamic_build(pool *p, const schema_message *m, featc_dynamic *d);
size_t fcc_dynamic_sizeof(void);

int featc_dynamic_open(const char *src, size_t len, const featc_options *options,
                       const char *message, featc_dynamic **out)
{
    const char *path = options->spec_name != NULL ? options->spec_name : "<spec>";
    pool *mem = (pool *)malloc(sizeof *mem);
    featc_dynamic *d = (featc_dynamic *)calloc(1, fcc_dynamic_sizeof());
    diag dg;
    schema *s;
    char pkg[128];
    size_t i;
    *out = NULL;
    fcc_diag_init(&dg, options->diag, options->diag_ctx, path, src, len);
    if (mem == NULL || d == NULL) {
        free(mem);
        free(d);
        fcc_diag_fail(&dg, "out of memory");
        return 1;
    }
    fcc_pool_init(mem);
    s = front_end(mem, &dg, stem(path, pkg, sizeof pkg));
    if (s == NULL)
        goto fail;
    for (i = 0; i < s->nmessages; i++)
        if (message == NULL || strcmp(s->messages[i].name, message) == 0)
            break;
    if (i == s->nmessages) {
        fcc_diag_fail(&dg, "error: the spec has no message named '%s'", message);
        goto fail;
    }
    if (!fcc_dynamic_build(mem, &s->messages[i], d)) {
        fcc_diag_fail(&dg, "out of memory");
        goto fail;
    }
    *out = d;
    return 0;
fail:
    fcc_pool_free(mem);
    free(mem);
    free(d);
    return dg.errors > 0 ? dg.errors : 1;
}
