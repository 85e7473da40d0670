/* featc runtime: the one header generated code and users include.
 *
 *   fc_base.h     version, status codes, fc_error, message builder
 *   fc_crc32c.h   CRC-32C and the TFRecord mask
 *   fc_record.h   TFRecord reader and writer (memory, fd, mmap; ZLIB/GZIP)
 *   fc_example.h  the tf.train.Example wire format for generated parsers
 *   fc_sequence.h the tf.train.SequenceExample wire format
 *   fc_hash.h     TensorFlow's string fingerprint and hash buckets
 *   fc_batch.h    batches of records as tensors (parse_example layouts)
 *   fc_serialize.h generated structs back to Example and SequenceExample bytes
 *   fc_segment.h  the segment batcher with saved states (SequenceQueueingStateSaver)
 *   fc_index.h    index files (offset and size per record) for random access and splits
 *
 * The protobuf-c fallback decoder (fc_fallback.h) is separate: it needs
 * libprotobuf-c, which generated parsers never do.
 */
#ifndef FEATC_FC_H
#define FEATC_FC_H

#include "fc_base.h"
#include "fc_crc32c.h"
#include "fc_record.h"
#include "fc_example.h"
#include "fc_sequence.h"
#include "fc_hash.h"
#include "fc_batch.h"
#include "fc_serialize.h"
#include "fc_segment.h"
#include "fc_index.h"

#endif /* FEATC_FC_H */
