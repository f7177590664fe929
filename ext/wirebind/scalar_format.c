/* C twins of Wirebind::Types.to_xml_text (see scalar_format.h). Each follows
 * the Ruby module named in its comment; the tests hold the two equal. */
#include "scalar_format.h"
#include "scalar.h"
#include <math.h>

static ID id_utc_p, id_to_i, id_subsec, id_jd, id_to_s, id_finite_p, id_to_xml_text, id_text, id_attribute;

/* XML Schema bounds time zone offsets to -14:00..+14:00 (Calendar::MAX_OFFSET_MINUTES). */
#define MAX_OFFSET_SECONDS (14 * 3600)
/* Years of at most nine digits (Calendar::MAX_YEAR). */
#define MAX_YEAR 999999999LL
/* Seconds and days far enough out that every year within MAX_YEAR is inside,
 * and small enough that the arithmetic below cannot overflow. */
#define MAX_ABS_SECONDS (1LL << 56)
#define MAX_ABS_DAYS (1LL << 40)
/* Days from 0000-03-01 ... (Hinnant) and the Julian Day Number of 1970-01-01. */
#define UNIX_EPOCH_JD 2440588LL

void wb_format_init(void)
{
    id_utc_p = rb_intern("utc?");
    id_to_i = rb_intern("to_i");
    id_subsec = rb_intern("subsec");
    id_jd = rb_intern("jd");
    id_to_s = rb_intern("to_s");
    id_finite_p = rb_intern("finite?");
    id_to_xml_text = rb_intern("to_xml_text");
    id_text = rb_intern("text");
    id_attribute = rb_intern("attribute");
    wb_scalar_init(); /* the type names: wb_format_kind_of reads scalar.c's table */
}

/* value.is_a?(klass), without a call for the usual case: exactly klass. */
static inline int is_a(VALUE value, VALUE klass)
{
    return (!RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == klass) || RTEST(rb_obj_is_kind_of(value, klass));
}

wb_format_kind wb_format_kind_of(VALUE type)
{
    int code = wb_scalar_type_code(type); /* the same numbering (json_encoder.c asserts it) */
    return code < 0 ? WB_FORMAT_OTHER : (wb_format_kind)code;
}

/* ---- strings (StringType, Pure::Encoder.text/attribute) --------------------- */

void wb_format_write_string(wb_buffer *buffer, VALUE str, wb_format_escape_mode mode)
{
    if (wb_buffer_append_escaped_str(buffer, str, mode) == WB_FORMAT_ESCAPE_OK) return;
    /* Another encoding, or something to refuse: Ruby transcodes, or raises
     * InvalidValue with its message. */
    VALUE escaped = rb_funcall(wb_hooks.cXMLEncoder, mode == WB_FORMAT_ESCAPE_ATTRIBUTE ? id_attribute : id_text, 1, str);
    StringValue(escaped);
    wb_buffer_append_str(buffer, escaped);
    RB_GC_GUARD(str);
}

static int write_string(wb_buffer *buffer, VALUE value, wb_format_escape_mode mode)
{
    if (RB_TYPE_P(value, T_SYMBOL)) value = rb_sym2str(value);
    if (!RB_TYPE_P(value, T_STRING)) return 0;
    return wb_buffer_append_escaped_str(buffer, value, mode) == WB_FORMAT_ESCAPE_OK;
}

/* ---- :integer (IntegerType: Integer#to_s) ------------------------------------- */

static int write_integer(wb_buffer *buffer, VALUE value)
{
    if (FIXNUM_P(value)) {
        wb_buffer_append_long(buffer, FIX2LONG(value));
        return 1;
    }
    if (RB_TYPE_P(value, T_BIGNUM)) {
        VALUE digits = rb_big2str(value, 10);
        wb_buffer_append_str(buffer, digits);
        RB_GC_GUARD(digits);
        return 1;
    }
    return 0;
}

/* ---- :float (FloatType: Float#to_s, INF, -INF, NaN) ---------------------------- */

static int write_float(wb_buffer *buffer, VALUE value, wb_format_escape_mode mode)
{
    if (!RB_FLOAT_TYPE_P(value)) return 0; /* an Integer takes FloatType's exact rounding */
    double d = RFLOAT_VALUE(value);
    if (isnan(d)) {
        wb_buffer_append_literal(buffer, "NaN");
    } else if (isinf(d)) {
        if (d > 0) {
            wb_buffer_append_literal(buffer, "INF");
        } else {
            wb_buffer_append_literal(buffer, "-INF");
        }
    } else {
        /* Float#to_s: the shortest text that reads back to the same double. */
        VALUE text = rb_funcall(value, id_to_s, 0);
        if (!RB_TYPE_P(text, T_STRING) || wb_buffer_append_escaped_str(buffer, text, mode) != WB_FORMAT_ESCAPE_OK) return 0;
    }
    return 1;
}

/* ---- :decimal (DecimalType: BigDecimal#to_s("F"), Integer#to_s) ----------------- */

