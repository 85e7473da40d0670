/* featc's CPython modules: what `featc compile --python` generates calls.
 *
 * A spec's module (NAME_py.c, generated) lists its messages and hands them
 * to fcpy_module_create, which builds the module object: read(), parse()
 * and write() over the messages' descriptors, with batches in the layouts
 * of tf.io.parse_example as NumPy arrays (docs/python.md).  The code
 * behind it (python/ext/, ext.h) is written against Python's stable ABI
 * (3.11 and later) and imports NumPy when the module is imported; it is a
 * hosted layer: it allocates the batches it hands out, and nothing else in
 * the runtime changes.
 */
#ifndef FEATC_FC_PYTHON_H
#define FEATC_FC_PYTHON_H

#include "fc_example.h"
#include "fc_segment.h"
#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message of the spec: an example (md) or a sequence_example (sd),
 * with its segments block's configuration (seg) when it has one. */
typedef struct fcpy_message {
    const char *name;          /* its name in the spec */
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    const fc_seg_config *seg;
} fcpy_message;

typedef struct fcpy_spec {
    const char *module;        /* the module's name (the spec's base name) */
    const char *spec;          /* the spec file it was generated from */
    const char *version;       /* featc's version that generated it */
    const fcpy_message *messages; /* the first is the default */
    size_t nmessages;
} fcpy_spec;

/* The module object (a new reference), or NULL with a Python exception
 * set.  Call it from PyInit_NAME. */
struct _object *fcpy_module_create(const fcpy_spec *spec);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_PYTHON_H */
