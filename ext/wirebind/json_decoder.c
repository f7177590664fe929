/* The JSON decoder engine (see json_decoder.h): builds Ruby values from the
 * tokens of the scanner engine (json_scanner.c, no Ruby), whose handler it is.
 * Every function names the Ruby method of lib/wirebind/json/pure/ it ports;
 * their messages, positions and paths are the reference's. The frames, the
 * values they hold and every buffer are heap arrays owned by the decoder:
 * document depth costs heap, not C stack. */
/* The scanner engine is compiled into this file too, its functions static:
 * its token readers run once per token, and inlined into the loops below
 * they keep the decoder as fast as when they were one file (mkmf builds
 * without link-time optimization). json_scanner.c stays a file of its own,
 * with no Ruby in it, for the fuzzer (fuzz/json_scanner_fuzz.c). */
#define WB_JSCAN_API static
#include "json_scanner.c"
#include "json_decoder.h"
#include <ruby/util.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

enum { F_OBJECT = 0, F_LIST = 1 };

static ID id_next_chunk, id_bom_size, id_call, id_message, id_expected, id_excerpt, id_scrub, id_aref, id_describe_char, id_convert_text,
    id_format_path, id_BigDecimal, id_finite_p, id_zero_p, id_fetch, id_row_expected, id_json_key, id_reason, id_for, id_stray_key,
    id_defer, id_path_under, id_index;

void wb_jdec_init_ids(void)
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
    id_fetch = rb_intern("fetch");
    id_row_expected = rb_intern("row_expected");
    id_json_key = rb_intern("json_key");
    id_reason = rb_intern("reason");
    id_for = rb_intern("for");
    id_stray_key = rb_intern("stray_key");
    id_defer = rb_intern("defer");
    id_path_under = rb_intern("path_under");
    id_index = rb_intern("index");
    wb_scalar_init();
}

static inline int jdec_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* ==== small helpers ============================================================ */

static VALUE jdec_utf8(const char *cstr)
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
    VALUE s = jdec_utf8(a);
    rb_str_append(s, b);
    if (c) rb_str_cat_cstr(s, c);
    return s;
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
    return rb_funcall(wb_hooks.mTypes, id_excerpt, 1, text);
}

/* Scanner#describe_byte: the character the (up to 4) bytes start with, as
 * messages name it; the end of the input when there are none. */
static VALUE describe_bytes(const char *p, size_t n)
{
    if (n == 0) return jdec_utf8("the end of the input");
    VALUE bytes = rb_utf8_str_new(p, (long)n);
    VALUE first = rb_funcall(rb_funcall(bytes, id_scrub, 0), id_aref, 1, INT2FIX(0));
    return rb_funcall(wb_hooks.mJSONPure, id_describe_char, 1, first);
}

/* ==== the scanner's handler: input and errors ===================================== */

static VALUE call_next_chunk(VALUE arg)
{
    return rb_funcall(((wb_jdec *)arg)->source, id_next_chunk, 0);
}

static VALUE rescue_source_invalid(VALUE arg, VALUE error)
{
    wb_jdec *d = (wb_jdec *)arg;
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, d->s.len, &line, &column, &offset);
    wb_error_raise_parse(wb_hooks.eParseError, rb_funcall(error, id_message, 0), line, column, (long)offset, WB_ERROR_REASON_OF_CLASS);
    return Qnil;
}

/* The next chunk of the Pure::Source; Source::Invalid (the text stops being
 * UTF-8) is a ParseError where the window ends. */
static int jdec_read_chunk(void *ctx, const char **ptr, size_t *len)
{
    wb_jdec *d = ctx;
    VALUE chunk = rb_rescue2(call_next_chunk, (VALUE)d, rescue_source_invalid, (VALUE)d, wb_hooks.eJSONSourceInvalid, (VALUE)0);
    if (NIL_P(chunk)) return 0;
    StringValue(chunk);
    /* A frozen copy (shared, not copied, for a long String): the caller's String
     * may be the chunk, and a block given to each could change it under us.
     * Held (and pinned) in d->chunk, then d->previous_chunk, for the two reads
     * the scanner's contract asks. */
    chunk = rb_str_new_frozen(chunk);
    d->previous_chunk = d->chunk;
    d->chunk = chunk;
    *ptr = RSTRING_PTR(chunk);
    *len = (size_t)RSTRING_LEN(chunk);
    return 1;
}

/* Words the scanner's error with Ruby's rules, and raises it. */
static void scanner_error(void *ctx, const wb_jscan_error *e)
{
    (void)ctx;
    if (e->kind == WB_JSCAN_NO_MEMORY) rb_memerror();
    VALUE message = jdec_utf8(e->message);
    switch (e->quote) {
    case WB_JSCAN_QUOTE_CHAR: rb_str_append(message, describe_bytes(e->subject, e->subject_len)); break;
    case WB_JSCAN_QUOTE_EXCERPT:
        rb_str_append(message, excerpt(rb_funcall(rb_utf8_str_new(e->subject, (long)e->subject_len), id_scrub, 0)));
        break;
    case WB_JSCAN_QUOTE_RAW: rb_str_cat(message, e->subject, (long)e->subject_len); break;
    default: break;
    }
    rb_str_cat_cstr(message, e->suffix);
    wb_error_raise_parse(e->kind == WB_JSCAN_LIMIT_ERROR ? wb_hooks.eLimitError : wb_hooks.eParseError, message, e->line, e->column,
                         (long)e->offset, e->kind == WB_JSCAN_TRUNCATED ? WB_ERROR_REASON_TRUNCATED : WB_ERROR_REASON_OF_CLASS);
}

