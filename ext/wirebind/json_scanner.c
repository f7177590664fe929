/* The JSON scanner engine (see json_scanner.h). Every function names the Ruby
 * method of lib/wirebind/json/pure/scanner.rb it ports; their messages and
 * positions are the reference's. No Ruby here: plain C over byte buffers. */
#include "json_scanner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SCAN_AVX2 1
#endif

/* Error paths: kept out of the token readers, whose fast paths then need no
 * stack buffers (nor the stack protector's checks that come with them). */
#if defined(__GNUC__) || defined(__clang__)
#define SCAN_COLD __attribute__((noinline, cold, noreturn))
#else
#define SCAN_COLD
#endif

/* ==== byte classes ============================================================ */

static inline int scan_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* In a string: 1 ends a run of plain characters (quote, backslash, C0
 * control), 2 is a byte of a multi-byte character. */
static const unsigned char SCAN_STRING_CLASS[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/* Scanner::NUMBER_RUN: [-+0-9.eE] */
static inline int scan_is_number_char(int c)
{
    return scan_is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

#define SCAN_ONES 0x0101010101010101ULL
#define SCAN_HIGHS 0x8080808080808080ULL

/* The end of the run of plain string characters from p (a quote, backslash or
 * control byte, or len); *high is set when the run has a multi-byte character.
 * With SSE2: one 16-byte step (where short strings and keys end), then, where
 * the CPU has AVX2, 64 bytes per step up to the step that holds the end; then
 * 32 bytes per step while none of them ends the run, the multi-byte test
 * folded into one OR per step and read once at the end; then eight bytes
 * (SWAR) and single bytes for the tail, or everywhere without SSE2. */
#if defined(__SSE2__)
/* The bytes of v that end a run, as a bit mask. The stop set is the byte
 * loop's: '"', '\\' and bytes below 0x20 (max_epu8(v, 0x1F) == 0x1F). */
static inline unsigned scan_plain_stops(__m128i v)
{
    const __m128i control_max = _mm_set1_epi8(0x1F);
    __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
    __m128i quotes = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(quotes, control));
}

/* The end of the run at the first stop of v (v's bytes from p), the
 * multi-byte bytes before it added to *high. */
static inline size_t scan_plain_stop_at(__m128i v, unsigned stop, size_t p, int *high)
{
    unsigned n = (unsigned)__builtin_ctz(stop);
    if ((unsigned)_mm_movemask_epi8(v) & ((1u << n) - 1)) *high = 1;
    return p + n;
}
#endif

#if defined(SCAN_AVX2)
/* Long runs where the CPU has AVX2 (asked once): 64 bytes per step while none
 * of them ends the run. Returns where a step would have stopped (or fewer than
 * 64 bytes remain), the multi-byte bytes before it added to *high; the SSE2
 * steps find the exact end from there. */
__attribute__((target("avx2"))) static size_t scan_plain_skip_avx2(const unsigned char *buf, size_t p, size_t len, int *high)
{
    const __m256i control_max = _mm256_set1_epi8(0x1F);
    const __m256i quote = _mm256_set1_epi8('"');
    const __m256i backslash = _mm256_set1_epi8('\\');
    __m256i highs = _mm256_setzero_si256();
    while (len - p >= 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(buf + p));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(buf + p + 32));
        /* a control byte in a or b: the bytewise minimum is one */
        __m256i low = _mm256_min_epu8(a, b);
        __m256i stops = _mm256_cmpeq_epi8(_mm256_max_epu8(low, control_max), control_max);
        stops = _mm256_or_si256(stops, _mm256_or_si256(_mm256_cmpeq_epi8(a, quote), _mm256_cmpeq_epi8(a, backslash)));
        stops = _mm256_or_si256(stops, _mm256_or_si256(_mm256_cmpeq_epi8(b, quote), _mm256_cmpeq_epi8(b, backslash)));
        if (!_mm256_testz_si256(stops, stops)) break;
        highs = _mm256_or_si256(highs, _mm256_or_si256(a, b));
        p += 64;
    }
    if (_mm256_movemask_epi8(highs)) *high = 1;
    return p;
}

/* 1 when the CPU runs AVX2, 0 when not, -1 before the first string asks. */
static int scan_avx2_state = -1;

