/* The JSON decoder engine (see json_decoder.h). Every function names the Ruby
 * method of lib/wirebind/json/pure/ it ports; their messages, positions and
 * paths are the reference's. The frames, the values they hold and every
 * buffer are heap arrays owned by the decoder: document depth costs heap, not
 * C stack. */
#include "json_decoder.h"
#include <ruby/util.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

enum { F_OBJECT = 0, F_LIST = 1 };

static ID id_next_chunk, id_bom_size, id_call, id_message, id_expected, id_excerpt, id_scrub, id_aref, id_describe_char,
    id_convert_text, id_format_path, id_BigDecimal, id_finite_p, id_zero_p, id_item, id_Date, id_GREGORIAN, id_fetch;

/* Ruby constants, defined after the extension loads: looked up on first use,
 * once (every Ractor that races here writes the same values), and pinned. */
typedef struct ruby_env {
    VALUE mTypes;          /* Wirebind::Types (excerpt) */
    VALUE eInvalidValue;   /* Wirebind::Types::InvalidValue */
    VALUE cDecoder;        /* Wirebind::JSON::Pure::Decoder (format_path, convert_text) */
    VALUE cScanner;        /* Wirebind::JSON::Pure::Scanner (describe_char) */
    VALUE eSourceInvalid;  /* Wirebind::JSON::Pure::Source::Invalid */
    VALUE expected;        /* Wirebind::JSON::Plan::EXPECTED */
    VALUE item_true;       /* {item: true} */
} ruby_env;

static ruby_env env_cache;
static int env_ready;

static const ruby_env *env_get(void)
{
    if (__atomic_load_n(&env_ready, __ATOMIC_ACQUIRE)) return &env_cache;
    ruby_env e;
    e.mTypes = wb_pinned(rb_path2class("Wirebind::Types"));
    e.eInvalidValue = wb_pinned(rb_path2class("Wirebind::Types::InvalidValue"));
    e.cDecoder = wb_pinned(rb_path2class("Wirebind::JSON::Pure::Decoder"));
    e.cScanner = wb_pinned(rb_path2class("Wirebind::JSON::Pure::Scanner"));
    e.eSourceInvalid = wb_pinned(rb_path2class("Wirebind::JSON::Pure::Source::Invalid"));
    e.expected = wb_pinned(rb_const_get(rb_path2class("Wirebind::JSON::Plan"), rb_intern("EXPECTED")));
    VALUE options = rb_hash_new();
    rb_hash_aset(options, ID2SYM(id_item), Qtrue);
    e.item_true = wb_pinned(rb_obj_freeze(options));
    env_cache = e;
    __atomic_store_n(&env_ready, 1, __ATOMIC_RELEASE);
    return &env_cache;
}

void wbj_decoder_init(void)
{
    id_next_chunk = rb_intern("next_chunk");
    id_bom_size = rb_intern("bom_size");
    id_call = rb_intern("call");
    id_message = rb_intern("message");
    id_expected = rb_intern("expected");
    id_excerpt = rb_intern("excerpt");
    id_scrub = rb_intern("scrub");
    id_aref = rb_intern("[]");
    id_describe_char = rb_intern("describe_char");
    id_convert_text = rb_intern("convert_text");
    id_format_path = rb_intern("format_path");
    id_BigDecimal = rb_intern("BigDecimal");
    id_finite_p = rb_intern("finite?");
    id_zero_p = rb_intern("zero?");
    id_item = rb_intern("item");
    id_Date = rb_intern("Date");
    id_GREGORIAN = rb_intern("GREGORIAN");
    id_fetch = rb_intern("fetch");
    wbs_init();
}

/* ==== byte classes ============================================================ */

