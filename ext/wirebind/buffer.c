/* The growable byte buffer every encoder writes into (see buffer.h). */
#include "buffer.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define INITIAL_CAPACITY 4096

/* What each byte asks of the escaper: 0 copy it, 1 replace it with a
 * reference, 2 refuse it (XML 1.0 cannot carry it), 3 the lead of a multi-byte
 * UTF-8 sequence (or a stray byte), checked in full. */
enum { COPY = 0, REPLACE = 1, REFUSE = 2, MULTI = 3 };

static const unsigned char TEXT_CLASS[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

static const unsigned char ATTRIBUTE_CLASS[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
};

static const char BASE64_ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void wb_buffer_init(wb_buffer *buffer)
{
    buffer->ptr = NULL;
    buffer->len = 0;
    buffer->capa = 0;
}

void wb_buffer_release(wb_buffer *buffer)
{
    if (buffer->ptr) ruby_xfree(buffer->ptr);
    wb_buffer_init(buffer);
}

void wb_buffer_grow(wb_buffer *buffer, size_t extra)
{
    /* Nothing larger than a String can hold is worth building. */
    const size_t limit = (size_t)LONG_MAX;
    if (buffer->len > limit || extra > limit - buffer->len) {
        rb_raise(rb_eNoMemError, "wirebind: a document of more than %ld bytes cannot be built", LONG_MAX);
    }
    size_t need = buffer->len + extra;
    size_t capa = buffer->capa ? buffer->capa : INITIAL_CAPACITY;
    while (capa < need) {
        capa = capa > limit / 2 ? limit : capa * 2;
    }
    /* ruby_xrealloc raises NoMemoryError (after a GC) rather than return NULL,
     * and tells the GC about the memory. */
    buffer->ptr = ruby_xrealloc(buffer->ptr, capa);
    buffer->capa = capa;
}

/* The length of the UTF-8 sequence at p (p[0] >= 0x80) if it is well-formed
 * and a character XML 1.0 can carry; 0 otherwise. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t avail = (size_t)(end - p);
    if (c >= 0xC2 && c <= 0xDF) {
        return avail >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;                                    /* overlong */
        if (c == 0xED && p[1] > 0x9F) return 0;                                    /* surrogate */
        if (c == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) return 0; /* U+FFFE, U+FFFF */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0; /* overlong */
        if (c == 0xF4 && p[1] > 0x8F) return 0; /* past U+10FFFF */
        return 4;
    }
    return 0; /* a continuation byte, C0, C1 or F5..FF */
}

static inline void append_reference(wb_buffer *buffer, unsigned char c)
{
    switch (c) {
    case '&': wb_buffer_append_literal(buffer, "&amp;"); break;
    case '<': wb_buffer_append_literal(buffer, "&lt;"); break;
    case '>': wb_buffer_append_literal(buffer, "&gt;"); break;
    case '"': wb_buffer_append_literal(buffer, "&quot;"); break;
    case '\t': wb_buffer_append_literal(buffer, "&#9;"); break;
    case '\n': wb_buffer_append_literal(buffer, "&#10;"); break;
    default: wb_buffer_append_literal(buffer, "&#13;"); break; /* '\r' */
    }
}

/* Past the plain byte at p and the plain ASCII after it: sixteen bytes a step
 * where SSE2 is there (every x86-64), up to the first byte that may need more
 * than a copy (a control character, TAB and LF included, a byte above 0x7F:
 * both compare below 0x20 as signed bytes; & < >, and " in an attribute),
 * which the byte loop then classifies. Only after an ASCII byte: text in
 * another script stays in the byte loop, multi-byte character after another. */
static inline const unsigned char *plain_end(const unsigned char *p, const unsigned char *end, wb_format_escape_mode mode)
{
    p++;
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8(mode == WB_FORMAT_ESCAPE_ATTRIBUTE ? '"' : '&');
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i stop = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8('&')));
        stop = _mm_or_si128(stop, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')), _mm_cmpeq_epi8(v, _mm_set1_epi8('>'))));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(stop, _mm_cmpeq_epi8(v, quote)));
        if (mask) return p + __builtin_ctz(mask);
    }
#else
    (void)mode;
#endif
    return p;
}

wb_format_escape_result wb_buffer_append_escaped(wb_buffer *buffer, const char *bytes, size_t n, wb_format_escape_mode mode)
{
    const unsigned char *table = mode == WB_FORMAT_ESCAPE_ATTRIBUTE ? ATTRIBUTE_CLASS : TEXT_CLASS;
    const unsigned char *p = (const unsigned char *)bytes;
    const unsigned char *end = p + n;
    const unsigned char *run = p;
    size_t mark = buffer->len;

    wb_buffer_reserve(buffer, n);
    while (p < end) {
        unsigned char kind = table[*p];
        if (kind == COPY) {
            p = plain_end(p, end, mode); /* COPY bytes are ASCII */
            continue;
        }
        if (kind == MULTI) {
            size_t length = utf8_sequence(p, end);
            if (length == 0) goto refuse;
            p += length;
            continue;
        }
        if (kind == REFUSE) goto refuse;
        wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
        append_reference(buffer, *p);
        run = ++p;
    }
    wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
    return WB_FORMAT_ESCAPE_OK;

refuse:
    wb_buffer_truncate(buffer, mark);
    return WB_FORMAT_ESCAPE_REFUSED;
}

