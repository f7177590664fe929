/* The scalar writer's binding: Wirebind::XML::Native.append_scalar_text, for
 * the XML writers that are Ruby (SOAP's rpc/encoded records,
 * lib/wirebind/soap/envelope/encoded_record_writer.rb): a scalar's text,
 * escaped, written by the engine XML.encode uses (scalar_format.c) instead of
 * Types.to_xml_text and XML::Escape.text. */
#include "scalar_format.h"

typedef struct append_call {
    wb_buffer buffer;
    wb_format_kind kind;
    VALUE value;
    VALUE out;
    int written;
} append_call;

static VALUE append_body(VALUE arg)
{
    append_call *call = (append_call *)arg;
    call->written = wb_format_write_c(&call->buffer, call->kind, call->value, WB_FORMAT_ESCAPE_TEXT);
    if (call->written) rb_str_cat(call->out, call->buffer.ptr, (long)call->buffer.len);
    return Qnil;
}

static VALUE append_release(VALUE arg)
{
    wb_buffer_release(&((append_call *)arg)->buffer);
    return Qnil;
}

/* Native.append_scalar_text(out, type, value) -> true or false.
 * Appends to `out` (a UTF-8 String) what XML::Escape.text(Types.to_xml_text(type, value))
 * returns, and true; or, for what C declines (a value of another class, a
 * string to transcode or refuse, an odd time), nothing, and false: the caller
 * then asks Ruby, which writes it or raises its own error. */
static VALUE wb_xml_native__append_scalar_text(VALUE self, VALUE out, VALUE type, VALUE value)
{
    StringValue(out);
    rb_str_modify(out);
    append_call call = {.kind = wb_format_kind_of(type), .value = value, .out = out, .written = 0};
    if (call.kind == WB_FORMAT_OTHER) return Qfalse;
    wb_buffer_init(&call.buffer);
    rb_ensure(append_body, (VALUE)&call, append_release, (VALUE)&call);
    RB_GC_GUARD(value);
    return call.written ? Qtrue : Qfalse;
}

void Init_wirebind_scalar_format(VALUE mNative)
{
    rb_define_singleton_method(mNative, "append_scalar_text", wb_xml_native__append_scalar_text, 3);
}
