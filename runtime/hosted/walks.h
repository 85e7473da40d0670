/* Record boundaries already walked to, per file, for input.c: a part of an
 * uncompressed file read without an index (the walk, docs/record-tools.md,
 * "Splits") finds its first record by walking the headers before it, from
 * the file's start.  A process that reads several parts of one file (a
 * torch or Dask shard reads every W-th part) would walk the file's start
 * once per part: parts x file.  The boundaries the walks and the parts'
 * ends reach are kept here, so that the next walk starts from the nearest
 * one before its range.  Not installed. */
#ifndef FEATC_WALKS_H
#define FEATC_WALKS_H

#include "featc/fc_input.h"

/* The nearest boundary at or before offset `before` known for f: 1 and
 * (*offset, *index: the record number there), or 0.  A claim, which the
 * caller checks: it walks on from there header by header, and from the
 * file's start when a header there is not intact. */
int fc_walks_find(const fc_file_id *f, uint64_t before, uint64_t *offset, uint64_t *index);
/* Notes that record number index starts at offset in f, as a walk over
 * intact headers (or a read of intact records) found it. */
void fc_walks_note(const fc_file_id *f, uint64_t offset, uint64_t index);

#endif /* FEATC_WALKS_H */
