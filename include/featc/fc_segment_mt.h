/* featc runtime: the segment batcher driven from a producer thread and a
 * consumer thread (POSIX threads).
 *
 * The batcher itself (fc_segment.h) is single-threaded.  This wrapper puts
 * one mutex around every call and turns FC_AGAIN into waiting: insert waits
 * while `capacity` examples are in flight, next waits while too few are in
 * flight and the batcher is open.  close wakes both sides: a waiting insert
 * returns FC_ERR_CLOSED, a waiting next hands out what is left.
 *
 * Roles: any number of producer threads may insert; ONE consumer thread
 * calls next and save_state and reads the batch between the two (the batch
 * arrays and the examples it points to are not touched by inserts: an
 * example's storage is reused only after its last segment's states were
 * saved).  No deadlock: an insert waits only while capacity >= batch_size
 * examples are in flight, and then next can always hand out a batch.
 */
#ifndef FEATC_FC_SEGMENT_MT_H
#define FEATC_FC_SEGMENT_MT_H

#include <pthread.h>

#include "fc_segment.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_seg_mt {
    fc_segmenter *seg;
    pthread_mutex_t lock;
    pthread_cond_t changed;    /* broadcast after every change of state */
} fc_seg_mt;

/* seg must be initialised; returns FC_OK or FC_ERR_ARG (pthread failure). */
int fc_seg_mt_init(fc_seg_mt *mt, fc_segmenter *seg);
void fc_seg_mt_destroy(fc_seg_mt *mt);

/* Producer side: fc_seg_insert / fc_seg_insert_record that wait for room
 * instead of returning FC_AGAIN. */
int fc_seg_mt_insert(fc_seg_mt *mt, const void *key, size_t key_len, const void *example,
                     size_t length, const void *initial, fc_error *err);
int fc_seg_mt_insert_record(fc_seg_mt *mt, const void *key, size_t key_len, const void *record,
                            size_t len, size_t length, const void *initial, fc_error *err);
void fc_seg_mt_close(fc_seg_mt *mt);

/* Consumer side: fc_seg_next that waits for a batch instead of returning
 * FC_AGAIN, and fc_seg_save_state.  A generated segmenter's typed view of
 * the batch is refreshed by NAME_seg_refresh after fc_seg_mt_next. */
int fc_seg_mt_next(fc_seg_mt *mt, fc_error *err);
int fc_seg_mt_save_state(fc_seg_mt *mt, size_t state, const void *values, fc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_SEGMENT_MT_H */