static int scan_has_avx2(void)
{
    if (scan_avx2_state < 0) scan_avx2_state = __builtin_cpu_supports("avx2") ? 1 : 0;
    return scan_avx2_state;
}
#endif

static inline size_t scan_plain_run(const unsigned char *buf, size_t p, size_t len, int *high)
{
#if defined(__SSE2__)
    if (len - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
        unsigned stop = scan_plain_stops(v);
        if (stop) return scan_plain_stop_at(v, stop, p, high);
        __m128i highs = v; /* bit 7 of any byte: a multi-byte character */
        p += 16;
#if defined(SCAN_AVX2)
        if (len - p >= 64 && scan_has_avx2()) p = scan_plain_skip_avx2(buf, p, len, high);
#endif
        while (len - p >= 32) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(buf + p + 16));
            unsigned stop_a = scan_plain_stops(a);
            unsigned stop_b = scan_plain_stops(b);
            if (stop_a | stop_b) {
                if (_mm_movemask_epi8(highs)) *high = 1;
                if (stop_a) return scan_plain_stop_at(a, stop_a, p, high);
                if (_mm_movemask_epi8(a)) *high = 1;
                return scan_plain_stop_at(b, stop_b, p + 16, high);
            }
            highs = _mm_or_si128(highs, _mm_or_si128(a, b));
            p += 32;
        }
        if (_mm_movemask_epi8(highs)) *high = 1;
        if (len - p >= 16) {
            v = _mm_loadu_si128((const __m128i *)(const void *)(buf + p));
            stop = scan_plain_stops(v);
            if (stop) return scan_plain_stop_at(v, stop, p, high);
            if (_mm_movemask_epi8(v)) *high = 1;
            p += 16;
        }
    }
#endif
    while (len - p >= 8) {
        uint64_t x;
        memcpy(&x, buf + p, 8);
        uint64_t q = x ^ (SCAN_ONES * '"');
        uint64_t b = x ^ (SCAN_ONES * '\\');
        uint64_t stop = (((q - SCAN_ONES) & ~q) | ((b - SCAN_ONES) & ~b) | ((x - SCAN_ONES * 0x20) & ~x)) & SCAN_HIGHS;
        if (stop) break;
        if (x & SCAN_HIGHS) *high = 1;
        p += 8;
    }
    while (p < len) {
        unsigned char k = SCAN_STRING_CLASS[buf[p]];
        if (k == 1) break;
        if (k) *high = 1;
        p++;
    }
    return p;
}

/* ==== positions and errors (Scanner#position, #error) ========================== */

WB_JSCAN_API void wb_jscan_locate(const wb_jscan *s, size_t p, long *line, long *column, long long *offset)
{
    if (p > s->len) p = s->len;
    long lines = 0;
    size_t from = 0;
    for (size_t i = 0; i < p; i++) {
        if (s->buf[i] == '\n') {
            lines++;
            from = i + 1;
        }
    }
    long chars = 0;
    for (size_t i = from; i < p; i++) chars += (s->buf[i] & 0xC0) != 0x80;
    *line = s->base_lines + lines + 1;
    *column = lines ? chars + 1 : s->base_column + chars + 1;
    *offset = s->base_offset + (long long)p;
}

WB_JSCAN_API void wb_jscan_fail(wb_jscan *s, int kind, size_t p, const char *message, int quote, const char *subject, size_t subject_len,
                                const char *suffix)
{
    wb_jscan_error e;
    e.kind = kind;
    e.message = message;
    e.quote = quote;
    e.subject = subject;
    e.subject_len = subject_len;
    e.suffix = suffix ? suffix : "";
    wb_jscan_locate(s, p, &e.line, &e.column, &e.offset);
    s->h->error(s->ctx, &e);
    abort(); /* the handler broke its contract */
}

