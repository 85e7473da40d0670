/* The message a per-spec bench program is built for (-include SPEC.h
 * -DDESC=<message>_desc, and -DSEQ for a SequenceExample): its descriptor
 * type and the batch calls that take it. */
#ifndef FEATC_BENCH_DESC_H
#define FEATC_BENCH_DESC_H

#include <featc/fc_batch.h>

#ifndef DESC
#error "build with -DDESC=<generated message>_desc"
#endif

#ifdef SEQ
#define BIND fc_batch_bind_seq
#define PARSE fc_batch_parse_seq
#define NCOLS(d) ((d)->ncontext + (d)->nlists)
typedef fc_seq_desc desc_t;
#else
#define BIND fc_batch_bind
#define PARSE fc_batch_parse
#define NCOLS(d) ((d)->nfields)
typedef fc_message_desc desc_t;
#endif

#endif /* FEATC_BENCH_DESC_H */
