/* The XML tokenizer engine (see xml_tokenizer.h). Each function below ports the
 * method of lib/wirebind/xml/pure/tokenizer.rb with the same name, and raises
 * its errors at the same positions; where the port had to make a choice the
 * comment says what Ruby does.
 *
 * Conventions: `buf[0, len)` is the window, `pos` the cursor; while a token is
 * being read `pos` stays at its start, and the scanners index from there, so
 * that more() (which may move the window) never invalidates what they hold.
 * Positions that outlive a window are absolute byte offsets (ABS). */
#include "xml_tokenizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define XML_NS "http://www.w3.org/XML/1998/namespace"
#define XMLNS_NS "http://www.w3.org/2000/xmlns/"
#define LIMIT_TOKEN "a single token is larger than max_token_size (%zu bytes)"
#define LIMIT_DEPTH "elements are nested deeper than max_depth (%zu)"
#define LIMIT_ATTRIBUTES "a start tag has more than max_attributes (%zu) attributes"
#define LIMIT_NAMESPACES "more than max_namespaces (%zu) namespace declarations in scope"
#define NOT_QNAME "is not a qualified name (one colon, between a prefix and a local name)"

/* Results of the pattern matchers: no match, a match, or "the window ends
 * before I can tell" (the caller makes more of the input visible and retries). */
enum { M_FAIL = 0, M_OK = 1, M_NEED = 2 };

/* How an element was read. */
enum { EL_START = 0, EL_EMPTY = 1, EL_LEAF = 2 };

#define NONE ((size_t)-1)
#define ABS(t, i) ((t)->base_offset + (long long)(i))
#define UB(t) ((const unsigned char *)(t)->buf)

/* ---- errors and memory ------------------------------------------------------ */

#if defined(__GNUC__)
#define WB_XTOK_NORETURN __attribute__((noreturn))
#define WB_XTOK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WB_XTOK_NORETURN
#define WB_XTOK_PRINTF(a, b)
#endif

static void locate(wb_xtok *t, long long abs, long *line, long *column, long long *offset);

static WB_XTOK_NORETURN void out_of_memory(wb_xtok *t)
{
    t->h->error(t->ctx, WB_XTOK_NO_MEMORY, "out of memory", 13, 0, 0, 0);
    abort(); /* the handler raises */
}

/* grow past its capacity: out of line, as it is rare. */
static void *grow_to(wb_xtok *t, void *ptr, size_t *cap, size_t need, size_t size)
{
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > ((size_t)-1) / 2) out_of_memory(t);
        n *= 2;
    }
    if (n > ((size_t)-1) / size) out_of_memory(t);
    void *p = realloc(ptr, n * size);
    if (!p) out_of_memory(t);
    *cap = n;
    return p;
}

/* Grows an array to hold `need` elements of `size` bytes (doubling). Inline:
 * it runs per attribute and per element, and almost always has room. */
static inline void *grow(wb_xtok *t, void *ptr, size_t *cap, size_t need, size_t size)
{
    return need <= *cap ? ptr : grow_to(t, ptr, cap, need, size);
}

static void bytes_reserve(wb_xtok *t, wb_xtok_bytes *b, size_t extra)
{
    if (extra > ((size_t)-1) - b->len) out_of_memory(t);
    b->ptr = grow(t, b->ptr, &b->cap, b->len + extra, 1);
}

static void bytes_append(wb_xtok *t, wb_xtok_bytes *b, const void *p, size_t n)
{
    if (n == 0) return;
    bytes_reserve(t, b, n);
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

/* Raises a positioned error: the message is formatted into t->message. */
static WB_XTOK_NORETURN WB_XTOK_PRINTF(4, 5) void fail(wb_xtok *t, int kind, long long abs, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0) n = 0;
    t->message.len = 0;
    bytes_reserve(t, &t->message, (size_t)n + 1);
    va_start(args, format);
    vsnprintf(t->message.ptr, (size_t)n + 1, format, args);
    va_end(args);
    long line, column;
    long long offset;
    locate(t, abs, &line, &column, &offset);
    t->h->error(t->ctx, kind, t->message.ptr, (size_t)n, line, column, offset);
    abort();
}

/* Names in messages: %.*s wants an int. */
#define NAMEF(len) ((int)((len) > 0x7fffffff ? 0x7fffffff : (len)))

/* ---- characters --------------------------------------------------------------- */

/* Byte classes, one table lookup per byte in the hot loops (a chain of
 * comparisons per byte was a fifth of a decode). */
enum {
    C_NAME_START = 1, /* ASCII NameStartChar but ':' */
    C_NAME = 2,       /* ASCII NameChar but ':' */
    C_WS = 4,         /* space, tab, LF (CRs are gone: Source normalized them) */
    C_TEXT_STOP = 8,  /* ends a run of plain character data: < & ] */
    C_VALUE_STOP = 16 /* ends a plain attribute value on the fast path: < & tab LF */
};
static const unsigned char byte_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 20, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 24, 0, 0, 0, 0,
    0, 0, 2, 2, 0, 2, 2, 2, 2, 2,  2,  2, 2, 2, 2, 0, 0, 24, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,  3, 3, 3, 3,
    3, 3, 3, 3, 3, 0, 0, 8, 0, 3,  0,  3, 3, 3, 3, 3, 3, 3,  3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0,  0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0, 0,
};

static inline int is_ws(unsigned c)
{
    return byte_class[c & 0xFF] & C_WS;
}
static inline int is_s(unsigned c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
static inline int xtok_is_digit(unsigned c)
{
    return c >= '0' && c <= '9';
}
static inline int is_hex(unsigned c)
{
    return xtok_is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
static inline int ascii_start(unsigned c)
{
    return byte_class[c & 0xFF] & C_NAME_START;
}
static inline int ascii_char(unsigned c)
{
    return byte_class[c & 0xFF] & C_NAME;
}
static inline int text_stop(unsigned c)
{
    return byte_class[c & 0xFF] & C_TEXT_STOP;
}

/* The three runs the tokenizer spends most of its time in (indentation, text,
 * attribute values) are searched sixteen bytes at a time where SSE2 is there
 * (every x86-64): a compare per byte value that ends the run, one mask, one
 * bit scan. The byte loops after them finish the last few bytes, and are the
 * whole search elsewhere. */
#ifdef __SSE2__
#define ANY_OF(v, c) _mm_cmpeq_epi8((v), _mm_set1_epi8((char)(c)))
static inline unsigned block_mask(__m128i hits)
{
    return (unsigned)_mm_movemask_epi8(hits);
}
#endif

/* The end of the run of space, tab and LF at b[i, n). */
static inline size_t ws_end(const unsigned char *b, size_t i, size_t n)
{
#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        unsigned ws = block_mask(_mm_or_si128(_mm_or_si128(ANY_OF(v, ' '), ANY_OF(v, '\t')), ANY_OF(v, '\n')));
        if (ws != 0xFFFF) return i + (size_t)__builtin_ctz(~ws);
    }
#endif
    while (i < n && is_ws(b[i])) i++;
    return i;
}

/* The end of the run of character data (no < & ]) at b[i, n). */
static inline size_t text_end(const unsigned char *b, size_t i, size_t n)
{
#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        unsigned stop = block_mask(_mm_or_si128(_mm_or_si128(ANY_OF(v, '<'), ANY_OF(v, '&')), ANY_OF(v, ']')));
        if (stop) return i + (size_t)__builtin_ctz(stop);
    }
#endif
    while (i < n && !text_stop(b[i])) i++;
    return i;
}

/* The end of a plain attribute value quoted by q at b[i, n): q, or the first
 * byte the fast path leaves to the slow one (< & tab LF). */
static inline size_t value_end(const unsigned char *b, size_t i, size_t n, unsigned q)
{
#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
        __m128i stop = _mm_or_si128(_mm_or_si128(ANY_OF(v, q), ANY_OF(v, '<')), ANY_OF(v, '&'));
        unsigned mask = block_mask(_mm_or_si128(stop, _mm_or_si128(ANY_OF(v, '\t'), ANY_OF(v, '\n'))));
        if (mask) return i + (size_t)__builtin_ctz(mask);
    }
#endif
    while (i < n && b[i] != q && !(byte_class[b[i]] & C_VALUE_STOP)) i++;
    return i;
}

/* NameStartChar without ':' (Namespaces' NCName), above ASCII. */
static int wide_start(uint32_t c)
{
    return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) || (c >= 0x370 && c <= 0x37D) ||
           (c >= 0x37F && c <= 0x1FFF) || (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) || (c >= 0x2C00 && c <= 0x2FEF) ||
           (c >= 0x3001 && c <= 0xD7FF) || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0xEFFFF);
}

static int wide_char(uint32_t c)
{
    return wide_start(c) || c == 0xB7 || (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
}

/* Decodes the UTF-8 character at p[0, n): its length, or 0 when it is cut short.
 * The input is valid UTF-8 (Source checked it), but every read is bounded. */
static size_t xtok_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned c = p[0];
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (len > n) return 0;
    switch (len) {
    case 1: *cp = c; break;
    case 2: *cp = ((uint32_t)(c & 0x1F) << 6) | (p[1] & 0x3F); break;
    case 3: *cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F); break;
    default: *cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F); break;
    }
    return len;
}

static size_t put_utf8(char *out, uint32_t c)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Whether c is an XML 1.0 Char (§2.2). */
static int xml_char(uint32_t c)
{
    return (c >= 0x20 && c <= 0xD7FF) || c == 0x9 || c == 0xA || c == 0xD || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
}

