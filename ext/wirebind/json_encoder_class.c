/* The JSON encoder's binding: Wirebind::JSON::Native.encode_value, called by
 * Wirebind::JSON::Native.encode (lib/wirebind/json/native.rb) once the front
 * door (Wirebind::JSON.encode) has checked the options. The engine is
 * json_encoder.c. */
#include "json_encoder.h"
#include "scalar_format.h"

/* Native.encode_value(value, io, max_depth) -> String or Integer: writes a record, a list or plain values as JSON. */
static VALUE wb_json_native__encode_value(VALUE self, VALUE value, VALUE io, VALUE max_depth)
{
    long depth = FIXNUM_P(max_depth) ? FIX2LONG(max_depth) : (RB_TYPE_P(max_depth, T_BIGNUM) ? LONG_MAX : 0);
    if (depth <= 0) rb_raise(rb_eArgError, "max_depth must be a positive Integer");
    return wb_jenc_encode(value, io, depth);
}

void Init_wirebind_json_encoder(VALUE mNative)
{
    wb_format_init();
    wb_jenc_init();
    rb_define_singleton_method(mNative, "encode_value", wb_json_native__encode_value, 3);
}