static const wb_jscan_handler HANDLER = {jdec_read_chunk, scanner_error};

/* ==== positions and errors of the decoder's own ====================================== */

static NORETURN(void fail_at(const wb_jdec *d, VALUE klass, VALUE message, size_t p, int reason));
static void fail_at(const wb_jdec *d, VALUE klass, VALUE message, size_t p, int reason)
{
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, p, &line, &column, &offset);
    wb_error_raise_parse(klass, message, line, column, (long)offset, reason);
}

#define PARSE_ERROR(d, message, p) fail_at((d), wb_hooks.eParseError, (message), (p), WB_ERROR_REASON_OF_CLASS)
#define TRUNCATED(d, message, p) fail_at((d), wb_hooks.eParseError, (message), (p), WB_ERROR_REASON_TRUNCATED)
#define LIMIT_ERROR(d, message, p) fail_at((d), wb_hooks.eLimitError, (message), (p), WB_ERROR_REASON_OF_CLASS)

static NORETURN(void depth_error(const wb_jdec *d, size_t p));
static void depth_error(const wb_jdec *d, size_t p)
{
    char text[96];
    snprintf(text, sizeof(text), "arrays and objects are nested deeper than max_depth (%zu)", d->max_depth);
    LIMIT_ERROR(d, jdec_utf8(text), p);
}

/* "<before><the character at the scan position><after>". */
static NORETURN(void unexpected_after(wb_jdec *d, const char *before, const char *after));
static void unexpected_after(wb_jdec *d, const char *before, const char *after)
{
    wb_jscan *s = &d->s;
    size_t n = s->pos < s->len ? s->len - s->pos : 0;
    if (n > 4) n = 4;
    wb_jscan_fail(s, WB_JSCAN_PARSE_ERROR, s->pos, before, WB_JSCAN_QUOTE_CHAR, (const char *)s->buf + s->pos, n, after);
}

static NORETURN(void unexpected(wb_jdec *d, const char *before));
static void unexpected(wb_jdec *d, const char *before)
{
    unexpected_after(d, before, NULL);
}

/* A string value (read_string(true)) as a Ruby String. */
static VALUE read_string_value(wb_jdec *d, size_t *start)
{
    size_t len, s;
    int high;
    const char *p = wb_jscan_read_string(&d->s, &d->s.str, &len, &high, &s);
    if (start) *start = s;
    return new_string(p, len, high);
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
    return wb_scalar_big_integer((const char *)p, n);
}

/* FloatType.parse of a JSON number: the nearest double. Exact arithmetic when
 * the digits and the power of ten are both exact doubles (Clinger's fast
 * path), else Ruby's own strtod (Float()'s), which rounds correctly in any locale. */
