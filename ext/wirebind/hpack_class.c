/* Wirebind::HTTP2::HPACK::Native: the C Huffman coder and string literals,
 * with the interface of Wirebind::HTTP2::HPACK::Huffman
 * (lib/wirebind/http2/hpack/huffman.rb). */
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

/* Native.append_string(out, string, huffman) -> out: string appended as a literal
 * (section 5.2), Huffman-coded if huffman and that is not longer */
static VALUE wb_hpack_native__append_string(VALUE mod, VALUE out, VALUE string, VALUE huffman)
{
    StringValue(out);
    StringValue(string);
    long n = RSTRING_LEN(string);
    if ((unsigned long)n > 0xffffffffUL) rb_raise(rb_eArgError, "a header string of %ld bytes is too long", n);
    long at = RSTRING_LEN(out);
    rb_str_modify_expand(out,
                         (long)WB_HPACK_STRING_MAX((size_t)n)); /* may move out's bytes (and string's, if they are one): read both after */
    size_t written = wb_hpack_string_encode((const uint8_t *)RSTRING_PTR(string), (size_t)n, RTEST(huffman),
                                            (uint8_t *)RSTRING_PTR(out) + at);
    rb_str_set_len(out, at + (long)written);
    RB_GC_GUARD(string);
    return out;
}

/* Native.append_literal(out, name_index, name, value, huffman) -> out: a literal
 * header field with incremental indexing (section 6.2.1), the name by its
 * index unless name_index is nil */
static VALUE wb_hpack_native__append_literal(VALUE mod, VALUE out, VALUE name_index, VALUE name, VALUE value, VALUE huffman)
{
    StringValue(out);
    StringValue(name);
    StringValue(value);
    unsigned long index = NIL_P(name_index) ? 0 : NUM2ULONG(name_index);
    long name_len = NIL_P(name_index) ? RSTRING_LEN(name) : 0, value_len = RSTRING_LEN(value);
    if ((unsigned long)name_len > 0xffffffffUL || (unsigned long)value_len > 0xffffffffUL || index > 0xffffffffUL)
        rb_raise(rb_eArgError, "a header field of %ld and %ld bytes is too long", name_len, value_len);
    long at = RSTRING_LEN(out);
    rb_str_modify_expand(out, (long)(1 + WB_HPACK_STRING_MAX((size_t)name_len) + WB_HPACK_STRING_MAX((size_t)value_len)));
    uint8_t *p = (uint8_t *)RSTRING_PTR(out) + at, *start = p; /* read every pointer after the expansion */
    int h = RTEST(huffman);
    if (NIL_P(name_index)) {
        *p++ = 0x40;
        p += wb_hpack_string_encode((const uint8_t *)RSTRING_PTR(name), (size_t)name_len, h, p);
    } else {
        p += wb_hpack_integer_encode((uint32_t)index, 6, 0x40, p);
    }
    p += wb_hpack_string_encode((const uint8_t *)RSTRING_PTR(value), (size_t)value_len, h, p);
    rb_str_set_len(out, at + (long)(p - start));
    RB_GC_GUARD(name);
    RB_GC_GUARD(value);
    return out;
}

/* Native.append_integer(out, value, prefix, first) -> out: value with a
 * prefix-bit prefix (section 5.1) after the high bits of first */
static VALUE wb_hpack_native__append_integer(VALUE mod, VALUE out, VALUE value, VALUE prefix, VALUE first)
{
    StringValue(out);
    unsigned long v = NUM2ULONG(value);
    int bits = NUM2INT(prefix);
    if (v > 0xffffffffUL) rb_raise(rb_eArgError, "an HPACK integer above 2**32 - 1: %lu", v);
    if (bits < 1 || bits > 8) rb_raise(rb_eArgError, "an HPACK integer prefix is 1 to 8 bits, not %d", bits);
    uint8_t bytes[WB_HPACK_INTEGER_MAX];
    size_t n = wb_hpack_integer_encode((uint32_t)v, (unsigned)bits, (uint8_t)NUM2UINT(first), bytes);
    rb_str_cat(out, (const char *)bytes, (long)n);
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
    rb_define_module_function(m, "append_string", wb_hpack_native__append_string, 3);
    rb_define_module_function(m, "append_integer", wb_hpack_native__append_integer, 4);
    rb_define_module_function(m, "append_literal", wb_hpack_native__append_literal, 5);
}
