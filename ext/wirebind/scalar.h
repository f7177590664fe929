/* C twins of Wirebind::Types.from_xml_text (lib/wirebind/types/): the common,
 * canonical texts of each scalar type converted without a Ruby call. Whatever a
 * fast path does not take (odd forms, out-of-range fields, invalid text) gives
 * Qundef, and the caller asks Ruby, so that values and error messages are
 * exactly pure's. */
#ifndef WIREBIND_SCALAR_H
#define WIREBIND_SCALAR_H

#include "wirebind.h"

/* Scalar type codes, in Types::SCALARS order. */
enum {
    WB_SCALAR_STRING = 0,
    WB_SCALAR_INTEGER,
    WB_SCALAR_FLOAT,
    WB_SCALAR_DECIMAL,
    WB_SCALAR_BOOLEAN,
    WB_SCALAR_TIME,
    WB_SCALAR_DATE,
    WB_SCALAR_BASE64,
    WB_SCALAR_TYPES
};

/* A decode's scratch for the conversions (the Ruby classes they use are
 * wb_hooks'). */
typedef struct wb_scalar_env {
    VALUE decimal_text; /* one String reused for every BigDecimal() call (0 until needed); the owner marks it */
} wb_scalar_env;

/* The type code of a scalar Symbol, or -1. */
int wb_scalar_type_code(VALUE symbol);
/* The Symbol of a type code. */
VALUE wb_scalar_type_symbol(int type);
/* The name of a type code (0 <= type < WB_SCALAR_TYPES) as an ID: also the
 * method that writes that type (Writer#integer, Encoder#integer...). */
ID wb_scalar_type_id(int type);

/* An Integer of any size, as String#to_i reads it, from n bytes the caller has
 * checked against [+-]?digits (the path past 18 digits of both decoders). */
VALUE wb_scalar_big_integer(const char *ptr, size_t n);

/* Converts text (UTF-8, not empty, not only blanks) to a value of type (not
 * WB_SCALAR_STRING); Qundef when the fast path does not take it. */
VALUE wb_scalar_convert(wb_scalar_env *env, int type, const char *ptr, size_t len);

/* The powers of ten a double holds exactly. */
static const double WB_SCALAR_POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The nearest double to the n bytes at p, a number the caller has checked
 * against its grammar ([+-]?digits, a '.' and digits either side of it,
 * [eE][+-]?digits: JSON's and xs:double's both fit), when Clinger's fast path
 * gives it exactly: at most 19 characters (so the digits fit in 64 bits with no
 * check per digit), the digits at most 2^53 and the power of ten at most 10^22,
 * both exact doubles, so the one IEEE operation rounds correctly. 0 when it
 * does not apply (the caller rounds some other way); inlined into both decoders. */
static inline int wb_scalar_exact_double(const unsigned char *p, size_t n, double *out)
{
    if (n > 19 || n == 0) return 0;
    size_t i = p[0] == '-' || p[0] == '+';
    uint64_t digits = 0;
    long exponent = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) digits = digits * 10 + (uint64_t)(p[i] - '0');
    if (i < n && p[i] == '.') {
        size_t fraction = ++i;
        for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) digits = digits * 10 + (uint64_t)(p[i] - '0');
        exponent = -(long)(i - fraction);
    }
    if (i < n) { /* e or E: at most 17 exponent digits here, no overflow */
        int minus = p[++i] == '-';
        if (i < n && (p[i] == '+' || p[i] == '-')) i++;
        long e = 0;
        for (; i < n; i++) e = e * 10 + (p[i] - '0');
        exponent += minus ? -e : e;
    }
    double v;
    if (digits == 0) {
        v = 0.0;
    } else if (digits <= (UINT64_C(1) << 53) && exponent >= -22 && exponent <= 22) {
        v = (double)digits;
        v = exponent < 0 ? v / WB_SCALAR_POW10[-exponent] : v * WB_SCALAR_POW10[exponent];
    } else {
        return 0;
    }
    *out = p[0] == '-' ? -v : v;
    return 1;
}

void wb_scalar_init(void);

#endif
