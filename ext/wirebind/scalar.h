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

/* Converts text (UTF-8, not empty, not only blanks) to a value of type (not
 * WB_SCALAR_STRING); Qundef when the fast path does not take it. */
VALUE wb_scalar_convert(wb_scalar_env *env, int type, const char *ptr, size_t len);

void wb_scalar_init(void);

#endif