static int write_decimal(wb_buffer *buffer, VALUE value, wb_format_escape_mode mode)
{
    if (RB_INTEGER_TYPE_P(value)) return write_integer(buffer, value);
    if (!is_a(value, wb_hooks.cBigDecimal)) return 0;        /* a Rational needs Ruby's arithmetic */
    if (!RTEST(rb_funcall(value, id_finite_p, 0))) return 0; /* Ruby raises */
    VALUE text = rb_funcall(value, id_to_s, 1, wb_hooks.str_F);
    return RB_TYPE_P(text, T_STRING) && wb_buffer_append_escaped_str(buffer, text, mode) == WB_FORMAT_ESCAPE_OK;
}

/* ---- :boolean (BooleanType) ------------------------------------------------------ */

static int write_boolean(wb_buffer *buffer, VALUE value)
{
    if (value == Qtrue) {
        wb_buffer_append_literal(buffer, "true");
    } else if (value == Qfalse) {
        wb_buffer_append_literal(buffer, "false");
    } else {
        return 0;
    }
    return 1;
}

/* ---- :base64 (Base64Type: [value].pack("m0")) ------------------------------------ */

static int write_base64(wb_buffer *buffer, VALUE value)
{
    if (!RB_TYPE_P(value, T_STRING)) return 0;
    size_t n = (size_t)RSTRING_LEN(value);
    /* Room first: growing may run the GC, and RSTRING_PTR is read after it. */
    if (n <= ((size_t)LONG_MAX / 4) * 3 - 3) wb_buffer_reserve(buffer, ((n + 2) / 3) * 4);
    wb_buffer_append_base64(buffer, (const unsigned char *)RSTRING_PTR(value), n);
    RB_GC_GUARD(value);
    return 1;
}

/* ---- :time and :date (TimeType, DateType, Calendar) ------------------------------ */