/* Scans a name at b[i, n). colons: an XML Name (':' anywhere); otherwise an NCName.
 * Returns its end (i when none starts there); *cut is set when it runs into the
 * end of the window (it may go on), *wide when it has a non-ASCII character. */
static size_t scan_name(const unsigned char *b, size_t i, size_t n, int colons, int *cut, int *wide)
{
    size_t j = i;
    *cut = 0;
    while (j < n) {
        unsigned c = b[j];
        if (c < 0x80) {
            if (j == i ? !(ascii_start(c) || (colons && c == ':')) : !(ascii_char(c) || (colons && c == ':'))) return j;
            j++;
            while (j < n && ascii_char(b[j])) j++; /* the common case: a run of ASCII name characters */
            continue;
        }
        uint32_t cp;
        size_t len = xtok_utf8(b + j, n - j, &cp);
        if (len == 0) {
            *cut = 1;
            return j;
        }
        if (j == i ? !wide_start(cp) : !wide_char(cp)) return j;
        *wide = 1;
        j += len;
    }
    *cut = 1;
    return j;
}

/* scan_name, inline for what almost every name is: ASCII name characters
 * ended, inside the window, by an ASCII byte that goes on no name (nor, for an
 * XML Name, a ':'). Anything else (a name that does not start there, a
 * non-ASCII character, the window's end, a colon to go on with) is scan_name's,
 * from the start: the call and its frame were a tenth of a decode. */
static inline size_t scan_name_inline(const unsigned char *b, size_t i, size_t n, int colons, int *cut, int *wide)
{
    if (i < n && ascii_start(b[i])) {
        size_t j = i + 1;
        while (j < n && ascii_char(b[j])) j++;
        if (j < n && b[j] < 0x80 && !(colons && b[j] == ':')) {
            *cut = 0;
            return j;
        }
    }
    return scan_name(b, i, n, colons, cut, wide);
}

/* A QName: NCName (':' NCName)?, as Syntax::QNAME_SRC. *prefix_end is what
 * wb_xtok_prefix_end would say of it: the colon's index from i, plus one, or 0. */
static inline size_t scan_qname(const unsigned char *b, size_t i, size_t n, int *cut, int *wide, size_t *prefix_end)
{
    *prefix_end = 0;
    size_t e = scan_name_inline(b, i, n, 0, cut, wide);
    if (e == i || *cut || b[e] != ':') return e;
    if (e + 1 >= n) {
        *cut = 1; /* a local part may follow */
        return e;
    }
    int cut2 = 0;
    size_t e2 = scan_name_inline(b, e + 1, n, 0, &cut2, wide);
    if (e2 == e + 1) {
        *cut = cut2;
        return e;
    }
    *cut = cut2;
    *prefix_end = e - i + 1;
    return e2;
}

size_t wb_xtok_prefix_end(const char *name, size_t len)
{
    /* Names are short: a loop beats two calls to memchr. */
    size_t at = 0;
    while (at < len && name[at] != ':') at++;
    if (at == 0 || at >= len - 1) return 0;
    for (size_t i = at + 1; i < len; i++)
        if (name[i] == ':') return 0;
    return at + 1;
}

/* Whether an XML Name is a Namespaces QName: no colon, or one between a
 * non-empty prefix and a local part that starts as an NCName does (the rest of
 * it is made of name characters already). Syntax::QNAME_ONLY. */
static int is_qname(const char *name, size_t len)
{
    const char *colon = memchr(name, ':', len);
    if (!colon) return 1;
    size_t at = (size_t)(colon - name);
    if (at == 0 || at + 1 >= len || memchr(colon + 1, ':', len - at - 1)) return 0;
    const unsigned char *p = (const unsigned char *)colon + 1;
    if (*p < 0x80) return ascii_start(*p) != 0;
    uint32_t cp;
    return xtok_utf8(p, len - at - 1, &cp) != 0 && wide_start(cp);
}

static int is_xmlns(const char *name, size_t len)
{
    return len >= 5 && memcmp(name, "xmlns", 5) == 0 && (len == 5 || name[5] == ':');
}

/* ---- positions ------------------------------------------------------------- */

/* Counts newlines in p[0, n) and the characters after the last one. */
static void count_lines(const char *p, size_t n, long *lines, long *tail, int *had_newline)
{
    const char *end = p + n;
    const char *last = NULL;
    const char *q = p;
    long count = 0;
#ifdef __SSE2__
    /* A document has a newline every few dozen bytes: sixteen bytes a step,
     * not a call to memchr per line. */
    for (; end - q >= 16; q += 16) {
        unsigned lf = block_mask(ANY_OF(_mm_loadu_si128((const __m128i *)(const void *)q), '\n'));
        if (!lf) continue;
        last = q + (31 - __builtin_clz(lf));
        for (; lf; lf &= lf - 1) count++; /* no popcnt in baseline x86-64 */
    }
#endif
    for (; q < end; q++) {
        if (*q != '\n') continue;
        count++;
        last = q;
    }
    const char *from = last ? last + 1 : p;
    long chars = 0;
    for (const char *c = from; c < end; c++) chars += ((unsigned char)*c & 0xC0) != 0x80;
    *lines = count;
    *tail = chars;
    *had_newline = last != NULL;
}

/* Line, column (characters) and offset of the first non-blank character at or
 * after abs, within the input read so far (pure's Tokenizer#position). */
static void locate(wb_xtok *t, long long abs, long *line, long *column, long long *offset)
{
    long long rel = abs - t->base_offset;
    size_t i = rel < 0 ? 0 : (size_t)rel;
    if (i > t->len) i = t->len;
    const unsigned char *b = UB(t);
    while (i < t->len && is_ws(b[i])) i++;
    size_t extra = 0;
    if (i == t->len && t->owned && t->chunk && t->chunk_used < t->chunk_len) {
        const unsigned char *c = (const unsigned char *)t->chunk + t->chunk_used;
        size_t m = t->chunk_len - t->chunk_used;
        while (extra < m && is_ws(c[extra])) extra++;
    }
    long lines = 0, tail = 0, lines2 = 0, tail2 = 0;
    int nl = 0, nl2 = 0;
    if (i) count_lines(t->buf, i, &lines, &tail, &nl);
    if (extra) count_lines(t->chunk + t->chunk_used, extra, &lines2, &tail2, &nl2);
    if (nl2) {
        tail = tail2;
        nl = 1;
    } else {
        tail += tail2;
    }
    *line = t->base_line + lines + lines2 + 1;
    *column = nl ? tail + 1 : t->base_column + tail + 1;
    *offset = t->base_offset + (long long)(i + extra);
}

void wb_xtok_token_position(wb_xtok *t, long *line, long *column)
{
    long long offset;
    locate(t, t->tok, line, column, &offset);
}

size_t wb_xtok_mark_push(wb_xtok *t)
{
    t->marks = grow(t, t->marks, &t->marks_cap, t->mark_count + 1, sizeof(wb_xtok_mark));
    wb_xtok_mark *m = &t->marks[t->mark_count];
    m->abs = t->tok;
    m->line = m->column = 0;
    m->resolved = 0;
    return t->mark_count++;
}

void wb_xtok_mark_pop(wb_xtok *t)
{
    if (t->mark_count) t->mark_count--;
}

void wb_xtok_mark_position(wb_xtok *t, size_t mark, long *line, long *column)
{
    if (mark >= t->mark_count) {
        wb_xtok_token_position(t, line, column);
        return;
    }
    wb_xtok_mark *m = &t->marks[mark];
    if (!m->resolved) {
        long long offset;
        locate(t, m->abs, &m->line, &m->column, &offset);
        m->resolved = 1;
    }
    *line = m->line;
    *column = m->column;
}

/* ---- the window ------------------------------------------------------------- */

/* Lets go of buf[0, k): marks under it are resolved first, and the position base
 * moves past it. */
static void discard(wb_xtok *t, size_t k)
{
    if (k == 0) return;
    for (size_t i = 0; i < t->mark_count; i++) {
        wb_xtok_mark *m = &t->marks[i];
        if (!m->resolved && m->abs < ABS(t, k)) {
            long long offset;
            locate(t, m->abs, &m->line, &m->column, &offset);
            m->resolved = 1;
        }
    }
    long lines, tail;
    int nl;
    count_lines(t->buf, k, &lines, &tail, &nl);
    t->base_line += lines;
    t->base_column = nl ? tail : t->base_column + tail;
    t->base_offset += (long long)k;
}

/* Appends more of the current chunk to the owned window: as much again as the
 * window holds (at least 4 KiB), in whole characters; the whole chunk in the
 * prolog, which keeps everything. Returns 0 when the chunk is all in. */
static int extend(wb_xtok *t)
{
    if (!t->owned || !t->chunk || t->chunk_used >= t->chunk_len) return 0;
    size_t rest = t->chunk_len - t->chunk_used;
    size_t n = rest;
    if (!t->prolog) {
        size_t want = t->own.len > 4096 ? t->own.len : 4096;
        if (n > want) {
            n = want;
            while (n < rest && ((unsigned char)t->chunk[t->chunk_used + n] & 0xC0) == 0x80) n++;
        }
    }
    bytes_append(t, &t->own, t->chunk + t->chunk_used, n);
    t->chunk_used += n;
    t->buf = t->own.ptr;
    t->len = t->own.len;
    return 1;
}

/* Pure's refill, and ensure_* around it: makes more of the input visible after
 * the window, keeping buf[pos, len) (everything, in the prolog). may_read: fetch
 * the next chunk when this one is all in; check: a token (from pos) already
 * longer than max_token_size is a LimitError before fetching. 0 at the end. */
