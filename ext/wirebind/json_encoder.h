/* The JSON encoder's engine: records (through their compiled plans,
 * json_plan.h) and plain values (nil, Hash, Array, String, Symbol, Integer,
 * Float, BigDecimal, true, false, Time, Date) written as JSON into a
 * wb_buffer, with an explicit stack of frames, one per open record, list,
 * array or object: nothing recurses on the depth of the values.
 *
 * The output is byte for byte what lib/wirebind/json/pure/encoder.rb and
 * writer.rb write, errors included (EncodeError with the same message and
 * path); those files are the reference, and this one names the Ruby it
 * follows. Scalars are written by json_writer.c; those it cannot write exactly (an odd Time offset, a
 * String in another encoding, a value of the wrong class...) are written, or
 * refused, by Pure::Writer itself. Values are read from instance variables,
 * not through readers (as the native XML encoder does). */
#ifndef WIREBIND_JSON_ENCODER_H
#define WIREBIND_JSON_ENCODER_H

#include "wirebind.h"
#include "buffer.h"
#include "json_plan.h"
#include "json_writer.h"

/* Interns names; call once from Init. */
void wb_jenc_init(void);

/* Wirebind::JSON::Pure.encode's contract: `value` as JSON, nested at most
 * `max_depth` deep. Returns the text as a UTF-8 String, or, given an IO,
 * writes it in pieces of at most 64 KiB and returns the bytes written. */
VALUE wb_jenc_encode(VALUE value, VALUE io, long max_depth);

#endif