static inline int is_ws(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static inline int is_digit(int c) { return c >= '0' && c <= '9'; }

/* In a string: 1 ends a run of plain characters (quote, backslash, C0
 * control), 2 is a byte of a multi-byte character. */
static const unsigned char STRING_CLASS[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/* Scanner::NUMBER_RUN: [-+0-9.eE] */
static inline int is_number_char(int c)
{
    return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* The end of the run of plain string characters from p (a quote, backslash or
 * control byte, or len); *high is set when the run has a multi-byte character.
 * Eight bytes at a time while none of them ends the run. */
static inline size_t scan_run(const unsigned char *buf, size_t p, size_t len, int *high)
{
    while (len - p >= 8) {
        uint64_t x;
        memcpy(&x, buf + p, 8);
        uint64_t q = x ^ (ONES * '"');
        uint64_t b = x ^ (ONES * '\\');
        uint64_t stop = (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((x - ONES * 0x20) & ~x)) & HIGHS;
        if (stop) break;
        if (x & HIGHS) *high = 1;
        p += 8;
    }
    while (p < len) {
        unsigned char k = STRING_CLASS[buf[p]];
        if (k == 1) break;
        if (k) *high = 1;
        p++;
    }
    return p;
}

/* ==== small helpers ============================================================ */

static void bytes_reserve(wbj_bytes *b, size_t extra)
{
    if (b->cap - b->len >= extra) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > ((size_t)-1) / 2) rb_memerror();
        cap *= 2;
    }
    b->ptr = ruby_xrealloc(b->ptr, cap);
    b->cap = cap;
}

static inline void bytes_append(wbj_bytes *b, const void *p, size_t n)
{
    if (n == 0) return;
    bytes_reserve(b, n);
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

static VALUE utf8(const char *cstr)
{
    return rb_utf8_str_new_cstr(cstr);
}

/* A String of valid UTF-8 bytes, its code range known (7bit or valid), so
 * that nothing scans it again. */
static inline VALUE new_string(const char *p, size_t n, int high)
{
    VALUE s = wb_utf8_str(p, n);
    ENC_CODERANGE_SET(s, high ? ENC_CODERANGE_VALID : ENC_CODERANGE_7BIT);
    return s;
}

static VALUE join3(const char *a, VALUE b, const char *c)
{
    VALUE s = utf8(a);
    rb_str_append(s, b);
    if (c) rb_str_cat_cstr(s, c);
    return s;
}

/* ==== positions and errors (Scanner#position, #error) ========================== */

/* Scanner#position: line, column (in characters) and offset of p, a position
 * in the window. */
static void locate(const wbj_decoder *d, size_t p, long *line, long *column, long long *offset)
{
    if (p > d->len) p = d->len;
    long lines = 0;
    size_t from = 0;
    for (size_t i = 0; i < p; i++) {
        if (d->buf[i] == '\n') {
            lines++;
            from = i + 1;
        }
    }
    long chars = 0;
    for (size_t i = from; i < p; i++) chars += (d->buf[i] & 0xC0) != 0x80;
    *line = d->base_lines + lines + 1;
    *column = lines ? chars + 1 : d->base_column + chars + 1;
    *offset = d->base_offset + (long long)p;
}

static NORETURN(void fail_at(const wbj_decoder *d, VALUE klass, VALUE message, size_t p));
static void fail_at(const wbj_decoder *d, VALUE klass, VALUE message, size_t p)
{
    long line, column;
    long long offset;
    locate(d, p, &line, &column, &offset);
    wb_raise_parse_error(klass, message, line, column, (long)offset);
}

#define PARSE_ERROR(d, message, p) fail_at((d), wb_eParseError, (message), (p))
#define LIMIT_ERROR(d, message, p) fail_at((d), wb_eLimitError, (message), (p))

static NORETURN(void depth_error(const wbj_decoder *d, size_t p));
static void depth_error(const wbj_decoder *d, size_t p)
{
    char text[96];
    snprintf(text, sizeof(text), "arrays and objects are nested deeper than max_depth (%zu)", d->max_depth);
    LIMIT_ERROR(d, utf8(text), p);
}

static NORETURN(void size_error(const wbj_decoder *d, const char *what, size_t p));
static void size_error(const wbj_decoder *d, const char *what, size_t p)
{
    char text[96];
    snprintf(text, sizeof(text), "a %s is larger than max_token_size (%zu bytes)", what, d->max_token_size);
    LIMIT_ERROR(d, utf8(text), p);
}

/* Scanner#describe_byte: the character at d->pos, as messages name it. */
static VALUE describe_byte(const wbj_decoder *d)
{
    if (d->pos >= d->len) return utf8("the end of the input");
    size_t n = d->len - d->pos;
    if (n > 4) n = 4;
    VALUE bytes = rb_utf8_str_new((const char *)d->buf + d->pos, (long)n);
    VALUE first = rb_funcall(rb_funcall(bytes, id_scrub, 0), id_aref, 1, INT2FIX(0));
    return rb_funcall(env_get()->cScanner, id_describe_char, 1, first);
}

static NORETURN(void unexpected(const wbj_decoder *d, const char *before));
static void unexpected(const wbj_decoder *d, const char *before)
{
    PARSE_ERROR(d, join3(before, describe_byte(d), NULL), d->pos);
}

/* Scanner#number_excerpt. */
static VALUE number_excerpt(const char *p, size_t n)
{
    if (n <= 60) return rb_utf8_str_new(p, (long)n);
    VALUE s = rb_utf8_str_new(p, 60);
    char tail[64];
    snprintf(tail, sizeof(tail), "... (%zu characters)", n);
    rb_str_cat_cstr(s, tail);
    return s;
}

static VALUE excerpt(VALUE text)
{
    return rb_funcall(env_get()->mTypes, id_excerpt, 1, text);
}

/* ==== input (Scanner#refill, #ensure_bytes, #peek_byte) ========================= */

static VALUE call_next_chunk(VALUE arg)
{
    return rb_funcall(((wbj_decoder *)arg)->source, id_next_chunk, 0);
}

static VALUE rescue_source_invalid(VALUE arg, VALUE error)
{
    const wbj_decoder *d = (const wbj_decoder *)arg;
    PARSE_ERROR(d, rb_funcall(error, id_message, 0), d->len);
    return Qnil;
}

/* Counts what is let go of the window, for positions. */
static void discard(wbj_decoder *d, size_t n)
{
    if (n == 0) return;
    const unsigned char *p = d->buf;
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
    d->base_lines += lines;
    d->base_column = lines ? chars : d->base_column + chars;
    d->base_offset += (long long)n;
}

static void own_reserve(wbj_decoder *d, size_t need)
{
    if (need <= d->own_cap) return;
    size_t cap = d->own_cap ? d->own_cap : 128 * 1024;
    while (cap < need) {
        if (cap > ((size_t)-1) / 2) rb_memerror();
        cap *= 2;
    }
    d->own = ruby_xrealloc(d->own, cap);
    d->own_cap = cap;
}

/* Scanner#refill: the next chunk after what is kept of the window (from the
 * token being read, or from the scan position). Returns 0 at the end. */
static int refill(wbj_decoder *d)
{
    if (d->eof) return 0;
    VALUE chunk = rb_rescue2(call_next_chunk, (VALUE)d, rescue_source_invalid, (VALUE)d, env_get()->eSourceInvalid, (VALUE)0);
    if (NIL_P(chunk)) {
        d->eof = 1;
        return 0;
    }
    StringValue(chunk);
    /* A frozen copy (shared, not copied, for a long String): the caller's String
     * may be the chunk, and a block given to each could change it under us. */
    chunk = rb_str_new_frozen(chunk);
    size_t keep = d->pin != NONE ? d->pin : d->pos;
    if (keep > d->len) keep = d->len;
    discard(d, keep);
    size_t rest = d->len - keep;
    size_t n = (size_t)RSTRING_LEN(chunk);
    if (rest == 0) {
        d->chunk = chunk;
        d->buf = (const unsigned char *)RSTRING_PTR(chunk);
        d->len = n;
    } else {
        if (d->buf == (const unsigned char *)d->own) {
            if (keep) memmove(d->own, d->own + keep, rest); /* else the bytes are in place already */
        } else {
            /* The window is the old chunk, still held (d->chunk) while this copies. */
            own_reserve(d, rest);
            memcpy(d->own, d->buf + keep, rest);
        }
        d->buf = (const unsigned char *)d->own;
        if (n > ((size_t)-1) - rest) rb_memerror();
        own_reserve(d, rest + n);
        memcpy(d->own + rest, RSTRING_PTR(chunk), n);
        d->buf = (const unsigned char *)d->own;
        d->len = rest + n;
        d->chunk = Qnil;
    }
    d->pos -= keep;
    if (d->pin != NONE) d->pin -= keep;
    RB_GC_GUARD(chunk);
    return 1;
}

static int ensure_bytes(wbj_decoder *d, size_t count)
{
    while (d->len - d->pos < count) {
        if (!refill(d)) return 0;
    }
    return 1;
}

/* Skips whitespace; the next byte, or -1 at the end of the input. */
static inline int peek_byte(wbj_decoder *d)
{
    for (;;) {
        while (d->pos < d->len && is_ws(d->buf[d->pos])) d->pos++;
        if (d->pos < d->len) return d->buf[d->pos];
        if (!refill(d)) return -1;
    }
}

static inline int byte_at_pos(const wbj_decoder *d)
{
    return d->pos < d->len ? d->buf[d->pos] : -1;
}

/* ==== tokens (Scanner#read_string, #escape, #read_number, #read_literal) ======== */

static inline char simple_escape(int letter)
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

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Scanner#hex_escape: the code unit of the \uXXXX escape `ahead` bytes after the scan position. */
static long hex_escape(wbj_decoder *d, size_t ahead)
{
    if (!ensure_bytes(d, ahead + 6)) PARSE_ERROR(d, utf8("the input ends inside a string"), d->pin);
    size_t at = d->pos + ahead;
    long code = 0;
    for (int i = 2; i < 6; i++) {
        int h = hex_digit(d->buf[at + (size_t)i]);
        if (h < 0) PARSE_ERROR(d, utf8("\\u must be followed by four hexadecimal digits"), at);
        code = code * 16 + h;
    }
    return code;
}

static void append_utf8(wbj_bytes *out, long code)
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
    bytes_append(out, u, n);
}

/* Scanner#escape: the escape at the scan position (a backslash) into out (NULL: check only). */
static void escape(wbj_decoder *d, wbj_bytes *out, int *high)
{
    if (!ensure_bytes(d, 2)) PARSE_ERROR(d, utf8("the input ends inside a string"), d->pin);
    int letter = d->buf[d->pos + 1];
    char simple = simple_escape(letter);
    if (simple) {
        if (out) bytes_append(out, &simple, 1);
        d->pos += 2;
        return;
    }
    if (letter != 'u') {
        /* byteslice(pos + 1, 1).scrub: a byte of a multi-byte character is U+FFFD. */
        VALUE message = utf8("invalid escape '\\");
        if (letter >= 0x80) {
            rb_str_cat(message, "\xEF\xBF\xBD", 3);
        } else {
            char c = (char)letter;
            rb_str_cat(message, &c, 1);
        }
        rb_str_cat_cstr(message, "' in a string");
        PARSE_ERROR(d, message, d->pos);
    }
    long code = hex_escape(d, 0);
    if (code >= 0xD800 && code <= 0xDBFF) {
        /* A character beyond the Basic Multilingual Plane is a pair of escapes. */
        ensure_bytes(d, 8);
        long low = -1;
        if (d->len - d->pos >= 8 && d->buf[d->pos + 6] == '\\' && d->buf[d->pos + 7] == 'u') low = hex_escape(d, 6);
        if (low < 0xDC00 || low > 0xDFFF) {
            char text[120];
            snprintf(text, sizeof(text), "lone surrogate \\u%04lX: a high surrogate must be followed by a \\uDC00-\\uDFFF escape", code);
            PARSE_ERROR(d, utf8(text), d->pos);
        }
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        d->pos += 12;
    } else if (code >= 0xDC00 && code <= 0xDFFF) {
        char text[120];
        snprintf(text, sizeof(text), "lone surrogate \\u%04lX: a low surrogate must follow a \\uD800-\\uDBFF escape", code);
        PARSE_ERROR(d, utf8(text), d->pos);
    } else {
        d->pos += 6;
    }
    if (code >= 0x80) *high = 1;
    if (out) append_utf8(out, code);
}

/* Scanner#read_string and #read_string_exactly in one: reads the string whose
 * opening quote is at the scan position, checking it whole (escapes, controls,
 * max_token_size, counted with both quotes). Returns its unescaped bytes: in the
 * window when it has no escape (valid until the next refill), else in out's
 * buffer; NULL when out is NULL (checked only). *start: where it began. */
static const char *read_string(wbj_decoder *d, wbj_bytes *out, size_t *len, int *high, size_t *start)
{
    d->pin = d->pos;
    size_t p = d->pos + 1;
    int escaped = 0;
    *high = 0;
    for (;;) {
        size_t run = p;
        p = scan_run(d->buf, p, d->len, high);
        if (out && escaped) bytes_append(out, d->buf + run, p - run);
        if (p - d->pin > d->max_token_size) size_error(d, "string", d->pin);
        if (p == d->len) {
            d->pos = p;
            if (!refill(d)) PARSE_ERROR(d, utf8("the input ends inside a string"), d->pin);
            p = d->pos;
            continue;
        }
        int c = d->buf[p];
        if (c == '"') {
            p++;
            if (p - d->pin > d->max_token_size) size_error(d, "string", d->pin);
            size_t s = d->pin;
            d->pos = p;
            d->pin = NONE;
            *start = s;
            if (!out) return NULL;
            if (escaped) {
                *len = out->len;
                return out->ptr ? out->ptr : "";
            }
            *len = p - s - 2;
            return (const char *)d->buf + s + 1;
        }
        d->pos = p;
        if (c == '\\') {
            if (out && !escaped) {
                escaped = 1;
                out->len = 0;
                bytes_append(out, d->buf + d->pin + 1, p - d->pin - 1);
            }
            escape(d, out, high);
            p = d->pos;
            continue;
        }
        char text[64];
        snprintf(text, sizeof(text), "control character U+%04X must be escaped in a string", c);
        PARSE_ERROR(d, utf8(text), p);
    }
}

/* A string value (read_string(true)) as a Ruby String. */
static VALUE read_string_value(wbj_decoder *d, size_t *start)
{
    size_t len, s;
    int high;
    const char *p = read_string(d, &d->str, &len, &high, &s);
    if (start) *start = s;
    return new_string(p, len, high);
}

/* Scanner::NUMBER_GRAMMAR: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number_grammar(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (i < n && p[i] == '-') i++;
    if (i >= n) return 0;
    if (p[i] == '0') {
        i++;
    } else if (p[i] >= '1' && p[i] <= '9') {
        while (i < n && is_digit(p[i])) i++;
    } else {
        return 0;
    }
    if (i < n && p[i] == '.') {
        i++;
        size_t f = i;
        while (i < n && is_digit(p[i])) i++;
        if (i == f) return 0;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-')) i++;
        size_t e = i;
        while (i < n && is_digit(p[i])) i++;
        if (i == e) return 0;
    }
    return i == n;
}

/* Scanner#read_number: the number at the scan position, checked against the
 * limits and JSON's grammar. Returns its start in the window (valid until the
 * next refill); *length its length. */
static size_t read_number(wbj_decoder *d, size_t *length)
{
    d->pin = d->pos;
    size_t n;
    for (;;) {
        size_t start = d->pin;
        n = 0;
        while (start + n < d->len && is_number_char(d->buf[start + n])) n++;
        if (!(start + n == d->len && !d->eof)) break;
        if (n > d->max_number_length) break;
        d->pos = start;
        refill(d);
    }
    size_t start = d->pin;
    if (n > d->max_number_length) {
        char text[96];
        snprintf(text, sizeof(text), "a number is longer than max_number_length (%zu characters)", d->max_number_length);
        LIMIT_ERROR(d, utf8(text), start);
    }
    if (n > d->max_token_size) size_error(d, "number", start);
    if (!number_grammar(d->buf + start, n)) {
        PARSE_ERROR(d, join3("invalid number ", number_excerpt((const char *)d->buf + start, n), NULL), start);
    }
    d->pos = start + n;
    d->pin = NONE;
    *length = n;
    return start;
}

/* Scanner#read_literal: `word` (true, false or null) at the scan position. */
static void read_literal(wbj_decoder *d, const char *word, size_t n)
{
    if (d->len - d->pos >= n && memcmp(d->buf + d->pos, word, n) == 0) {
        d->pos += n;
        return;
    }
    ensure_bytes(d, n);
    size_t have = d->len - d->pos;
    if (have >= n && memcmp(d->buf + d->pos, word, n) == 0) {
        d->pos += n;
        return;
    }
    VALUE expected = join3(" (expected ", utf8(word), ")");
    if (d->eof && have < n) PARSE_ERROR(d, join3("the input ends inside a literal", expected, NULL), d->pos);
    VALUE slice = rb_utf8_str_new((const char *)d->buf + d->pos, (long)(have < n ? have : n));
    VALUE message = join3("invalid literal ", excerpt(rb_funcall(slice, id_scrub, 0)), NULL);
    rb_str_append(message, expected);
    PARSE_ERROR(d, message, d->pos);
}

/* Whether whitespace, ':' and whitespace then a byte of something else all lie
 * in the window from the scan position: read_key then refills nothing. */
static int separator_in_window(const wbj_decoder *d)
{
    size_t i = d->pos;
    while (i < d->len && is_ws(d->buf[i])) i++;
    if (i >= d->len || d->buf[i] != ':') return 0;
    i++;
    while (i < d->len && is_ws(d->buf[i])) i++;
    return i < d->len;
}

/* Scanner#read_key: the key whose quote is at the scan position, the ':' and
 * the whitespace after it. The key's bytes stay valid until the next refill. */
static void read_key(wbj_decoder *d, const char **key, size_t *key_len)
{
    size_t len, start;
    int high;
    const char *k = read_string(d, &d->key, &len, &high, &start);
    int in_window = k != d->key.ptr;
    if (in_window && !separator_in_window(d)) {
        /* The ':' and the whitespace around it reach past the window: copy the
         * key rather than pin it, so that whitespace is never buffered whole. */
        d->key.len = 0;
        bytes_append(&d->key, k, len);
        k = d->key.ptr;
        in_window = 0;
    }
    /* Keep the key's bytes in the window through the refills below. */
    d->pin = in_window ? start : NONE;
    int byte = peek_byte(d);
    if (in_window) k = (const char *)d->buf + d->pin + 1;
    if (byte != ':') {
        VALUE text = new_string(k, len, high);
        d->pin = NONE;
        PARSE_ERROR(d, join3("expected ':' after the key ", excerpt(text), NULL), d->pos);
    }
    d->pos++;
    peek_byte(d);
    if (in_window) k = (const char *)d->buf + d->pin + 1;
    d->pin = NONE;
    *key = k;
    *key_len = len;
}

/* Scanner#next_key (and #read_key): after '{' (first) or after a member, the
 * next key; 0 at '}' (consumed). */
static int next_member(wbj_decoder *d, int first, const char **key, size_t *key_len)
{
    int byte = peek_byte(d);
    if (!first && byte == ',') {
        d->pos++;
        byte = peek_byte(d);
        if (byte == '"') {
            read_key(d, key, key_len);
            return 1;
        }
        PARSE_ERROR(d, utf8(byte >= 0 ? "expected a key string after ','" : "the input ends inside an object (expected a key)"), d->pos);
    }
    if (byte == '}') {
        d->pos++;
        return 0;
    }
    if (first && byte == '"') {
        read_key(d, key, key_len);
        return 1;
    }
    if (byte < 0) {
        PARSE_ERROR(d,
                    utf8(first ? "the input ends inside an object (expected a key or '}')"
                               : "the input ends inside an object (expected ',' or '}')"),
                    d->pos);
    }
    unexpected(d, first ? "expected a key string or '}', got " : "expected ',' or '}' after a member, got ");
}

/* Scanner#next_item?: after '[' (first) or after an item, 1 when another item
 * follows (the scan position at it, or at the end of the input), 0 at ']'. */
static int next_item(wbj_decoder *d, int first)
{
    int byte = peek_byte(d);
    if (!first && byte == ',') {
        d->pos++;
        peek_byte(d);
        return 1;
    }
    if (byte == ']') {
        d->pos++;
        return 0;
    }
    if (first && byte >= 0) return 1;
    if (byte < 0) {
        PARSE_ERROR(d,
                    utf8(first ? "the input ends inside an array (expected a value or ']')"
                               : "the input ends inside an array (expected ',' or ']')"),
                    d->pos);
    }
    unexpected(d, "expected ',' or ']' after an item, got ");
}

/* ==== numbers to values ========================================================= */

static int has_fraction_or_exponent(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E') return 1;
    }
    return 0;
}

