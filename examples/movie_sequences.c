/* Sequences end to end: write a TFRecord file of tf.train.SequenceExample
 * records for the movie example of TensorFlow's SequenceExample
 * documentation, read it back through the parser featc generated from
 * specs/movie.feat, and check every value.  Then three records the format's
 * conformance rules reject, and what the parser says about each.
 *
 * The spec (specs/movie.feat): context locale, age, favorites; feature
 * lists movie_ratings (a float per frame), movie_names (bytes per frame),
 * actors (up to 32 per frame), `aligned`: frame i of every list is movie i.
 * The records are movie_movie structs written by the generated
 * movie_movie_write.  The generated serializer writes only what the spec
 * accepts, so the non-conformant records at the end are encoded by hand
 * with the small encoder below.
 *
 * usage: movie_sequences OUTDIR
 */
#include <featc/fc.h>

#include "movie.h" /* generated: featc compile specs/movie.feat */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a small protobuf encoder, for the non-conformant records only */

typedef struct buf {
    unsigned char b[4096];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t n)
{
    if (o->n + n <= sizeof o->b) {
        memcpy(o->b + o->n, p, n);
        o->n += n;
    }
}

static void put_varint(buf *o, uint64_t v)
{
    unsigned char c;
    while (v >= 0x80) {
        c = (unsigned char)((v & 0x7f) | 0x80);
        put(o, &c, 1);
        v >>= 7;
    }
    c = (unsigned char)v;
    put(o, &c, 1);
}

static void put_field(buf *o, unsigned tag, const void *p, size_t n)
{
    unsigned char t = (unsigned char)tag;
    put(o, &t, 1);
    put_varint(o, n);
    put(o, p, n);
}

/* Feature bodies */
static void feature_bytes(buf *f, const char *const *v, size_t n)
{
    buf list = {{0}, 0};
    size_t i;
    f->n = 0;
    for (i = 0; i < n; i++)
        put_field(&list, 0x0a, v[i], strlen(v[i]));
    put_field(f, 0x0a, list.b, list.n);
}

static void feature_float(buf *f, float v)
{
    buf list = {{0}, 0};
    unsigned char le[4];
    uint32_t u;
    memcpy(&u, &v, 4);
    le[0] = (unsigned char)u;
    le[1] = (unsigned char)(u >> 8);
    le[2] = (unsigned char)(u >> 16);
    le[3] = (unsigned char)(u >> 24);
    f->n = 0;
    put_field(&list, 0x0a, le, 4);
    put_field(f, 0x12, list.b, list.n);
}

static void feature_int64(buf *f, int64_t v)
{
    buf list = {{0}, 0}, packed = {{0}, 0};
    f->n = 0;
    put_varint(&packed, (uint64_t)v);
    put_field(&list, 0x0a, packed.b, packed.n);
    put_field(f, 0x1a, list.b, list.n);
}

/* map entry {key, value} appended to a Features or FeatureLists body */
static void entry(buf *map, const char *key, const buf *value)
{
    buf e = {{0}, 0};
    put_field(&e, 0x0a, key, strlen(key));
    put_field(&e, 0x12, value->b, value->n);
    put_field(map, 0x0a, e.b, e.n);
}

/* ---- the data: three users and the movies they watched */

typedef struct movie {
    const char *name;
    float rating;
    const char *actors[3];
    size_t nactors;
} movie;

typedef struct user {
    const char *locale;
    int64_t age;
    const char *favorites[3];
    size_t nfavorites;
    movie movies[3];
    size_t nmovies;
} user;

static const user users[] = {
    {"pt_BR", 19, {"Majesty Rose", "Savannah Outen", "One Direction"}, 3,
     {{"The Shawshank Redemption", 4.5f, {"Tim Robbins", "Morgan Freeman"}, 2},
      {"Fight Club", 5.0f, {"Brad Pitt", "Edward Norton", "Helena Bonham Carter"}, 3}},
     2},
    {"en_US", 33, {"Cold Play"}, 1, {{"Amélie", 4.0f, {"Audrey Tautou"}, 1}}, 1},
    {"fr_FR", 41, {"Zaz", "Stromae"}, 2, {{"Jour de fête", 3.5f, {"Jacques Tati"}, 1},
                                          {"Playtime", 4.0f, {"Jacques Tati"}, 1},
                                          {"Koyaanisqatsi", 4.5f, {"(none)"}, 0}}, 3},
};
#define NUSERS (sizeof users / sizeof users[0])