static int more(wb_xtok *t, int may_read, int check)
{
    if (extend(t)) return 1;
    if (!may_read) return 0;
    if (check && t->len - t->pos > t->max_token_size) fail(t, WB_XTOK_LIMIT_ERROR, ABS(t, t->pos), LIMIT_TOKEN, t->max_token_size);
    if (t->eof) return 0;

    size_t keep = t->prolog ? 0 : t->pos;
    size_t tail = t->len - keep;
    if (t->owned) {
        discard(t, keep);
        if (tail && keep) memmove(t->own.ptr, t->own.ptr + keep, tail);
        t->own.len = tail;
    } else {
        /* The tail is copied before handler->read may let the chunk go. */
        t->own.len = 0;
        bytes_append(t, &t->own, t->buf + keep, tail);
        discard(t, keep);
    }
    t->pos -= keep;
    t->owned = 1;
    t->buf = t->own.ptr;
    t->len = t->own.len;

    const char *p = NULL;
    size_t n = 0;
    do {
        if (!t->h->read(t->ctx, &p, &n)) {
            t->eof = 1;
            t->chunk = NULL;
            t->chunk_len = t->chunk_used = 0;
            return 0;
        }
    } while (n == 0);
    t->chunk = p;
    t->chunk_len = n;
    t->chunk_used = 0;
    if (t->own.len == 0) {
        /* Nothing to keep: read the chunk in place. */
        t->owned = 0;
        t->buf = p;
        t->len = n;
        t->win_off = 0;
        t->pos = 0;
        t->chunk_used = n;
        return 1;
    }
    extend(t);
    return 1;
}

/* Between tokens: once everything unread comes from the current chunk, read it
 * in place again and let the owned copy go. */
static void settle(wb_xtok *t)
{
    if (!t->owned || !t->chunk || t->len - t->pos > t->chunk_used) return;
    size_t off = t->chunk_used - (t->len - t->pos);
    discard(t, t->pos);
    t->owned = 0;
    t->own.len = 0;
    t->win_off = off;
    t->buf = t->chunk + off;
    t->len = t->chunk_len - off;
    t->pos = 0;
    t->chunk_used = t->chunk_len;
}

static int ensure_bytes(wb_xtok *t, size_t count)
{
    while (t->len - t->pos < count)
        if (!more(t, 1, 0)) return 0;
    return 1;
}

/* Finds pattern at or after buf[pos + from]; its offset from pos, or NONE. */
static size_t find(const wb_xtok *t, size_t from, const char *pattern, size_t plen)
{
    size_t avail = t->len - t->pos;
    if (from >= avail || avail - from < plen) return NONE;
    const char *start = t->buf + t->pos + from;
    const char *end = t->buf + t->len;
    while ((size_t)(end - start) >= plen) {
        const char *hit = memchr(start, pattern[0], (size_t)(end - start) - plen + 1);
        if (!hit) return NONE;
        if (memcmp(hit, pattern, plen) == 0) return (size_t)(hit - (t->buf + t->pos));
        start = hit + 1;
    }
    return NONE;
}

/* Pure's ensure_ahead: makes the window reach a pattern after the token start
 * (checking max_token_size before every read). Its offset from pos, or NONE at
 * the end of the input. */
static size_t ensure_ahead(wb_xtok *t, size_t from, const char *pattern, size_t plen)
{
    size_t searched = from;
    for (;;) {
        size_t at = find(t, searched, pattern, plen);
        if (at != NONE) return at;
        size_t avail = t->len - t->pos;
        if (avail >= plen && avail - plen + 1 > searched) searched = avail - plen + 1;
        if (!more(t, 1, 1)) return NONE;
    }
}

static int starts(const wb_xtok *t, size_t i, const char *s, size_t n)
{
    return t->len - i >= n && memcmp(t->buf + i, s, n) == 0;
}

/* After a token read whole (check_token_end): a LimitError if it was too long. */
static void check_token_end(wb_xtok *t)
{
    if (ABS(t, t->pos) - t->tok > (long long)t->max_token_size) fail(t, WB_XTOK_LIMIT_ERROR, t->tok, LIMIT_TOKEN, t->max_token_size);
}

/* ---- namespaces and names ------------------------------------------------------ */

/* SipHash-1-3 (Aumasson and Bernstein; the variant Ruby hashes Strings with)
 * of p[0, n) under the tokenizer's key: names crafted to collide under one
 * key do not collide under another, and the key is secret. */
#define SIP_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIP_ROUND(v0, v1, v2, v3) \
    do {                          \
        v0 += v1;                 \
        v1 = SIP_ROTL(v1, 13);    \
        v1 ^= v0;                 \
        v0 = SIP_ROTL(v0, 32);    \
        v2 += v3;                 \
        v3 = SIP_ROTL(v3, 16);    \
        v3 ^= v2;                 \
        v0 += v3;                 \
        v3 = SIP_ROTL(v3, 21);    \
        v3 ^= v0;                 \
        v2 += v1;                 \
        v1 = SIP_ROTL(v1, 17);    \
        v1 ^= v2;                 \
        v2 = SIP_ROTL(v2, 32);    \
    } while (0)

static uint64_t keyed_hash(const wb_xtok *t, const char *p, size_t n)
{
    const unsigned char *in = (const unsigned char *)p;
    uint64_t k0 = t->hash_key[0], k1 = t->hash_key[1];
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    size_t whole = n - n % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = 0;
        for (int b = 7; b >= 0; b--) m = (m << 8) | in[i + (size_t)b];
        v3 ^= m;
        SIP_ROUND(v0, v1, v2, v3);
        v0 ^= m;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t i = whole; i < n; i++) last |= (uint64_t)in[i] << (8 * (i - whole));
    v3 ^= last;
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= last;
    v2 ^= 0xff;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Prefixes are a few bytes long: compared inline, not through a call to memcmp
 * (this lookup runs once per prefixed name, and once per element for the default). */
static inline int same_prefix(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static inline int binding_is(const wb_xtok *t, size_t i, const char *prefix, size_t plen)
{
    const wb_xtok_ns *b = &t->ns[i];
    return b->prefix_len == plen && same_prefix(t->ns_bytes.ptr + b->prefix, prefix, plen);
}

/* The slot of ns_slots holding the innermost binding of a prefix, or the empty
 * slot where it would go. */
static size_t ns_slot(const wb_xtok *t, uint64_t hash, const char *prefix, size_t plen)
{
    size_t mask = t->ns_slots_cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        size_t v = t->ns_slots[i];
        if (v == 0 || (t->ns[v - 1].hash == hash && binding_is(t, v - 1, prefix, plen))) return i;
    }
}

/* Keeps ns_slots at most half full. */
static void ns_slots_reserve(wb_xtok *t)
{
    if ((t->ns_slots_used + 1) * 2 <= t->ns_slots_cap) return;
    size_t cap = t->ns_slots_cap ? t->ns_slots_cap * 2 : 16;
    if (cap > ((size_t)-1) / sizeof(size_t)) out_of_memory(t);
    size_t *slots = calloc(cap, sizeof(size_t));
    if (!slots) out_of_memory(t);
    for (size_t i = 0; i < t->ns_slots_cap; i++) {
        size_t v = t->ns_slots[i];
        if (v == 0) continue;
        size_t j = (size_t)t->ns[v - 1].hash & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = v;
    }
    free(t->ns_slots);
    t->ns_slots = slots;
    t->ns_slots_cap = cap;
}

/* Empties a slot of the linear-probing table, moving later entries of its
 * cluster back so that every entry stays reachable from its home slot. */
