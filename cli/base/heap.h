/* The command-line tool's heap (heap.c). */
#ifndef FEATC_CLI_HEAP_H
#define FEATC_CLI_HEAP_H

/* Asks, at the start, for the heap's first 64 MiB in huge pages (Linux,
 * glibc; elsewhere, and under a limit on the address space or the data
 * segment, nothing): glibc's tunable glibc.malloc.hugetlb=1 from inside.
 * The tools' buffers are megabytes touched once (a Parquet reader's
 * columns, a codec's tables, a batch's records), and on a virtual machine
 * each first touch of a 4 KiB page can cost 10 us: reading DuckDB's wide
 * file to TFRecords took 2,128 page faults, 605 with this, and ran 1.46x
 * as fast (docs/performance.md).  Blocks under 32 MiB then come from the
 * heap, which is given back to the system only when 128 MiB of it are free
 * at its top. */
void cli_heap_huge(void);

#endif