/* String#to_i of a number JSON's grammar accepts as an integer. */
static VALUE integer_value(const unsigned char *p, size_t n)
{
    size_t i = p[0] == '-';
    if (n - i <= 18) {
        long long v = 0;
        for (size_t k = i; k < n; k++) v = v * 10 + (p[k] - '0');
        return LL2NUM(i ? -v : v);
    }
    VALUE holder;
    char *s = ALLOCV(holder, n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    VALUE v = rb_cstr2inum(s, 10);
    ALLOCV_END(holder);
    return v;
}

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* FloatType.parse of a JSON number: the nearest double. Exact arithmetic when
 * the digits and the power of ten are both exact doubles (Clinger's fast
 * path), else Ruby's own strtod (Float()'s), which rounds correctly in any locale. */
static double float_value(const unsigned char *p, size_t n)
{
    size_t i = 0;
    int negative = p[0] == '-';
    if (negative) i++;
    uint64_t mantissa = 0;
    int digits = 0;
    long exponent = 0;
    int exact = 1;
    for (; i < n && is_digit(p[i]); i++) {
        if (mantissa || p[i] != '0') {
            if (++digits > 15) exact = 0;
            else mantissa = mantissa * 10 + (uint64_t)(p[i] - '0');
        }
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && is_digit(p[i]); i++) {
            if (mantissa || p[i] != '0') {
                if (++digits > 15) exact = 0;
                else mantissa = mantissa * 10 + (uint64_t)(p[i] - '0');
            }
            exponent--;
        }
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        int minus = 0;
        if (p[i] == '+' || p[i] == '-') minus = p[i++] == '-';
        long e = 0;
        for (; i < n; i++) {
            if (e > 100000) {
                exact = 0;
                break;
            }
            e = e * 10 + (p[i] - '0');
        }
        exponent += minus ? -e : e;
    }
    if (exact) {
        if (mantissa == 0) return negative ? -0.0 : 0.0;
        if (exponent >= -22 && exponent <= 22) {
            double v = (double)mantissa;
            v = exponent < 0 ? v / POW10[-exponent] : v * POW10[exponent];
            return negative ? -v : v;
        }
    }
    char small[64];
    VALUE holder = 0;
    char *s = n < sizeof(small) ? small : ALLOCV(holder, n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    double v = ruby_strtod(s, NULL); /* as Float(): correctly rounded, whatever LC_NUMERIC says */
    if (holder) ALLOCV_END(holder);
    return v;
}

