/* C twins of the scalar parsers in lib/wirebind/types/ (see scalar.h). Each
 * fast path accepts a subset of what its Ruby module accepts and gives the same
 * value for it; everything else returns Qundef for the caller to hand to Ruby. */
#include "scalar.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static ID id_new, id_BigDecimal;
static VALUE type_symbols[WB_SCALAR_TYPES];
static ID type_ids[WB_SCALAR_TYPES];

static const char *const TYPE_NAMES[WB_SCALAR_TYPES] = {"string", "integer", "float", "decimal", "boolean", "time", "date", "base64"};

void wb_scalar_init(void)
{
    id_new = rb_intern("new");
    id_BigDecimal = rb_intern("BigDecimal");
    for (int i = 0; i < WB_SCALAR_TYPES; i++) {
        type_ids[i] = rb_intern(TYPE_NAMES[i]);
        type_symbols[i] = ID2SYM(type_ids[i]);
    }
}

int wb_scalar_type_code(VALUE symbol)
{
    for (int i = 0; i < WB_SCALAR_TYPES; i++)
        if (type_symbols[i] == symbol) return i;
    return -1;
}

VALUE wb_scalar_type_symbol(int type)
{
    return type >= 0 && type < WB_SCALAR_TYPES ? type_symbols[type] : Qnil;
}

ID wb_scalar_type_id(int type)
{
    return type_ids[type];
}