static void ns_slot_delete(wb_xtok *t, size_t i)
{
    size_t mask = t->ns_slots_cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        size_t v = t->ns_slots[j];
        if (v == 0) break;
        size_t home = (size_t)t->ns[v - 1].hash & mask;
        /* The entry at j may move to i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays) continue;
        t->ns_slots[i] = v;
        i = j;
    }
    t->ns_slots[i] = 0;
    t->ns_slots_used--;
}

static void ns_push(wb_xtok *t, const char *prefix, size_t plen, const char *uri, size_t ulen, int none)
{
    t->ns = grow(t, t->ns, &t->ns_cap, t->ns_count + 1, sizeof(wb_xtok_ns));
    size_t index = t->ns_count;
    wb_xtok_ns *b = &t->ns[index];
    b->prefix = t->ns_bytes.len;
    b->prefix_len = plen;
    b->uri = t->ns_bytes.len + plen;
    b->uri_len = ulen;
    b->none = none;
    b->hash = 0;
    bytes_append(t, &t->ns_bytes, prefix, plen);
    bytes_append(t, &t->ns_bytes, uri, ulen);
    t->ns_count++;
    t->ns_generation++;
    if (plen == 0) {
        b->shadowed = t->ns_default;
        t->ns_default = index;
        return;
    }
    ns_slots_reserve(t);
    b = &t->ns[index];
    b->hash = keyed_hash(t, prefix, plen);
    size_t slot = ns_slot(t, b->hash, prefix, plen);
    size_t v = t->ns_slots[slot];
    b->shadowed = v ? v - 1 : NONE;
    if (!v) t->ns_slots_used++;
    t->ns_slots[slot] = index + 1;
}

/* ns_lookup of a prefixed name, without the memo. A few bindings are searched
 * from the innermost: that is faster than hashing. */
static size_t ns_search(const wb_xtok *t, const char *prefix, size_t plen)
{
    if (t->ns_count <= 8) {
        for (size_t i = t->ns_count; i-- > 0;)
            if (binding_is(t, i, prefix, plen)) return i;
        return NONE;
    }
    size_t v = t->ns_slots[ns_slot(t, keyed_hash(t, prefix, plen), prefix, plen)];
    return v ? v - 1 : NONE;
}

/* The binding of a prefix ("" for the default namespace), or NONE. A document
 * uses a few prefixes over and over (xsi on every leaf of rpc/encoded, xsd in
 * its values): the binding each was last found at is remembered, by length
 * and last byte, while no binding comes or goes, and checked before use. */
static inline size_t ns_lookup(wb_xtok *t, const char *prefix, size_t plen)
{
    if (plen == 0) {
        size_t i = t->ns_default;
        return i == NONE || t->ns[i].none ? NONE : i;
    }
    size_t m = (plen + (unsigned char)prefix[plen - 1]) & 3;
    if (t->ns_memo[m].generation == t->ns_generation && binding_is(t, t->ns_memo[m].index, prefix, plen)) return t->ns_memo[m].index;
    size_t i = ns_search(t, prefix, plen);
    if (i != NONE) {
        t->ns_memo[m].generation = t->ns_generation;
        t->ns_memo[m].index = i;
    }
    return i;
}

static wb_xtok_str ns_uri(const wb_xtok *t, size_t i)
{
    wb_xtok_str s = {NULL, 0};
    if (i != NONE) {
        s.ptr = t->ns_bytes.ptr + t->ns[i].uri;
        s.len = t->ns[i].uri_len;
    }
    return s;
}

/* Undoes the bindings past the first count, innermost first. */
static void ns_restore(wb_xtok *t, size_t count, size_t bytes)
{
    if (t->ns_count == count) return;
    t->ns_generation++;
    while (t->ns_count > count) {
        size_t index = --t->ns_count;
        const wb_xtok_ns *b = &t->ns[index];
        if (b->prefix_len == 0) {
            t->ns_default = b->shadowed;
            continue;
        }
        size_t slot = ns_slot(t, b->hash, t->ns_bytes.ptr + b->prefix, b->prefix_len);
        if (b->shadowed != NONE)
            t->ns_slots[slot] = b->shadowed + 1;
        else
            ns_slot_delete(t, slot);
    }
    t->ns_bytes.len = bytes;
}

size_t wb_xtok_depth(const wb_xtok *t)
{
    return t->depth;
}

wb_xtok_str wb_xtok_namespace_of(wb_xtok *t, const char *prefix, size_t len)
{
    return ns_uri(t, ns_lookup(t, prefix, len));
}

uint64_t wb_xtok_namespace_generation(const wb_xtok *t)
{
    return t->ns_generation;
}

size_t wb_xtok_binding_count(const wb_xtok *t)
{
    return t->ns_count;
}

void wb_xtok_binding_at(const wb_xtok *t, size_t i, wb_xtok_str *prefix, wb_xtok_str *uri)
{
    const wb_xtok_ns *b = &t->ns[i];
    prefix->ptr = t->ns_bytes.ptr + b->prefix;
    prefix->len = b->prefix_len;
    uri->ptr = b->none ? NULL : t->ns_bytes.ptr + b->uri;
    uri->len = b->none ? 0 : b->uri_len;
}

wb_xtok_str wb_xtok_name_at(const wb_xtok *t, size_t i)
{
    wb_xtok_str s = {"", 0};
    if (i < t->depth) {
        s.ptr = t->name_bytes.ptr + t->names[i].off;
        s.len = t->names[i].len;
    }
    return s;
}

/* ---- attributes ------------------------------------------------------------------- */

static const char *raw_name(const wb_xtok *t, const wb_xtok_raw *r)
{
    return t->buf + r->name;
}

static const char *raw_value(const wb_xtok *t, const wb_xtok_raw *r)
{
    return r->scratch ? t->values.ptr + r->value : t->buf + r->value;
}

static wb_xtok_raw *raw_push(wb_xtok *t)
{
    t->raw = grow(t, t->raw, &t->raw_cap, t->raw_count + 1, sizeof(wb_xtok_raw));
    return &t->raw[t->raw_count++];
}

/* The first attribute (in order) that repeats an earlier one; NONE if none.
 * A small hash set past a handful of attributes: a tag may hold thousands
 * (max_attributes), and the keyed hash keeps crafted names from colliding. */
static size_t first_duplicate(wb_xtok *t, size_t n, const char *(*name)(const wb_xtok *, size_t, size_t *),
                              wb_xtok_str (*uri)(const wb_xtok *, size_t))
{
    if (n < 12) {
        /* Each name read once; pairs told apart by length and first byte
         * before any memcmp. */
        const char *names[12];
        size_t lens[12];
        for (size_t i = 0; i < n; i++) names[i] = name(t, i, &lens[i]);
        for (size_t i = 1; i < n; i++) {
            size_t li = lens[i];
            const char *a = names[i];
            wb_xtok_str ua = uri ? uri(t, i) : (wb_xtok_str){NULL, 0};
            for (size_t j = 0; j < i; j++) {
                if (li != lens[j] || (li && a[0] != names[j][0]) || memcmp(a, names[j], li) != 0) continue;
                if (uri) {
                    wb_xtok_str ub = uri(t, j);
                    if ((ua.ptr == NULL) != (ub.ptr == NULL) || ua.len != ub.len || (ua.len && memcmp(ua.ptr, ub.ptr, ua.len) != 0))
                        continue;
                }
                return i;
            }
        }
        return NONE;
    }
    size_t cap = 16;
    while (cap < n * 2) cap *= 2;
    t->seen = grow(t, t->seen, &t->seen_cap, cap, sizeof(uint32_t));
    for (size_t i = 0; i < cap; i++) t->seen[i] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t li;
        const char *a = name(t, i, &li);
        wb_xtok_str ua = uri ? uri(t, i) : (wb_xtok_str){NULL, 0};
        uint64_t h = keyed_hash(t, a, li);
        if (ua.ptr) h ^= SIP_ROTL(keyed_hash(t, ua.ptr, ua.len), 29) + 0x9e3779b97f4a7c15ULL;
        size_t slot = h & (cap - 1);
        for (;;) {
            uint32_t s = t->seen[slot];
            if (s == 0) {
                t->seen[slot] = (uint32_t)(i + 1);
                break;
            }
            size_t j = s - 1, lj;
            const char *b = name(t, j, &lj);
            int same = li == lj && memcmp(a, b, li) == 0;
            if (same && uri) {
                wb_xtok_str ub = uri(t, j);
                same = (ua.ptr == NULL) == (ub.ptr == NULL) && ua.len == ub.len && (ua.len == 0 || memcmp(ua.ptr, ub.ptr, ua.len) == 0);
            }
            if (same) return i;
            slot = (slot + 1) & (cap - 1);
        }
    }
    return NONE;
}

static const char *raw_qname_at(const wb_xtok *t, size_t i, size_t *len)
{
    *len = t->raw[i].name_len;
    return raw_name(t, &t->raw[i]);
}

static const char *attr_local_at(const wb_xtok *t, size_t i, size_t *len)
{
    *len = t->attrs[i].local.len;
    return t->attrs[i].local.ptr;
}

static wb_xtok_str attr_uri_at(const wb_xtok *t, size_t i)
{
    return t->attrs[i].uri;
}

/* declare_namespace: errors at the end of the tag (pos). */
static void declare_namespace(wb_xtok *t, const char *name, size_t nlen, const char *uri, size_t ulen)
{
    int xml_ns = ulen == sizeof(XML_NS) - 1 && memcmp(uri, XML_NS, ulen) == 0;
    int xmlns_ns = ulen == sizeof(XMLNS_NS) - 1 && memcmp(uri, XMLNS_NS, ulen) == 0;
    long long at = ABS(t, t->pos);
    if (t->ns_count - 1 >= t->max_namespaces) fail(t, WB_XTOK_LIMIT_ERROR, at, LIMIT_NAMESPACES, t->max_namespaces);
    if (nlen == 5) {
        if (xml_ns || xmlns_ns) fail(t, WB_XTOK_PARSE_ERROR, at, "the default namespace cannot be bound to %.*s", NAMEF(ulen), uri);
        ns_push(t, "", 0, uri, ulen, ulen == 0);
        return;
    }
    if (!is_qname(name, nlen)) fail(t, WB_XTOK_PARSE_ERROR, at, "attribute name '%.*s' " NOT_QNAME, NAMEF(nlen), name);
    const char *prefix = name + 6;
    size_t plen = nlen - 6;
    if (plen == 5 && memcmp(prefix, "xmlns", 5) == 0) fail(t, WB_XTOK_PARSE_ERROR, at, "the prefix 'xmlns' cannot be declared");
    if (plen == 3 && memcmp(prefix, "xml", 3) == 0) {
        if (!xml_ns) fail(t, WB_XTOK_PARSE_ERROR, at, "the prefix 'xml' can only be bound to %s", XML_NS);
    } else if (xml_ns || xmlns_ns) {
        fail(t, WB_XTOK_PARSE_ERROR, at, "%.*s can only be bound to its reserved prefix", NAMEF(ulen), uri);
    }
    if (ulen == 0)
        fail(t, WB_XTOK_PARSE_ERROR, at, "namespace prefix '%.*s' cannot be undeclared (xmlns:%.*s=\"\") in XML 1.0", NAMEF(plen), prefix,
             NAMEF(plen), prefix);
    ns_push(t, prefix, plen, uri, ulen, 0);
}