/* ==== the decoder ================================================================== */

static inline wbj_frame *top_frame(wbj_decoder *d)
{
    return &d->frames[d->nframes - 1];
}

static wbj_frame *push_frame(wbj_decoder *d, int kind)
{
    if (d->nframes == d->frames_cap) {
        size_t cap = d->frames_cap ? d->frames_cap * 2 : 16;
        d->frames = ruby_xrealloc2(d->frames, cap, sizeof(wbj_frame));
        d->frames_cap = cap;
    }
    wbj_frame *f = &d->frames[d->nframes++];
    memset(f, 0, sizeof(*f));
    f->kind = (unsigned char)kind;
    f->values = NONE;
    return f;
}

static size_t push_values(wbj_decoder *d, size_t n)
{
    size_t need = d->nvalues + n;
    if (need > d->values_cap) {
        size_t cap = d->values_cap ? d->values_cap : 64;
        while (cap < need) cap *= 2;
        /* A new array filled before the old one goes: a GC inside the allocation
         * still marks the old one, whole. */
        VALUE *grown = ruby_xmalloc2(cap, sizeof(VALUE));
        if (d->nvalues) memcpy(grown, d->values, d->nvalues * sizeof(VALUE));
        VALUE *old = d->values;
        d->values = grown;
        d->values_cap = cap;
        ruby_xfree(old);
    }
    size_t base = d->nvalues;
    for (size_t i = base; i < need; i++) d->values[i] = Qnil;
    d->nvalues = need;
    return base;
}

