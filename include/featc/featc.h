/* featc's spec compiler as a library: a spec's text in, diagnostics through
 * a callback, the generated C in memory.  This header is the compiler's
 * whole public face; `featc compile` is a thin wrapper around it, and a
 * build tool can link libfeatc_compiler and call it in-process.
 *
 *     featc_options o = FEATC_OPTIONS_INIT;
 *     featc_output out;
 *     o.spec_name = "specs/tutorial.feat";
 *     o.diag = print_diagnostic;           // or NULL to count errors only
 *     if (featc_compile(text, len, &o, &out) == 0) {
 *         // out.header, out.source (and out.driver): NAME.h, NAME.c, NAME_main.c
 *     }
 *     featc_output_free(&out);
 *
 * The compiler allocates with malloc and frees everything it allocated
 * before it returns, but for the output, which featc_output_free releases.
 * It keeps no global state: calls on different threads do not interfere.
 * The output is a pure function of the text and the options. */
#ifndef FEATC_FEATC_H
#define FEATC_FEATC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits on what a spec may declare (beyond them, a diagnostic). */
#define FEATC_MAX_FEATURES 4096        /* per message */
#define FEATC_MAX_MESSAGES 4096        /* per spec */
#define FEATC_MAX_ELEMENTS (1u << 24)  /* values one feature can hold */
#define FEATC_MAX_STORAGE (64u << 20)  /* bytes of one generated struct */

typedef enum featc_severity {
    FEATC_ERROR,   /* the spec is wrong: nothing is generated */
    FEATC_NOTE,    /* more about the diagnostic before it (a previous definition, a hint) */
    FEATC_SUMMARY, /* "N errors generated.", "too many errors, stopping" */
    FEATC_WARNING  /* featc_check_tf: featc accepts this, TensorFlow would not; featc_import_tfmd
                      and featc_export_tfmd: what one form cannot say of the other */
} featc_severity;

/* One diagnostic, valid for the duration of the callback. */
typedef struct featc_diagnostic {
    featc_severity severity;
    const char *path;      /* options.spec_name */
    int line, column;      /* 1-based start; 0 when the diagnostic has no place */
    int end_line, end_column; /* inclusive end */
    const char *message;   /* the message alone, NUL-terminated */
    /* The diagnostic as `featc compile` prints it, NUL-terminated and ending
     * in a newline: "PATH:LINE:COL: error: MESSAGE", then the source line
     * and a caret under the place (GNU style, which editors follow). */
    const char *text;
    size_t text_len;
} featc_diagnostic;

typedef void (*featc_diag_fn)(void *ctx, const featc_diagnostic *d);

typedef struct featc_options {
    /* The spec's path, as diagnostics and the generated banner name it.  Its
     * file name without extension is the default package and base name. */
    const char *spec_name;
    /* Output base name (the generated files are BASE.h, BASE.c and
     * BASE_main.c; BASE.h is what BASE.c includes).  NULL: from spec_name. */
    const char *base;
    /* Also generate a JSON driver main() for driver_message (NULL: the
     * spec's first message). */
    int driver;
    const char *driver_message;
    /* Where diagnostics go; NULL drops them (the return value still counts
     * the errors). */
    featc_diag_fn diag;
    void *diag_ctx;
    /* Also generate BASE_py.c, a CPython module over the spec's messages
     * (fc_python.h); BASE must then be a C identifier. */
    int python;
} featc_options;

#define FEATC_OPTIONS_INIT {NULL, NULL, 0, NULL, NULL, NULL, 0}

typedef struct featc_output {
    char *header;          /* NUL-terminated; header_len excludes the NUL */
    size_t header_len;
    char *source;
    size_t source_len;
    char *driver;          /* NULL unless options.driver */
    size_t driver_len;
    char *python;          /* NULL unless options.python */
    size_t python_len;
    struct featc_mem *mem; /* owns the three texts */
} featc_output;

/* Reads, checks and, when out is not NULL, generates code for one spec held
 * in src[0..len) (no NUL needed).  Returns 0 on success, else the number of
 * errors (at least 1: a spec error, an unknown driver message, or memory
 * running out, each reported through options.diag).  out is always set
 * (all NULL after a failure) and must be released with featc_output_free. */
int featc_compile(const char *src, size_t len, const featc_options *options,
                  featc_output *out);

/* featc export --tf: checks the spec as featc_compile does and, when it is
 * clean, returns in *text (malloc'd, NUL-terminated; free it) the Python
 * of TensorFlow's feature descriptions for its messages (NAME_FEATURES,
 * NAME_CONTEXT_FEATURES and NAME_SEQUENCE_FEATURES, NAME_FEATURE_COLUMNS
 * for hash buckets).  Returns 0, or the number of errors (*text NULL). */
int featc_export_tf(const char *src, size_t len, const featc_options *options, char **text,
                    size_t *text_len);

/* featc import --tfmd: a TensorFlow Metadata Schema in protobuf's text
 * format (schema.pbtxt) as a featc spec, read as TFXIO reads it (see
 * docs/tfx.md for each case).  src[0..len) is the schema; options->spec_name
 * names it in diagnostics (and gives the package when io->package is NULL),
 * options->diag gets errors and warnings (fields TFMD does not have, bounds
 * taken from the flags).  The spec written is checked as featc_compile
 * checks a spec.  Returns 0 with *text (malloc'd, NUL-terminated; free it),
 * or the number of errors (*text NULL). */
