/* featc runtime: version, status codes and the error record.
 *
 * Every fallible runtime function returns an fc_status and, where it takes one,
 * fills an fc_error with the details a user needs to find the problem: what
 * went wrong (TensorFlow's own wording where TensorFlow has one), the record
 * index and the byte offset.  The first error wins: a reader or writer that
 * has failed keeps returning the same error.
 *
 * Nothing here allocates or touches stdio.
 */
#ifndef FEATC_FC_BASE_H
#define FEATC_FC_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FC_VERSION_MAJOR 0
#define FC_VERSION_MINOR 1
#define FC_VERSION_PATCH 0
#define FC_VERSION_STRING "0.1.0"
/* Generated code checks this number against the one it was generated for. */
#define FC_VERSION_NUMBER (FC_VERSION_MAJOR * 10000 + FC_VERSION_MINOR * 100 + FC_VERSION_PATCH)

/* The status table.  Append only: a code's number never changes once released.
 * X(name, number, short description) */
#define FC_STATUS_TABLE(X)                                                      \
    X(FC_OK,              0,  "success")                                        \
    X(FC_END,             1,  "end of input")                                   \
    X(FC_ERR_ARG,         2,  "invalid argument")                               \
    X(FC_ERR_IO,          3,  "I/O error")                                      \
    X(FC_ERR_CORRUPT,     4,  "corrupted record")                               \
    X(FC_ERR_TRUNCATED,   5,  "truncated record")                               \
    X(FC_ERR_TOO_LARGE,   6,  "record size too large")                          \
    X(FC_ERR_BUFFER,      7,  "record does not fit the reader buffer")          \
    X(FC_ERR_INFLATE,     8,  "decompression failed")                           \
    X(FC_ERR_DEFLATE,     9,  "compression failed")                             \
    X(FC_ERR_NO_SPACE,    10, "output buffer full")                             \
    X(FC_ERR_NO_MEMORY,   11, "work area too small")                            \
    X(FC_ERR_CLOSED,      12, "closed")                                         \
    X(FC_ERR_UNSUPPORTED, 13, "not supported by this build")                    \
    X(FC_ERR_PARSE,       14, "malformed record payload")                       \
    X(FC_AGAIN,           15, "would block: retry after the other side moved")  \
    X(FC_ERR_STATE,       16, "call out of order")                              \
    X(FC_ERR_INCOMPLETE,  17, "closed with too few segments for a batch")        \
    X(FC_ERR_INDEX,       18, "index file malformed or not of this file")

typedef enum fc_status {
#define FC_STATUS_ENUM_(name, num, text) name = num,
    FC_STATUS_TABLE(FC_STATUS_ENUM_)
#undef FC_STATUS_ENUM_
    FC_STATUS_COUNT_,
    /* Makes the enum's underlying type signed, so that `int rc = fc_...()`
     * stays clean under clang's -Wsign-conversion.  Never returned. */
    FC_STATUS_SIGNED_ = -1
} fc_status;

/* Short description of a status code; never NULL. */
const char *fc_strerror(int status);
/* The code's identifier, e.g. "FC_ERR_CORRUPT"; never NULL. */
const char *fc_status_name(int status);

/* Build everything (the runtime and the generated code) with -DFC_NO_ERRMSG
 * and errors carry their status, record and offset but no text: the
 * messages and the code that words them are left out (the smallest builds
 * for microcontrollers; see the README's footprint table).  fc_error's
 * message is then one byte, always "".  A part built without it will not
 * link with a runtime built with it, and the other way round. */
#ifdef FC_NO_ERRMSG
#define FC_ERROR_MSG_SIZE 1
#define fc_error_begin fc_error_begin_nomsg
#else
#define FC_ERROR_MSG_SIZE 512
#endif
#define FC_NO_INDEX UINT64_MAX

typedef struct fc_error {
    int status;          /* fc_status; FC_OK when there is no error */
    int sys_errno;       /* errno of a failed system call, else 0 */
    uint64_t record;     /* record index, FC_NO_INDEX when not applicable */
    uint64_t offset;     /* byte offset the message refers to, FC_NO_INDEX if none */
    char message[FC_ERROR_MSG_SIZE]; /* full text, NUL-terminated */
} fc_error;

void fc_error_clear(fc_error *err);

/* Small allocation-free message builder, used by the runtime and by
 * generated code to compose messages into a fixed buffer.  Text that does not
 * fit is cut and ends in "...". */
typedef struct fc_msg {
    char *buf;
    size_t cap;
    size_t len;
    int cut;
} fc_msg;

void fc_msg_init(fc_msg *m, char *buf, size_t cap);
/* The length (1 to 4) of the well-formed UTF-8 sequence that starts s (n
 * bytes), 0 if it does not start one (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
size_t fc_utf8_seq(const void *s, size_t n);
#ifndef FC_NO_ERRMSG
void fc_msg_str(fc_msg *m, const char *s);
/* bytes: printable ASCII and well-formed UTF-8 as they are (keys are proto
 * strings), other bytes and the backslash as \xNN */
void fc_msg_mem(fc_msg *m, const void *s, size_t n);
/* bytes as protobuf's CEscape (which TensorFlow prints records with): \n \r
 * \t \" \' \\, other non-printables as three octal digits */
void fc_msg_cescape(fc_msg *m, const void *s, size_t n);
void fc_msg_u64(fc_msg *m, uint64_t v);
void fc_msg_i64(fc_msg *m, int64_t v);
void fc_msg_hex32(fc_msg *m, uint32_t v); /* 0x%08x */
#else
/* No texts: the pieces compile to nothing, and their strings with them. */
static inline void fc_msg_str(fc_msg *m, const char *s) { (void)m; (void)s; }
static inline void fc_msg_mem(fc_msg *m, const void *s, size_t n) { (void)m; (void)s; (void)n; }
static inline void fc_msg_cescape(fc_msg *m, const void *s, size_t n) { (void)m; (void)s; (void)n; }
static inline void fc_msg_u64(fc_msg *m, uint64_t v) { (void)m; (void)v; }
static inline void fc_msg_i64(fc_msg *m, int64_t v) { (void)m; (void)v; }
static inline void fc_msg_hex32(fc_msg *m, uint32_t v) { (void)m; (void)v; }
#endif

/* A bump allocator over caller memory, for the libraries that want an
 * allocator (zlib's zalloc, protobuf-c's allocator): blocks are released all
 * at once by fc_arena_reset or by dropping the memory. */
typedef struct fc_arena {
    unsigned char *base;
    size_t size;
    size_t used;
    size_t peak;
    int exhausted; /* an allocation did not fit */
} fc_arena;

void fc_arena_init(fc_arena *a, void *mem, size_t size);
void fc_arena_reset(fc_arena *a);
/* 16-byte aligned block from the arena, or NULL (and exhausted set). */
void *fc_arena_alloc(fc_arena *a, size_t size);

/* Starts err with status, record and offset and returns a builder over its
 * message.  err may be NULL: the builder then discards everything. */
fc_msg fc_error_begin(fc_error *err, int status, uint64_t record, uint64_t offset);
/* A builder that goes on from the end of err's message (err may be NULL). */
fc_msg fc_error_more(fc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_BASE_H */
