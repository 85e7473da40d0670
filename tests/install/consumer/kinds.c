/* A consumer of featc::fallback: classifies every record of TFRecord files
 * with the generic decoder (no spec) and prints how many are Examples and
 * SequenceExamples.  Built by the CMake project beside it. */
#include <stdio.h>

#include <featc/fc_fallback.h>
#include <featc/fc_input.h>

static unsigned char memory[1 << 20];

int main(int argc, char **argv)
{
    unsigned long examples = 0, sequences = 0, other = 0;
    int k, rc = 0;
    for (k = 1; k < argc; k++) {
        fc_input_options opt = {FC_COMPRESSION_AUTO, FC_CRC_VERIFY, 0};
        fc_input in;
        fc_record rec;
        fc_status s = fc_input_open(&in, argv[k], &opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            fc_arena arena;
            fc_fallback fb;
            fc_error err;
            fc_arena_init(&arena, memory, sizeof memory);
            if (fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &arena, &fb, &err) != FC_OK)
                other++;
            else if (fb.kind == FC_PAYLOAD_EXAMPLE)
                examples++;
            else
                sequences++;
        }
        if (s != FC_END) {
            fprintf(stderr, "%s\n", in.err.message);
            rc = 2;
        }
        fc_input_close(&in);
    }
    printf("%lu Examples, %lu SequenceExamples, %lu others\n", examples, sequences, other);
    return rc;
}