static fc_bytes text(const char *s)
{
    fc_bytes b;
    b.data = (const uint8_t *)s;
    b.size = strlen(s);
    return b;
}

/* users[i] as the struct featc generated from specs/movie.feat */
static void fill_user(const user *u, movie_movie *m)
{
    size_t i, k;
    movie_movie_init(m);
    m->locale = text(u->locale);
    m->age = u->age;
    m->favorites_count = u->nfavorites;
    for (i = 0; i < u->nfavorites; i++)
        m->favorites[i] = text(u->favorites[i]);
    m->movie_ratings_frames = m->movie_names_frames = m->actors_frames = u->nmovies;
    for (i = 0; i < u->nmovies; i++) {
        const movie *mv = &u->movies[i];
        m->movie_ratings[i] = mv->rating;
        m->movie_names[i] = text(mv->name);
        m->actors_count[i] = mv->nactors; /* 0 actors: an empty frame */
        for (k = 0; k < mv->nactors; k++)
            m->actors[i][k] = text(mv->actors[k]);
    }
}

static int same(fc_bytes b, const char *s)
{
    return b.size == strlen(s) && memcmp(b.data, s, b.size) == 0;
}

/* Checks a parsed record against users[i]; prints it. */
static int check_user(const movie_movie *m, size_t i)
{
    const user *u = &users[i];
    size_t t, k;
    int bad = !same(m->locale, u->locale) || m->age != u->age ||
              m->favorites_count != u->nfavorites || m->movie_ratings_frames != u->nmovies ||
              m->movie_names_frames != u->nmovies || m->actors_frames != u->nmovies;
    printf("  %.*s, age %lld, %zu favorites, %zu movies:\n", (int)m->locale.size,
           (const char *)m->locale.data, (long long)m->age, m->favorites_count,
           m->movie_ratings_frames);
    for (t = 0; !bad && t < u->nmovies; t++) {
        const movie *mv = &u->movies[t];
        printf("    frame %zu: %-26.*s %.1f  %zu actors\n", t, (int)m->movie_names[t].size,
               (const char *)m->movie_names[t].data, (double)m->movie_ratings[t],
               m->actors_count[t]);
        bad |= !same(m->movie_names[t], mv->name) || m->movie_ratings[t] != mv->rating ||
               m->actors_count[t] != mv->nactors;
        for (k = 0; !bad && k < mv->nactors; k++)
            bad |= !same(m->actors[t][k], mv->actors[k]);
    }
    for (k = 0; !bad && k < u->nfavorites; k++)
        bad |= !same(m->favorites[k], u->favorites[k]);
    if (bad)
        fprintf(stderr, "record %zu: values differ from those written\n", i);
    return bad;
}

