/* Status table, the allocation-free message builder and the bump arena. */
#include "featc/fc_base.h"

#include "wire.h"

#include <string.h>

const char *fc_strerror(int status)
{
    switch (status) {
#define FC_STATUS_TEXT_(name, num, text) case num: return text;
        FC_STATUS_TABLE(FC_STATUS_TEXT_)
#undef FC_STATUS_TEXT_
    default:
        return "unknown status";
    }
}

const char *fc_status_name(int status)
{
    switch (status) {
#define FC_STATUS_NAME_(name, num, text) case num: return #name;
        FC_STATUS_TABLE(FC_STATUS_NAME_)
#undef FC_STATUS_NAME_
    default:
        return "FC_UNKNOWN";
    }
}

void fc_error_clear(fc_error *err)
{
    if (err == NULL)
        return;
    err->status = FC_OK;
    err->sys_errno = 0;
    err->record = FC_NO_INDEX;
    err->offset = FC_NO_INDEX;
    err->message[0] = '\0';
}

void fc_msg_init(fc_msg *m, char *buf, size_t cap)
{
    m->buf = buf;
    m->cap = cap;
    m->len = 0;
    m->cut = 0;
    if (cap > 0)
        buf[0] = '\0';
}

size_t fc_utf8_seq(const void *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len, k;
    uint32_t cp;
    if (n == 0)
        return 0;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        len = 2;
        cp = p[0] & 0x1fu;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3;
        cp = p[0] & 0x0fu;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4;
        cp = p[0] & 0x07u;
    } else {
        return 0; /* a continuation byte, or a lead byte UTF-8 never uses */
    }
    if (n < len)
        return 0;
    for (k = 1; k < len; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[k] & 0x3fu);
    }
    /* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

#ifndef FC_NO_ERRMSG
/* Out of room: marks the cut with "..." if there is space for it. */
static void msg_cut(fc_msg *m)
{
    size_t at = m->len;
    if (at + 3 < m->cap) {
        memcpy(m->buf + at, "...", 3);
        at += 3;
    }
    m->buf[at] = '\0';
    m->len = at;
    m->cut = 1;
}

/* Appends one character, keeping room for "..." and the NUL. */
static void msg_putc(fc_msg *m, char c)
{
    if (m->cut || m->cap == 0)
        return;
    if (m->len + 4 >= m->cap) {
        msg_cut(m);
        return;
    }
    m->buf[m->len++] = c;
    m->buf[m->len] = '\0';
}

void fc_msg_str(fc_msg *m, const char *s)
{
    while (*s != '\0')
        msg_putc(m, *s++);
}

/* Bytes, printable ASCII as it is and the rest escaped: as \xNN, or
 * (cescape) as protobuf's CEscape writes them (\n \r \t \" \' \\ and
 * three octal digits).  Without cescape, a valid UTF-8 sequence of two to
 * four bytes is kept as it is: keys are proto strings, and TensorFlow
 * prints them as they are.  One loop for both keeps the parse path small. */
static void msg_bytes(fc_msg *m, const unsigned char *p, size_t n, int cescape)
{
    static const char hex[] = "0123456789abcdef", named[] = "\n\r\t\"'\\", name[] = "nrt\"'\\";
    size_t i, u;
    for (i = 0; i < n; i++) {
        unsigned char c = p[i];
        size_t e = 0;
        while (cescape && e < sizeof named - 1 && (unsigned char)named[e] != c)
            e++;
        if (cescape && e < sizeof named - 1) {
            msg_putc(m, '\\');
            msg_putc(m, name[e]);
        } else if (c >= 0x20 && c < 0x7f && c != '\\') {
            msg_putc(m, (char)c);
        } else if (!cescape && (u = fc_utf8_seq(p + i, n - i)) > 1) {
            if (m->cut || m->cap == 0)
                return;
            if (m->len + u + 4 >= m->cap) { /* a cut never splits a character */
                msg_cut(m);
                return;
            }
            memcpy(m->buf + m->len, p + i, u);
            m->len += u;
            m->buf[m->len] = '\0';
            i += u - 1;
        } else if (cescape) {
            msg_putc(m, '\\');
            msg_putc(m, (char)('0' + (c >> 6)));
            msg_putc(m, (char)('0' + ((c >> 3) & 7)));
            msg_putc(m, (char)('0' + (c & 7)));
        } else {
            msg_putc(m, '\\');
            msg_putc(m, 'x');
            msg_putc(m, hex[c >> 4]);
            msg_putc(m, hex[c & 15]);
        }
    }
}

void fc_msg_mem(fc_msg *m, const void *s, size_t n)
{
    msg_bytes(m, (const unsigned char *)s, n, 0);
}

void fc_msg_cescape(fc_msg *m, const void *s, size_t n)
{
    msg_bytes(m, (const unsigned char *)s, n, 1);
}

