/* Wirebind::HTTP2::HPACK::Native: the C Huffman coder, with the interface of
 * Wirebind::HTTP2::HPACK::Huffman (lib/wirebind/http2/hpack/huffman.rb). */
#include "wirebind.h"
#include "hpack.h"

static VALUE sym_eos, sym_padding;

/* Native.encode(string) -> String: string Huffman-coded */
static VALUE wb_hpack_native__encode(VALUE mod, VALUE string)
{
    StringValue(string);
    size_t n = (size_t)RSTRING_LEN(string);
    size_t len = wb_hpack_huffman_length((const uint8_t *)RSTRING_PTR(string), n);
    VALUE out = rb_str_buf_new((long)len); /* allocates: read string's bytes after */
    wb_hpack_huffman_encode((const uint8_t *)RSTRING_PTR(string), n, (uint8_t *)RSTRING_PTR(out));
    rb_str_set_len(out, (long)len);
    RB_GC_GUARD(string);
    return out;
}

/* Native.encoded_length(string) -> Integer */
static VALUE wb_hpack_native__encoded_length(VALUE mod, VALUE string)
{
    StringValue(string);
    return SIZET2NUM(wb_hpack_huffman_length((const uint8_t *)RSTRING_PTR(string), (size_t)RSTRING_LEN(string)));
}

/* Native.decode(string) -> String, or :eos / :padding for a malformed one */
static VALUE wb_hpack_native__decode(VALUE mod, VALUE string)
{
    StringValue(string);
    size_t n = (size_t)RSTRING_LEN(string), len = 0;
    VALUE out = rb_str_buf_new((long)(n * 8 / 5 + 1));
    enum wb_hpack_result r = wb_hpack_huffman_decode((const uint8_t *)RSTRING_PTR(string), n, (uint8_t *)RSTRING_PTR(out), &len);
    RB_GC_GUARD(string);
    if (r == WB_HPACK_EOS) return sym_eos;
    if (r == WB_HPACK_PADDING) return sym_padding;
    rb_str_set_len(out, (long)len);
    return out;
}

void Init_wirebind_hpack(VALUE mHPACK)
{
    wb_hpack_init();
    sym_eos = ID2SYM(rb_intern("eos"));
    sym_padding = ID2SYM(rb_intern("padding"));
    VALUE m = rb_define_module_under(mHPACK, "Native");
    rb_define_module_function(m, "encode", wb_hpack_native__encode, 1);
    rb_define_module_function(m, "encoded_length", wb_hpack_native__encoded_length, 1);
    rb_define_module_function(m, "decode", wb_hpack_native__decode, 1);
}