static long long floor_div(long long a, long long b)
{
    long long q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* The proleptic Gregorian date `days` days after 1970-01-01 (Howard Hinnant's
 * civil_from_days). */
static void civil_from_days(long long days, long long *year, int *month, int *day)
{
    days += 719468;
    long long era = floor_div(days, 146097);
    long long doe = days - era * 146097;                                   /* [0, 146096] */
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
    long long mp = (5 * doy + 2) / 153;                                    /* [0, 11] */
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    *month = (int)(mp < 10 ? mp + 3 : mp - 9);
    *year = yoe + era * 400 + (*month <= 2);
}

static void append_digits(wb_buffer *buffer, unsigned long long n, int width)
{
    char digits[24];
    int i = (int)sizeof(digits);
    do {
        digits[--i] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    while ((int)sizeof(digits) - i < width) digits[--i] = '0';
    wb_buffer_append(buffer, digits + i, sizeof(digits) - (size_t)i);
}

/* Calendar.year_text: at least four digits, "-" before a negative year. */
static void append_year(wb_buffer *buffer, long long year)
{
    if (year < 0) wb_buffer_append_char(buffer, '-');
    append_digits(buffer, (unsigned long long)(year < 0 ? -year : year), 4);
}

static void append_date(wb_buffer *buffer, long long year, int month, int day)
{
    append_year(buffer, year);
    wb_buffer_append_char(buffer, '-');
    append_digits(buffer, (unsigned long long)month, 2);
    wb_buffer_append_char(buffer, '-');
    append_digits(buffer, (unsigned long long)day, 2);
}

/* Types.decimal_places and TimeType.fraction_digits: the fraction num/den in
 * the fewest decimal places that write it exactly. Declines (returns 0) a
 * denominator with a factor other than 2 and 5 (Ruby raises), or one that
 * needs more than 18 places (Ruby's Integers take those). */
static int fraction_digits(long long num, long long den, unsigned long long *digits, int *places)
{
    if (num <= 0 || den <= 1 || num >= den) return 0;
    unsigned long long rest = (unsigned long long)den;
    int twos = 0, fives = 0;
    while ((rest & 1) == 0) {
        rest >>= 1;
        twos++;
    }
    while (rest % 5 == 0) {
        rest /= 5;
        fives++;
    }
    if (rest != 1) return 0;
    int n = twos > fives ? twos : fives;
    if (n > 18) return 0;
    unsigned long long scale = 1;
    for (int i = 0; i < n; i++) scale *= 10;
    /* den divides 10**n, and num < den, so num * (10**n / den) < 10**n. */
    *digits = (unsigned long long)num * (scale / (unsigned long long)den);
    *places = n;
    return 1;
}

/* TimeType.generate: "%s-%02d-%02dT%02d:%02d:%02d%s%s" with the fraction's
 * digits and "Z" or "+hh:mm". A time at an offset xs:dateTime cannot write
 * (seconds in it, or past 14 hours) is left to Ruby, which writes it in UTC. */
static int write_time(wb_buffer *buffer, VALUE value)
{
    if (!wb_hooks.posix_time || !is_a(value, rb_cTime)) return 0;
    int utc = RTEST(rb_funcall(value, id_utc_p, 0));
    long long offset = 0;
    if (!utc) {
        VALUE utc_offset = rb_time_utc_offset(value);
        if (!FIXNUM_P(utc_offset)) return 0;
        offset = FIX2LONG(utc_offset);
        if (offset % 60 != 0 || offset > MAX_OFFSET_SECONDS || offset < -MAX_OFFSET_SECONDS) return 0;
    }
    /* Time#to_i floors, and Time#subsec is the exact rest, in [0, 1). */
    VALUE seconds = rb_funcall(value, id_to_i, 0);
    if (!FIXNUM_P(seconds)) return 0;
    long long since_epoch = FIX2LONG(seconds);
    if (since_epoch > MAX_ABS_SECONDS || since_epoch < -MAX_ABS_SECONDS) return 0;
    VALUE subsec = rb_funcall(value, id_subsec, 0);
    unsigned long long fraction = 0;
    int places = 0;
    if (subsec != INT2FIX(0)) {
        if (!RB_TYPE_P(subsec, T_RATIONAL)) return 0;
        VALUE num = rb_rational_num(subsec);
        VALUE den = rb_rational_den(subsec);
        if (!FIXNUM_P(num) || !FIXNUM_P(den)) return 0;
        if (!fraction_digits(FIX2LONG(num), FIX2LONG(den), &fraction, &places)) return 0;
    }

    long long local = since_epoch + offset;
    long long days = floor_div(local, 86400);
    long long second_of_day = local - days * 86400;
    long long year;
    int month, day;
    civil_from_days(days, &year, &month, &day);
    if (year > MAX_YEAR || year < -MAX_YEAR) return 0; /* Ruby raises */

    append_date(buffer, year, month, day);
    wb_buffer_append_char(buffer, 'T');
    append_digits(buffer, (unsigned long long)(second_of_day / 3600), 2);
    wb_buffer_append_char(buffer, ':');
    append_digits(buffer, (unsigned long long)(second_of_day / 60 % 60), 2);
    wb_buffer_append_char(buffer, ':');
    append_digits(buffer, (unsigned long long)(second_of_day % 60), 2);
    if (places > 0) {
        wb_buffer_append_char(buffer, '.');
        append_digits(buffer, fraction, places);
    }
    if (utc) {
        wb_buffer_append_char(buffer, 'Z');
    } else {
        long long minutes = (offset < 0 ? -offset : offset) / 60;
        wb_buffer_append_char(buffer, offset < 0 ? '-' : '+');
        append_digits(buffer, (unsigned long long)(minutes / 60), 2);
        wb_buffer_append_char(buffer, ':');
        append_digits(buffer, (unsigned long long)(minutes % 60), 2);
    }
    return 1;
}

/* DateType.generate: a Date (not a DateTime) as YYYY-MM-DD in the proleptic
 * Gregorian calendar, whatever calendar the Date counts in. The Julian Day
 * Number is the same in every calendar, so it is all C needs. */
static int write_date(wb_buffer *buffer, VALUE value)
{
    int exact = !RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == wb_hooks.cDate;
    if (!exact && (!RTEST(rb_obj_is_kind_of(value, wb_hooks.cDate)) || RTEST(rb_obj_is_kind_of(value, wb_hooks.cDateTime)))) return 0;
    VALUE jd = rb_funcall(value, id_jd, 0);
    if (!FIXNUM_P(jd)) return 0;
    long long days = FIX2LONG(jd) - UNIX_EPOCH_JD;
    if (days > MAX_ABS_DAYS || days < -MAX_ABS_DAYS) return 0;
    long long year;
    int month, day;
    civil_from_days(days, &year, &month, &day);
    if (year > MAX_YEAR || year < -MAX_YEAR) return 0; /* Ruby raises */
    append_date(buffer, year, month, day);
    return 1;
}

/* ---- dispatch ---------------------------------------------------------------------- */

int wb_format_write_c(wb_buffer *buffer, wb_format_kind kind, VALUE value, wb_format_escape_mode mode)
{
    switch (kind) {
    case WB_FORMAT_STRING: return write_string(buffer, value, mode);
    case WB_FORMAT_INTEGER: return write_integer(buffer, value);
    case WB_FORMAT_FLOAT: return write_float(buffer, value, mode);
    case WB_FORMAT_DECIMAL: return write_decimal(buffer, value, mode);
    case WB_FORMAT_BOOLEAN: return write_boolean(buffer, value);
    case WB_FORMAT_TIME: return write_time(buffer, value);
    case WB_FORMAT_DATE: return write_date(buffer, value);
    case WB_FORMAT_BASE64: return write_base64(buffer, value);
    default: return 0;
    }
}

void wb_format_write_ruby(wb_buffer *buffer, VALUE type, VALUE value, wb_format_escape_mode mode)
{
    VALUE text = rb_funcall(wb_hooks.mTypes, id_to_xml_text, 2, type, value);
    StringValue(text);
    wb_format_write_string(buffer, text, mode);
    RB_GC_GUARD(text);
}