static inline int scalar_is_digit(unsigned c)
{
    return c >= '0' && c <= '9';
}
static inline int is_blank(unsigned c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Types.strip_xml_whitespace: what from_xml_text retries with when the text does
 * not fit as it stands (the patterns allow no blanks, so stripping first gives
 * the same value). */
static void strip(const char **ptr, size_t *len)
{
    const unsigned char *p = (const unsigned char *)*ptr;
    size_t n = *len;
    while (n && is_blank(p[0])) p++, n--;
    while (n && is_blank(p[n - 1])) n--;
    *ptr = (const char *)p;
    *len = n;
}

/* Digits from p[i]; returns the end. */
static size_t scalar_digits(const unsigned char *p, size_t i, size_t n)
{
    while (i < n && scalar_is_digit(p[i])) i++;
    return i;
}

/* ---- integer: \A[+-]?\d+\z ------------------------------------------------------ */

static VALUE parse_integer(const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    size_t i = (n && (p[0] == '+' || p[0] == '-')) ? 1 : 0;
    size_t e = scalar_digits(p, i, n);
    if (e == i || e != n) return Qundef;
    if (e - i <= 18) {
        long long v = 0;
        for (size_t k = i; k < e; k++) v = v * 10 + (p[k] - '0');
        return LL2NUM(p[0] == '-' ? -v : v);
    }
    return wb_scalar_big_integer(ptr, n); /* past 18 digits */
}

VALUE wb_scalar_big_integer(const char *ptr, size_t n)
{
    VALUE holder;
    char *s = ALLOCV(holder, n + 1);
    memcpy(s, ptr, n);
    s[n] = '\0';
    VALUE v = rb_cstr2inum(s, 10);
    ALLOCV_END(holder);
    return v;
}

/* ---- float: xs:double ----------------------------------------------------------- */

/* FloatType::PATTERN: ([+-]?)(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? */
static int double_lexical(const unsigned char *p, size_t n)
{
    size_t i = (n && (p[0] == '+' || p[0] == '-')) ? 1 : 0;
    size_t e = scalar_digits(p, i, n);
    if (e > i) {
        if (e < n && p[e] == '.') e = scalar_digits(p, e + 1, n);
    } else {
        if (e >= n || p[e] != '.') return 0;
        size_t f = scalar_digits(p, e + 1, n);
        if (f == e + 1) return 0;
        e = f;
    }
    if (e < n && (p[e] == 'e' || p[e] == 'E')) {
        size_t x = e + 1;
        if (x < n && (p[x] == '+' || p[x] == '-')) x++;
        size_t y = scalar_digits(p, x, n);
        if (y == x) return 0;
        e = y;
    }
    return e == n;
}

static VALUE parse_float(const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    if ((n == 3 && memcmp(p, "INF", 3) == 0) || (n == 4 && memcmp(p, "+INF", 4) == 0)) return DBL2NUM(HUGE_VAL);
    if (n == 4 && memcmp(p, "-INF", 4) == 0) return DBL2NUM(-HUGE_VAL);
    if (n == 3 && memcmp(p, "NaN", 3) == 0) return DBL2NUM(nan(""));
    if (!double_lexical(p, n)) return Qundef;
    double exact;
    if (wb_scalar_exact_double(p, n, &exact)) return DBL2NUM(exact);
    /* glibc's strtod rounds correctly (to nearest, ties to even) at any length,
     * as FloatType does; the lexical check above kept out everything else it reads
     * (hex, "inf", "nan", blanks). */
    char small[128];
    char *s = small;
    VALUE buffer = 0;
    if (n >= sizeof(small)) s = ALLOCV(buffer, n + 1);
    memcpy(s, ptr, n);
    s[n] = '\0';
    double d = strtod(s, NULL);
    if (buffer) ALLOCV_END(buffer);
    return DBL2NUM(d);
}

/* ---- decimal: \A[+-]?(?:\d+(?:\.\d*)?|\.\d+)\z ---------------------------------- */

static VALUE parse_decimal(wb_scalar_env *env, const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    size_t i = (n && (p[0] == '+' || p[0] == '-')) ? 1 : 0;
    size_t e = scalar_digits(p, i, n);
    if (e > i) {
        if (e < n && p[e] == '.') e = scalar_digits(p, e + 1, n);
    } else {
        if (e >= n || p[e] != '.') return Qundef;
        size_t f = scalar_digits(p, e + 1, n);
        if (f == e + 1) return Qundef;
        e = f;
    }
    if (e != n) return Qundef;
    /* BigDecimal() refuses the trailing point xs:decimal allows ("12."). */
    if (p[n - 1] == '.') n--;
    /* BigDecimal() only reads its argument: one String serves every value. */
    VALUE text = env->decimal_text;
    if (!text || OBJ_FROZEN(text)) {
        text = rb_utf8_str_new(ptr, (long)n);
        env->decimal_text = text;
    } else {
        rb_str_modify(text);
        rb_str_set_len(text, 0);
        rb_str_cat(text, ptr, (long)n);
    }
    return rb_funcall(rb_mKernel, id_BigDecimal, 1, text);
}

/* ---- boolean ------------------------------------------------------------------------ */

static VALUE parse_boolean(const char *p, size_t n)
{
    if ((n == 4 && memcmp(p, "true", 4) == 0) || (n == 1 && p[0] == '1')) return Qtrue;
    if ((n == 5 && memcmp(p, "false", 5) == 0) || (n == 1 && p[0] == '0')) return Qfalse;
    return Qundef;
}

/* ---- calendar (types/calendar.rb) ------------------------------------------------------- */

static int two(const unsigned char *p)
{
    return (p[0] - '0') * 10 + (p[1] - '0');
}

static int leap_year(long long y)
{
    /* Floored remainders, as Integer#% (negative astronomical years). */
    long long r4 = ((y % 4) + 4) % 4, r100 = ((y % 100) + 100) % 100, r400 = ((y % 400) + 400) % 400;
    return r4 == 0 && (r100 != 0 || r400 == 0);
}

static int valid_date(long long year, int month, int day)
{
    static const int days[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12) return 0;
    int last = month == 2 && leap_year(year) ? 29 : days[month];
    return day >= 1 && day <= last;
}

static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* Calendar.days_from_civil (Howard Hinnant's), with floored division. */
static long long days_from_civil(long long y, int m, int d)
{
    if (m <= 2) y -= 1;
    long long era = floor_div(y, 400);
    long long yoe = y - era * 400;
    long long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The -?YYYY...-MM-DD head shared by dates and date-times; returns the index
 * past the day, or 0 when the shape or a field is not one the fast path takes. */
static size_t date_head(const unsigned char *p, size_t n, long long *year, int *month, int *day)
{
    size_t i = (n && p[0] == '-') ? 1 : 0;
    size_t e = scalar_digits(p, i, n);
    size_t count = e - i;
    /* Calendar.year's rules: 4 to 9 digits, no leading 0 past four, no -0000. */
    if (count < 4 || count > 9 || (count > 4 && p[i] == '0')) return 0;
    if (n - e < 6 || p[e] != '-' || !scalar_is_digit(p[e + 1]) || !scalar_is_digit(p[e + 2]) || p[e + 3] != '-' ||
        !scalar_is_digit(p[e + 4]) || !scalar_is_digit(p[e + 5]))
        return 0;
    long long y = 0;
    for (size_t k = i; k < e; k++) y = y * 10 + (p[k] - '0');
    if (y == 0 && i == 1) return 0;
    *year = i ? -y : y;
    *month = two(p + e + 1);
    *day = two(p + e + 4);
    if (!valid_date(*year, *month, *day)) return 0;
    return e + 6;
}

/* Z, +hh:mm or -hh:mm at p[i, n), the whole rest. *utc for Z or none; 0 if not one the fast path takes. */
static int zone(const unsigned char *p, size_t i, size_t n, int *utc, int *offset)
{
    *utc = 1;
    *offset = 0;
    if (i == n) return 1;
    if (n - i == 1 && p[i] == 'Z') return 1;
    if (n - i != 6 || (p[i] != '+' && p[i] != '-') || !scalar_is_digit(p[i + 1]) || !scalar_is_digit(p[i + 2]) || p[i + 3] != ':' ||
        !scalar_is_digit(p[i + 4]) || !scalar_is_digit(p[i + 5]))
        return 0;
    int minutes = two(p + i + 4);
    int total = two(p + i + 1) * 60 + minutes;
    if (minutes > 59 || total > 14 * 60) return 0;
    *utc = 0;
    *offset = (p[i] == '-' ? -total : total) * 60;
    return 1;
}

/* xs:dateTime → Time, as TimeType.parse: UTC for Z or no zone, else a fixed offset. */
static VALUE parse_time(const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    long long year;
    int month, day;
    size_t i = date_head(p, n, &year, &month, &day);
    if (!i) return Qundef;
    if (n - i < 9 || p[i] != 'T' || !scalar_is_digit(p[i + 1]) || !scalar_is_digit(p[i + 2]) || p[i + 3] != ':' ||
        !scalar_is_digit(p[i + 4]) || !scalar_is_digit(p[i + 5]) || p[i + 6] != ':' || !scalar_is_digit(p[i + 7]) ||
        !scalar_is_digit(p[i + 8]))
        return Qundef;
    int hour = two(p + i + 1), minute = two(p + i + 4), second = two(p + i + 7);
    i += 9;
    long nsec = 0;
    if (i < n && p[i] == '.') {
        size_t e = scalar_digits(p, i + 1, n);
        size_t count = e - (i + 1);
        /* Past nine digits TimeType keeps a Rational: Ruby's business. */
        if (count == 0 || count > 9) return Qundef;
        for (size_t k = i + 1; k < e; k++) nsec = nsec * 10 + (p[k] - '0');
        for (size_t k = count; k < 9; k++) nsec *= 10;
        i = e;
    }
    int utc, offset;
    if (!zone(p, i, n, &utc, &offset)) return Qundef;
    if (minute > 59 || second > 59) return Qundef;
    if (hour > 24 || (hour == 24 && (minute || second || nsec))) return Qundef;
    struct timespec ts;
    long long seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    ts.tv_sec = (time_t)(seconds - offset);
    ts.tv_nsec = nsec;
    /* INT_MAX - 1 asks for a UTC Time, as Time#utc gives. */
    return rb_time_timespec_new(&ts, utc ? INT_MAX - 1 : offset);
}

/* xs:date → Date, as DateType.parse (the zone is checked, then dropped). */
static VALUE parse_date(const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    long long year;
    int month, day;
    size_t i = date_head(p, n, &year, &month, &day);
    if (!i) return Qundef;
    int utc, offset;
    if (!zone(p, i, n, &utc, &offset)) return Qundef;
    VALUE args[4] = {LL2NUM(year), INT2FIX(month), INT2FIX(day), wb_hooks.date_gregorian};
    /* Before the Gregorian reform, Date's default calendar counts Julian days. */
    return rb_funcallv(wb_hooks.cDate, id_new, year > 1582 ? 3 : 4, args);
}

/* ---- base64: strict, with blanks anywhere ----------------------------------------------- */

static int b64(unsigned c)
{
    if (c >= 'A' && c <= 'Z') return (int)(c - 'A');
    if (c >= 'a' && c <= 'z') return (int)(c - 'a') + 26;
    if (c >= '0' && c <= '9') return (int)(c - '0') + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Base64Type.parse: blanks anywhere, then the strict alphabet with canonical
 * padding ("xx==" or "xxx=" as the last quad) and zero trailing bits. */
static VALUE parse_base64(const char *ptr, size_t n)
{
    const unsigned char *p = (const unsigned char *)ptr;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += !is_blank(p[i]);
    if (count == 0 || count % 4 != 0) return Qundef;
    VALUE out = rb_str_new(NULL, (long)(count / 4 * 3));
    unsigned char *o = (unsigned char *)RSTRING_PTR(out);
    size_t w = 0, k = 0;
    int quad[4], q = 0, padded = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (is_blank(c)) continue;
        int v = b64(c);
        if (v < 0) {
            if (c != '=' || k + 2 < count) return Qundef;
            padded = 1;
        } else if (padded) {
            return Qundef;
        }
        quad[q++] = v;
        k++;
        if (q < 4) continue;
        q = 0;
        if (quad[2] < 0) {
            if (quad[1] & 0xF) return Qundef;
            o[w++] = (unsigned char)(quad[0] << 2 | quad[1] >> 4);
        } else if (quad[3] < 0) {
            if (quad[2] & 0x3) return Qundef;
            o[w++] = (unsigned char)(quad[0] << 2 | quad[1] >> 4);
            o[w++] = (unsigned char)(quad[1] << 4 | quad[2] >> 2);
        } else {
            o[w++] = (unsigned char)(quad[0] << 2 | quad[1] >> 4);
            o[w++] = (unsigned char)(quad[1] << 4 | quad[2] >> 2);
            o[w++] = (unsigned char)(quad[2] << 6 | quad[3]);
        }
    }
    rb_str_set_len(out, (long)w);
    return out;
}

VALUE wb_scalar_convert(wb_scalar_env *env, int type, const char *ptr, size_t len)
{
    if (type == WB_SCALAR_BASE64) return parse_base64(ptr, len);
    strip(&ptr, &len);
    if (len == 0) return Qundef;
    switch (type) {
    case WB_SCALAR_INTEGER: return parse_integer(ptr, len);
    case WB_SCALAR_FLOAT: return parse_float(ptr, len);
    case WB_SCALAR_DECIMAL: return parse_decimal(env, ptr, len);
    case WB_SCALAR_BOOLEAN: return parse_boolean(ptr, len);
    case WB_SCALAR_TIME: return parse_time(ptr, len);
    case WB_SCALAR_DATE: return parse_date(ptr, len);
    default: return Qundef;
    }
}
