/* nanopb_check: `make footprint` measures nanopb's tutorial decoder
 * (nanopb_tutorial.c) beside featc's; this host program shows the two do
 * the same job.  Over the embedded test's tutorial records (records.py:
 * every third record, index % 3 == 2, may be damaged), it parses each
 * record with both and compares the verdicts and the four values (floats
 * bit for bit, bytes by content).  Prints the counts; exit 1 when an
 * undamaged record differs or nothing was compared. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <featc/fc_record.h>

#include "nanopb_tutorial.h"
#include "tutorial.h"

extern const unsigned char emb_tutorial_file[];
extern const size_t emb_tutorial_file_len;

int main(void)
{
    fc_reader r;
    fc_record rec;
    fc_error err;
    unsigned long same = 0, featc_only = 0, nanopb_only = 0, values = 0, undamaged_diff = 0;
    if (fc_reader_init_mem(&r, emb_tutorial_file, emb_tutorial_file_len, NULL, &err) != FC_OK)
        return 1;
    while (fc_reader_next(&r, &rec) == FC_OK) {
        tutorial_record t;
        nt_record n;
        const char *why = "";
        int a = tutorial_record_parse(&t, rec.data, rec.length, &err) == FC_OK;
        int b = nt_parse(&n, rec.data, rec.length, &why) == 0;
        int differ = a != b;
        if (a && b) {
            uint32_t x, y;
            memcpy(&x, &t.feature3, 4);
            memcpy(&y, &n.feature3, 4);
            differ = t.feature0 != n.feature0 || t.feature1 != n.feature1 || x != y ||
                     t.feature2.size != n.feature2.size ||
                     (t.feature2.size && memcmp(t.feature2.data, n.feature2.data, t.feature2.size));
            values += differ;
        }
        if (!differ)
            same++;
        else if (a && !b)
            featc_only++;
        else if (b && !a)
            nanopb_only++;
        if (differ && rec.index % 3 != 2) {
            undamaged_diff++;
            printf("nanopb-check: undamaged record %lu differs (featc %s, nanopb %s: %s)\n",
                   (unsigned long)rec.index, a ? "accepts" : err.message, b ? "accepts" : "refuses", why);
        }
    }
    printf("nanopb-check: %lu tutorial records: %lu the same (verdict and values), %lu accepted by featc "
           "only, %lu by nanopb only, %lu with other values; %lu undamaged records differ\n",
           (unsigned long)fc_reader_count(&r), same, featc_only, nanopb_only, values, undamaged_diff);
    return undamaged_diff != 0 || same == 0;
}
