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
    WBS_STRING = 0,
    WBS_INTEGER,
    WBS_FLOAT,
    WBS_DECIMAL,
    WBS_BOOLEAN,
    WBS_TIME,
    WBS_DATE,
    WBS_BASE64,
    WBS_TYPES
};

/* A decode's scratch for the conversions (the Ruby classes they use are
 * wb_hooks'). */
typedef struct wbs_env {
    VALUE decimal_text; /* one String reused for every BigDecimal() call (0 until needed); the owner marks it */
} wbs_env;

/* The type code of a scalar Symbol, or -1. */
int wbs_type_code(VALUE symbol);
/* The Symbol of a type code. */
VALUE wbs_type_symbol(int type);

/* Converts text (UTF-8, not empty, not only blanks) to a value of type (not
 * WBS_STRING); Qundef when the fast path does not take it. */
VALUE wbs_convert(wbs_env *env, int type, const char *ptr, size_t len);

void wbs_init(void);

#endif
