#!/bin/sh
# featc_breaking_test's test (bazel/featc.bzl): FEATC breaking [--rules=R] OLD NEW,
# from the runfiles tree; exit 1 when NEW breaks what OLD wrote.
exec "$@"
