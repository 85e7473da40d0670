/* The reader's decompression (inflate.c), as reader.c calls it: the room
 * for codecs.  Not installed. */
#ifndef FEATC_INFLATE_H
#define FEATC_INFLATE_H

#include "frame.h"

#ifndef FC_NO_ZLIB
/* Starts inflating r's stream (r->compression, known): ISA-L where the
 * program linked it and r's arena holds its state, else zlib. */
fc_status fc_inflate_start(fc_reader *r, fc_error *err);
/* Inflates into buf[end, cap) until some output was produced or the stream
 * ended; the errors of either inflater in zlib's words. */
fc_status fc_inflate_more(fc_reader *r);
/* The error for bytes after the end of a ZLIB stream. */
fc_status fc_inflate_trailing(fc_reader *r);
/* A record found damaged in a stream ISA-L inflates: 1 with *st when zlib,
 * rereading the member, met an inflate error first (the one to report);
 * 0 when the record's own error stands. */
int fc_inflate_reread(fc_reader *r, fc_status *st);
#endif

#endif /* FEATC_INFLATE_H */