#define SCAN_PARSE_ERROR(s, message, p) wb_jscan_fail((s), WB_JSCAN_PARSE_ERROR, (p), (message), WB_JSCAN_QUOTE_NONE, NULL, 0, NULL)
#define SCAN_TRUNCATED(s, message, p) wb_jscan_fail((s), WB_JSCAN_TRUNCATED, (p), (message), WB_JSCAN_QUOTE_NONE, NULL, 0, NULL)
#define SCAN_LIMIT_ERROR(s, message, p) wb_jscan_fail((s), WB_JSCAN_LIMIT_ERROR, (p), (message), WB_JSCAN_QUOTE_NONE, NULL, 0, NULL)

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
static void
scan_no_memory(wb_jscan *s)
{
    wb_jscan_fail(s, WB_JSCAN_NO_MEMORY, s->pos, "failed to allocate memory", WB_JSCAN_QUOTE_NONE, NULL, 0, NULL);
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
static void
scan_size_error(wb_jscan *s, const char *what, size_t p)
{
    char text[96];
    snprintf(text, sizeof(text), "a %s is larger than max_token_size (%zu bytes)", what, s->max_token_size);
    SCAN_LIMIT_ERROR(s, text, p);
}

/* Scanner#describe_byte's input: the (up to) 4 bytes at the scan position. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn))
#endif
static void
scan_unexpected(wb_jscan *s, const char *before)
{
    size_t n = s->pos < s->len ? s->len - s->pos : 0;
    if (n > 4) n = 4;
    wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, before, WB_JSCAN_QUOTE_CHAR, (const char *)s->buf + s->pos, n, NULL);
}

/* ==== buffers ===================================================================== */

static void scan_bytes_reserve(wb_jscan *s, wb_jscan_bytes *b, size_t extra)
{
    if (b->cap - b->len >= extra) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > ((size_t)-1) / 2) scan_no_memory(s);
        cap *= 2;
    }
    char *ptr = realloc(b->ptr, cap);
    if (!ptr) scan_no_memory(s);
    b->ptr = ptr;
    b->cap = cap;
}

static inline void scan_bytes_append(wb_jscan *s, wb_jscan_bytes *b, const void *p, size_t n)
{
    if (n == 0) return;
    scan_bytes_reserve(s, b, n);
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

static void scan_own_reserve(wb_jscan *s, size_t need)
{
    if (need <= s->own_cap) return;
    size_t cap = s->own_cap ? s->own_cap : 128 * 1024;
    while (cap < need) {
        if (cap > ((size_t)-1) / 2) scan_no_memory(s);
        cap *= 2;
    }
    char *own = realloc(s->own, cap);
    if (!own) scan_no_memory(s);
    /* The window may be own: it moved with it. */
    if (s->buf == (const unsigned char *)s->own) s->buf = (const unsigned char *)own;
    s->own = own;
    s->own_cap = cap;
}

/* ==== lifecycle ===================================================================== */

WB_JSCAN_API void wb_jscan_init(wb_jscan *s, const wb_jscan_handler *h, void *ctx, size_t max_token_size, size_t max_number_length)
{
    memset(s, 0, sizeof(*s));
    s->h = h;
    s->ctx = ctx;
    s->buf = (const unsigned char *)"";
    s->pin = WB_JSCAN_NONE;
    s->max_token_size = max_token_size;
    s->max_number_length = max_number_length;
}

WB_JSCAN_API void wb_jscan_free(wb_jscan *s)
{
    free(s->own);
    s->own = NULL;
    s->own_cap = 0;
    s->buf = (const unsigned char *)"";
    s->len = s->pos = 0;
    wb_jscan_bytes *all[] = {&s->str, &s->key, &s->message};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        free(all[i]->ptr);
        all[i]->ptr = NULL;
        all[i]->cap = all[i]->len = 0;
    }
}

WB_JSCAN_API size_t wb_jscan_memsize(const wb_jscan *s)
{
    return s->own_cap + s->str.cap + s->key.cap + s->message.cap;
}

/* ==== input (Scanner#refill, #ensure_bytes) ======================================== */

/* Counts what is let go of the window, for positions. */
static void scan_discard(wb_jscan *s, size_t n)
{
    if (n == 0) return;
    const unsigned char *p = s->buf;
    size_t from = 0;
    long lines = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            lines++;
            from = i + 1;
        }
    }
    long chars = 0;
    for (size_t i = from; i < n; i++) chars += (p[i] & 0xC0) != 0x80;
    s->base_lines += lines;
    s->base_column = lines ? chars : s->base_column + chars;
    s->base_offset += (long long)n;
}

