/* The extension's entry point: reads the Ruby objects it uses (hooks.c) and
 * wires the bindings' Init functions together. */
#include "wirebind.h"

int wb_utf8_index;

static ID id_new;
static VALUE sym_line, sym_column, sym_offset, sym_path;

void wb_raise_parse_error(VALUE klass, VALUE message, long line, long column, long offset)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_line, LONG2NUM(line));
    rb_hash_aset(options, sym_column, LONG2NUM(column));
    rb_hash_aset(options, sym_offset, LONG2NUM(offset));
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(klass, id_new, 2, args, RB_PASS_KEYWORDS));
}

void wb_raise_decode_error(VALUE message, VALUE path, long line, long column)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_path, path);
    rb_hash_aset(options, sym_line, LONG2NUM(line));
    rb_hash_aset(options, sym_column, LONG2NUM(column));
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(wb_hooks.eDecodeError, id_new, 2, args, RB_PASS_KEYWORDS));
}

void wb_raise_encode_error(VALUE message, VALUE path)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_path, path);
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(wb_hooks.eEncodeError, id_new, 2, args, RB_PASS_KEYWORDS));
}

RUBY_FUNC_EXPORTED void Init_wirebind_ext(void)
{
#ifdef HAVE_RB_EXT_RACTOR_SAFE
    rb_ext_ractor_safe(true);
#endif
    wb_utf8_index = rb_utf8_encindex();
    id_new = rb_intern("new");
    sym_line = ID2SYM(rb_intern("line"));
    sym_column = ID2SYM(rb_intern("column"));
    sym_offset = ID2SYM(rb_intern("offset"));
    sym_path = ID2SYM(rb_intern("path"));

    wb_hooks_init();

    VALUE mWirebind = rb_define_module("Wirebind");
    VALUE mXML = rb_define_module_under(mWirebind, "XML");
    VALUE mNative = rb_define_module_under(mXML, "Native");
    Init_wirebind_xml_text(mNative);
    Init_wirebind_xml_decoder(mNative);
    Init_wirebind_xml_encoder(mNative);

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