/* process_attributes + resolve_attributes: checks the raw attributes, applies
 * namespace declarations, resolves prefixes into t->attrs. Returns their count. */
static size_t process_attributes(wb_xtok *t)
{
    size_t n = t->raw_count;
    long long at = ABS(t, t->pos);
    if (n > t->max_attributes) fail(t, WB_XTOK_LIMIT_ERROR, t->tok, LIMIT_ATTRIBUTES, t->max_attributes);
    if (n > 1) {
        size_t dup = first_duplicate(t, n, raw_qname_at, NULL);
        if (dup != NONE) {
            wb_xtok_raw *r = &t->raw[dup];
            fail(t, WB_XTOK_PARSE_ERROR, at, "attribute '%.*s' appears twice in one start tag", NAMEF(r->name_len), raw_name(t, r));
        }
    }
    for (size_t i = 0; i < n; i++) {
        wb_xtok_raw *r = &t->raw[i];
        if (is_xmlns(raw_name(t, r), r->name_len)) declare_namespace(t, raw_name(t, r), r->name_len, raw_value(t, r), r->value_len);
    }
    t->attrs = grow(t, t->attrs, &t->attrs_cap, n ? n : 1, sizeof(wb_xtok_attr));
    size_t k = 0;
    int prefixed = 0; /* without a prefixed attribute, the qname check above already found any repeat */
    for (size_t i = 0; i < n; i++) {
        wb_xtok_raw *r = &t->raw[i];
        const char *name = raw_name(t, r);
        if (is_xmlns(name, r->name_len)) continue;
        wb_xtok_attr *a = &t->attrs[k++];
        a->value.ptr = raw_value(t, r);
        a->value.len = r->value_len;
        a->qname.ptr = name;
        a->qname.len = r->name_len;
        size_t colon = r->prefix_end != NONE ? r->prefix_end : wb_xtok_prefix_end(name, r->name_len);
        if (r->prefix_end == NONE && !is_qname(name, r->name_len))
            fail(t, WB_XTOK_PARSE_ERROR, at, "attribute name '%.*s' " NOT_QNAME, NAMEF(r->name_len), name);
        if (colon) {
            prefixed = 1;
            size_t b = ns_lookup(t, name, colon - 1);
            if (b == NONE)
                fail(t, WB_XTOK_PARSE_ERROR, at, "namespace prefix '%.*s' of attribute '%.*s' is not declared", NAMEF(colon - 1), name,
                     NAMEF(r->name_len), name);
            a->local.ptr = name + colon;
            a->local.len = r->name_len - colon;
            a->uri = ns_uri(t, b);
        } else {
            a->local.ptr = name;
            a->local.len = r->name_len;
            a->uri.ptr = NULL;
            a->uri.len = 0;
        }
    }
    if (k > 1 && prefixed) {
        size_t dup = first_duplicate(t, k, attr_local_at, attr_uri_at);
        if (dup != NONE) {
            wb_xtok_attr *a = &t->attrs[dup];
            fail(t, WB_XTOK_PARSE_ERROR, at, "attribute '%.*s' appears twice in the namespace %.*s", NAMEF(a->local.len), a->local.ptr,
                 NAMEF(a->uri.len), a->uri.ptr ? a->uri.ptr : "");
        }
    }
    return k;
}

/* open_element: the tag is read (pos is past it, raw holds its attributes);
 * applies declarations and checks, then reports the element. */
/* A depth error points at the tag's start (t->tok), as pure's does. prefix_end:
 * wb_xtok_prefix_end of the name when the fast path found it, NONE otherwise. */
static void open_element(wb_xtok *t, size_t q, size_t qlen, size_t prefix_end, int kind, size_t text, size_t text_len)
{
    size_t saved_count = t->ns_count, saved_bytes = t->ns_bytes.len;
    size_t nattrs = t->raw_count ? process_attributes(t) : 0;
    const char *qname = t->buf + q;
    long long at = ABS(t, t->pos);
    long long deep_at = t->tok;
    wb_xtok_str local, uri;
    size_t colon = prefix_end != NONE ? prefix_end : wb_xtok_prefix_end(qname, qlen);
    if (prefix_end == NONE && !is_qname(qname, qlen))
        fail(t, WB_XTOK_PARSE_ERROR, at, "element name <%.*s> " NOT_QNAME, NAMEF(qlen), qname);
    if (colon) {
        size_t b = ns_lookup(t, qname, colon - 1);
        int xmlns = colon - 1 == 5 && memcmp(qname, "xmlns", 5) == 0;
        if (b == NONE || xmlns) {
            if (xmlns) fail(t, WB_XTOK_PARSE_ERROR, at, "element names must not use the prefix 'xmlns'");
            fail(t, WB_XTOK_PARSE_ERROR, at, "namespace prefix '%.*s' of element <%.*s> is not declared", NAMEF(colon - 1), qname,
                 NAMEF(qlen), qname);
        }
        local.ptr = qname + colon;
        local.len = qlen - colon;
        uri = ns_uri(t, b);
    } else {
        local.ptr = qname;
        local.len = qlen;
        uri = ns_uri(t, ns_lookup(t, "", 0));
    }
    t->tag_qname.ptr = qname;
    t->tag_qname.len = qlen;
    t->tag_ns = saved_count;
    if (kind != EL_START) {
        if (t->depth >= t->max_depth) fail(t, WB_XTOK_LIMIT_ERROR, deep_at, LIMIT_DEPTH, t->max_depth);
        wb_xtok_str s = {"", 0};
        if (kind == EL_LEAF) {
            s.ptr = t->buf + text;
            s.len = text_len;
        }
        t->h->on_leaf(t->ctx, local, uri, t->attrs, nattrs, s);
        ns_restore(t, saved_count, saved_bytes);
        return;
    }
    t->names = grow(t, t->names, &t->names_cap, t->depth + 1, sizeof(wb_xtok_name));
    wb_xtok_name *e = &t->names[t->depth];
    e->off = t->name_bytes.len;
    e->len = qlen;
    e->ns_count = saved_count;
    e->ns_bytes = saved_bytes;
    bytes_append(t, &t->name_bytes, qname, qlen);
    t->depth++;
    if (t->depth > t->max_depth) fail(t, WB_XTOK_LIMIT_ERROR, deep_at, LIMIT_DEPTH, t->max_depth);
    /* The qname was copied: the names stack may have grown, the window has not. */
    t->tag_qname.ptr = t->name_bytes.ptr + e->off;
    t->h->on_start(t->ctx, local, uri, t->attrs, nattrs);
}

/* close_element: errors at the end tag's start. */
static void close_element(wb_xtok *t, size_t n, size_t nlen)
{
    const char *name = t->buf + n;
    if (t->depth == 0) fail(t, WB_XTOK_PARSE_ERROR, t->tok, "unexpected end tag </%.*s>", NAMEF(nlen), name);
    wb_xtok_name *e = &t->names[t->depth - 1];
    const char *expected = t->name_bytes.ptr + e->off;
    if (e->len != nlen || memcmp(expected, name, nlen) != 0)
        fail(t, WB_XTOK_PARSE_ERROR, t->tok, "expected </%.*s>, found </%.*s>", NAMEF(e->len), expected, NAMEF(nlen), name);
    /* The element's own declarations are still in force during on_end. */
    t->h->on_end(t->ctx);
    e = &t->names[t->depth - 1];
    ns_restore(t, e->ns_count, e->ns_bytes);
    t->depth--;
    t->name_bytes.len = e->off;
}

/* ---- references ----------------------------------------------------------------- */

typedef struct ref_match {
    int hex;               /* 1 hex char ref, 0 decimal, -1 entity */
    size_t name, name_len; /* digits or entity name, offsets from '&' */
    size_t end;            /* past ';' */
} ref_match;

/* CHAR_REF or ENTITY_REF at p[0, n) (p[0] == '&'). final: the end of p is the end
 * of the text (an attribute value), so "cut short" is a mismatch. */
static int match_ref(const unsigned char *p, size_t n, int final, ref_match *m)
{
    int need = final ? M_FAIL : M_NEED;
    if (n < 2) return need;
    if (p[1] == '#') {
        if (n < 3) return need;
        size_t i = 2;
        if (xtok_is_digit(p[2])) {
            while (i < n && xtok_is_digit(p[i])) i++;
            if (i == n) return need;
            if (p[i] != ';') return M_FAIL;
            m->hex = 0;
            m->name = 2;
            m->name_len = i - 2;
            m->end = i + 1;
            return M_OK;
        }
        if (p[2] != 'x') return M_FAIL;
        i = 3;
        if (i == n) return need;
        if (!is_hex(p[3])) return M_FAIL;
        while (i < n && is_hex(p[i])) i++;
        if (i == n) return need;
        if (p[i] != ';') return M_FAIL;
        m->hex = 1;
        m->name = 3;
        m->name_len = i - 3;
        m->end = i + 1;
        return M_OK;
    }
    int cut, wide = 0;
    size_t e = scan_name(p, 1, n, 1, &cut, &wide);
    if (cut) return need;
    if (e == 1 || p[e] != ';') return M_FAIL;
    m->hex = -1;
    m->name = 1;
    m->name_len = e - 1;
    m->end = e + 1;
    return M_OK;
}