WB_JSCAN_API int wb_jscan_refill(wb_jscan *s)
{
    if (s->eof) return 0;
    const char *ptr;
    size_t n;
    /* Read first: at the end of the input the window stays as it is, and
     * nothing of it is counted or copied (the old chunk is still valid: see
     * wb_jscan_handler.read). */
    if (!s->h->read(s->ctx, &ptr, &n)) {
        s->eof = 1;
        return 0;
    }
    size_t keep = s->pin != WB_JSCAN_NONE ? s->pin : s->pos;
    if (keep > s->len) keep = s->len;
    scan_discard(s, keep);
    size_t rest = s->len - keep;
    if (rest == 0) {
        s->buf = (const unsigned char *)ptr;
        s->len = n;
    } else {
        if (s->buf == (const unsigned char *)s->own) {
            if (keep) memmove(s->own, s->own + keep, rest); /* else the bytes are in place already */
        } else {
            /* The window is the old chunk, still valid while this copies. */
            scan_own_reserve(s, rest);
            memcpy(s->own, s->buf + keep, rest);
            s->buf = (const unsigned char *)s->own;
        }
        if (n > ((size_t)-1) - rest) scan_no_memory(s);
        scan_own_reserve(s, rest + n);
        memcpy(s->own + rest, ptr, n);
        s->buf = (const unsigned char *)s->own;
        s->len = rest + n;
    }
    s->pos -= keep;
    if (s->pin != WB_JSCAN_NONE) s->pin -= keep;
    return 1;
}

WB_JSCAN_API int wb_jscan_ensure_bytes(wb_jscan *s, size_t count)
{
    while (s->len - s->pos < count) {
        if (!wb_jscan_refill(s)) return 0;
    }
    return 1;
}

/* ==== tokens (Scanner#read_string, #escape, #read_number, #read_literal) ======== */

static inline char scan_simple_escape(int letter)
{
    switch (letter) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

static int scan_hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Scanner#hex_escape: the code unit of the \uXXXX escape `ahead` bytes after the scan position. */
static long scan_hex_escape(wb_jscan *s, size_t ahead)
{
    if (!wb_jscan_ensure_bytes(s, ahead + 6)) SCAN_TRUNCATED(s, "the input ends inside a string", s->pin);
    size_t at = s->pos + ahead;
    long code = 0;
    for (int i = 2; i < 6; i++) {
        int h = scan_hex_digit(s->buf[at + (size_t)i]);
        if (h < 0) SCAN_PARSE_ERROR(s, "\\u must be followed by four hexadecimal digits", at);
        code = code * 16 + h;
    }
    return code;
}

static void scan_append_utf8(wb_jscan *s, wb_jscan_bytes *out, long code)
{
    unsigned char u[4];
    size_t n;
    if (code < 0x80) {
        u[0] = (unsigned char)code;
        n = 1;
    } else if (code < 0x800) {
        u[0] = (unsigned char)(0xC0 | (code >> 6));
        u[1] = (unsigned char)(0x80 | (code & 0x3F));
        n = 2;
    } else if (code < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (code >> 12));
        u[1] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (code & 0x3F));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xF0 | (code >> 18));
        u[1] = (unsigned char)(0x80 | ((code >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        u[3] = (unsigned char)(0x80 | (code & 0x3F));
        n = 4;
    }
    scan_bytes_append(s, out, u, n);
}

/* Scanner#escape: the escape at the scan position (a backslash) into out (NULL: check only). */
static void scan_escape(wb_jscan *s, wb_jscan_bytes *out, int *high)
{
    if (!wb_jscan_ensure_bytes(s, 2)) SCAN_TRUNCATED(s, "the input ends inside a string", s->pin);
    int letter = s->buf[s->pos + 1];
    char simple = scan_simple_escape(letter);
    if (simple) {
        if (out) scan_bytes_append(s, out, &simple, 1);
        s->pos += 2;
        return;
    }
    if (letter != 'u') {
        /* byteslice(pos + 1, 1).scrub: a byte of a multi-byte character is U+FFFD.
         * Given as a subject, since the letter may be a NUL byte. */
        const char *shown = letter >= 0x80 ? "\xEF\xBF\xBD" : (const char *)s->buf + s->pos + 1;
        wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "invalid escape '\\", WB_JSCAN_QUOTE_RAW, shown, letter >= 0x80 ? 3 : 1,
                      "' in a string");
    }
    long code = scan_hex_escape(s, 0);
    if (code >= 0xD800 && code <= 0xDBFF) {
        /* A character beyond the Basic Multilingual Plane is a pair of escapes. */
        wb_jscan_ensure_bytes(s, 8);
        long low = -1;
        if (s->len - s->pos >= 8 && s->buf[s->pos + 6] == '\\' && s->buf[s->pos + 7] == 'u') low = scan_hex_escape(s, 6);
        if (low < 0xDC00 || low > 0xDFFF) {
            char text[120];
            snprintf(text, sizeof(text), "lone surrogate \\u%04lX: a high surrogate must be followed by a \\uDC00-\\uDFFF escape", code);
            SCAN_PARSE_ERROR(s, text, s->pos);
        }
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        s->pos += 12;
    } else if (code >= 0xDC00 && code <= 0xDFFF) {
        char text[120];
        snprintf(text, sizeof(text), "lone surrogate \\u%04lX: a low surrogate must follow a \\uD800-\\uDBFF escape", code);
        SCAN_PARSE_ERROR(s, text, s->pos);
    } else {
        s->pos += 6;
    }
    if (code >= 0x80) *high = 1;
    if (out) scan_append_utf8(s, out, code);
}

