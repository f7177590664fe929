/* The encoder's binding: Wirebind::XML::Native.encode_value, called by
 * Wirebind::XML::Native.encode (lib/wirebind/xml/native.rb) once the front
 * door (Wirebind::XML.encode) has checked the options. The engine is
 * xml_encoder.c. */
#include "xml_encoder.h"
#include "config.h"

static VALUE cEncodeConfig;

/* Native::EncodeConfig's members, in order. */
enum {
    EC_ROOT,        /* the document element's name for a list, or nil */
    EC_ITEM,        /* the element name of a list's items, or nil */
    EC_XSI_ALL,     /* nil values written as xsi:nil (nil: :xsi) */
    EC_DECLARATION, /* an XML declaration first */
    EC_COUNT
};
static const char *const encode_config_members[EC_COUNT] = {"root", "item", "xsi_all", "declaration"};

/* Native.encode_value(value, config, io) -> String or Integer: encodes a record or a list of them as a
 * Native::EncodeConfig says. */
static VALUE wb_xml_native__encode_value(VALUE self, VALUE value, VALUE config, VALUE io)
{
    wb_config_check(config, cEncodeConfig);
    VALUE root = wb_config_get(config, EC_ROOT);
    VALUE item = wb_config_get(config, EC_ITEM);
    if (!NIL_P(root)) StringValue(root);
    if (!NIL_P(item)) StringValue(item);
    return wb_xenc_encode(value, root, item, RTEST(wb_config_get(config, EC_XSI_ALL)), RTEST(wb_config_get(config, EC_DECLARATION)), io);
}

void Init_wirebind_xml_encoder(VALUE mNative)
{
    wb_format_init();
    wb_xenc_init(mNative);
    cEncodeConfig = wb_config_define(mNative, "EncodeConfig", encode_config_members, EC_COUNT);
    rb_define_singleton_method(mNative, "encode_value", wb_xml_native__encode_value, 3);
}