/* char_from_ref: the character's UTF-8 in out (4 bytes); 0 when it is not an XML Char. */
static size_t char_from_ref(const unsigned char *digits, size_t n, int hex, char *out)
{
    uint32_t code = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = digits[i];
        unsigned d = hex ? (xtok_is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10) : c - '0';
        code = code * (hex ? 16 : 10) + d;
        if (code > 0x10FFFF) return 0;
    }
    if (!xml_char(code)) return 0;
    return put_utf8(out, code);
}

static const char *predefined(const unsigned char *name, size_t n)
{
    if (n == 2 && name[1] == 't') return name[0] == 'l' ? "<" : name[0] == 'g' ? ">" : NULL;
    if (n == 3 && memcmp(name, "amp", 3) == 0) return "&";
    if (n == 4 && memcmp(name, "apos", 4) == 0) return "'";
    if (n == 4 && memcmp(name, "quot", 4) == 0) return "\"";
    return NULL;
}

static WB_XTOK_NORETURN void bad_char_ref(wb_xtok *t, long long at, const unsigned char *ref, const ref_match *m)
{
    fail(t, WB_XTOK_PARSE_ERROR, at, "character reference &#%s%.*s; is not an XML character", m->hex ? "x" : "", NAMEF(m->name_len),
         (const char *)ref + m->name);
}

/* reference_in_content: pos at '&'. */
static void reference_in_content(wb_xtok *t)
{
    ref_match m;
    for (;;) {
        int r = match_ref(UB(t) + t->pos, t->len - t->pos, 0, &m);
        if (r == M_OK) break;
        if (r == M_FAIL || !more(t, 1, 0)) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "'&' must start a character or entity reference");
    }
    const unsigned char *ref = UB(t) + t->pos;
    char out[4];
    const char *text;
    size_t len;
    if (m.hex >= 0) {
        len = char_from_ref(ref + m.name, m.name_len, m.hex, out);
        if (!len) bad_char_ref(t, t->tok, ref, &m);
        text = out;
    } else {
        text = predefined(ref + m.name, m.name_len);
        if (!text)
            fail(t, WB_XTOK_PARSE_ERROR, t->tok, "undeclared entity '%.*s' referenced", NAMEF(m.name_len), (const char *)ref + m.name);
        len = strlen(text);
    }
    t->pos += m.end;
    if (t->want_text) t->h->on_text(t->ctx, text, len);
}

/* normalize_attribute: the value buf[v, v + n) with references expanded and
 * white space characters made spaces; errors at pos (past the closing quote). */
static void normalize_value(wb_xtok *t, wb_xtok_raw *r, size_t v, size_t n)
{
    const unsigned char *b = UB(t) + v;
    size_t i = 0;
    while (i < n && b[i] != '&' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r') i++;
    r->value_len = n;
    if (i == n) {
        r->value = v;
        r->scratch = 0;
        return;
    }
    r->scratch = 1;
    r->value = t->values.len;
    bytes_reserve(t, &t->values, n);
    /* `b` stays valid: nothing below moves the window. */
    size_t start = t->values.len;
    i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && b[j] != '&' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r') j++;
        bytes_append(t, &t->values, b + i, j - i);
        if (j == n) break;
        if (b[j] != '&') {
            bytes_append(t, &t->values, " ", 1);
            i = j + 1;
            continue;
        }
        ref_match m;
        if (match_ref(b + j, n - j, 1, &m) != M_OK)
            fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "'&' must start a character or entity reference");
        if (m.hex >= 0) {
            char out[4];
            size_t len = char_from_ref(b + j + m.name, m.name_len, m.hex, out);
            if (!len) bad_char_ref(t, ABS(t, t->pos), b + j, &m);
            bytes_append(t, &t->values, out, len);
        } else {
            const char *text = predefined(b + j + m.name, m.name_len);
            if (!text)
                fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "undeclared entity '%.*s' referenced", NAMEF(m.name_len),
                     (const char *)b + j + m.name);
            bytes_append(t, &t->values, text, strlen(text));
        }
        i = j + m.end;
    }
    r->value_len = t->values.len - start;
}

/* ---- tags ------------------------------------------------------------------------- */

/* What the fast start-tag expression (START_OR_LEAF, SPACED_TAG) matched. */
typedef struct fast_tag {
    size_t name_end;
    size_t prefix_end; /* wb_xtok_prefix_end of the name, found while scanning it */
    int kind;
    size_t text, text_end;
    size_t end;
    int wide; /* a name is not ASCII: SPACED_TAG would not have matched */
} fast_tag;

/* START_OR_LEAF at buf[lt]: `<QName (S QName S? = S? "plain")* S? (/> | > (text </QName S? >)?)`,
 * attribute values without < & tab LF. final: the window's end is the end of what
 * was read, where the expression fails (a leaf part is then left out). */
static int match_start(wb_xtok *t, size_t lt, int final, fast_tag *m)
{
    const unsigned char *b = UB(t);
    size_t n = t->len;
    int need = final ? M_FAIL : M_NEED;
    int cut, wide = 0;
    size_t i = lt + 1;
    size_t e = scan_qname(b, i, n, &cut, &wide, &m->prefix_end);
    if (cut) return need;
    if (e == i) return M_FAIL;
    m->name_end = e;
    t->raw_count = 0;
    i = e;
    size_t j;
    for (;;) {
        j = i;
        while (j < n && is_ws(b[j])) j++;
        if (j == n) return need;
        if (j == i) break;
        size_t prefix_end;
        size_t k = scan_qname(b, j, n, &cut, &wide, &prefix_end);
        if (cut) return need;
        if (k == j) break;
        size_t ne = k;
        while (k < n && is_ws(b[k])) k++;
        if (k == n) return need;
        if (b[k] != '=') return M_FAIL;
        k++;
        while (k < n && is_ws(b[k])) k++;
        if (k == n) return need;
        unsigned q = b[k];
        if (q != '"' && q != '\'') return M_FAIL;
        size_t v = ++k;
        k = value_end(b, k, n, q);
        if (k == n) return need;
        if (b[k] != q) return M_FAIL;
        wb_xtok_raw *r = raw_push(t);
        r->name = j;
        r->name_len = ne - j;
        r->value = v;
        r->value_len = k - v;
        r->scratch = 0;
        r->prefix_end = prefix_end;
        i = k + 1;
    }
    m->wide = wide;
    if (b[j] == '/') {
        if (j + 1 == n) return need;
        if (b[j + 1] != '>') return M_FAIL;
        m->kind = EL_EMPTY;
        m->end = j + 2;
        return M_OK;
    }
    if (b[j] != '>') return M_FAIL;
    m->kind = EL_START;
    m->end = j + 1;
    /* The optional leaf: text without < & ], then the same name's end tag. */
    size_t k = j + 1;
    k = text_end(b, k, n);
    if (k == n) return final ? M_OK : M_NEED;
    if (b[k] != '<') return M_OK;
    size_t qlen = m->name_end - (lt + 1);
    size_t have = n - k;
    size_t want = 2 + qlen;
    size_t cmp = have < want ? have : want;
    if (cmp >= 1 && b[k] != '<') return M_OK;
    if (cmp >= 2 && b[k + 1] != '/') return M_OK;
    if (cmp > 2 && memcmp(b + k + 2, b + lt + 1, cmp - 2) != 0) return M_OK;
    if (have < want) return final ? M_OK : M_NEED;
    size_t x = k + want;
    while (x < n && is_ws(b[x])) x++;
    if (x == n) return final ? M_OK : M_NEED;
    if (b[x] != '>') return M_OK;
    m->kind = EL_LEAF;
    m->text = j + 1;
    m->text_end = k;
    m->end = x + 1;
    return M_OK;
}

/* END_TAG at buf[lt]: `</Name S? >`; qname: SPACED_TAG's ASCII QName instead. */
static int match_end(wb_xtok *t, size_t lt, int final, int qname, size_t *name_end, size_t *end)
{
    const unsigned char *b = UB(t);
    size_t n = t->len;
    int need = final ? M_FAIL : M_NEED;
    if (n - lt < 2) return need;
    if (b[lt] != '<' || b[lt + 1] != '/') return M_FAIL;
    int cut, wide = 0;
    size_t i = lt + 2;
    size_t prefix_end;
    size_t e = qname ? scan_qname(b, i, n, &cut, &wide, &prefix_end) : scan_name_inline(b, i, n, 1, &cut, &wide);
    if (cut) return need;
    if (e == i || (qname && wide)) return M_FAIL;
    size_t k = e;
    while (k < n && is_ws(b[k])) k++;
    if (k == n) return need;
    if (b[k] != '>') return M_FAIL;
    *name_end = e;
    *end = k + 1;
    return M_OK;
}

/* Runs a matcher until it decides, making more of what was already read visible
 * (never reading more input: a Ruby expression sees only its buffer). */
#define DECIDE(r, call)                 \
    do {                                \
        int final_ = 0;                 \
        for (;;) {                      \
            int final = final_;         \
            (r) = (call);               \
            if ((r) != M_NEED) break;   \
            if (!extend(t)) final_ = 1; \
        }                               \
    } while (0)

/* SPACED_TAG: the fast path while no text is wanted, blank text and a tag with
 * ASCII names in one match. Returns 1 when it took the token. */
