/* The JSON value writer (see json_writer.h). Lifted from the two copies the
 * JSON encoder and the serializer engine had: the encoder's string escaper,
 * the serializer's Time fast path. */
#include "json_writer.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static ID id_to_s, id_finite_p, id_exponent, id_utc_p, id_subsec;

void wb_jwrite_init(void)
{
    id_to_s = rb_intern("to_s");
    id_finite_p = rb_intern("finite?");
    id_exponent = rb_intern("exponent");
    id_utc_p = rb_intern("utc?");
    id_subsec = rb_intern("subsec");
}

/* ---- strings (Writer.string) ------------------------------------------------------ */

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

static const char HEX[] = "0123456789abcdef";

/* Whether a byte of w may need a look: a C0 control, '"', '\\', or 0xE2 (the
 * lead of U+2028 and U+2029). (b - 0x20) borrows into the high bit of a byte
 * below 0x20; ~w keeps bytes below 0x80; a zero byte of w ^ c is a c. */
static inline int word_needs_look(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\'), e = w ^ (ONES * 0xE2);
    return ((((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((e - ONES) & ~e)) & HIGHS) != 0;
}

/* Writer::ESCAPES for one byte that needs it (not U+2028/U+2029). */
static void append_escape(wb_buffer *buffer, unsigned char c)
{
    switch (c) {
    case '"': wb_buffer_append_literal(buffer, "\\\""); return;
    case '\\': wb_buffer_append_literal(buffer, "\\\\"); return;
    case '\b': wb_buffer_append_literal(buffer, "\\b"); return;
    case '\f': wb_buffer_append_literal(buffer, "\\f"); return;
    case '\n': wb_buffer_append_literal(buffer, "\\n"); return;
    case '\r': wb_buffer_append_literal(buffer, "\\r"); return;
    case '\t': wb_buffer_append_literal(buffer, "\\t"); return;
    default: {
        char seq[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
        wb_buffer_append(buffer, seq, 6);
    }
    }
}

#if defined(__SSE2__)
/* The bytes of v that may need a look (word_needs_look's set), as a bit mask. */
static inline unsigned vector_needs_look(__m128i v)
{
    const __m128i control_max = _mm_set1_epi8(0x1F);
    __m128i look = _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
    look = _mm_or_si128(look, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    look = _mm_or_si128(look, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    look = _mm_or_si128(look, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE2)));
    return (unsigned)_mm_movemask_epi8(look);
}
#endif

/* Writer::ESCAPE over p[0, n), quoted: runs that need nothing are copied whole
 * (skipped 16 bytes per step with SSE2, then 8 per SWAR step). Room for the
 * common case (nothing to escape) is reserved up front; escapes reserve their
 * own. Reads only p[0, n). */
static void append_escaped(wb_buffer *buffer, const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    const unsigned char *run = p;
    wb_buffer_reserve(buffer, n + 2);
    buffer->ptr[buffer->len++] = '"';
    while (p < end) {
#if defined(__SSE2__)
        while (end - p >= 16) {
            unsigned look = vector_needs_look(_mm_loadu_si128((const __m128i *)(const void *)p));
            if (look) {
                p += __builtin_ctz(look);
                goto at_look;
            }
            p += 16;
        }
#endif
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (word_needs_look(w)) break;
            p += 8;
        }
        if (p >= end) break;
#if defined(__SSE2__)
    at_look:;
#endif
        unsigned char c = *p;
        if (c == 0xE2) {
            /* E2 80 A8 / E2 80 A9; any other character starting E2 stays as it is. */
            if (end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
                wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
                wb_buffer_append(buffer, p[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
                p += 3;
                run = p;
            } else {
                p++;
            }
        } else if (c < 0x20 || c == '"' || c == '\\') {
            wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
            append_escape(buffer, c);
            run = ++p;
        } else {
            p++;
        }
    }
    wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
    wb_buffer_append_char(buffer, '"');
}

int wb_jwrite_string(wb_buffer *buffer, VALUE str)
{
    int index = ENCODING_GET(str);
    int cr = rb_enc_str_coderange(str);
    if (cr == ENC_CODERANGE_BROKEN) return 0;
    /* ASCII-only text reads the same in any ASCII-compatible encoding as the
     * UTF-8 Writer.string would transcode it to. */
    if (index != wb_utf8_index && (cr != ENC_CODERANGE_7BIT || !rb_enc_asciicompat(rb_enc_from_index(index)))) return 0;
    /* Growing the buffer may run the GC while the bytes are read: str stays on
     * this stack (pinned) meanwhile. */
    append_escaped(buffer, (const unsigned char *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str));
    RB_GC_GUARD(str);
    return 1;
}

int wb_jwrite_text(wb_buffer *buffer, VALUE value)
{
    if (RB_TYPE_P(value, T_STRING)) return wb_jwrite_string(buffer, value);
    if (RB_TYPE_P(value, T_SYMBOL)) return wb_jwrite_string(buffer, rb_sym2str(value));
    return 0;
}

/* ---- numbers (Writer.integer, .float, .decimal) ------------------------------------ */

/* Longer number texts go to Ruby (Writer.integer, Writer.decimal), which
 * refuses what JSON.decode's max_number_length would. */
#define SHORT_NUMBER_TEXT 1024
/* JSON::Pure::Writer::DECIMAL_POSITIONAL_EXPONENT */
#define DECIMAL_POSITIONAL_EXPONENT 100

int wb_jwrite_integer(wb_buffer *buffer, VALUE value)
{
    if (FIXNUM_P(value)) {
        wb_buffer_append_long(buffer, FIX2LONG(value));
        return 1;
    }
    if (!RB_TYPE_P(value, T_BIGNUM)) return 0;
    VALUE digits = rb_big2str(value, 10);
    if (RSTRING_LEN(digits) > SHORT_NUMBER_TEXT) return 0;
    wb_buffer_append_str(buffer, digits);
    RB_GC_GUARD(digits);
    return 1;
}

int wb_jwrite_float(wb_buffer *buffer, VALUE value)
{
    if (!RB_FLOAT_TYPE_P(value) || !isfinite(RFLOAT_VALUE(value))) return 0;
    /* Float#to_s: the shortest text that reads back to the same double. */
    VALUE text = rb_funcall(value, id_to_s, 0);
    if (!RB_TYPE_P(text, T_STRING)) return 0;
    wb_buffer_append_str(buffer, text);
    RB_GC_GUARD(text);
    return 1;
}

int wb_jwrite_decimal(wb_buffer *buffer, VALUE value)
{
    if (RB_INTEGER_TYPE_P(value)) return wb_jwrite_integer(buffer, value);
    if (RB_SPECIAL_CONST_P(value) || RBASIC_CLASS(value) != wb_hooks.cBigDecimal) return 0;
    /* NaN and the infinities: Ruby raises. Past the exponent: Ruby writes the "E" form. */
    if (!RTEST(rb_funcall(value, id_finite_p, 0))) return 0;
    VALUE exponent = rb_funcall(value, id_exponent, 0);
    if (!FIXNUM_P(exponent) || FIX2LONG(exponent) > DECIMAL_POSITIONAL_EXPONENT || FIX2LONG(exponent) < -DECIMAL_POSITIONAL_EXPONENT) {
        return 0;
    }
    VALUE text = rb_funcall(value, id_to_s, 1, wb_hooks.str_F);
    if (!RB_TYPE_P(text, T_STRING) || RSTRING_LEN(text) > SHORT_NUMBER_TEXT) return 0;
    wb_buffer_append_str(buffer, text);
    RB_GC_GUARD(text);
    return 1;
}

int wb_jwrite_boolean(wb_buffer *buffer, VALUE value)
{
    if (value == Qtrue) {
        wb_buffer_append_literal(buffer, "true");
        return 1;
    }
    if (value == Qfalse) {
        wb_buffer_append_literal(buffer, "false");
        return 1;
    }
    return 0;
}

/* ---- times, dates, base64 (Writer.time, .date, .base64) ----------------------------- */

/* A value in quotes by its scalar_format.c twin (nothing in the text of a
 * time, a date or base64 needs escaping). */
static int write_quoted(wb_buffer *buffer, wb_format_kind kind, VALUE value)
{
    size_t mark = buffer->len;
    wb_buffer_append_char(buffer, '"');
    if (!wb_format_write_c(buffer, kind, value, WB_FORMAT_ESCAPE_TEXT)) {
        wb_buffer_truncate(buffer, mark);
        return 0;
    }
    wb_buffer_append_char(buffer, '"');
    return 1;
}

/* Writes n in exactly `width` digits (n < 10**width) at t; returns the end. */
static inline char *jwrite_digits(char *t, unsigned long n, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        t[i] = (char)('0' + n % 10);
        n /= 10;
    }
    return t + width;
}

/* TimeType.generate's common case, with one call fewer than scalar_format.c's
 * (the seconds from rb_time_timespec): a Time (exactly) at a four-digit year,
 * at UTC or a whole-minute offset within 14 hours, whose fraction is whole
 * nanoseconds. Anything else: scalar_format.c. */
static int write_common_time(wb_buffer *buffer, VALUE value)
{
    if (RB_SPECIAL_CONST_P(value) || RBASIC_CLASS(value) != rb_cTime || !wb_hooks.posix_time) return 0;
    VALUE utc_offset = rb_time_utc_offset(value);
    if (!FIXNUM_P(utc_offset)) return 0;
    long offset = FIX2LONG(utc_offset);
    if (offset % 60 != 0 || offset > 14 * 3600 || offset < -14 * 3600) return 0;
    /* A time in UTC has the offset 0; only then is it asked which it is. */
    int utc = offset == 0 && RTEST(rb_funcall(value, id_utc_p, 0));
    VALUE subsec = rb_funcall(value, id_subsec, 0);
    long nsec = 0;
    if (subsec != INT2FIX(0)) {
        if (!RB_TYPE_P(subsec, T_RATIONAL)) return 0;
        VALUE num = rb_rational_num(subsec);
        VALUE den = rb_rational_den(subsec);
        if (!FIXNUM_P(num) || !FIXNUM_P(den)) return 0;
        long d = FIX2LONG(den);
        if (d <= 0 || 1000000000L % d != 0) return 0;
        nsec = FIX2LONG(num) * (1000000000L / d);
        if (nsec <= 0 || nsec >= 1000000000L) return 0;
    }
    struct timespec ts = rb_time_timespec(value);
    if (ts.tv_sec < -62135596800LL || ts.tv_sec > 253402300799LL + 86400) return 0; /* years 1..10000: civil below */
    long long local = (long long)ts.tv_sec + offset;
    long long days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    long long second_of_day = local - days * 86400;
    /* Howard Hinnant's civil_from_days. */
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    int day = (int)(doy - (153 * mp + 2) / 5 + 1);
    int month = (int)(mp < 10 ? mp + 3 : mp - 9);
    long long year = yoe + era * 400 + (month <= 2);
    if (year < 1000 || year > 9999) return 0;

    char text[48];
    char *t = text;
    *t++ = '"';
    t = jwrite_digits(t, (unsigned long)year, 4);
    *t++ = '-';
    t = jwrite_digits(t, (unsigned long)month, 2);
    *t++ = '-';
    t = jwrite_digits(t, (unsigned long)day, 2);
    *t++ = 'T';
    t = jwrite_digits(t, (unsigned long)(second_of_day / 3600), 2);
    *t++ = ':';
    t = jwrite_digits(t, (unsigned long)(second_of_day / 60 % 60), 2);
    *t++ = ':';
    t = jwrite_digits(t, (unsigned long)(second_of_day % 60), 2);
    if (nsec > 0) {
        int places = 9;
        while (nsec % 10 == 0) {
            nsec /= 10;
            places--;
        }
        *t++ = '.';
        t = jwrite_digits(t, (unsigned long)nsec, places);
    }
    if (utc) {
        *t++ = 'Z';
    } else {
        long minutes = (offset < 0 ? -offset : offset) / 60;
        *t++ = offset < 0 ? '-' : '+';
        t = jwrite_digits(t, (unsigned long)(minutes / 60), 2);
        *t++ = ':';
        t = jwrite_digits(t, (unsigned long)(minutes % 60), 2);
    }
    *t++ = '"';
    wb_buffer_append(buffer, text, (size_t)(t - text));
    return 1;
}

int wb_jwrite_time(wb_buffer *buffer, VALUE value)
{
    return write_common_time(buffer, value) || write_quoted(buffer, WB_FORMAT_TIME, value);
}

int wb_jwrite_date(wb_buffer *buffer, VALUE value)
{
    return write_quoted(buffer, WB_FORMAT_DATE, value);
}

int wb_jwrite_base64(wb_buffer *buffer, VALUE value)
{
    return write_quoted(buffer, WB_FORMAT_BASE64, value);
}

int wb_jwrite_scalar(wb_buffer *buffer, wb_format_kind kind, VALUE value)
{
    switch (kind) {
    case WB_FORMAT_STRING: return wb_jwrite_text(buffer, value);
    case WB_FORMAT_INTEGER: return wb_jwrite_integer(buffer, value);
    case WB_FORMAT_FLOAT: return wb_jwrite_float(buffer, value);
    case WB_FORMAT_DECIMAL: return wb_jwrite_decimal(buffer, value);
    case WB_FORMAT_BOOLEAN: return wb_jwrite_boolean(buffer, value);
    case WB_FORMAT_TIME: return wb_jwrite_time(buffer, value);
    case WB_FORMAT_DATE: return wb_jwrite_date(buffer, value);
    case WB_FORMAT_BASE64: return wb_jwrite_base64(buffer, value);
    default: return 0;
    }
}
