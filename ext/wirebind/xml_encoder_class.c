/* The encoder's binding: Wirebind::XML::Native.encode_value, called by
 * Wirebind::XML::Native.encode (lib/wirebind/xml/native.rb) once the front
 * door (Wirebind::XML.encode) has checked the options. The engine is
 * xml_encoder.c. */
#include "xml_encoder.h"

/* Native.encode_value(value, root, item, xsi_all, declaration, io) -> String or Integer: encodes a record or a list of them. */
static VALUE wb_native__encode_value(VALUE self, VALUE value, VALUE root, VALUE item, VALUE xsi_all, VALUE declaration,
                                     VALUE io)
{
    if (!NIL_P(root)) StringValue(root);
    if (!NIL_P(item)) StringValue(item);
    return wb_xml_encode(value, root, item, RTEST(xsi_all), RTEST(declaration), io);
}

void Init_wirebind_xml_encoder(VALUE mNative)
{
    wb_format_init();
    wb_xml_encoder_init(mNative);
    rb_define_singleton_method(mNative, "encode_value", wb_native__encode_value, 6);
}
