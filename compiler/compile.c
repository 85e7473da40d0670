/* The compiler as a library call: source text in, diagnostics and C out. */
#include "spec.h"

#include <string.h>

int featc_compile_buffer(pool *p, const char *path, const char *src, size_t len,
                         FILE *diag_out, const emit_options *o, emit_output *out)
{
    diag d;
    ast_spec *ast;
    schema *s;
    char pkg[128];
    const char *base = strrchr(path, '/');
    size_t n;
    diag_init(&d, diag_out, path, src, len);
    /* The default package: the file name without its extension. */
    base = base != NULL ? base + 1 : path;
    n = strcspn(base, ".");
    if (n >= sizeof pkg)
        n = sizeof pkg - 1;
    memcpy(pkg, base, n);
    pkg[n] = '\0';
    ast = spec_parse(p, &d);
    if (ast == NULL) {
        if (diag_out != NULL)
            fprintf(diag_out, "%s: out of memory\n", path);
        return d.errors > 0 ? d.errors : 1;
    }
    if (d.errors > 0) {
        diag_summary(&d);
        return d.errors;
    }
    s = spec_check(p, &d, ast, pkg);
    if (s == NULL || d.errors > 0) {
        if (d.errors == 0)
            d.errors = 1;
        diag_summary(&d);
        return d.errors;
    }
    if (o != NULL && out != NULL) {
        emit_options eo = *o;
        if (eo.driver && eo.driver_message == NULL)
            eo.driver_message = s->messages[0].name;
        if (!eo.driver)
            eo.driver_message = NULL;
        if (eo.driver_message != NULL) {
            size_t i;
            for (i = 0; i < s->nmessages; i++)
                if (strcmp(s->messages[i].name, eo.driver_message) == 0)
                    break;
            if (i == s->nmessages) {
                if (diag_out != NULL)
                    fprintf(diag_out, "%s: error: no example named '%s' for the driver\n", path,
                            eo.driver_message);
                return 1;
            }
        }
        if (!emit_c(p, s, &eo, out)) {
            if (diag_out != NULL)
                fprintf(diag_out, "%s: out of memory while generating code\n", path);
            return 1;
        }
    }
    return 0;
}
