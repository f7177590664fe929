/* One growable byte buffer, shared by every encoder: the bytes of a document
 * as it is written, handed to Ruby at the end as a String or flushed to an IO
 * in pieces of at most WB_BUFFER_PIECE bytes as it grows.
 *
 * Every append checks the room it needs and grows the buffer (doubling, with
 * overflow checks); nothing writes past `len`. Growth failures raise
 * NoMemoryError, so a buffer must be released on every exit: its owner frees
 * it in an rb_ensure clause or in its TypedData free function.
 *
 * Escaping is for XML 1.0 text and double-quoted attribute values, in one pass,
 * and refuses (returns WB_FORMAT_ESCAPE_REFUSED, the buffer left as it was) what it
 * cannot write: bytes that are not UTF-8, and characters XML 1.0 cannot carry.
 * The caller then asks Ruby, which raises the error with its message. */
#ifndef WIREBIND_BUFFER_H
#define WIREBIND_BUFFER_H

#include "wirebind.h"
#include <string.h>

/* The largest piece flush_io hands to io.write. */
#define WB_BUFFER_PIECE (64 * 1024)

typedef struct wb_buffer {
    char *ptr;
    size_t len;
    size_t capa;
} wb_buffer;

/* What to escape: element content escapes & < > and CR; attribute values
 * also " and tab and LF (which a parser would otherwise turn into spaces). */
typedef enum wb_format_escape_mode { WB_FORMAT_ESCAPE_TEXT = 0, WB_FORMAT_ESCAPE_ATTRIBUTE = 1 } wb_format_escape_mode;

typedef enum wb_format_escape_result { WB_FORMAT_ESCAPE_OK = 0, WB_FORMAT_ESCAPE_REFUSED = 1 } wb_format_escape_result;

/* An empty buffer; nothing is allocated until the first append. */
void wb_buffer_init(wb_buffer *buffer);
/* Frees the bytes; the buffer is empty (and reusable) afterwards. Idempotent. */
void wb_buffer_release(wb_buffer *buffer);
/* Makes room for `extra` more bytes. Raises NoMemoryError on overflow. */
void wb_buffer_grow(wb_buffer *buffer, size_t extra);

static inline void wb_buffer_reserve(wb_buffer *buffer, size_t extra)
{
    if (extra > buffer->capa - buffer->len) wb_buffer_grow(buffer, extra);
}

static inline void wb_buffer_append(wb_buffer *buffer, const char *bytes, size_t n)
{
    if (n == 0) return;
    wb_buffer_reserve(buffer, n);
    memcpy(buffer->ptr + buffer->len, bytes, n);
    buffer->len += n;
}

static inline void wb_buffer_append_char(wb_buffer *buffer, char c)
{
    wb_buffer_reserve(buffer, 1);
    buffer->ptr[buffer->len++] = c;
}

#define wb_buffer_append_literal(buffer, literal) wb_buffer_append((buffer), (literal), sizeof(literal) - 1)

/* Appends the bytes of a Ruby String as they are. */
static inline void wb_buffer_append_str(wb_buffer *buffer, VALUE str)
{
    wb_buffer_append(buffer, RSTRING_PTR(str), (size_t)RSTRING_LEN(str));
}

/* Cuts the buffer back to `len` bytes (a mark taken earlier). */
static inline void wb_buffer_truncate(wb_buffer *buffer, size_t len)
{
    if (len < buffer->len) buffer->len = len;
}

/* Appends `n` bytes of UTF-8 escaped for `mode`, checking them as it goes.
 * Refuses invalid UTF-8 (overlong forms, surrogates and code points past
 * U+10FFFF included), C0 controls other than tab, LF and CR, and U+FFFE and
 * U+FFFF, leaving the buffer as it was. */
wb_format_escape_result wb_buffer_append_escaped(wb_buffer *buffer, const char *bytes, size_t n, wb_format_escape_mode mode);

/* Appends a String escaped for `mode`, if it is UTF-8 (or ASCII-only in an
 * ASCII-compatible encoding, which reads the same in UTF-8). Refuses anything
 * else, as wb_buffer_append_escaped does, and strings in other encodings: the
 * caller transcodes those through Ruby. */
wb_format_escape_result wb_buffer_append_escaped_str(wb_buffer *buffer, VALUE str, wb_format_escape_mode mode);

/* Appends the decimal digits of n. */
void wb_buffer_append_long(wb_buffer *buffer, long n);

/* Appends `n` bytes in strict base64 (RFC 4648, padded, no line breaks). */
void wb_buffer_append_base64(wb_buffer *buffer, const unsigned char *bytes, size_t n);

/* A new UTF-8 String holding the bytes. */
VALUE wb_buffer_to_str(const wb_buffer *buffer);

/* Writes the bytes to `io` with io.write, in pieces of at most WB_BUFFER_PIECE
 * bytes, each cut at a UTF-8 character boundary and each a fresh UTF-8 String.
 * With `all` false only whole pieces are written and the rest (less than a
 * piece) is kept; with `all` true everything is written. Returns the bytes
 * written. */
size_t wb_buffer_flush_io(wb_buffer *buffer, VALUE io, int all);

#endif
