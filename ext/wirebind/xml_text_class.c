/* The text check's binding: Wirebind::XML::Native.scan_clean_text, called by
 * Native::Source (lib/wirebind/xml/native.rb) once per chunk. */
#include "wirebind.h"
#include "xml_text.h"

/* Native.scan_clean_text(text) -> [newlines, tail_chars] or nil.
 * The lines of a chunk that is clean UTF-8 XML text without CRs (see
 * wb_xtext_scan_clean); nil when the careful Ruby path must look at it. */
static VALUE wb_xml_native__scan_clean_text(VALUE self, VALUE text)
{
    StringValue(text);
    wb_xtext_lines lines;
    int clean = wb_xtext_scan_clean((const unsigned char *)RSTRING_PTR(text), (size_t)RSTRING_LEN(text), &lines);
    RB_GC_GUARD(text);
    if (!clean) return Qnil;
    return rb_assoc_new(SIZET2NUM(lines.newlines), SIZET2NUM(lines.tail_chars));
}

void Init_wirebind_xml_text(VALUE mNative)
{
    rb_define_singleton_method(mNative, "scan_clean_text", wb_xml_native__scan_clean_text, 1);
}