SCAN_COLD static void scan_control_error(wb_jscan *s, int c, size_t p)
{
    char text[64];
    snprintf(text, sizeof(text), "control character U+%04X must be escaped in a string", c);
    SCAN_PARSE_ERROR(s, text, p);
}

WB_JSCAN_API const char *wb_jscan_read_string(wb_jscan *s, wb_jscan_bytes *out, size_t *len, int *high, size_t *start)
{
    s->pin = s->pos;
    size_t p = s->pos + 1;
    int escaped = 0;
    *high = 0;
    for (;;) {
        size_t run = p;
        p = scan_plain_run(s->buf, p, s->len, high);
        if (out && escaped) scan_bytes_append(s, out, s->buf + run, p - run);
        if (p - s->pin > s->max_token_size) scan_size_error(s, "string", s->pin);
        if (p == s->len) {
            s->pos = p;
            if (!wb_jscan_refill(s)) SCAN_TRUNCATED(s, "the input ends inside a string", s->pin);
            p = s->pos;
            continue;
        }
        int c = s->buf[p];
        if (c == '"') {
            p++;
            if (p - s->pin > s->max_token_size) scan_size_error(s, "string", s->pin);
            size_t from = s->pin;
            s->pos = p;
            s->pin = WB_JSCAN_NONE;
            *start = from;
            if (!out) return NULL;
            if (escaped) {
                *len = out->len;
                return out->ptr ? out->ptr : "";
            }
            *len = p - from - 2;
            return (const char *)s->buf + from + 1;
        }
        s->pos = p;
        if (c == '\\') {
            if (out && !escaped) {
                escaped = 1;
                out->len = 0;
                scan_bytes_append(s, out, s->buf + s->pin + 1, p - s->pin - 1);
            }
            scan_escape(s, out, high);
            p = s->pos;
            continue;
        }
        scan_control_error(s, c, p);
    }
}

/* The end of what Scanner::NUMBER_GRAMMAR, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?,
 * matches from p[i] (greedily, within p[0, n)); WB_JSCAN_NONE when nothing does. */
static inline size_t scan_number_grammar_end(const unsigned char *p, size_t i, size_t n)
{
    if (i < n && p[i] == '-') i++;
    if (i >= n) return WB_JSCAN_NONE;
    if (p[i] == '0') {
        i++;
    } else if (p[i] >= '1' && p[i] <= '9') {
        do i++;
        while (i < n && scan_is_digit(p[i]));
    } else {
        return WB_JSCAN_NONE;
    }
    if (i < n && p[i] == '.') {
        size_t f = ++i;
        while (i < n && scan_is_digit(p[i])) i++;
        if (i == f) return WB_JSCAN_NONE;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-')) i++;
        size_t e = i;
        while (i < n && scan_is_digit(p[i])) i++;
        if (i == e) return WB_JSCAN_NONE;
    }
    return i;
}

int wb_jscan_number_grammar(const unsigned char *p, size_t n)
{
    return scan_number_grammar_end(p, 0, n) == n;
}

