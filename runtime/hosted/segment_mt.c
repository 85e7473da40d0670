/* The segment batcher behind a mutex and a condition variable: see
 * featc/fc_segment_mt.h.  Every call holds the lock for the whole batcher
 * call; every change broadcasts, and waiters re-try their call. */
#include "featc/fc_segment_mt.h"

int fc_seg_mt_init(fc_seg_mt *mt, fc_segmenter *seg)
{
    mt->seg = seg;
    if (pthread_mutex_init(&mt->lock, NULL) != 0)
        return FC_ERR_ARG;
    if (pthread_cond_init(&mt->changed, NULL) != 0) {
        pthread_mutex_destroy(&mt->lock);
        return FC_ERR_ARG;
    }
    return FC_OK;
}

void fc_seg_mt_destroy(fc_seg_mt *mt)
{
    pthread_cond_destroy(&mt->changed);
    pthread_mutex_destroy(&mt->lock);
}

/* Runs one insert (from_record: fc_seg_insert_record with record/len,
 * else fc_seg_insert with example) until it does not say FC_AGAIN. */
static int insert(fc_seg_mt *mt, int from_record, const void *key, size_t key_len,
                  const void *example, const void *record, size_t len, size_t length,
                  const void *initial, fc_error *err)
{
    int rc;
    pthread_mutex_lock(&mt->lock);
    for (;;) {
        rc = from_record
                 ? fc_seg_insert_record(mt->seg, key, key_len, record, len, length, initial, err)
                 : fc_seg_insert(mt->seg, key, key_len, example, length, initial, err);
        if (rc != FC_AGAIN)
            break;
        pthread_cond_wait(&mt->changed, &mt->lock);
    }
    if (rc == FC_OK)
        pthread_cond_broadcast(&mt->changed);
    pthread_mutex_unlock(&mt->lock);
    return rc;
}

int fc_seg_mt_insert(fc_seg_mt *mt, const void *key, size_t key_len, const void *example,
                     size_t length, const void *initial, fc_error *err)
{
    return insert(mt, 0, key, key_len, example, NULL, 0, length, initial, err);
}

int fc_seg_mt_insert_record(fc_seg_mt *mt, const void *key, size_t key_len, const void *record,
                            size_t len, size_t length, const void *initial, fc_error *err)
{
    return insert(mt, 1, key, key_len, NULL, record, len, length, initial, err);
}

void fc_seg_mt_close(fc_seg_mt *mt)
{
    pthread_mutex_lock(&mt->lock);
    fc_seg_close(mt->seg);
    pthread_cond_broadcast(&mt->changed);
    pthread_mutex_unlock(&mt->lock);
}

int fc_seg_mt_next(fc_seg_mt *mt, fc_error *err)
{
    int rc;
    pthread_mutex_lock(&mt->lock);
    while ((rc = fc_seg_next(mt->seg, err)) == FC_AGAIN)
        pthread_cond_wait(&mt->changed, &mt->lock);
    pthread_mutex_unlock(&mt->lock);
    return rc;
}

int fc_seg_mt_save_state(fc_seg_mt *mt, size_t state, const void *values, fc_error *err)
{
    int rc;
    pthread_mutex_lock(&mt->lock);
    rc = fc_seg_save_state(mt->seg, state, values, err);
    if (rc == FC_OK)
        pthread_cond_broadcast(&mt->changed);
    pthread_mutex_unlock(&mt->lock);
    return rc;
}