typedef struct featc_import_options {
    const char *environment; /* NULL: every feature */
    const char *package;     /* NULL: from the schema's file name */
    const char *message;     /* NULL: "record" */
    size_t max_values;       /* a VarLen bound without value_count.max; 0: 256 */
    size_t max_frames;       /* the feature lists' bound; 0: 256 */
} featc_import_options;

int featc_import_tfmd(const char *src, size_t len, const featc_options *options,
                      const featc_import_options *io, char **text, size_t *text_len);

/* featc validate: what a TensorFlow Metadata schema says each feature must
 * be, read as featc_import_tfmd reads the schema (environments and the
 * features left out alike).  Numbers TFMD leaves unset have their has_
 * flag 0. */
typedef struct featc_tfmd_feature {
    const char *name;          /* the key (name_len bytes, NUL after) */
    size_t name_len;
    int list;                  /* a feature list (##SEQUENCE##'s struct_domain) */
    char type;                 /* 'b' BYTES, 'i' INT, 'f' FLOAT, 0 another */
    int has_min_fraction, has_min_count;
    double min_fraction;
    long long min_count;
    int has_count;             /* value_count [count_min, count_max] (max -1: none) */
    long long count_min, count_max;
    int has_shape;             /* a fixed shape of shape_elems values */
    long long shape_elems;
    int has_int_min, has_int_max, has_float_min, has_float_max, disallow_nan;
    long long int_min, int_max;
    double float_min, float_max;
    size_t nstrings;           /* a string domain's values (inline or by name) */
    const char **strings;
    const size_t *string_lens;
    /* the comparators: [0] drift_comparator, [1] skew_comparator; each
     * threshold with its has_; jsd_quantiles: the divergence's source
     * histogram is QUANTILES (else STANDARD) */
    int has_linf[2], has_nad[2], has_jsd[2], jsd_quantiles[2];
    double linf[2], nad[2], jsd[2];
} featc_tfmd_feature;

typedef struct featc_tfmd_schema {
    featc_tfmd_feature *features;
    size_t nfeatures;
    void *mem; /* owns them */
} featc_tfmd_schema;

/* Reads the schema in src[0..len) (options->spec_name names it in
 * diagnostics) for environment (NULL: every feature).  Returns 0 with *out
 * set (free it with featc_tfmd_free), or the number of errors. */
int featc_tfmd_read(const char *src, size_t len, const featc_options *options,
                    const char *environment, featc_tfmd_schema *out);
void featc_tfmd_free(featc_tfmd_schema *s);

/* featc export --tfmd: checks the spec as featc_compile does and writes
 * one of its messages (message; NULL: the spec's only one) as a TensorFlow
 * Metadata Schema in protobuf's text format (docs/tfx.md), in *text
 * (malloc'd, NUL-terminated; free it).  What TFMD cannot say is a warning
 * through options->diag, or an error where TFXIO would read other tensors.
 * Returns 0, or the number of errors (*text NULL). */
int featc_export_tfmd(const char *src, size_t len, const featc_options *options,
                      const char *message, char **text, size_t *text_len);

/* featc check --tf: checks the spec as featc_compile does and, through
 * options->diag, also warns (FEATC_WARNING, with TensorFlow's text in a
 * note) about each description featc accepts on purpose and TensorFlow
 * refuses as written (a scalar default that fills a shape), so that a spec
 * can be validated as TensorFlow will see it.  Returns the number of errors;
 * *warnings (may be NULL) gets the number of warnings. */
int featc_check_tf(const char *src, size_t len, const featc_options *options, int *warnings);

/* featc breaking: the changes from the spec OLD (old_src) to NEW (new_src)
 * that break data written under OLD (records NEW's parser refuses, or reads
 * as other values) or what was built on OLD (its generated code, the jobs
 * reading a feature).  Each is an error through new_options->diag at its
 * place in NEW, its rule's name in brackets at the end, with a note at its
 * place in OLD through old_options->diag.  rules: the comma-separated names
 * of the rules to apply (NULL or "all": every one).  Returns the number of
 * breaking changes, or -1 when a spec has errors or rules names no rule
 * (reported through the options' diag). */
int featc_breaking(const char *old_src, size_t old_len, const featc_options *old_options,
                   const char *new_src, size_t new_len, const featc_options *new_options,
                   const char *rules);
/* Rule i's name and, in *why (may be NULL), what makes it breaking; NULL
 * past the last rule. */
const char *featc_breaking_rule(size_t i, const char **why);

/* Releases what featc_compile put in out; out may be NULL or empty. */
void featc_output_free(featc_output *out);

/* Whether s is usable as a package, message or field name (`as NAME`): a C
 * identifier, not a C or C++ keyword, no leading '_' and no "__". */
int featc_c_name_ok(const char *s);

/* The version of featc that generates code, e.g. "0.9.0": the version the
 * generated code requires of the runtime headers. */
const char *featc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FEATC_H */