/* ---- errors that know the schema (Decoder#path, #value_error, #mismatch) ---- */

/* Decoder#path: the keys and indexes of the open frames, the unknown key
 * being read (strict) in place of the top record's, and `index` (an item of a
 * list of scalars; -1 for none). */
static VALUE decode_path(wbj_decoder *d, long index, const char *key, size_t key_len)
{
    VALUE parts = rb_ary_new();
    for (size_t i = 0; i < d->nframes; i++) {
        const wbj_frame *f = &d->frames[i];
        if (f->kind == F_OBJECT) {
            if (key && i == d->nframes - 1) {
                rb_ary_push(parts, rb_utf8_str_new(key, (long)key_len));
            } else if (f->at) {
                rb_ary_push(parts, f->at->key_str);
            }
        } else {
            rb_ary_push(parts, LONG2NUM(f->index));
        }
    }
    if (index >= 0) rb_ary_push(parts, LONG2NUM(index));
    return rb_funcall(env_get()->cDecoder, id_format_path, 1, parts);
}

static NORETURN(void value_error(wbj_decoder *d, VALUE message, long index, size_t p));
static void value_error(wbj_decoder *d, VALUE message, long index, size_t p)
{
    long line, column;
    long long offset;
    locate(d, p, &line, &column, &offset);
    wb_raise_decode_error(message, decode_path(d, index, NULL, 0), line, column);
}

/* slot.expected / slot.expected(item: true) */
static VALUE slot_expected(const wbj_slot *slot, int item)
{
    if (!item) return rb_funcall(slot->slot, id_expected, 0);
    VALUE options = env_get()->item_true;
    return rb_funcallv_kw(slot->slot, id_expected, 1, &options, RB_PASS_KEYWORDS);
}

/* Plan::EXPECTED.fetch(code) */
static VALUE code_expected(int code)
{
    return rb_funcall(env_get()->expected, id_fetch, 1, wbs_type_symbol(code));
}

/* Decoder#describe_value: reads the value at the scan position to name it. */
static VALUE describe_value(wbj_decoder *d, int byte)
{
    switch (byte) {
    case '"': return join3("the string ", excerpt(read_string_value(d, NULL)), NULL);
    case '{': return utf8("an object");
    case '[': return utf8("an array");
    case 't': return utf8("true");
    case 'f': return utf8("false");
    case 'n': return utf8("null");
    default:
        if (byte == '-' || is_digit(byte)) {
            size_t n;
            size_t start = read_number(d, &n);
            return join3("the number ", number_excerpt((const char *)d->buf + start, n), NULL);
        }
        unexpected(d, "expected a JSON value, got ");
    }
}

/* Decoder#mismatch: a well-formed value of the wrong kind is at the scan position. */
static NORETURN(void mismatch(wbj_decoder *d, VALUE expected, long index));
static void mismatch(wbj_decoder *d, VALUE expected, long index)
{
    int byte = peek_byte(d);
    if (byte < 0) PARSE_ERROR(d, utf8("the input ends where a value was expected"), d->pos);
    long line, column;
    long long offset;
    locate(d, d->pos, &line, &column, &offset);
    VALUE found = describe_value(d, byte);
    VALUE message = join3("expected ", expected, ", got ");
    rb_str_append(message, found);
    wb_raise_decode_error(message, decode_path(d, index, NULL, 0), line, column);
}

/* Decoder#unknown_key: strict, and the key (the top record's current member) is not in the schema. */
static NORETURN(void unknown_key(wbj_decoder *d, const char *key, size_t key_len));
static void unknown_key(wbj_decoder *d, const char *key, size_t key_len)
{
    long line, column;
    long long offset;
    locate(d, d->pos, &line, &column, &offset);
    VALUE path = decode_path(d, -1, key, key_len);
    wb_raise_decode_error(utf8("unknown key (strict: true)"), path, line, column);
}

/* ---- scalars (Decoder#scalar, #scalar_slow, #convert_*) ---- */

typedef struct convert_args {
    wbj_decoder *d;
    int code;
    VALUE text;
    long index;
    size_t start;
} convert_args;

static VALUE call_convert_text(VALUE arg)
{
    convert_args *a = (convert_args *)arg;
    return rb_funcall(env_get()->cDecoder, id_convert_text, 2, wbs_type_symbol(a->code), a->text);
}

static VALUE rescue_convert(VALUE arg, VALUE error)
{
    convert_args *a = (convert_args *)arg;
    value_error(a->d, rb_funcall(error, id_message, 0), a->index, a->start);
    return Qnil;
}

static inline int xml_blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Decoder#convert_string for :time, :date and :base64: the C twins of
 * scalar.c for what they take exactly as Ruby does (no surrounding blanks, for
 * base64 none at all: a JSON string is the value exactly), else
 * Pure::Decoder.convert_text, whose InvalidValue becomes a DecodeError. */
