/* The protobuf-c oracle for generated SequenceExample parsers (see
 * seq_oracle.c). */
#ifndef FEATC_TEST_SEQ_ORACLE_H
#define FEATC_TEST_SEQ_ORACLE_H

#include <stdio.h>

#include <featc/fc_sequence.h>

/* FC_OK with *out filled as a generated parser fills it, or FC_ERR_PARSE. */
int seq_oracle_parse(const fc_seq_desc *sd, void *out, const void *data, size_t len);

/* The context and feature-list JSON of a parsed message into buf. */
void seq_oracle_json(const fc_seq_desc *sd, const void *msg, char *buf, size_t cap);

#endif
