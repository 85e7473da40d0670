/* The JSON dump driver behind `featc compile --driver`: a generated
 * driver's main() calls it (fc_json.h prints what it reads).  This part of
 * the runtime uses stdio and allocates the one message struct it parses
 * into; the parse itself does not allocate.
 */
#ifndef FEATC_FC_DRIVER_H
#define FEATC_FC_DRIVER_H

#include "fc_example.h"
#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

/* main() of a generated driver: `prog [--compression=auto|none|zlib|gzip]
 * [--crc=verify|skip|none] FILE...` ("-" is standard input).  Prints
 * {"record":N,"features":{...}} or {"record":N,"error":"..."} per record.
 * Returns 0, 1 if a record failed to parse, 2 if a file could not be read
 * or framed, 64 for a usage error. */
int fc_driver_main(int argc, char **argv, const fc_message_desc *md);
/* The same for a sequence_example: {"record":N,"context":{...},
 * "feature_lists":{NAME:[frame,...],...}}. */
int fc_driver_seq_main(int argc, char **argv, const fc_seq_desc *sd);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_DRIVER_H */