static int spaced_tag(wb_xtok *t)
{
    size_t p = t->pos, lt = 0, name_end = 0, end = 0;
    fast_tag m;
    int r, closing = 0;
    for (int final = 0;;) {
        const unsigned char *b = UB(t);
        size_t n = t->len;
        lt = p;
        lt = ws_end(b, lt, n);
        if (lt + 1 >= n) {
            if (!final && extend(t)) continue;
            return 0;
        }
        if (b[lt] != '<') return 0;
        closing = b[lt + 1] == '/';
        r = closing ? match_end(t, lt, final, 1, &name_end, &end) : match_start(t, lt, final, &m);
        if (r == M_NEED) {
            if (!extend(t)) final = 1;
            continue;
        }
        if (r == M_FAIL || (!closing && m.wide)) return 0;
        break;
    }
    if (!closing) end = m.end;
    size_t size = end - p;
    t->pos = end;
    t->tok = ABS(t, lt);
    if (size > t->max_token_size) fail(t, WB_XTOK_LIMIT_ERROR, t->tok, LIMIT_TOKEN, t->max_token_size);
    if (closing) {
        close_element(t, lt + 2, name_end - (lt + 2));
    } else {
        open_element(t, lt + 1, m.name_end - (lt + 1), m.prefix_end, m.kind, m.text, m.text_end - m.text);
    }
    return 1;
}

static void comment(wb_xtok *t);
static void processing_instruction(wb_xtok *t);

/* cdata: pos at "<![CDATA[". */
static void cdata(wb_xtok *t)
{
    size_t at = ensure_ahead(t, 0, "]]>", 3);
    if (at == NONE) fail(t, WB_XTOK_TRUNCATED, ABS(t, t->pos), "unterminated CDATA section");
    size_t close = find(t, 9, "]]>", 3);
    if (close == NONE) close = at; /* cannot happen: "<![CDATA[" holds no "]]>" */
    if (t->want_text) t->h->on_text(t->ctx, t->buf + t->pos + 9, close - 9);
    t->pos += close + 3;
}

/* START_EXTENT: reads on until the '>' that ends the start tag at pos (outside
 * quotes), or the end of the input. */
static void start_extent(wb_xtok *t)
{
    size_t i = 1;
    unsigned quote = 0;
    for (;;) {
        const unsigned char *b = UB(t) + t->pos;
        size_t n = t->len - t->pos;
        for (; i < n; i++) {
            unsigned c = b[i];
            if (quote) {
                if (c == quote) quote = 0;
            } else if (c == '>') {
                return;
            } else if (c == '"' || c == '\'') {
                quote = c;
            }
        }
        if (!more(t, 1, 1)) return;
    }
}

/* start_tag_slow: pos at '<', and what follows is no fast-path start tag. */
static void start_tag_slow(wb_xtok *t)
{
    start_extent(t);
    const unsigned char *b = UB(t);
    size_t n = t->len;
    int cut, wide = 0;
    size_t q = t->pos + 1;
    size_t qe = scan_name(b, q, n, 1, &cut, &wide);
    if (qe == q) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, q), "expected an element name after '<'");
    size_t qlen = qe - q;
    const char *qname = t->buf + q;
    t->raw_count = 0;
    t->values.len = 0;
    size_t i = qe;
    for (;;) {
        size_t j = i;
        while (j < n && is_s(b[j])) j++;
        int had_space = j > i;
        if (j + 1 < n && b[j] == '/' && b[j + 1] == '>') {
            t->pos = j + 2;
            open_element(t, q, qlen, NONE, EL_EMPTY, 0, 0);
            return;
        }
        if (j < n && b[j] == '>') {
            t->pos = j + 1;
            open_element(t, q, qlen, NONE, EL_START, 0, 0);
            return;
        }
        size_t ne = j;
        if (had_space && j < n) ne = scan_name(b, j, n, 1, &cut, &wide);
        if (ne == j)
            fail(t, j == n ? WB_XTOK_TRUNCATED : WB_XTOK_PARSE_ERROR, ABS(t, j),
                 j == n ? "the input ends inside the start tag <%.*s>" : "expected an attribute, '>' or '/>' in the start tag <%.*s>",
                 NAMEF(qlen), qname);
        if (t->raw_count >= t->max_attributes) fail(t, WB_XTOK_LIMIT_ERROR, t->tok, LIMIT_ATTRIBUTES, t->max_attributes);
        size_t k = ne;
        while (k < n && is_s(b[k])) k++;
        if (k == n || b[k] != '=')
            fail(t, WB_XTOK_PARSE_ERROR, ABS(t, k), "expected '=' after attribute name '%.*s'", NAMEF(ne - j), t->buf + j);
        k++;
        while (k < n && is_s(b[k])) k++;
        if (k == n || (b[k] != '"' && b[k] != '\'')) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, k), "expected a quoted attribute value");
        unsigned quote = b[k];
        size_t v = ++k;
        while (k < n && b[k] != quote && b[k] != '<') k++;
        if (k == n || b[k] != quote)
            fail(t, k < n ? WB_XTOK_PARSE_ERROR : WB_XTOK_TRUNCATED, ABS(t, k),
                 k < n ? "'<' is not allowed in an attribute value" : "unterminated attribute value");
        i = k + 1;
        wb_xtok_raw *r = raw_push(t);
        r->name = j;
        r->name_len = ne - j;
        r->prefix_end = NONE;
        /* Errors in the value point past its closing quote, where Ruby's scanner is. */
        size_t saved = t->pos;
        t->pos = i;
        normalize_value(t, r, v, k - v);
        t->pos = saved;
    }
}

/* markup: tags, comments, CDATA and PIs the fast expressions did not take. */
static void markup(wb_xtok *t)
{
    ensure_bytes(t, 9);
    size_t p = t->pos;
    int c1 = p + 1 < t->len ? UB(t)[p + 1] : -1;
    if (c1 == '/') {
        if (ensure_ahead(t, 0, ">", 1) == NONE) fail(t, WB_XTOK_TRUNCATED, ABS(t, t->pos), "unterminated end tag");
        p = t->pos;
        size_t name_end, end;
        if (match_end(t, p, 1, 0, &name_end, &end) == M_OK) {
            t->pos = end;
            close_element(t, p + 2, name_end - (p + 2));
            return;
        }
        int cut, wide = 0;
        size_t e = scan_name(UB(t), p + 2, t->len, 1, &cut, &wide);
        if (e == p + 2) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p + 2), "expected an element name in the end tag");
        fail(t, WB_XTOK_PARSE_ERROR, ABS(t, e), "expected '>' to close the end tag </%.*s>", NAMEF(e - (p + 2)), t->buf + p + 2);
    } else if (c1 == '!') {
        if (starts(t, p, "<!--", 4))
            comment(t);
        else if (starts(t, p, "<![CDATA[", 9))
            cdata(t);
        else if (starts(t, p, "<!DOCTYPE", 9))
            fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p), "a DOCTYPE is only allowed before the root element");
        else
            fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p), "expected a comment or CDATA section after '<!'");
    } else if (c1 == '?') {
        processing_instruction(t);
    } else {
        start_tag_slow(t);
    }
}

/* The '<' branch of parse_content: START_OR_LEAF, END_TAG, else markup. */
static void tag(wb_xtok *t)
{
    size_t lt = t->pos;
    fast_tag m;
    int r;
    DECIDE(r, match_start(t, lt, final, &m));
    if (r == M_OK) {
        t->pos = m.end;
        open_element(t, lt + 1, m.name_end - (lt + 1), m.prefix_end, m.kind, m.text, m.text_end - m.text);
        return;
    }
    size_t name_end = 0, end = 0;
    DECIDE(r, match_end(t, lt, final, 0, &name_end, &end));
    if (r == M_OK) {
        t->pos = end;
        close_element(t, lt + 2, name_end - (lt + 2));
        return;
    }
    markup(t);
}

/* ---- comments, PIs, prolog, content, epilog ------------------------------------------- */

/* comment: pos at "<!--". */
static void comment(wb_xtok *t)
{
    size_t from = 4, at;
    for (;;) {
        at = find(t, from, "--", 2);
        if (at != NONE && at + 2 < t->len - t->pos) break;
        if (at != NONE) {
            from = at;
        } else {
            size_t avail = t->len - t->pos;
            if (avail > from + 1) from = avail - 1;
        }
        if (!more(t, 1, 1)) fail(t, WB_XTOK_TRUNCATED, ABS(t, t->pos), "unterminated comment");
    }
    if (t->buf[t->pos + at + 2] != '>') fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos + at), "'--' is not allowed inside a comment");
    t->pos += at + 3;
}

/* processing_instruction: pos at "<?". */
static void processing_instruction(wb_xtok *t)
{
    if (ensure_ahead(t, 0, "?>", 2) == NONE) fail(t, WB_XTOK_TRUNCATED, ABS(t, t->pos), "unterminated processing instruction");
    const unsigned char *b = UB(t);
    size_t n = t->len, p = t->pos;
    int cut, wide = 0;
    size_t e = scan_name(b, p + 2, n, 1, &cut, &wide);
    if (e == p + 2) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p), "a processing instruction needs a target name");
    if (e - (p + 2) == 3 && (b[p + 2] | 0x20) == 'x' && (b[p + 3] | 0x20) == 'm' && (b[p + 4] | 0x20) == 'l')
        fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p),
             ABS(t, p) == 0 ? "malformed XML declaration" : "the XML declaration is only allowed at the very start of the document");
    if (memchr(b + p + 2, ':', e - (p + 2)))
        fail(t, WB_XTOK_PARSE_ERROR, ABS(t, p), "processing instruction target '%.*s' contains a colon (Namespaces in XML 1.0)",
             NAMEF(e - (p + 2)), t->buf + p + 2);
    if (e + 1 < n && b[e] == '?' && b[e + 1] == '>') {
        t->pos = e + 2;
        return;
    }
    if (e == n || !is_s(b[e])) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, e), "expected whitespace after the processing instruction target");
    while (e < n && is_s(b[e])) e++;
    size_t close = find(t, e - p, "?>", 2);
    t->pos = close == NONE ? n : p + close + 2;
}