static VALUE convert_text(wbj_decoder *d, int code, const char *p, size_t n, int high, long index, size_t start)
{
    int blanks = n == 0 || xml_blank((unsigned char)p[0]) || xml_blank((unsigned char)p[n - 1]);
    if (!blanks && code == WBS_BASE64) {
        for (size_t i = 0; i < n && !blanks; i++) blanks = xml_blank((unsigned char)p[i]);
    }
    if (!blanks) {
        VALUE v = wbs_convert(&d->env, code, p, n);
        if (v != Qundef) return v;
    }
    convert_args a = {d, code, new_string(p, n, high), index, start};
    return rb_rescue2(call_convert_text, (VALUE)&a, rescue_convert, (VALUE)&a, env_get()->eInvalidValue, (VALUE)0);
}

/* Decoder#decimal: BigDecimal() of the text, which reads any exponent but gives
 * Infinity or zero for one beyond its range. */
static VALUE decimal_value(wbj_decoder *d, const unsigned char *p, size_t n, long index, size_t start)
{
    VALUE text = d->decimal_text;
    if (!text || OBJ_FROZEN(text)) {
        text = rb_utf8_str_new((const char *)p, (long)n);
        d->decimal_text = text;
    } else {
        rb_str_modify(text);
        rb_str_set_len(text, 0);
        rb_str_cat(text, (const char *)p, (long)n);
    }
    VALUE value = rb_funcall(rb_mKernel, id_BigDecimal, 1, text);
    /* Only an exponent of three digits or more can leave BigDecimal's range. */
    size_t e = 0;
    while (e < n && p[e] != 'e' && p[e] != 'E') e++;
    if (e < n && n - e > 3) {
        int nonzero = 0;
        for (size_t i = 0; i < e; i++) nonzero |= p[i] >= '1' && p[i] <= '9';
        if (!RTEST(rb_funcall(value, id_finite_p, 0)) || (nonzero && RTEST(rb_funcall(value, id_zero_p, 0)))) {
            value_error(d, join3("the number ", number_excerpt((const char *)p, n), " is beyond the range of a decimal"), index, start);
        }
    }
    return value;
}

/* Decoder#convert_number */
static VALUE number_value(wbj_decoder *d, int code, size_t start, size_t n, long index)
{
    const unsigned char *p = d->buf + start;
    switch (code) {
    case WBS_INTEGER:
        if (has_fraction_or_exponent(p, n)) {
            value_error(d, join3("expected an integer, got ", number_excerpt((const char *)p, n), NULL), index, start);
        }
        return integer_value(p, n);
    case WBS_FLOAT: {
        double v = float_value(p, n);
        if (!isfinite(v)) {
            value_error(d, join3("the number ", number_excerpt((const char *)p, n), " is beyond the range of a double"), index, start);
        }
        return DBL2NUM(v);
    }
    default: return decimal_value(d, p, n, index, start);
    }
}

/* Decoder#scalar and #scalar_slow: a value of type `code` at the scan position. */
static VALUE scalar(wbj_decoder *d, int code, long index)
{
    int byte = peek_byte(d);
    if (byte == 'n') {
        read_literal(d, "null", 4);
        return Qnil;
    }
    switch (code) {
    case WBS_STRING:
        if (byte == '"') return read_string_value(d, NULL);
        break;
    case WBS_TIME:
    case WBS_DATE:
    case WBS_BASE64:
        if (byte == '"') {
            size_t len, start;
            int high;
            const char *p = read_string(d, &d->str, &len, &high, &start);
            return convert_text(d, code, p, len, high, index, start);
        }
        break;
    case WBS_INTEGER:
    case WBS_FLOAT:
    case WBS_DECIMAL:
        if (byte == '-' || is_digit(byte)) {
            size_t n;
            size_t start = read_number(d, &n);
            return number_value(d, code, start, n, index);
        }
        break;
    case WBS_BOOLEAN:
        if (byte == 't') {
            read_literal(d, "true", 4);
            return Qtrue;
        }
        if (byte == 'f') {
            read_literal(d, "false", 5);
            return Qfalse;
        }
        break;
    default: break;
    }
    mismatch(d, code_expected(code), index);
}

/* ---- untyped values (Parser#read_any) ---- */

/* Parser#any_path: the keys and indexes of read_any's open containers. */
static VALUE any_path(wbj_decoder *d, size_t base_any, size_t base_values)
{
    VALUE parts = rb_ary_new();
    for (size_t i = base_any; i < d->nany; i++) {
        size_t v = base_values + 2 * (i - base_any);
        if (d->any_kinds[i]) {
            rb_ary_push(parts, d->values[v + 1]);
        } else {
            rb_ary_push(parts, LONG2NUM(RARRAY_LEN(d->values[v])));
        }
    }
    return rb_funcall(env_get()->cDecoder, id_format_path, 1, parts);
}

static void push_any(wbj_decoder *d, int object, VALUE container, VALUE key)
{
    if (d->nany == d->any_cap) {
        size_t cap = d->any_cap ? d->any_cap * 2 : 32;
        d->any_kinds = ruby_xrealloc(d->any_kinds, cap);
        d->any_cap = cap;
    }
    size_t v = push_values(d, 2);
    d->values[v] = container;
    d->values[v + 1] = key;
    d->any_kinds[d->nany++] = (unsigned char)object;
}

static inline VALUE key_value(const char *key, size_t len)
{
    /* What Hash#[]= makes of a String key: a frozen, deduplicated copy. */
    return rb_enc_interned_str(key, (long)len, rb_utf8_encoding());
}

/* Parser#number, and #pass_number when only checking. */
static VALUE any_number(wbj_decoder *d, int build, size_t base_any, size_t base_values)
{
    size_t n;
    size_t start = read_number(d, &n);
    if (!build) return Qnil;
    const unsigned char *p = d->buf + start;
    if (!has_fraction_or_exponent(p, n)) return integer_value(p, n);
    double v = float_value(p, n);
    if (isfinite(v)) return DBL2NUM(v);
    long line, column;
    long long offset;
    locate(d, start, &line, &column, &offset);
    VALUE message = join3("the number ", number_excerpt((const char *)p, n), " is beyond the range of a double");
    wb_raise_decode_error(message, any_path(d, base_any, base_values), line, column);
}

/* Parser#read_any: one complete value at the scan position, as plain Ruby
 * values (build) or only checked. `depth`: containers open around it. */