int main(int argc, char **argv)
{
    static unsigned char work[FC_WRITER_WORK_SIZE], rec[4096];
    static movie_movie m;
    char path[512];
    fc_writer_options wo;
    fc_writer w;
    fc_mapped_file map;
    fc_reader r;
    fc_record record;
    fc_error err;
    size_t i, n;
    int fd, s, failed = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: movie_sequences OUTDIR\n");
        return 64;
    }
    snprintf(path, sizeof path, "%s/movies.tfrecord", argv[1]);

    /* write */
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    memset(&wo, 0, sizeof wo);
    wo.work = work;
    wo.work_size = sizeof work;
    if (fd < 0 || fc_writer_init_fd(&w, fd, &wo, &err) != FC_OK) {
        perror(path);
        return 1;
    }
    for (i = 0; i < NUSERS; i++) {
        fill_user(&users[i], &m);
        if (movie_movie_write(&w, &m, FC_OMIT_DEFAULTS, rec, sizeof rec, &err) != FC_OK) {
            fprintf(stderr, "%s: record %zu: %s\n", path, i, err.message);
            break;
        }
    }
    if (fc_writer_close(&w) != FC_OK || close(fd) != 0) {
        fprintf(stderr, "%s: %s\n", path, fc_writer_error(&w)->message);
        return 1;
    }
    printf("wrote %zu SequenceExamples to %s\n", NUSERS, path);

    /* read back, zero copy, through the generated parser */
    if (fc_map_file(path, &map, &err) != FC_OK ||
        fc_reader_init_mem(&r, map.data, map.size, NULL, &err) != FC_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    i = 0;
    while ((s = fc_reader_next(&r, &record)) == FC_OK) {
        if (movie_movie_parse(&m, record.data, record.length, &err) != FC_OK) {
            fprintf(stderr, "record %zu: %s\n", i, err.message);
            failed++;
        } else if (i < NUSERS) {
            failed += check_user(&m, i);
        }
        i++;
    }
    fc_unmap_file(&map);
    if (s != FC_END || i != NUSERS) {
        fprintf(stderr, "%s: read %zu records\n", path, i);
        return 1;
    }
    printf("read %zu SequenceExamples back through movie_movie_parse: %d differ\n", i, failed);

    /* the serializer refuses what the spec forbids: lists of different
     * lengths, which the spec declares aligned */
    fill_user(&users[0], &m);
    m.movie_names_frames = 1;
    s = movie_movie_serialize(&m, FC_OMIT_DEFAULTS, rec, sizeof rec, &n, &err);
    printf("serializing lists that are not aligned: %s\n",
           s == FC_OK ? "accepted (wrong!)" : err.message);
    failed += s == FC_OK;

    /* three records the conformance rules reject */
    {
        static buf ctx, lists, ex, f, frames;
        static const char *const pt = "pt_BR";
        printf("non-conformant records:\n");
        /* 1. a frame of another type inside movie_ratings */
        ctx.n = lists.n = ex.n = frames.n = 0;
        feature_bytes(&f, &pt, 1);
        entry(&ctx, "locale", &f);
        feature_float(&f, 4.5f);
        put_field(&frames, 0x0a, f.b, f.n);
        feature_int64(&f, 5);
        put_field(&frames, 0x0a, f.b, f.n);
        entry(&lists, "movie_ratings", &frames);
        put_field(&ex, 0x0a, ctx.b, ctx.n);
        put_field(&ex, 0x12, lists.b, lists.n);
        s = movie_movie_parse(&m, ex.b, ex.n, &err);
        printf("  mixed types in a list:  %s\n", s == FC_OK ? "accepted (wrong!)" : err.message);
        failed += s == FC_OK;
        /* 2. movie_names missing (a fixed-shape list without allow_missing) */
        lists.n = ex.n = frames.n = 0;
        feature_float(&f, 4.5f);
        put_field(&frames, 0x0a, f.b, f.n);
        entry(&lists, "movie_ratings", &frames);
        put_field(&ex, 0x0a, ctx.b, ctx.n);
        put_field(&ex, 0x12, lists.b, lists.n);
        s = movie_movie_parse(&m, ex.b, ex.n, &err);
        printf("  a required list missing: %s\n", s == FC_OK ? "accepted (wrong!)" : err.message);
        failed += s == FC_OK;
        /* 3. lists of different lengths, which the spec declares aligned */
        frames.n = 0;
        feature_bytes(&f, &pt, 1);
        put_field(&frames, 0x0a, f.b, f.n);
        put_field(&frames, 0x0a, f.b, f.n);
        entry(&lists, "movie_names", &frames);
        ex.n = 0;
        put_field(&ex, 0x0a, ctx.b, ctx.n);
        put_field(&ex, 0x12, lists.b, lists.n);
        s = movie_movie_parse(&m, ex.b, ex.n, &err);
        printf("  lists not aligned:       %s\n", s == FC_OK ? "accepted (wrong!)" : err.message);
        failed += s == FC_OK;
    }
    return failed == 0 ? 0 : 1;
}
