/* @@BANNER@@
 *
 * The CPython module @@BASE@@: read() and parse() for the spec's messages,
 * batches as NumPy arrays (featc's README, "Python").  Build it with
 * @@BASE@@.c, featc's runtime and its Python layer (libfeatc_python.a). */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000 /* the stable ABI of Python 3.11 */
#endif
#include <Python.h> /* first, as Python asks */

#include "@@HEADER@@"

#include <featc/fc_python.h>

static const fcpy_message @@BASE@@_py_messages[] = {
@@PY_MESSAGES@@};

static const fcpy_spec @@BASE@@_py_spec = {"@@BASE@@", @@SPEC@@, "@@VERSION@@",
                                           @@BASE@@_py_messages, @@PY_COUNT@@};

PyMODINIT_FUNC PyInit_@@BASE@@(void);
PyMODINIT_FUNC PyInit_@@BASE@@(void)
{
    return fcpy_module_create(&@@BASE@@_py_spec);
}
