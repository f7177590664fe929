/* The extension's entry point, and nothing else: reads the Ruby objects C
 * uses (hooks.c) and wires the bindings' Init functions together. */
#include "wirebind.h"

RUBY_FUNC_EXPORTED void Init_wirebind_ext(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(true);
#endif
    wb_hooks_init();
    wb_error_init();

    VALUE mWirebind = rb_define_module("Wirebind");
    VALUE mXML = rb_define_module_under(mWirebind, "XML");
    VALUE mNative = rb_define_module_under(mXML, "Native");
    Init_wirebind_xml_text(mNative);
    Init_wirebind_xml_decoder(mNative);
    Init_wirebind_xml_encoder(mNative);
    Init_wirebind_scalar_format(mNative); /* after the encoder, whose Init sets up scalar_format.c */

    VALUE mJSON = rb_define_module_under(mWirebind, "JSON");
    VALUE mJSONNative = rb_define_module_under(mJSON, "Native");
    Init_wirebind_json_decoder(mJSONNative);
    Init_wirebind_json_encoder(mJSONNative);

    Init_wirebind_serializer(mWirebind);

    VALUE mBinary = rb_define_module_under(mWirebind, "Binary");
    VALUE mBinaryNative = rb_define_module_under(mBinary, "Native");
    Init_wirebind_binary_buffer(mBinaryNative);
    Init_wirebind_binary_record(mBinaryNative);

    VALUE mHTTP2 = rb_define_module_under(mWirebind, "HTTP2");
    Init_wirebind_hpack(rb_define_module_under(mHTTP2, "HPACK"));
}
