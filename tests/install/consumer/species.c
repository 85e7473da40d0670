/* A consumer of an installed featc: counts the penguins of each species in
 * TFRecord files through the parser generated from specs/penguin.feat, and
 * prints the mean body mass per species.  Built by the CMake and Meson
 * projects beside it (tests/install/run.sh). */
#include <stdio.h>

#include <featc/fc_input.h>

#include "penguin.h"

int main(int argc, char **argv)
{
    double mass[3] = {0, 0, 0};
    long count[3] = {0, 0, 0};
    int i, k, rc = 0;
    for (k = 1; k < argc; k++) {
        fc_input_options opt = {FC_COMPRESSION_AUTO, FC_CRC_VERIFY, 0};
        fc_input in;
        fc_record rec;
        fc_status s = fc_input_open(&in, argv[k], &opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            penguin_penguin p;
            fc_error err;
            if (penguin_penguin_parse(&p, rec.data, rec.length, &err) != FC_OK) {
                fprintf(stderr, "%s: record %llu: %s\n", argv[k],
                        (unsigned long long)rec.index, err.message);
                rc = 1;
                continue;
            }
            if (p.species >= 0 && p.species < 3) {
                mass[p.species] += p.body_mass_g;
                count[p.species]++;
            }
        }
        if (s != FC_END) {
            fprintf(stderr, "%s\n", in.err.message);
            rc = 2;
        }
        fc_input_close(&in);
    }
    for (i = 0; i < 3; i++)
        printf("species %d: %ld penguins, mean body mass %.4f\n", i, count[i],
               count[i] > 0 ? mass[i] / (double)count[i] : 0.0);
    return rc;
}