wb_format_escape_result wb_buffer_append_escaped_str(wb_buffer *buffer, VALUE str, wb_format_escape_mode mode)
{
    int index = ENCODING_GET(str);
    if (index != rb_utf8_encindex()) {
        /* Another encoding reads the same in UTF-8 only when ASCII-only (which
         * rb_enc_str_asciionly_p says only of ASCII-compatible encodings). */
        if (!rb_enc_str_asciionly_p(str)) return WB_FORMAT_ESCAPE_REFUSED;
    } else if (ENC_CODERANGE(str) == ENC_CODERANGE_BROKEN) {
        return WB_FORMAT_ESCAPE_REFUSED;
    }
    /* Growing the buffer may run the GC; str stays on this stack meanwhile,
     * so an embedded string's bytes cannot be moved by compaction. */
    wb_format_escape_result result = wb_buffer_append_escaped(buffer, RSTRING_PTR(str), (size_t)RSTRING_LEN(str), mode);
    RB_GC_GUARD(str);
    return result;
}

void wb_buffer_append_long(wb_buffer *buffer, long n)
{
    char digits[24];
    char *end = digits + sizeof(digits);
    char *p = end;
    unsigned long magnitude = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
    do {
        *--p = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (n < 0) *--p = '-';
    wb_buffer_append(buffer, p, (size_t)(end - p));
}

void wb_buffer_append_base64(wb_buffer *buffer, const unsigned char *bytes, size_t n)
{
    if (n > ((size_t)LONG_MAX / 4) * 3 - 3) {
        rb_raise(rb_eNoMemError, "wirebind: %zu bytes are too many to write as base64", n);
    }
    size_t out_len = ((n + 2) / 3) * 4;
    wb_buffer_reserve(buffer, out_len);
    char *out = buffer->ptr + buffer->len;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned long triple = ((unsigned long)bytes[i] << 16) | ((unsigned long)bytes[i + 1] << 8) | bytes[i + 2];
        *out++ = BASE64_ALPHABET[(triple >> 18) & 63];
        *out++ = BASE64_ALPHABET[(triple >> 12) & 63];
        *out++ = BASE64_ALPHABET[(triple >> 6) & 63];
        *out++ = BASE64_ALPHABET[triple & 63];
    }
    if (n - i == 1) {
        unsigned long triple = (unsigned long)bytes[i] << 16;
        *out++ = BASE64_ALPHABET[(triple >> 18) & 63];
        *out++ = BASE64_ALPHABET[(triple >> 12) & 63];
        *out++ = '=';
        *out++ = '=';
    } else if (n - i == 2) {
        unsigned long triple = ((unsigned long)bytes[i] << 16) | ((unsigned long)bytes[i + 1] << 8);
        *out++ = BASE64_ALPHABET[(triple >> 18) & 63];
        *out++ = BASE64_ALPHABET[(triple >> 12) & 63];
        *out++ = BASE64_ALPHABET[(triple >> 6) & 63];
        *out++ = '=';
    }
    buffer->len += out_len;
}

VALUE wb_buffer_to_str(const wb_buffer *buffer)
{
    return rb_utf8_str_new(buffer->ptr ? buffer->ptr : "", (long)buffer->len);
}

size_t wb_buffer_flush_io(wb_buffer *buffer, VALUE io, int all)
{
    size_t offset = 0;
    size_t written = 0;
    while (buffer->len - offset >= WB_BUFFER_PIECE || (all && offset < buffer->len)) {
        size_t n = buffer->len - offset;
        if (n > WB_BUFFER_PIECE) {
            n = WB_BUFFER_PIECE;
            /* Never split a character: back up to the byte that starts one. */
            while (n > WB_BUFFER_PIECE - 4 && ((unsigned char)buffer->ptr[offset + n] & 0xC0) == 0x80) n--;
        }
        /* A fresh String each time: the IO may keep what it is given. */
        VALUE piece = rb_utf8_str_new(buffer->ptr + offset, (long)n);
        rb_funcall(io, rb_intern("write"), 1, piece);
        offset += n;
        written += n;
    }
    if (offset > 0) {
        memmove(buffer->ptr, buffer->ptr + offset, buffer->len - offset);
        buffer->len -= offset;
    }
    return written;
}