static VALUE read_any(wbj_decoder *d, int build, size_t depth)
{
    const size_t base_any = d->nany;
    const size_t base_values = d->nvalues;
    const size_t max_open = d->max_depth > depth ? d->max_depth - depth : 0;
    VALUE value = Qnil;
    for (;;) {
        /* ---- one value; a container's first member is read on the next turn */
        int byte = byte_at_pos(d);
        switch (byte) {
        case '"':
            if (build) {
                value = read_string_value(d, NULL);
            } else {
                size_t len, start;
                int high;
                read_string(d, NULL, &len, &high, &start);
                value = Qnil;
            }
            break;
        case '{': {
            if (d->nany - base_any >= max_open) depth_error(d, d->pos);
            d->pos++;
            VALUE container = build ? rb_hash_new() : Qnil;
            const char *key;
            size_t key_len;
            if (next_member(d, 1, &key, &key_len)) {
                push_any(d, 1, container, build ? key_value(key, key_len) : Qnil);
                RB_GC_GUARD(container);
                continue;
            }
            value = container;
            break;
        }
        case '[': {
            if (d->nany - base_any >= max_open) depth_error(d, d->pos);
            d->pos++;
            VALUE container = build ? rb_ary_new() : Qnil;
            if (next_item(d, 1)) {
                push_any(d, 0, container, Qnil);
                RB_GC_GUARD(container);
                continue;
            }
            value = container;
            break;
        }
        case 't':
            read_literal(d, "true", 4);
            value = Qtrue;
            break;
        case 'f':
            read_literal(d, "false", 5);
            value = Qfalse;
            break;
        case 'n':
            read_literal(d, "null", 4);
            value = Qnil;
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r': peek_byte(d); continue;
        case -1:
            if (refill(d)) continue;
            if (d->nany == base_any) PARSE_ERROR(d, utf8("the input ends where a value was expected"), d->pos);
            PARSE_ERROR(d, utf8(d->any_kinds[d->nany - 1] ? "the input ends inside an object" : "the input ends inside an array"), d->pos);
        default:
            if (byte == '-' || is_digit(byte)) {
                value = any_number(d, build, base_any, base_values);
                break;
            }
            unexpected(d, "expected a JSON value, got ");
        }

        /* ---- hand the value to the containers it completes */
        for (;;) {
            if (d->nany == base_any) return value;
            size_t v = d->nvalues - 2;
            VALUE container = d->values[v];
            if (d->any_kinds[d->nany - 1]) {
                if (build) rb_hash_aset(container, d->values[v + 1], value);
                const char *key;
                size_t key_len;
                if (next_member(d, 0, &key, &key_len)) {
                    if (build) d->values[v + 1] = key_value(key, key_len);
                    break;
                }
            } else {
                if (build) rb_ary_push(container, value);
                if (next_item(d, 0)) break;
            }
            value = container;
            d->nany--;
            d->nvalues -= 2;
        }
    }
}

/* ---- records and lists (Decoder#members, #items, #finish_*) ---- */

static void push_object(wbj_decoder *d, wbj_slot *slot, const wbj_plan *plan)
{
    size_t base = push_values(d, (size_t)plan->size);
    wbj_frame *f = push_frame(d, F_OBJECT);
    f->plan = plan;
    f->slot = slot;
    f->values = base;
}

static void push_list(wbj_decoder *d, wbj_slot *slot, const wbj_plan *plan, int keep)
{
    size_t at = NONE;
    if (keep) {
        VALUE items = rb_ary_new();
        at = push_values(d, 1);
        d->values[at] = items;
    }
    wbj_frame *f = push_frame(d, F_LIST);
    f->plan = plan;
    f->slot = slot;
    f->values = at;
}

/* A record from its values: allocated without initialize, every attribute's
 * instance variable set in declaration order, an absent list as [] (what
 * __wb_build does). */
static VALUE build(wbj_decoder *d, const wbj_plan *plan, size_t base)
{
    VALUE object = rb_obj_alloc(plan->klass);
    for (long i = 0; i < plan->size; i++) {
        VALUE v = d->values[base + (size_t)i];
        if (NIL_P(v) && plan->slots[i].list) v = rb_ary_new();
        rb_ivar_set(object, plan->slots[i].ivar, v);
    }
    return object;
}

static void deliver_item(wbj_decoder *d, VALUE value)
{
    wbj_frame *f = top_frame(d);
    if (f->values != NONE) {
        rb_ary_push(d->values[f->values], value);
    } else {
        rb_funcallv(d->block, id_call, 1, &value);
        f = top_frame(d);
    }
    f->index++;
}

static void finish_object(wbj_decoder *d)
{
    wbj_frame *f = &d->frames[--d->nframes];
    VALUE record = build(d, f->plan, f->values);
    d->nvalues = f->values;
    if (!d->nframes) {
        d->result = record;
        return;
    }
    wbj_frame *parent = top_frame(d);
    if (parent->kind == F_OBJECT) {
        d->values[parent->values + (size_t)f->slot->index] = record;
    } else {
        deliver_item(d, record);
    }
    RB_GC_GUARD(record);
}

static void finish_list(wbj_decoder *d)
{
    wbj_frame *f = &d->frames[--d->nframes];
    VALUE items = f->values != NONE ? d->values[f->values] : Qnil;
    if (f->values != NONE) d->nvalues = f->values;
    if (d->nframes) {
        wbj_frame *parent = top_frame(d);
        d->values[parent->values + (size_t)f->slot->index] = items;
    } else {
        d->result = f->values != NONE ? items : LONG2NUM(f->index);
    }
    RB_GC_GUARD(items);
}

/* Decoder#scalars: the items of a list of scalars, after its '['. */
static VALUE scalars(wbj_decoder *d, int code)
{
    VALUE list = rb_ary_new();
    if (!next_item(d, 1)) return list;
    for (;;) {
        VALUE v = scalar(d, code, RARRAY_LEN(list));
        rb_ary_push(list, v);
        if (!next_item(d, 0)) return list;
    }
}

/* Decoder#members: the members of the record on top of the stack, until it
 * ends or a member's value opens a record or a list of records (pushed). */
static void members(wbj_decoder *d)
{
    wbj_frame *f = top_frame(d);
    const wbj_plan *plan = f->plan;
    int first = !f->started;
    f->started = 1;
    for (;;) {
        const char *key;
        size_t key_len;
        if (!next_member(d, first, &key, &key_len)) {
            finish_object(d);
            return;
        }
        first = 0;
        f = top_frame(d);
        wbj_slot *slot = wbj_plan_lookup(plan, key, key_len, &f->hint);
        f->at = slot;
        if (!slot) {
            if (d->strict) unknown_key(d, key, key_len);
            read_any(d, 0, d->nframes);
            continue;
        }
        size_t vi = f->values + (size_t)slot->index;
        int byte = byte_at_pos(d);
        if (byte == 'n') {
            read_literal(d, "null", 4);
            d->values[vi] = Qnil;
            continue;
        }
        if (slot->list) {
            if (byte != '[') mismatch(d, slot_expected(slot, 0), -1);
            if (d->nframes >= d->max_depth) depth_error(d, d->pos);
            d->pos++;
            if (slot->code == WBJ_MODEL) {
                push_list(d, slot, wbj_slot_plan(slot), 1);
                return;
            }
            VALUE list = scalars(d, slot->code);
            d->values[vi] = list;
            continue;
        }
        switch (slot->code) {
        case WBS_STRING:
            if (byte == '"') {
                VALUE s = read_string_value(d, NULL);
                d->values[vi] = s;
                continue;
            }
            break;
        case WBJ_MODEL:
            if (byte == '{') {
                if (d->nframes >= d->max_depth) depth_error(d, d->pos);
                d->pos++;
                push_object(d, slot, wbj_slot_plan(slot));
                return;
            }
            mismatch(d, slot_expected(slot, 1), -1);
        default: break;
        }
        VALUE v = scalar(d, slot->code, -1);
        d->values[vi] = v;
    }
}

