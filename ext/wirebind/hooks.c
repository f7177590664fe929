/* wb_hooks, read once from Wirebind::NativeHooks (see hooks.h). */
#include "wirebind.h"

struct wb_hooks wb_hooks;
int wb_utf8_index;

static VALUE hook(VALUE mHooks, const char *name)
{
    VALUE object = rb_const_get_at(mHooks, rb_intern(name));
    rb_gc_register_mark_object(object);
    return object;
}

void wb_hooks_init(void)
{
    VALUE mHooks = rb_path2class("Wirebind::NativeHooks");
    struct wb_hooks h;
    h.eParseError = hook(mHooks, "PARSE_ERROR");
    h.eLimitError = hook(mHooks, "LIMIT_ERROR");
    h.eDecodeError = hook(mHooks, "DECODE_ERROR");
    h.eEncodeError = hook(mHooks, "ENCODE_ERROR");
    h.eInvalidValue = hook(mHooks, "INVALID_VALUE");
    h.eRefusal = hook(mHooks, "REFUSAL");
    h.eBinaryRangeError = hook(mHooks, "BINARY_RANGE_ERROR");
    h.eBinaryReadOnlyError = hook(mHooks, "BINARY_READ_ONLY_ERROR");
    h.eJSONSourceInvalid = hook(mHooks, "JSON_SOURCE_INVALID");
    h.cDate = hook(mHooks, "DATE");
    h.cDateTime = hook(mHooks, "DATE_TIME");
    h.cBigDecimal = hook(mHooks, "BIG_DECIMAL");
    h.date_gregorian = hook(mHooks, "DATE_GREGORIAN");
    h.mModel = hook(mHooks, "MODEL");
    h.mTypes = hook(mHooks, "TYPES");
    h.mQNameType = hook(mHooks, "QNAME_TYPE");
    h.mXML = hook(mHooks, "XML_MODULE");
    h.cXMLPlan = hook(mHooks, "XML_PLAN");
    h.cXMLEncoder = hook(mHooks, "XML_ENCODER");
    h.cXMLCapture = hook(mHooks, "XML_CAPTURE");
    h.mXMLOpenContent = hook(mHooks, "XML_OPEN_CONTENT");
    h.mJSONPure = hook(mHooks, "JSON_PURE");
    h.mJSONWriter = hook(mHooks, "JSON_WRITER");
    h.mSerializerValues = hook(mHooks, "SERIALIZER_VALUES");
    h.mBinary = hook(mHooks, "BINARY");
    h.xsi_declaration = hook(mHooks, "XSI_DECLARATION");
    h.reference_pending = hook(mHooks, "REFERENCE_PENDING");
    h.json_expected = hook(mHooks, "JSON_EXPECTED");
    h.cJSONPlan = hook(mHooks, "JSON_PLAN");

    VALUE item_true = rb_hash_new();
    rb_hash_aset(item_true, ID2SYM(rb_intern("item")), Qtrue);
    rb_gc_register_mark_object(h.item_true = rb_obj_freeze(item_true));
    rb_gc_register_mark_object(h.str_F = rb_obj_freeze(rb_str_new_cstr("F")));
    /* Under a time zone with leap seconds ("right/UTC"), Time#to_i counts them,
     * and the civil date cannot be worked out from it: Ruby writes every time. */
    VALUE y2k = rb_funcall(rb_cTime, rb_intern("utc"), 1, INT2FIX(2000));
    h.posix_time = rb_funcall(y2k, rb_intern("to_i"), 0) == LONG2FIX(946684800L);
    wb_hooks = h;
    wb_utf8_index = rb_utf8_encindex();
}