SCAN_COLD static void scan_number_length_error(wb_jscan *s, size_t from)
{
    char text[96];
    snprintf(text, sizeof(text), "a number is longer than max_number_length (%zu characters)", s->max_number_length);
    SCAN_LIMIT_ERROR(s, text, from);
}

/* Scanner#number_excerpt: number characters are ASCII. */
SCAN_COLD static void scan_number_error(wb_jscan *s, size_t from, size_t n)
{
    char text[128];
    if (n <= 60) {
        snprintf(text, sizeof(text), "invalid number %.*s", (int)n, (const char *)s->buf + from);
    } else {
        snprintf(text, sizeof(text), "invalid number %.60s... (%zu characters)", (const char *)s->buf + from, n);
    }
    SCAN_PARSE_ERROR(s, text, from);
}

/* The end of the number at i when all of it lies in the window, matches the
 * grammar and is followed by a byte that is not a number character (so the
 * reference's maximal run is this number); 0 otherwise, and the caller takes
 * the general path, which refills, measures and words the errors. One pass
 * over the bytes instead of the run, then the grammar. */
static inline size_t scan_number_end(const unsigned char *b, size_t i, size_t len)
{
    size_t end = scan_number_grammar_end(b, i, len);
    if (end == WB_JSCAN_NONE || end >= len || scan_is_number_char(b[end])) return 0;
    return end;
}

WB_JSCAN_API size_t wb_jscan_read_number(wb_jscan *s, size_t *length)
{
    size_t from = s->pos;
    size_t end = scan_number_end(s->buf, from, s->len);
    if (end && end - from <= s->max_number_length && end - from <= s->max_token_size) {
        s->pos = end;
        *length = end - from;
        return from;
    }
    s->pin = s->pos;
    size_t n;
    for (;;) {
        from = s->pin;
        n = 0;
        while (from + n < s->len && scan_is_number_char(s->buf[from + n])) n++;
        if (!(from + n == s->len && !s->eof)) break;
        if (n > s->max_number_length) break;
        s->pos = from;
        wb_jscan_refill(s);
    }
    from = s->pin;
    if (n > s->max_number_length) scan_number_length_error(s, from);
    if (n > s->max_token_size) scan_size_error(s, "number", from);
    if (!wb_jscan_number_grammar(s->buf + from, n)) scan_number_error(s, from, n);
    s->pos = from + n;
    s->pin = WB_JSCAN_NONE;
    *length = n;
    return from;
}

SCAN_COLD static void scan_literal_error(wb_jscan *s, const char *word, size_t n, size_t have)
{
    char expected[32];
    snprintf(expected, sizeof(expected), " (expected %s)", word);
    if (s->eof && have < n) {
        char text[64];
        snprintf(text, sizeof(text), "the input ends inside a literal%s", expected);
        SCAN_TRUNCATED(s, text, s->pos);
    }
    wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "invalid literal ", WB_JSCAN_QUOTE_EXCERPT, (const char *)s->buf + s->pos,
                  have < n ? have : n, expected);
}

WB_JSCAN_API void wb_jscan_read_literal(wb_jscan *s, const char *word, size_t n)
{
    if (s->len - s->pos >= n && memcmp(s->buf + s->pos, word, n) == 0) {
        s->pos += n;
        return;
    }
    wb_jscan_ensure_bytes(s, n);
    size_t have = s->len - s->pos;
    if (have >= n && memcmp(s->buf + s->pos, word, n) == 0) {
        s->pos += n;
        return;
    }
    scan_literal_error(s, word, n, have);
}

/* Whether whitespace, ':' and whitespace then a byte of something else all lie
 * in the window from the scan position: read_key then refills nothing. */
static int scan_separator_in_window(const wb_jscan *s)
{
    size_t i = s->pos;
    while (i < s->len && wb_jscan_is_ws(s->buf[i])) i++;
    if (i >= s->len || s->buf[i] != ':') return 0;
    i++;
    while (i < s->len && wb_jscan_is_ws(s->buf[i])) i++;
    return i < s->len;
}

/* Scanner#read_key: the key whose quote is at the scan position, the ':' and
 * the whitespace after it. The key's bytes stay valid until the next refill. */
