/* Wirebind::Buffer's engine: loads and stores of fixed-size integers and
 * floats in either byte order, and bit fields, over plain memory. No Ruby
 * calls in the loads and stores: the binding (binary_buffer_class.c) checks every bound before it
 * calls these, and the record engine (binary_record.c) does the same. */
#ifndef WIREBIND_BINARY_BUFFER_H
#define WIREBIND_BINARY_BUFFER_H

#include "wirebind.h"
#include <string.h>

/* Reads width bytes (1..8) at p as an unsigned integer, big-endian if big. */
static inline uint64_t wb_bbuf_load(const uint8_t *p, int width, int big)
{
    uint64_t v = 0;
    int i;
    if (big) {
        for (i = 0; i < width; i++) v = (v << 8) | p[i];
    } else {
        for (i = width - 1; i >= 0; i--) v = (v << 8) | p[i];
    }
    return v;
}

/* Writes the low width bytes (1..8) of v at p, big-endian if big. */
static inline void wb_bbuf_store(uint8_t *p, int width, int big, uint64_t v)
{
    int i;
    if (big) {
        for (i = width - 1; i >= 0; i--) {
            p[i] = (uint8_t)v;
            v >>= 8;
        }
    } else {
        for (i = 0; i < width; i++) {
            p[i] = (uint8_t)v;
            v >>= 8;
        }
    }
}

/* Sign-extends the low width bytes of v. */
static inline int64_t wb_bbuf_signed(uint64_t v, int width)
{
    if (width == 8) return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (width * 8 - 1);
    return (int64_t)((v ^ sign) - sign);
}

/* Reads count bits (1..64) starting bit_offset bits into p, most significant
 * bit first (network order): the caller checked that the bits are in range. */
uint64_t wb_bbuf_get_bits(const uint8_t *p, size_t bit_offset, unsigned count);
/* Writes the low count bits of v there, leaving the other bits of the bytes. */
void wb_bbuf_set_bits(uint8_t *p, size_t bit_offset, unsigned count, uint64_t v);

/* A Wirebind::Buffer (TypedData; binary_buffer_class.c). Its bytes are one of:
 * its own storage (own, capa: ruby_xmalloc'd, grows), the bytes of a frozen
 * String (backing: pinned by rb_gc_mark, so the pointer taken through
 * RSTRING_PTR while it is pinned stays valid), or a window of another
 * Buffer's (backing: that root Buffer, marked movable; the bytes are looked
 * up through it on every access, as its storage may grow and move). */
typedef struct wb_bbuf {
    uint8_t *own;
    size_t capa;
    const uint8_t *base; /* the first byte: own, or into the backing String; NULL for a view of a Buffer */
    VALUE backing;       /* Qnil, a frozen String, or the root Buffer */
    size_t offset;       /* into the backing's bytes (views) */
    size_t len;
    int big; /* default byte order */
    int read_only;
    int of_buffer;   /* a view of another Buffer: base is looked up through it */
    int initialized; /* initialize (or a view's constructor) ran: initialize may not run again */
} wb_bbuf;

/* The Buffer behind obj (raises TypeError if it is not one). */
wb_bbuf *wb_bbuf_get(VALUE obj);
/* A view's bytes, through its root Buffer: raises Buffer::RangeError if the
 * root has shrunk under it. */
uint8_t *wb_bbuf_root_bytes(wb_bbuf *buf);
/* The first byte of buf (its len bytes are addressable). */
static inline uint8_t *wb_bbuf_bytes(wb_bbuf *buf)
{
    if (RB_LIKELY(!buf->of_buffer)) return (uint8_t *)buf->base;
    return wb_bbuf_root_bytes(buf);
}
/* Makes room for n more bytes at the end of an owned buffer (raises for views). */
uint8_t *wb_bbuf_reserve(VALUE obj, wb_bbuf *buf, size_t n);
/* Raises Wirebind::Buffer::RangeError with a message. */
NORETURN(void wb_bbuf_range_error(const char *fmt, ...));
/* Whether obj is a Buffer. */
int wb_bbuf_p(VALUE obj);
/* A view of n bytes at off of buf (checked). */
VALUE wb_bbuf_slice(VALUE buf, size_t off, size_t n);
/* A read_only Buffer over string (frozen, shared: no copy). */
VALUE wb_bbuf_view_of_string(VALUE string, size_t offset, size_t len, int big);
extern VALUE wb_bbuf_class;

#endif