static double float_value(const unsigned char *p, size_t n)
{
    double fast;
    if (wb_scalar_exact_double(p, n, &fast)) return fast;
    size_t i = 0;
    int negative = p[0] == '-';
    if (negative) i++;
    uint64_t mantissa = 0;
    int digits = 0;
    long exponent = 0;
    int exact = 1;
    for (; i < n && jdec_is_digit(p[i]); i++) {
        if (mantissa || p[i] != '0') {
            if (++digits > 15)
                exact = 0;
            else
                mantissa = mantissa * 10 + (uint64_t)(p[i] - '0');
        }
    }
    if (i < n && p[i] == '.') {
        for (i++; i < n && jdec_is_digit(p[i]); i++) {
            if (mantissa || p[i] != '0') {
                if (++digits > 15)
                    exact = 0;
                else
                    mantissa = mantissa * 10 + (uint64_t)(p[i] - '0');
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
            v = exponent < 0 ? v / WB_SCALAR_POW10[-exponent] : v * WB_SCALAR_POW10[exponent];
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

static inline wb_jdec_frame *jdec_top_frame(wb_jdec *d)
{
    return &d->frames[d->nframes - 1];
}

static wb_jdec_frame *jdec_push_frame(wb_jdec *d, int kind)
{
    if (d->nframes == d->frames_cap) {
        size_t cap = d->frames_cap ? d->frames_cap * 2 : 16;
        d->frames = ruby_xrealloc2(d->frames, cap, sizeof(wb_jdec_frame));
        d->frames_cap = cap;
    }
    wb_jdec_frame *f = &d->frames[d->nframes++];
    memset(f, 0, sizeof(*f));
    f->kind = (unsigned char)kind;
    f->values = NONE;
    return f;
}

static size_t jdec_push_values(wb_jdec *d, size_t n)
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
static VALUE decode_path(wb_jdec *d, long index, const char *key, size_t key_len)
{
    VALUE parts = rb_ary_new();
    for (size_t i = 0; i < d->nframes; i++) {
        const wb_jdec_frame *f = &d->frames[i];
        if (f->kind == F_OBJECT) {
            if (key && i == d->nframes - 1) {
                rb_ary_push(parts, rb_utf8_str_new(key, (long)key_len));
            } else if (f->at) {
                rb_ary_push(parts, f->at->key_str);
            }
        } else if (!f->single) {
            rb_ary_push(parts, LONG2NUM(f->index));
        }
    }
    if (index >= 0) rb_ary_push(parts, LONG2NUM(index));
    return rb_funcall(wb_hooks.mJSONWriter, id_format_path, 1, parts);
}

static NORETURN(void value_error(wb_jdec *d, VALUE message, long index, size_t p));
static void value_error(wb_jdec *d, VALUE message, long index, size_t p)
{
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, p, &line, &column, &offset);
    wb_error_raise_decode(message, decode_path(d, index, NULL, 0), line, column);
}

/* slot.expected / slot.expected(item: true) */
static VALUE slot_expected(const wb_jplan_slot *slot, int item)
{
    if (!item) return rb_funcall(slot->slot, id_expected, 0);
    VALUE options = wb_hooks.item_true;
    return rb_funcallv_kw(slot->slot, id_expected, 1, &options, RB_PASS_KEYWORDS);
}

/* Plan::EXPECTED.fetch(code) */
static VALUE code_expected(int code)
{
    return rb_funcall(wb_hooks.json_expected, id_fetch, 1, wb_scalar_type_symbol(code));
}

/* Decoder#describe_value: reads the value at the scan position to name it. */
static VALUE describe_value(wb_jdec *d, int byte)
{
    switch (byte) {
    case '"': return join3("the string ", excerpt(read_string_value(d, NULL)), NULL);
    case '{': return jdec_utf8("an object");
    case '[': return jdec_utf8("an array");
    case 't': return jdec_utf8("true");
    case 'f': return jdec_utf8("false");
    case 'n': return jdec_utf8("null");
    default:
        if (byte == '-' || jdec_is_digit(byte)) {
            size_t n;
            size_t start = wb_jscan_read_number(&d->s, &n);
            return join3("the number ", number_excerpt((const char *)d->s.buf + start, n), NULL);
        }
        unexpected(d, "expected a JSON value, got ");
    }
}

/* Decoder#mismatch: a well-formed value of the wrong kind is at the scan position. */
static NORETURN(void mismatch(wb_jdec *d, VALUE expected, long index));
static void mismatch(wb_jdec *d, VALUE expected, long index)
{
    int byte = wb_jscan_peek_byte(&d->s);
    if (byte < 0) TRUNCATED(d, jdec_utf8("the input ends where a value was expected"), d->s.pos);
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, d->s.pos, &line, &column, &offset);
    VALUE found = describe_value(d, byte);
    VALUE message = join3("expected ", expected, ", got ");
    rb_str_append(message, found);
    wb_error_raise_decode(message, decode_path(d, index, NULL, 0), line, column);
}

/* Decoder#unknown_key: strict, and the key (the top record's current member) is not in the schema. */
static NORETURN(void unknown_key(wb_jdec *d, const char *key, size_t key_len));
static void unknown_key(wb_jdec *d, const char *key, size_t key_len)
{
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, d->s.pos, &line, &column, &offset);
    VALUE path = decode_path(d, -1, key, key_len);
    wb_error_raise_decode(jdec_utf8("unknown key (strict: true)"), path, line, column);
}

/* ---- scalars (Decoder#scalar, #scalar_slow, #convert_*) ---- */

typedef struct convert_args {
    wb_jdec *d;
    int code;
    VALUE text;
    long index;
    size_t start;
} convert_args;

static VALUE call_convert_text(VALUE arg)
{
    convert_args *a = (convert_args *)arg;
    return rb_funcall(wb_hooks.mJSONPure, id_convert_text, 2, wb_scalar_type_symbol(a->code), a->text);
}

static VALUE rescue_convert(VALUE arg, VALUE error)
{
    convert_args *a = (convert_args *)arg;
    value_error(a->d, rb_funcall(error, id_message, 0), a->index, a->start);
    return Qnil;
}

static inline int xml_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Decoder#convert_string for :time, :date and :base64: the C twins of
 * scalar.c for what they take exactly as Ruby does (no surrounding blanks, for
 * base64 none at all: a JSON string is the value exactly), else
 * Pure::Decoder.convert_text, whose InvalidValue becomes a DecodeError. */
static VALUE convert_text(wb_jdec *d, int code, const char *p, size_t n, int high, long index, size_t start)
{
    int blanks = n == 0 || xml_blank((unsigned char)p[0]) || xml_blank((unsigned char)p[n - 1]);
    if (!blanks && code == WB_SCALAR_BASE64) {
        for (size_t i = 0; i < n && !blanks; i++) blanks = xml_blank((unsigned char)p[i]);
    }
    if (!blanks) {
        VALUE v = wb_scalar_convert(&d->env, code, p, n);
        if (v != Qundef) return v;
    }
    convert_args a = {d, code, new_string(p, n, high), index, start};
    return rb_rescue2(call_convert_text, (VALUE)&a, rescue_convert, (VALUE)&a, wb_hooks.eInvalidValue, (VALUE)0);
}

/* Decoder#decimal: BigDecimal() of the text, which reads any exponent but gives
 * Infinity or zero for one beyond its range. */
static VALUE decimal_value(wb_jdec *d, const unsigned char *p, size_t n, long index, size_t start)
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

/* Decoder#convert_number: the number `p` (n bytes, read at `start`). */
static VALUE number_value(wb_jdec *d, int code, const unsigned char *p, size_t n, size_t start, long index)
{
    switch (code) {
    case WB_SCALAR_INTEGER:
        if (has_fraction_or_exponent(p, n)) {
            value_error(d, join3("expected an integer, got ", number_excerpt((const char *)p, n), NULL), index, start);
        }
        return integer_value(p, n);
    case WB_SCALAR_FLOAT: {
        double v = float_value(p, n);
        if (!isfinite(v)) {
            value_error(d, join3("the number ", number_excerpt((const char *)p, n), " is beyond the range of a double"), index, start);
        }
        return DBL2NUM(v);
    }
    default: return decimal_value(d, p, n, index, start);
    }
}

/* Plan::EXPECTED.fetch(code), and " or a string holding one" for a lenient number. */
static VALUE scalar_expected(int code, int lenient)
{
    VALUE expected = code_expected(code);
    if (!lenient) return expected;
    expected = rb_str_dup(expected);
    rb_str_cat_cstr(expected, " or a string holding one");
    return expected;
}

/* Decoder#number_text: a lenient_numbers string (its quote at the scan
 * position) read as the number it holds. */
static VALUE number_string(wb_jdec *d, int code, long index)
{
    size_t len, start;
    int high;
    const char *p = wb_jscan_read_string(&d->s, &d->s.str, &len, &high, &start);
    if (len > d->s.max_number_length) {
        char text[96];
        snprintf(text, sizeof(text), "a number is longer than max_number_length (%zu characters)", d->s.max_number_length);
        LIMIT_ERROR(d, jdec_utf8(text), start);
    }
    if (!wb_jscan_number_grammar((const unsigned char *)p, len)) {
        VALUE message = join3("expected ", scalar_expected(code, 1), ", got the string ");
        rb_str_append(message, excerpt(new_string(p, len, high)));
        value_error(d, message, index, start);
    }
    return number_value(d, code, (const unsigned char *)p, len, start, index);
}

/* Decoder#scalar and #scalar_slow: a value of type `code` at the scan
 * position; `lenient`: a string holding a number is read as one. */
static VALUE scalar(wb_jdec *d, int code, long index, int lenient)
{
    int byte = wb_jscan_peek_byte(&d->s);
    if (byte == 'n') {
        wb_jscan_read_literal(&d->s, "null", 4);
        return Qnil;
    }
    switch (code) {
    case WB_SCALAR_STRING:
        if (byte == '"') return read_string_value(d, NULL);
        break;
    case WB_SCALAR_TIME:
    case WB_SCALAR_DATE:
    case WB_SCALAR_BASE64:
        if (byte == '"') {
            size_t len, start;
            int high;
            const char *p = wb_jscan_read_string(&d->s, &d->s.str, &len, &high, &start);
            return convert_text(d, code, p, len, high, index, start);
        }
        break;
    case WB_SCALAR_INTEGER:
    case WB_SCALAR_FLOAT:
    case WB_SCALAR_DECIMAL:
        if (byte == '-' || jdec_is_digit(byte)) {
            size_t n;
            size_t start = wb_jscan_read_number(&d->s, &n);
            return number_value(d, code, d->s.buf + start, n, start, index);
        }
        if (byte == '"' && lenient) return number_string(d, code, index);
        break;
    case WB_SCALAR_BOOLEAN:
        if (byte == 't') {
            wb_jscan_read_literal(&d->s, "true", 4);
            return Qtrue;
        }
        if (byte == 'f') {
            wb_jscan_read_literal(&d->s, "false", 5);
            return Qfalse;
        }
        break;
    default: break;
    }
    mismatch(d, scalar_expected(code, lenient), index);
}

/* ---- untyped values (Parser#read_any) ---- */

/* Parser#any_path: the keys and indexes of read_any's open containers. */
static VALUE any_path(wb_jdec *d, size_t base_any, size_t base_values)
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
    return rb_funcall(wb_hooks.mJSONWriter, id_format_path, 1, parts);
}