/* v % 10 into *digit, v / 10 returned, by shift and subtract: 32-bit
 * targets then need no 64-bit division from libgcc (__udivmoddi4 is 0.7 KB
 * on Cortex-M4, more than the rest of this file).  Only numbers of 2^32 or
 * more come here, and only to word an error. */
static uint64_t div10(uint64_t v, unsigned *digit)
{
    uint64_t q = 0;
    unsigned r = 0, i;
    for (i = 64; i-- > 0;) {
        r = (r << 1) | (unsigned)((v >> i) & 1u);
        if (r >= 10) {
            r -= 10;
            q |= (uint64_t)1 << i;
        }
    }
    *digit = r;
    return q;
}

void fc_msg_u64(fc_msg *m, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    unsigned digit;
    while (v > UINT32_MAX) {
        v = div10(v, &digit);
        tmp[n++] = (char)('0' + digit);
    }
    {
        uint32_t w = (uint32_t)v;
        do {
            tmp[n++] = (char)('0' + (int)(w % 10));
            w /= 10;
        } while (w != 0);
    }
    while (n > 0)
        msg_putc(m, tmp[--n]);
}

void fc_msg_i64(fc_msg *m, int64_t v)
{
    if (v < 0) {
        msg_putc(m, '-');
        /* Negate in unsigned arithmetic: well defined for INT64_MIN. */
        fc_msg_u64(m, (uint64_t)0 - (uint64_t)v);
    } else {
        fc_msg_u64(m, (uint64_t)v);
    }
}

void fc_msg_hex32(fc_msg *m, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    int shift;
    msg_putc(m, '0');
    msg_putc(m, 'x');
    for (shift = 28; shift >= 0; shift -= 4)
        msg_putc(m, hex[(v >> shift) & 15u]);
}

#endif /* FC_NO_ERRMSG */

/* ------------------------------------------------------------------ arena */

void fc_arena_init(fc_arena *a, void *mem, size_t size)
{
    a->base = (unsigned char *)mem;
    a->size = mem == NULL ? 0 : size;
    a->used = 0;
    a->peak = 0;
    a->exhausted = 0;
}

void fc_arena_reset(fc_arena *a)
{
    a->used = 0;
    a->exhausted = 0;
}

void *fc_arena_alloc(fc_arena *a, size_t size)
{
    size_t start = (a->used + 15u) & ~(size_t)15u;
    if (size == 0)
        size = 1;
    if (start < a->used || start > a->size || size > a->size - start) {
        a->exhausted = 1;
        return NULL;
    }
    a->used = start + size;
    if (a->used > a->peak)
        a->peak = a->used;
    return a->base + start;
}

fc_msg fc_error_begin(fc_error *err, int status, uint64_t record, uint64_t offset)
{
    fc_msg m;
    if (err == NULL) {
        fc_msg_init(&m, NULL, 0);
        return m;
    }
    err->status = status;
    err->sys_errno = 0;
    err->record = record;
    err->offset = offset;
    fc_msg_init(&m, err->message, sizeof err->message);
    return m;
}

fc_msg fc_error_more(fc_error *err)
{
    fc_msg m;
    size_t len;
    char first;
    if (err == NULL) {
        fc_msg_init(&m, NULL, 0);
        return m;
    }
    len = strlen(err->message);
    first = err->message[0];
    fc_msg_init(&m, err->message, sizeof err->message);
    err->message[0] = first; /* fc_msg_init cleared it */
    m.len = len;
    return m;
}

/* ------------------------------------------------------------ message pieces (wire.h) */

#ifndef FC_NO_ERRMSG

void fc_msg_shape(fc_msg *m, unsigned rank, const size_t *dims, int unknown_first)
{
    unsigned i;
    fc_msg_str(m, "[");
    if (unknown_first)
        fc_msg_str(m, rank > 0 ? "?," : "?");
    for (i = 0; i < rank; i++) {
        if (i > 0)
            fc_msg_str(m, ",");
        fc_msg_u64(m, dims[i]);
    }
    fc_msg_str(m, "]");
}

void fc_msg_at(fc_msg *m, uint64_t offset)
{
    fc_msg_str(m, " at byte ");
    fc_msg_u64(m, offset);
}

void fc_msg_paren_at(fc_msg *m, uint64_t offset)
{
    fc_msg_str(m, " (at byte ");
    fc_msg_u64(m, offset);
    fc_msg_str(m, ")");
}
#endif /* FC_NO_ERRMSG */

/* Below example.c and built.c, which both begin their feature messages with it. */
void fc_msg_key(fc_msg *m, const fc_field_desc *f)
{
    fc_msg_str(m, "Key: ");
    fc_msg_mem(m, f->key, f->key_len);
    fc_msg_str(m, ".  ");
}

