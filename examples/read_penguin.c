/* Read a TFRecord file through a generated parser: the runtime's reader
 * frames each record (length, masked CRC-32C, GZIP or ZLIB found by itself)
 * and penguin_penguin_parse, generated from specs/penguin.feat, turns its
 * bytes into a struct.  Nothing is allocated: the buffers are static.
 * It prints how many penguins of each species the file holds and their
 * mean body mass (TFX's penguin data is scaled to [0, 1]).
 *
 * usage: read_penguin FILE.tfrecord[.gz]
 */
#include <featc/fc.h>

#include "penguin.h" /* generated: featc compile specs/penguin.feat */

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static unsigned char buffer[1 << 20];           /* the largest record it reads */
static unsigned char work[FC_READER_WORK_SIZE]; /* inflate's state and input */

int main(int argc, char **argv)
{
    fc_reader_options o = {0};
    fc_reader r;
    fc_record rec;
    fc_error err;
    penguin_penguin p;
    double mass[3] = {0, 0, 0};
    long n[3] = {0, 0, 0};
    int fd, s, i;

    if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0) {
        fprintf(stderr, "usage: read_penguin FILE (a readable TFRecord file)\n");
        return 2;
    }
    o.compression = FC_COMPRESSION_AUTO;
    o.buffer = buffer;
    o.buffer_size = sizeof buffer;
    o.work = work;
    o.work_size = sizeof work;
    if (fc_reader_init_fd(&r, fd, &o, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err.message);
        return 1;
    }
    while ((s = fc_reader_next(&r, &rec)) == FC_OK) {
        if (penguin_penguin_parse(&p, rec.data, rec.length, &err) != FC_OK) {
            fprintf(stderr, "%s: record %llu: %s\n", argv[1],
                    (unsigned long long)rec.index, err.message);
            return 1;
        }
        if (p.species >= 0 && p.species < 3) {
            mass[p.species] += p.body_mass_g;
            n[p.species]++;
        }
    }
    close(fd);
    if (s != FC_END) {
        fprintf(stderr, "%s: %s\n", argv[1], fc_reader_error(&r)->message);
        return 1;
    }
    for (i = 0; i < 3; i++)
        printf("species %d: %ld penguins, mean body mass %.3f\n", i, n[i],
               n[i] ? mass[i] / (double)n[i] : 0.0);
    return 0;
}