/* Skips blanks at b[*i]; whether there were any. */
static int ws_plus(const unsigned char *b, size_t n, size_t *i)
{
    size_t s = *i;
    while (*i < n && is_ws(b[*i])) (*i)++;
    return *i > s;
}

/* The start of the XML declaration's pseudo-attribute +name+ (+len+ bytes)
 * at b[*i]: the name, Eq (S? '=' S?) and the opening quote. Returns the
 * quote, *i past it; 0 when something else is there (*i then anywhere). */
static unsigned decl_attribute_open(const unsigned char *b, size_t n, size_t *i, const char *name, size_t len)
{
    if (n - *i < len || memcmp(b + *i, name, len) != 0) return 0;
    *i += len;
    ws_plus(b, n, i);
    if (*i >= n || b[*i] != '=') return 0;
    (*i)++;
    ws_plus(b, n, i);
    if (*i >= n || (b[*i] != '"' && b[*i] != '\'')) return 0;
    return b[(*i)++];
}

/* XML_DECL at b[0, n). Returns its length, or 0. */
static size_t match_xml_decl(const unsigned char *b, size_t n)
{
#define WS_PLUS(i) ws_plus(b, n, &(i))
    size_t i = 5; /* "<?xml" */
    if (!WS_PLUS(i)) return 0;
    unsigned q = decl_attribute_open(b, n, &i, "version", 7);
    if (!q) return 0;
    if (n - i < 3 || b[i] != '1' || b[i + 1] != '.' || !xtok_is_digit(b[i + 2])) return 0;
    i += 2;
    while (i < n && xtok_is_digit(b[i])) i++;
    if (i >= n || b[i] != q) return 0;
    i++;
    /* (S encoding=...)? */
    size_t save = i;
    unsigned eq;
    if (WS_PLUS(i) && (eq = decl_attribute_open(b, n, &i, "encoding", 8)) != 0) {
        int ok = i < n && ((b[i] | 0x20) >= 'a' && (b[i] | 0x20) <= 'z');
        if (ok) {
            i++;
            while (i < n &&
                   (((b[i] | 0x20) >= 'a' && (b[i] | 0x20) <= 'z') || xtok_is_digit(b[i]) || b[i] == '.' || b[i] == '_' || b[i] == '-'))
                i++;
            ok = i < n && b[i] == eq;
            i++;
        }
        if (!ok) i = save;
    } else {
        i = save;
    }
    /* (S standalone=...)? */
    save = i;
    unsigned sq;
    if (WS_PLUS(i) && (sq = decl_attribute_open(b, n, &i, "standalone", 10)) != 0) {
        int ok = 1;
        if (n - i >= 3 && memcmp(b + i, "yes", 3) == 0)
            i += 3;
        else if (n - i >= 2 && memcmp(b + i, "no", 2) == 0)
            i += 2;
        else
            ok = 0;
        ok = ok && i < n && b[i] == sq;
        i++;
        if (!ok) i = save;
    } else {
        i = save;
    }
    WS_PLUS(i);
    if (n - i < 2 || b[i] != '?' || b[i + 1] != '>') return 0;
    return i + 2;
#undef WS_PLUS
}

/* misc: a comment or PI at pos; 0 if something else is there. */
static int misc(wb_xtok *t)
{
    ensure_bytes(t, 4);
    t->tok = ABS(t, t->pos);
    if (starts(t, t->pos, "<!--", 4))
        comment(t);
    else if (starts(t, t->pos, "<?", 2))
        processing_instruction(t);
    else
        return 0;
    check_token_end(t);
    return 1;
}

static void skip_ws(wb_xtok *t)
{
    const unsigned char *b = UB(t);
    while (t->pos < t->len && is_ws(b[t->pos])) t->pos++;
}

static int parse_prolog(wb_xtok *t)
{
    ensure_bytes(t, 6);
    if (starts(t, t->pos, "<?xml", 5) && t->len - t->pos >= 6 && is_ws(UB(t)[t->pos + 5])) {
        ensure_ahead(t, 0, "?>", 2);
        t->tok = ABS(t, t->pos);
        size_t n = match_xml_decl(UB(t) + t->pos, t->len - t->pos);
        if (!n) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "malformed XML declaration");
        t->pos += n;
    }
    for (;;) {
        skip_ws(t);
        if (t->pos == t->len) {
            if (more(t, 1, 0)) continue;
            fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "the document has no root element");
        }
        ensure_bytes(t, 9);
        if (starts(t, t->pos, "<!DOCTYPE", 9)) {
            if (t->reject_dtd) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "a DOCTYPE is not allowed (dtd: :reject)");
            return WB_XTOK_DOCTYPE;
        }
        if (!misc(t)) break;
    }
    if (UB(t)[t->pos] != '<') fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "expected the root element");
    return WB_XTOK_DONE;
}

/* A run of character data (no < & ]). */
static void text_run(wb_xtok *t)
{
    const unsigned char *b = UB(t);
    size_t p = t->pos, n = t->len, e = p;
    e = text_end(b, e, n);
    t->pos = e;
    if (t->want_text) t->h->on_text(t->ctx, t->buf + p, e - p);
}

static void parse_content(wb_xtok *t)
{
    for (;;) {
        settle(t);
        t->tok = ABS(t, t->pos);
        if (!t->want_text && spaced_tag(t)) {
            if (t->depth == 0) return;
            continue;
        }
        if (t->pos == t->len) {
            if (!more(t, 1, 0)) {
                wb_xtok_str last = wb_xtok_name_at(t, t->depth ? t->depth - 1 : 0);
                fail(t, WB_XTOK_TRUNCATED, ABS(t, t->pos), "the input ends inside element <%.*s>", NAMEF(last.len), last.ptr);
            }
            continue;
        }
        unsigned c = UB(t)[t->pos];
        if (c == '<') {
            tag(t);
            check_token_end(t);
            if (t->depth == 0) return;
        } else if (c == '&') {
            reference_in_content(t);
        } else if (c == ']') {
            ensure_bytes(t, 3);
            if (starts(t, t->pos, "]]>", 3)) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "']]>' is not allowed in text");
            t->pos++;
            if (t->want_text) t->h->on_text(t->ctx, "]", 1);
        } else {
            text_run(t);
        }
    }
}

static void parse_epilog(wb_xtok *t)
{
    for (;;) {
        skip_ws(t);
        if (t->pos == t->len) {
            if (!more(t, 1, 0)) return;
            continue;
        }
        if (!misc(t)) fail(t, WB_XTOK_PARSE_ERROR, ABS(t, t->pos), "content after the root element");
    }
}

/* ---- lifecycle ------------------------------------------------------------------------ */

void wb_xtok_init(wb_xtok *t, const wb_xtok_handler *h, void *ctx, const wb_xtok_config *config)
{
    memset(t, 0, sizeof(*t));
    t->h = h;
    t->ctx = ctx;
    t->max_depth = config->max_depth;
    t->max_token_size = config->max_token_size;
    t->max_attributes = config->max_attributes;
    t->max_namespaces = config->max_namespaces;
    t->reject_dtd = config->reject_dtd;
    t->hash_key[0] = config->hash_key[0];
    t->hash_key[1] = config->hash_key[1];
    t->ns_default = NONE;
    t->ns_generation = 1; /* the memo's empty entries (generation 0) never match */
    t->buf = "";
}

int wb_xtok_run(wb_xtok *t)
{
    t->prolog = 1;
    ns_push(t, "xml", 3, XML_NS, sizeof(XML_NS) - 1, 0);
    more(t, 1, 0);
    if (parse_prolog(t) == WB_XTOK_DOCTYPE) return WB_XTOK_DOCTYPE;
    t->prolog = 0;
    parse_content(t);
    parse_epilog(t);
    return WB_XTOK_DONE;
}

void wb_xtok_read_so_far(const wb_xtok *t, const char **ptr, size_t *len)
{
    /* In the prolog nothing is let go: the window starts at the document's start. */
    *ptr = t->buf;
    *len = t->len;
}

void wb_xtok_free(wb_xtok *t)
{
    free(t->own.ptr);
    free(t->name_bytes.ptr);
    free(t->names);
    free(t->ns_bytes.ptr);
    free(t->ns);
    free(t->ns_slots);
    free(t->raw);
    free(t->attrs);
    free(t->values.ptr);
    free(t->seen);
    free(t->marks);
    free(t->message.ptr);
    wb_xtok_config config = {t->max_depth,      t->max_token_size, t->max_attributes,
                             t->max_namespaces, t->reject_dtd,     {t->hash_key[0], t->hash_key[1]}};
    uint64_t generation = t->ns_generation;
    wb_xtok_init(t, t->h, t->ctx, &config);
    t->ns_generation = generation + 1; /* what was remembered of the old bindings stays unmatched */
}

size_t wb_xtok_memsize(const wb_xtok *t)
{
    return t->own.cap + t->name_bytes.cap + t->names_cap * sizeof(wb_xtok_name) + t->ns_bytes.cap + t->ns_cap * sizeof(wb_xtok_ns) +
           t->ns_slots_cap * sizeof(size_t) + t->raw_cap * sizeof(wb_xtok_raw) + t->attrs_cap * sizeof(wb_xtok_attr) + t->values.cap +
           t->seen_cap * sizeof(uint32_t) + t->marks_cap * sizeof(wb_xtok_mark) + t->message.cap;
}