static void push_any(wb_jdec *d, int object, VALUE container, VALUE key)
{
    if (d->nany == d->any_cap) {
        size_t cap = d->any_cap ? d->any_cap * 2 : 32;
        d->any_kinds = ruby_xrealloc(d->any_kinds, cap);
        d->any_cap = cap;
    }
    size_t v = jdec_push_values(d, 2);
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
static VALUE any_number(wb_jdec *d, int build, size_t base_any, size_t base_values)
{
    size_t n;
    size_t start = wb_jscan_read_number(&d->s, &n);
    if (!build) return Qnil;
    const unsigned char *p = d->s.buf + start;
    if (!has_fraction_or_exponent(p, n)) return integer_value(p, n);
    double v = float_value(p, n);
    if (isfinite(v)) return DBL2NUM(v);
    long line, column;
    long long offset;
    wb_jscan_locate(&d->s, start, &line, &column, &offset);
    VALUE message = join3("the number ", number_excerpt((const char *)p, n), " is beyond the range of a double");
    wb_error_raise_decode(message, any_path(d, base_any, base_values), line, column);
}

/* Parser#read_any: one complete value at the scan position, as plain Ruby
 * values (build) or only checked. `depth`: containers open around it. */
static VALUE read_any(wb_jdec *d, int build, size_t depth)
{
    const size_t base_any = d->nany;
    const size_t base_values = d->nvalues;
    const size_t max_open = d->max_depth > depth ? d->max_depth - depth : 0;
    VALUE value = Qnil;
    for (;;) {
        /* ---- one value; a container's first member is read on the next turn */
        int byte = wb_jscan_byte_at_pos(&d->s);
        switch (byte) {
        case '"':
            if (build) {
                value = read_string_value(d, NULL);
            } else {
                size_t len, start;
                int high;
                wb_jscan_read_string(&d->s, NULL, &len, &high, &start);
                value = Qnil;
            }
            break;
        case '{': {
            if (d->nany - base_any >= max_open) depth_error(d, d->s.pos);
            d->s.pos++;
            VALUE container = build ? rb_hash_new() : Qnil;
            const char *key;
            size_t key_len;
            if (wb_jscan_next_member(&d->s, 1, &key, &key_len)) {
                push_any(d, 1, container, build ? key_value(key, key_len) : Qnil);
                RB_GC_GUARD(container);
                continue;
            }
            value = container;
            break;
        }
        case '[': {
            if (d->nany - base_any >= max_open) depth_error(d, d->s.pos);
            d->s.pos++;
            VALUE container = build ? rb_ary_new() : Qnil;
            if (wb_jscan_next_item(&d->s, 1)) {
                push_any(d, 0, container, Qnil);
                RB_GC_GUARD(container);
                continue;
            }
            value = container;
            break;
        }
        case 't':
            wb_jscan_read_literal(&d->s, "true", 4);
            value = Qtrue;
            break;
        case 'f':
            wb_jscan_read_literal(&d->s, "false", 5);
            value = Qfalse;
            break;
        case 'n':
            wb_jscan_read_literal(&d->s, "null", 4);
            value = Qnil;
            break;
        case ' ':
        case '\t':
        case '\n':
        case '\r': wb_jscan_peek_byte(&d->s); continue;
        case -1:
            if (wb_jscan_refill(&d->s)) continue;
            if (d->nany == base_any) TRUNCATED(d, jdec_utf8("the input ends where a value was expected"), d->s.pos);
            TRUNCATED(d, jdec_utf8(d->any_kinds[d->nany - 1] ? "the input ends inside an object" : "the input ends inside an array"),
                      d->s.pos);
        default:
            if (byte == '-' || jdec_is_digit(byte)) {
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
                if (wb_jscan_next_member(&d->s, 0, &key, &key_len)) {
                    if (build) d->values[v + 1] = key_value(key, key_len);
                    break;
                }
            } else {
                if (build) rb_ary_push(container, value);
                if (wb_jscan_next_item(&d->s, 0)) break;
            }
            value = container;
            d->nany--;
            d->nvalues -= 2;
        }
    }
}

/* ---- records and lists (Decoder#members, #items, #finish_*) ---- */

static void push_object(wb_jdec *d, wb_jplan_slot *slot, const wb_jplan *plan)
{
    size_t base = jdec_push_values(d, (size_t)plan->size);
    wb_jdec_frame *f = jdec_push_frame(d, F_OBJECT);
    f->plan = plan;
    f->slot = slot;
    f->values = base;
}

/* A kept list's items go on the values stack above its base, and become one
 * Array of their exact size when the list ends (finish_list): no Array grown
 * item by item (a reallocation at 4, 8, 16... items, a write barrier per push). */
static void push_list(wb_jdec *d, wb_jplan_slot *slot, const wb_jplan *plan, int keep)
{
    size_t base = d->nvalues;
    wb_jdec_frame *f = jdec_push_frame(d, F_LIST);
    f->plan = plan;
    f->slot = slot;
    f->values = keep ? base : NONE;
}

/* Decoder#string_record: a record of `slot`'s model from the string at the
 * scan position, in its string_as attribute; the others nil (lists []). */
static VALUE string_record(wb_jdec *d, wb_jplan_slot *slot)
{
    if (slot->string_as == WB_JPLAN_STRING_ITSELF) return read_string_value(d, NULL); /* expandable */
    const wb_jplan *plan = wb_jplan_slot_plan(slot);
    VALUE text = read_string_value(d, NULL);
    VALUE object = rb_obj_alloc(plan->klass);
    for (long i = 0; i < plan->encoded; i++) {
        VALUE v = i == slot->string_as ? text : plan->slots[i].list ? rb_ary_new() : Qnil;
        rb_ivar_set(object, plan->slots[i].ivar, v);
    }
    RB_GC_GUARD(text);
    return object;
}

/* A record from its values: allocated without initialize, the values go to
 * the plan's __wb_fill_vN as arguments (which sets every instance variable in
 * declaration order, an absent list as [], checks enum: values and converts
 * :time format: values), straight from the values stack, as the XML decoder
 * builds. */
static VALUE jdec_build(wb_jdec *d, const wb_jplan *plan, size_t base)
{
    VALUE object = rb_obj_alloc(plan->klass);
    return rb_funcallv(object, plan->filler, (int)plan->size, d->values + base);
}

static void deliver_item(wb_jdec *d, VALUE value)
{
    wb_jdec_frame *f = jdec_top_frame(d);
    if (f->values != NONE) {
        /* the list's items so far are the top of the stack: a record's values were popped before */
        size_t at = jdec_push_values(d, 1);
        d->values[at] = value;
    } else {
        rb_funcallv(d->block, id_call, 1, &value);
        f = jdec_top_frame(d);
    }
    f->index++;
}

typedef struct variant_args {
    wb_jdec *d;
    const wb_jplan *plan;
    size_t base;
} variant_args;

static VALUE call_variant_build(VALUE arg)
{
    variant_args *a = (variant_args *)arg;
    return jdec_build(a->d, a->plan, a->base);
}

/* Decoder#build: a value the builder refuses (Model::Attribute::Refusal) is an
 * error at its attribute's key; a member read before the discriminator that
 * does not fit the class (Plan::MemberError), an error at the path inside that
 * member; a discriminator naming no class, an error at its member. */
static VALUE rescue_variant(VALUE arg, VALUE error)
{
    variant_args *a = (variant_args *)arg;
    if (rb_obj_is_kind_of(error, wb_hooks.eRefusal)) {
        VALUE key = rb_funcall(error, id_json_key, 0);
        long line, column;
        long long offset;
        wb_jscan_locate(&a->d->s, a->d->s.pos, &line, &column, &offset);
        VALUE path = decode_path(a->d, -1, RSTRING_PTR(key), (size_t)RSTRING_LEN(key));
        RB_GC_GUARD(key);
        wb_error_raise_decode(rb_funcall(error, id_reason, 0), path, line, column);
    }
    if (rb_respond_to(error, id_path_under)) {
        long index = NUM2LONG(rb_funcall(error, id_index, 0));
        if (index < 0 || index >= a->plan->size) rb_raise(rb_eArgError, "member index out of range");
        jdec_top_frame(a->d)->at = &a->plan->slots[index];
        long line, column;
        long long offset;
        wb_jscan_locate(&a->d->s, a->d->s.pos, &line, &column, &offset);
        VALUE path = rb_funcall(error, id_path_under, 1, decode_path(a->d, -1, NULL, 0));
        wb_error_raise_decode(rb_funcall(error, id_message, 0), path, line, column);
    }
    if (a->plan->tag_index < 0) rb_exc_raise(error);
    jdec_top_frame(a->d)->at = &a->plan->slots[a->plan->tag_index];
    value_error(a->d, rb_funcall(error, id_message, 0), -1, a->d->s.pos);
    return Qnil;
}

/* strict, a class with json_type variants: each member's slot index, a Fixnum
 * above the record's values (finish_object drops them with the values;
 * Decoder#members' KEYS_READ). */
static void remember_key(wb_jdec *d, const wb_jplan_slot *slot)
{
    size_t at = jdec_push_values(d, 1);
    d->values[at] = LONG2FIX(slot->index);
}

/* Decoder#stray_keys: a member of another mapped class than the one the
 * discriminator picked is an error at the member's path, positioned at the
 * object's end (JSON::Plan#stray_key). */
static void stray_keys(wb_jdec *d, wb_jdec_frame *f)
{
    const wb_jplan *plan = f->plan;
    size_t from = f->values + (size_t)plan->size;
    if (from >= d->nvalues) return;
    VALUE values = rb_ary_new_from_values(plan->size, d->values + f->values);
    VALUE ruby_plan = rb_funcall(wb_hooks.cJSONPlan, id_for, 1, plan->klass);
    for (size_t i = from; i < d->nvalues; i++) {
        long index = FIX2LONG(d->values[i]);
        VALUE message = rb_funcall(ruby_plan, id_stray_key, 2, values, LONG2FIX(index));
        if (NIL_P(message)) continue;
        f->at = &plan->slots[index];
        value_error(d, message, -1, d->s.pos);
    }
    RB_GC_GUARD(values);
    RB_GC_GUARD(ruby_plan);
}

static void finish_object(wb_jdec *d)
{
    wb_jdec_frame *f = jdec_top_frame(d);
    VALUE record;
    if (d->strict && f->plan->tag_index >= 0) stray_keys(d, f);
    if (f->plan->tag_index >= 0 || f->plan->checked) { /* built while its frame is open, for the error's path */
        variant_args a = {d, f->plan, f->values};
        record = rb_rescue2(call_variant_build, (VALUE)&a, rescue_variant, (VALUE)&a, wb_hooks.eRefusal, wb_hooks.eInvalidValue, (VALUE)0);
    } else {
        record = jdec_build(d, f->plan, f->values);
    }
    f = &d->frames[--d->nframes];
    d->nvalues = f->values;
    if (!d->nframes) {
        d->result = record;
        return;
    }
    wb_jdec_frame *parent = jdec_top_frame(d);
    if (parent->kind == F_OBJECT) {
        d->values[parent->values + (size_t)f->slot->index] = record;
    } else {
        deliver_item(d, record);
    }
    RB_GC_GUARD(record);
}

static void finish_list(wb_jdec *d)
{
    wb_jdec_frame *f = &d->frames[--d->nframes];
    VALUE items = Qnil;
    if (f->values != NONE) {
        items = rb_ary_new_from_values((long)(d->nvalues - f->values), d->values + f->values);
        d->nvalues = f->values;
    }
    if (d->nframes) {
        wb_jdec_frame *parent = jdec_top_frame(d);
        if (parent->kind == F_LIST) {
            deliver_item(d, items); /* an inner list of a nested slot */
        } else {
            d->values[parent->values + (size_t)f->slot->index] = items;
        }
    } else {
        d->result = f->values != NONE ? items : LONG2NUM(f->index);
    }
    RB_GC_GUARD(items);
}

/* Decoder#scalars: the items of a list of scalars, after its '['. */
static VALUE scalars(wb_jdec *d, int code, int lenient)
{
    if (!wb_jscan_next_item(&d->s, 1)) return rb_ary_new();
    /* the items on the values stack, then one Array of their exact size (as push_list) */
    const size_t base = d->nvalues;
    for (;;) {
        VALUE v = scalar(d, code, (long)(d->nvalues - base), lenient);
        size_t at = jdec_push_values(d, 1);
        d->values[at] = v;
        if (!wb_jscan_next_item(&d->s, 0)) break;
    }
    VALUE list = rb_ary_new_from_values((long)(d->nvalues - base), d->values + base);
    d->nvalues = base;
    return list;
}

/* Decoder#slow_list for a one_or_many list whose value is not an array:
 * one item, read as a list of one into values[vi]. Returns 1 when the item is
 * an object, pushed (under a single list frame that ends after it). */
static int one_item(wb_jdec *d, wb_jplan_slot *slot, size_t vi)
{
    VALUE item;
    if (slot->code != WB_JPLAN_MODEL) {
        item = scalar(d, slot->code, -1, slot->lenient);
    } else {
        int byte = wb_jscan_peek_byte(&d->s);
        if (byte == '"' && slot->string_as != -1) {
            item = string_record(d, slot);
        } else {
            if (byte != '{') mismatch(d, slot_expected(slot, 0), -1);
            if (d->nframes + 1 >= d->max_depth) depth_error(d, d->s.pos);
            const wb_jplan *plan = wb_jplan_slot_plan(slot);
            push_list(d, slot, plan, 1);
            jdec_top_frame(d)->single = 1;
            d->s.pos++;
            push_object(d, slot, plan);
            return 1;
        }
    }
    VALUE list = rb_ary_new_from_values(1, &item);
    d->values[vi] = list;
    return 0;
}

/* Decoder#members: the members of the record on top of the stack, until it
 * ends or a member's value opens a record or a list of records (pushed). */
static void members(wb_jdec *d)
{
    wb_jdec_frame *f = jdec_top_frame(d);
    const wb_jplan *plan = f->plan;
    int first = !f->started;
    f->started = 1;
    for (;;) {
        const char *key;
        size_t key_len;
        if (!wb_jscan_next_member(&d->s, first, &key, &key_len)) {
            finish_object(d);
            return;
        }
        first = 0;
        f = jdec_top_frame(d);
        wb_jplan_slot *slot = wb_jplan_lookup(plan, key, key_len, &f->hint);
        f->at = slot;
        if (!slot) {
            if (d->strict) unknown_key(d, key, key_len);
            read_any(d, 0, d->nframes);
            continue;
        }
        if (d->strict && plan->tag_index >= 0) remember_key(d, slot);
        if (slot->nvariants) { /* Decoder#variant_slot */
            wb_jplan_slot *typed = wb_jplan_variant_slot(slot, d->values[f->values + (size_t)plan->tag_index]);
            if (!typed) { /* before the discriminator: kept plain, read as its class reads it once known */
                VALUE plain = read_any(d, 1, d->nframes);
                VALUE deferred = rb_funcall(slot->slot, id_defer, 1, plain);
                f = jdec_top_frame(d);
                d->values[f->values + (size_t)slot->index] = deferred;
                continue;
            }
            slot = typed;
        }
        size_t vi = f->values + (size_t)slot->index;
        int byte = wb_jscan_byte_at_pos(&d->s);
        if (byte == 'n') {
            wb_jscan_read_literal(&d->s, "null", 4);
            d->values[vi] = Qnil;
            continue;
        }
        if (slot->code == WB_JPLAN_ANY && (!slot->list || byte == '[')) {
            VALUE v = read_any(d, 1, d->nframes);
            d->values[vi] = v;
            continue;
        }
        if (slot->list) {
            if (byte != '[') {
                if (!slot->one_or_many) mismatch(d, slot_expected(slot, 0), -1);
                if (one_item(d, slot, vi)) return;
                continue;
            }
            if (d->nframes >= d->max_depth) depth_error(d, d->s.pos);
            d->s.pos++;
            if (slot->nested) {
                push_list(d, slot, NULL, 1);
                jdec_top_frame(d)->levels = (unsigned char)slot->nested;
                return;
            }
            if (slot->code == WB_JPLAN_MODEL) {
                push_list(d, slot, wb_jplan_slot_plan(slot), 1);
                return;
            }
            VALUE list = scalars(d, slot->code, slot->lenient);
            d->values[vi] = list;
            continue;
        }
        switch (slot->code) {
        case WB_SCALAR_STRING:
            if (byte == '"') {
                VALUE s = read_string_value(d, NULL);
                d->values[vi] = s;
                continue;
            }
            break;
        case WB_JPLAN_MODEL:
            if (byte == '{') {
                if (d->nframes >= d->max_depth) depth_error(d, d->s.pos);
                d->s.pos++;
                push_object(d, slot, wb_jplan_slot_plan(slot));
                return;
            }
            if (byte == '"' && slot->string_as != -1) {
                VALUE record = string_record(d, slot);
                d->values[vi] = record;
                continue;
            }
            mismatch(d, slot_expected(slot, 1), -1);
        default: break;
        }
        VALUE v = scalar(d, slot->code, -1, slot->lenient);
        d->values[vi] = v;
    }
}

/* Decoder#open_row: an item of a nested slot's outer list `f`: a list of
 * records or of lists (pushed: returns 1), or the innermost list of scalars
 * or null (delivered: 0). */
static int open_row(wb_jdec *d, wb_jdec_frame *f, wb_jplan_slot *slot)
{
    int levels = f->levels;
    int byte = wb_jscan_peek_byte(&d->s);
    if (byte == '[') {
        if (d->nframes >= d->max_depth) depth_error(d, d->s.pos);
        d->s.pos++;
        if (levels > 1) {
            push_list(d, slot, NULL, 1);
            jdec_top_frame(d)->levels = (unsigned char)(levels - 1);
            return 1;
        }
        if (slot->code == WB_JPLAN_MODEL) {
            push_list(d, slot, wb_jplan_slot_plan(slot), 1);
            return 1;
        }
        deliver_item(d, scalars(d, slot->code, slot->lenient));
        return 0;
    }
    if (byte != 'n') mismatch(d, rb_funcall(slot->slot, id_row_expected, 1, INT2FIX(levels)), -1);
    wb_jscan_read_literal(&d->s, "null", 4);
    deliver_item(d, Qnil);
    return 0;
}

/* Decoder#items: the items of the list on top of the stack, until it ends or
 * an item opens a record (pushed). */
static void items(wb_jdec *d)
{
    wb_jdec_frame *f = jdec_top_frame(d);
    wb_jplan_slot *slot = f->slot;
    if (f->single) {
        finish_list(d);
        return;
    }
    int first = !f->started;
    f->started = 1;
    for (;;) {
        if (!wb_jscan_next_item(&d->s, first)) {
            finish_list(d);
            return;
        }
        first = 0;
        if (f->levels) { /* a nested slot's outer list: Decoder#open_row */
            if (open_row(d, f, slot)) return;
            f = jdec_top_frame(d);
            continue;
        }
        switch (slot->code) {
        case WB_JPLAN_MODEL: {
            int byte = wb_jscan_peek_byte(&d->s);
            if (byte == '{') {
                if (d->nframes >= d->max_depth) depth_error(d, d->s.pos);
                d->s.pos++;
                push_object(d, slot, jdec_top_frame(d)->plan);
                return;
            }
            if (byte == '"' && slot->string_as != -1) {
                deliver_item(d, string_record(d, slot));
                break;
            }
            if (byte != 'n') mismatch(d, slot_expected(slot, 1), -1);
            wb_jscan_read_literal(&d->s, "null", 4);
            deliver_item(d, Qnil);
            break;
        }
        case WB_JPLAN_ANY: deliver_item(d, read_any(d, 1, d->nframes)); break;
        default: deliver_item(d, scalar(d, slot->code, -1, slot->lenient)); break;
        }
    }
}

/* Decoder#root_value: the value the document is, its first byte at the scan position. */
static void root_value(wb_jdec *d)
{
    wb_jplan_slot *slot = &d->root;
    int byte = wb_jscan_byte_at_pos(&d->s);
    if (slot->list) {
        if (byte == '[') {
            d->s.pos++;
            push_list(d, slot, slot->code == WB_JPLAN_MODEL ? wb_jplan_slot_plan(slot) : NULL, NIL_P(d->block));
        } else if (byte == 'n') {
            wb_jscan_read_literal(&d->s, "null", 4);
            d->result = NIL_P(d->block) ? rb_ary_new() : INT2FIX(0);
        } else {
            mismatch(d, slot_expected(slot, 0), -1);
        }
    } else if (slot->code == WB_JPLAN_MODEL) {
        if (byte == '{') {
            d->s.pos++;
            push_object(d, slot, wb_jplan_slot_plan(slot));
        } else if (byte == 'n') {
            wb_jscan_read_literal(&d->s, "null", 4);
        } else {
            mismatch(d, slot_expected(slot, 0), -1);
        }
    } else if (slot->code == WB_JPLAN_ANY) {
        d->result = read_any(d, 1, 0);
    } else {
        d->result = scalar(d, slot->code, -1, 0);
    }
}

/* ==== lifecycle ===================================================================== */

void wb_jdec_init(wb_jdec *d, VALUE source, int code, VALUE type, int list, VALUE slot, int strict, size_t max_depth, size_t max_token_size,
                  size_t max_number_length, VALUE block)
{
    d->source = source;
    d->chunk = Qnil;
    d->previous_chunk = Qnil;
    wb_jscan_init(&d->s, &HANDLER, d, max_token_size, max_number_length);
    d->max_depth = max_depth;
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
    d->root.string_as = -1; /* the document's value has no JSON unions */
    d->env.decimal_text = 0;
    d->decimal_text = 0;
    /* Scanner#initialize: the first chunk; a byte order mark counts in offsets only. */
    wb_jscan_refill(&d->s);
    d->s.base_offset = NUM2LL(rb_funcall(source, id_bom_size, 0));
}

VALUE wb_jdec_run(wb_jdec *d)
{
    if (wb_jscan_peek_byte(&d->s) < 0) PARSE_ERROR(d, jdec_utf8("the input is empty (expected a JSON value)"), d->s.pos);
    root_value(d);
    while (d->nframes) {
        if (jdec_top_frame(d)->kind == F_OBJECT) {
            members(d);
        } else {
            items(d);
        }
    }
    /* Scanner#finish_input: only whitespace may follow. */
    if (wb_jscan_peek_byte(&d->s) >= 0) unexpected_after(d, "unexpected ", " after the JSON value");
    return d->result;
}

void wb_jdec_free(wb_jdec *d)
{
    wb_jscan_free(&d->s);
    ruby_xfree(d->frames);
    d->frames = NULL;
    d->frames_cap = d->nframes = 0;
    ruby_xfree(d->values);
    d->values = NULL;
    d->values_cap = d->nvalues = 0;
    ruby_xfree(d->any_kinds);
    d->any_kinds = NULL;
    d->any_cap = d->nany = 0;
}

/* Per-call state: everything is pinned (rb_gc_mark), since C holds the
 * addresses of records, lists and the chunk while Ruby runs in between. */
void wb_jdec_mark(wb_jdec *d)
{
    rb_gc_mark(d->source);
    rb_gc_mark(d->chunk);
    rb_gc_mark(d->previous_chunk);
    rb_gc_mark(d->block);
    rb_gc_mark(d->result);
    rb_gc_mark(d->root.type);
    rb_gc_mark(d->root.slot);
    if (d->root.plan) rb_gc_mark(d->root.plan);
    if (d->decimal_text) rb_gc_mark(d->decimal_text);
    if (d->env.decimal_text) rb_gc_mark(d->env.decimal_text);
    for (size_t i = 0; i < d->nvalues; i++) rb_gc_mark(d->values[i]);
}

size_t wb_jdec_memsize(const wb_jdec *d)
{
    return sizeof(*d) + wb_jscan_memsize(&d->s) + d->frames_cap * sizeof(wb_jdec_frame) + d->values_cap * sizeof(VALUE) + d->any_cap;
}
