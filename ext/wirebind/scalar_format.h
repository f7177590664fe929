/* C twins of Wirebind::Types.to_xml_text for the hot scalar types: each writes
 * a value's canonical XML text, escaped, straight into a buffer.
 *
 * A twin only handles what it can write exactly as the Ruby code does, and
 * declines the rest (returns 0, the buffer untouched): values of the wrong
 * class, times at odd offsets or with fractions that need Rational arithmetic,
 * strings in other encodings or that cannot be written. The caller then calls
 * wb_format_write_ruby, which asks Ruby (Types.to_xml_text, then
 * Pure::Encoder.text/attribute) and so raises exactly Ruby's InvalidValue. */
#ifndef WIREBIND_SCALAR_FORMAT_H
#define WIREBIND_SCALAR_FORMAT_H

#include "wirebind.h"
#include "buffer.h"

/* The scalar types of Wirebind::Types::SCALARS, in that order. */
typedef enum wb_format_kind {
    WB_FORMAT_STRING = 0,
    WB_FORMAT_INTEGER,
    WB_FORMAT_FLOAT,
    WB_FORMAT_DECIMAL,
    WB_FORMAT_BOOLEAN,
    WB_FORMAT_TIME,
    WB_FORMAT_DATE,
    WB_FORMAT_BASE64,
    WB_FORMAT_OTHER /* not one C knows: always written by Ruby */
} wb_format_kind;

/* Interns the method names; call once from an Init function. */
void wb_format_init(void);

/* Which scalar a type Symbol (:string, :integer, ...) names. */
wb_format_kind wb_format_kind_of(VALUE type);

/* Writes `value` as `kind`, escaped for `mode`. Returns 1 when written, 0 when
 * declined (the buffer untouched). Never raises for a value it declines; may
 * raise what Ruby methods it calls raise (NoMemoryError, or the errors of a
 * Time or Date object that is not initialized). */
int wb_format_write_c(wb_buffer *buffer, wb_format_kind kind, VALUE value, wb_format_escape_mode mode);

/* Writes `value` the way the pure encoder does:
 * Pure::Encoder.text(Types.to_xml_text(type, value)) (or .attribute). Raises
 * Types::InvalidValue for a value that does not fit its type. */
void wb_format_write_ruby(wb_buffer *buffer, VALUE type, VALUE value, wb_format_escape_mode mode);

/* wb_format_write_c, falling back to wb_format_write_ruby. */
static inline void wb_format_write(wb_buffer *buffer, wb_format_kind kind, VALUE type, VALUE value, wb_format_escape_mode mode)
{
    if (!wb_format_write_c(buffer, kind, value, mode)) wb_format_write_ruby(buffer, type, value, mode);
}

/* Appends a String escaped for `mode`, through Ruby (Pure::Encoder.text or
 * .attribute, which transcode and raise InvalidValue) when C cannot. */
void wb_format_write_string(wb_buffer *buffer, VALUE str, wb_format_escape_mode mode);

#endif