static void scan_read_key(wb_jscan *s, const char **key, size_t *key_len)
{
#if defined(__SSE2__)
    /* A compact key of up to 15 plain bytes, its ':' and a value byte, all in
     * the window: one 16-byte step finds them (the general path below finds
     * the same, and words every error). */
    size_t from = s->pos + 1;
    if (s->len - from >= 18) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s->buf + from));
        unsigned stop = scan_plain_stops(v);
        if (stop) {
            size_t n = (size_t)__builtin_ctz(stop);
            const unsigned char *end = s->buf + from + n;
            if (end[0] == '"' && end[1] == ':' && !wb_jscan_is_ws(end[2]) && n + 2 <= s->max_token_size) {
                *key = (const char *)s->buf + from;
                *key_len = n;
                s->pos = from + n + 2;
                return;
            }
        }
    }
#endif
    size_t len, start;
    int high;
    const char *k = wb_jscan_read_string(s, &s->key, &len, &high, &start);
    int in_window = k != s->key.ptr;
    /* Compact JSON: the ':' right after the key and a value byte after it,
     * all in the window (the slow path below finds the same). */
    if (in_window && s->len - s->pos >= 2 && s->buf[s->pos] == ':' && !wb_jscan_is_ws(s->buf[s->pos + 1])) {
        s->pos++;
        *key = k;
        *key_len = len;
        return;
    }
    if (in_window && !scan_separator_in_window(s)) {
        /* The ':' and the whitespace around it reach past the window: copy the
         * key rather than pin it, so that whitespace is never buffered whole. */
        s->key.len = 0;
        scan_bytes_append(s, &s->key, k, len);
        k = s->key.ptr ? s->key.ptr : "";
        in_window = 0;
    }
    /* Keep the key's bytes in the window through the refills below. */
    s->pin = in_window ? start : WB_JSCAN_NONE;
    int byte = wb_jscan_peek_byte(s);
    if (in_window) k = (const char *)s->buf + s->pin + 1;
    if (byte != ':') {
        s->pin = WB_JSCAN_NONE;
        wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, "expected ':' after the key ", WB_JSCAN_QUOTE_EXCERPT, k, len, NULL);
    }
    s->pos++;
    wb_jscan_peek_byte(s);
    if (in_window) k = (const char *)s->buf + s->pin + 1;
    s->pin = WB_JSCAN_NONE;
    *key = k;
    *key_len = len;
}

WB_JSCAN_API int wb_jscan_next_member(wb_jscan *s, int first, const char **key, size_t *key_len)
{
    int byte = wb_jscan_peek_byte(s);
    if (!first && byte == ',') {
        s->pos++;
        byte = wb_jscan_peek_byte(s);
        if (byte == '"') {
            scan_read_key(s, key, key_len);
            return 1;
        }
        if (byte >= 0) SCAN_PARSE_ERROR(s, "expected a key string after ','", s->pos);
        SCAN_TRUNCATED(s, "the input ends inside an object (expected a key)", s->pos);
    }
    if (byte == '}') {
        s->pos++;
        return 0;
    }
    if (first && byte == '"') {
        scan_read_key(s, key, key_len);
        return 1;
    }
    if (byte < 0) {
        SCAN_TRUNCATED(
            s, first ? "the input ends inside an object (expected a key or '}')" : "the input ends inside an object (expected ',' or '}')",
            s->pos);
    }
    scan_unexpected(s, first ? "expected a key string or '}', got " : "expected ',' or '}' after a member, got ");
}

WB_JSCAN_API int wb_jscan_next_item(wb_jscan *s, int first)
{
    int byte = wb_jscan_peek_byte(s);
    if (!first && byte == ',') {
        s->pos++;
        wb_jscan_peek_byte(s);
        return 1;
    }
    if (byte == ']') {
        s->pos++;
        return 0;
    }
    if (first && byte >= 0) return 1;
    if (byte < 0) {
        SCAN_TRUNCATED(
            s, first ? "the input ends inside an array (expected a value or ']')" : "the input ends inside an array (expected ',' or ']')",
            s->pos);
    }
    scan_unexpected(s, "expected ',' or ']' after an item, got ");
}

/* json_decoder.c includes this file: its macros stay here. */
#undef SCAN_PARSE_ERROR
#undef SCAN_LIMIT_ERROR
#undef SCAN_ONES
#undef SCAN_HIGHS
#undef SCAN_AVX2
#undef SCAN_COLD
