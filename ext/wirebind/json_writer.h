/* The JSON value writer: scalars appended to a wb_buffer byte for byte as
 * Wirebind::JSON::Pure::Writer writes them (lib/wirebind/json/pure/writer.rb,
 * the reference), shared by the JSON encoder (json_encoder.c) and the
 * serializer engine (serializer_engine.c), so that JSON has one writer of
 * strings, integers, decimals, floats, times, dates and base64 in C.
 *
 * Each function appends the value and returns 1, or returns 0 with the buffer
 * untouched when it does not write the value exactly (a value of another
 * class, a String in another encoding or not valid, a number text longer than
 * JSON.decode's max_number_length, a Time at an odd offset...): the caller
 * then has Ruby write it, or raise with the reference message. No Ruby is
 * called but the value's own methods (to_s, exponent, subsec...). */
#ifndef WIREBIND_JSON_WRITER_H
#define WIREBIND_JSON_WRITER_H

#include "wirebind.h"
#include "buffer.h"
#include "scalar_format.h"

/* Interns the method names; every Init that uses the writer calls it (again is harmless). */
void wb_jwrite_init(void);

/* Writer.string for a String C can read (valid UTF-8, or ASCII-only in an
 * ASCII-compatible encoding): quoted and escaped as the writer does (", \\,
 * C0 controls, U+2028/U+2029). */
int wb_jwrite_string(wb_buffer *buffer, VALUE str);

/* Writer.string for a String or a Symbol (its name). */
int wb_jwrite_text(wb_buffer *buffer, VALUE value);

/* Writer.integer: a Fixnum, or a Bignum of at most 1024 digits. */
int wb_jwrite_integer(wb_buffer *buffer, VALUE value);

/* Writer.float: a finite Float, as Float#to_s. */
int wb_jwrite_float(wb_buffer *buffer, VALUE value);

/* Writer.decimal: an Integer (as wb_jwrite_integer), or a finite BigDecimal
 * whose exponent is within DECIMAL_POSITIONAL_EXPONENT, as to_s("F"). */
int wb_jwrite_decimal(wb_buffer *buffer, VALUE value);

/* Writer.boolean: true or false. */
int wb_jwrite_boolean(wb_buffer *buffer, VALUE value);

/* Writer.time: a Time as a quoted xs:dateTime (its offset kept). */
int wb_jwrite_time(wb_buffer *buffer, VALUE value);

/* Writer.date: a Date as a quoted YYYY-MM-DD. */
int wb_jwrite_date(wb_buffer *buffer, VALUE value);

/* Writer.base64: a String's bytes, base64 (padded, no line breaks), quoted. */
int wb_jwrite_base64(wb_buffer *buffer, VALUE value);

/* The writer for a scalar type: `kind` a wb_format_kind (scalar.h's WB_SCALAR_*
 * codes are the same numbers); 0 for WB_FORMAT_OTHER. */
int wb_jwrite_scalar(wb_buffer *buffer, wb_format_kind kind, VALUE value);

#endif