/* Decoder#items: the items of the list on top of the stack, until it ends or
 * an item opens a record (pushed). */
static void items(wbj_decoder *d)
{
    wbj_frame *f = top_frame(d);
    wbj_slot *slot = f->slot;
    int first = !f->started;
    f->started = 1;
    for (;;) {
        if (!next_item(d, first)) {
            finish_list(d);
            return;
        }
        first = 0;
        switch (slot->code) {
        case WBJ_MODEL: {
            int byte = peek_byte(d);
            if (byte == '{') {
                if (d->nframes >= d->max_depth) depth_error(d, d->pos);
                d->pos++;
                push_object(d, slot, top_frame(d)->plan);
                return;
            }
            if (byte != 'n') mismatch(d, slot_expected(slot, 1), -1);
            read_literal(d, "null", 4);
            deliver_item(d, Qnil);
            break;
        }
        case WBJ_ANY: deliver_item(d, read_any(d, 1, d->nframes)); break;
        default: deliver_item(d, scalar(d, slot->code, -1)); break;
        }
    }
}

/* Decoder#root_value: the value the document is, its first byte at the scan position. */
static void root_value(wbj_decoder *d)
{
    wbj_slot *slot = &d->root;
    int byte = byte_at_pos(d);
    if (slot->list) {
        if (byte == '[') {
            d->pos++;
            push_list(d, slot, slot->code == WBJ_MODEL ? wbj_slot_plan(slot) : NULL, NIL_P(d->block));
        } else if (byte == 'n') {
            read_literal(d, "null", 4);
            d->result = NIL_P(d->block) ? rb_ary_new() : INT2FIX(0);
        } else {
            mismatch(d, slot_expected(slot, 0), -1);
        }
    } else if (slot->code == WBJ_MODEL) {
        if (byte == '{') {
            d->pos++;
            push_object(d, slot, wbj_slot_plan(slot));
        } else if (byte == 'n') {
            read_literal(d, "null", 4);
        } else {
            mismatch(d, slot_expected(slot, 0), -1);
        }
    } else if (slot->code == WBJ_ANY) {
        d->result = read_any(d, 1, 0);
    } else {
        d->result = scalar(d, slot->code, -1);
    }
}

/* ==== lifecycle ===================================================================== */

void wbj_init(wbj_decoder *d, VALUE source, int code, VALUE type, int list, VALUE slot, int strict, size_t max_depth,
              size_t max_token_size, size_t max_number_length, VALUE block)
{
    (void)env_get();
    d->source = source;
    d->chunk = Qnil;
    d->buf = (const unsigned char *)"";
    d->len = d->pos = 0;
    d->pin = NONE;
    d->max_depth = max_depth;
    d->max_token_size = max_token_size;
    d->max_number_length = max_number_length;
    d->strict = strict;
    d->block = block;
    d->result = Qnil;
    d->root.index = -1;
    d->root.code = code;
    d->root.list = list;
    d->root.type = type;
    d->root.slot = slot;
    d->root.key_str = Qnil;
    d->root.plan = 0;
    d->env.cDate = 0;
    d->env.gregorian = Qnil;
    d->env.decimal_text = 0;
    d->decimal_text = 0;
    if (rb_const_defined(rb_cObject, id_Date)) {
        d->env.cDate = rb_const_get(rb_cObject, id_Date);
        d->env.gregorian = rb_const_get(d->env.cDate, id_GREGORIAN);
    }
    /* Scanner#initialize: the first chunk; a byte order mark counts in offsets only. */
    refill(d);
    d->base_offset = NUM2LL(rb_funcall(source, id_bom_size, 0));
}

VALUE wbj_run(wbj_decoder *d)
{
    if (peek_byte(d) < 0) PARSE_ERROR(d, utf8("the input is empty (expected a JSON value)"), d->pos);
    root_value(d);
    while (d->nframes) {
        if (top_frame(d)->kind == F_OBJECT) {
            members(d);
        } else {
            items(d);
        }
    }
    /* Scanner#finish_input: only whitespace may follow. */
    if (peek_byte(d) >= 0) PARSE_ERROR(d, join3("unexpected ", describe_byte(d), " after the JSON value"), d->pos);
    return d->result;
}

void wbj_free(wbj_decoder *d)
{
    ruby_xfree(d->own);
    d->own = NULL;
    d->own_cap = 0;
    d->buf = (const unsigned char *)"";
    d->len = d->pos = 0;
    ruby_xfree(d->frames);
    d->frames = NULL;
    d->frames_cap = d->nframes = 0;
    ruby_xfree(d->values);
    d->values = NULL;
    d->values_cap = d->nvalues = 0;
    ruby_xfree(d->any_kinds);
    d->any_kinds = NULL;
    d->any_cap = d->nany = 0;
    ruby_xfree(d->str.ptr);
    d->str.ptr = NULL;
    d->str.cap = d->str.len = 0;
    ruby_xfree(d->key.ptr);
    d->key.ptr = NULL;
    d->key.cap = d->key.len = 0;
}

/* Per-call state: everything is pinned (rb_gc_mark), since C holds the
 * addresses of records, lists and the chunk while Ruby runs in between. */
void wbj_mark(wbj_decoder *d)
{
    rb_gc_mark(d->source);
    rb_gc_mark(d->chunk);
    rb_gc_mark(d->block);
    rb_gc_mark(d->result);
    rb_gc_mark(d->root.type);
    rb_gc_mark(d->root.slot);
    if (d->root.plan) rb_gc_mark(d->root.plan);
    if (d->decimal_text) rb_gc_mark(d->decimal_text);
    if (d->env.cDate) rb_gc_mark(d->env.cDate);
    rb_gc_mark(d->env.gregorian);
    for (size_t i = 0; i < d->nvalues; i++) rb_gc_mark(d->values[i]);
}

size_t wbj_memsize(const wbj_decoder *d)
{
    return sizeof(*d) + d->own_cap + d->frames_cap * sizeof(wbj_frame) + d->values_cap * sizeof(VALUE) + d->any_cap +
           d->str.cap + d->key.cap;
}
