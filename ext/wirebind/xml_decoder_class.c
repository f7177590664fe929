/* The decoder's binding: Wirebind::XML::Native.decode_source and compile_plan
 * (called by lib/wirebind/xml/native.rb). The engine is xml_decoder.c over
 * xml_tokenizer.c; this file turns Ruby arguments into a decode state and back. */
#include "xml_decoder.h"
#include "config.h"

static VALUE sym_list, sym_first, sym_each, sym_check, sym_doctype;
static VALUE cDecodeState, cDecodeConfig;

/* Native::DecodeConfig's members, in order. */
enum {
    DC_ITEM,      /* the model class or scalar type Symbol of each item */
    DC_MODE,      /* :list, :first, :each or :check */
    DC_PATH,      /* [[local, uri], ...]: where the items are */
    DC_STRICT,    /* unknown elements are errors */
    DC_MAX_DEPTH, /* the limits: positive Integers */
    DC_MAX_TOKEN_SIZE,
    DC_MAX_ATTRIBUTES,
    DC_MAX_NAMESPACES,
    DC_REJECT_DTD,     /* a DOCTYPE is an error (else: :doctype is returned) */
    DC_MISSING,        /* the message to raise when path never matched, or nil */
    DC_DEFAULT_OFFSET, /* "Z" or "+hh:mm" for times without one, or nil */
    DC_COUNT
};
static const char *const decode_config_members[DC_COUNT] = {
    "item",           "mode",           "path",       "strict",  "max_depth",      "max_token_size",
    "max_attributes", "max_namespaces", "reject_dtd", "missing", "default_offset",
};
static ID id_unread;

/* A decode in progress, as a Ruby object: a raise anywhere in the middle leaves
 * it to the GC, which frees every buffer. */
typedef struct decode_state {
    wb_xdec d;
} decode_state;

static void xdec_state_mark(void *ptr)
{
    wb_xdec_mark(&((decode_state *)ptr)->d);
}

static void xdec_state_free(void *ptr)
{
    wb_xdec_free(&((decode_state *)ptr)->d);
    xfree(ptr);
}

static size_t xdec_state_memsize(const void *ptr)
{
    return wb_xdec_memsize(&((const decode_state *)ptr)->d);
}

static void state_compact(void *ptr)
{
    wb_xdec_compact(&((decode_state *)ptr)->d);
}

static const rb_data_type_t state_type = {
    "Wirebind::XML::Native::DecodeState", {xdec_state_mark, xdec_state_free, xdec_state_memsize, state_compact}, 0, 0,
    RUBY_TYPED_FREE_IMMEDIATELY,
};

static int mode_code(VALUE mode)
{
    if (mode == sym_list) return WB_XDEC_LIST;
    if (mode == sym_first) return WB_XDEC_FIRST;
    if (mode == sym_each) return WB_XDEC_EACH;
    if (mode == sym_check) return WB_XDEC_CHECK;
    rb_raise(rb_eArgError, "mode must be :list, :first, :each or :check, not %" PRIsVALUE, rb_inspect(mode));
}

/* A positive Integer limit; a Bignum means "no limit" in practice. */
static size_t xdec_limit(VALUE n, const char *name)
{
    if (FIXNUM_P(n)) {
        long v = FIX2LONG(n);
        if (v <= 0) rb_raise(rb_eArgError, "%s must be positive", name);
        return (size_t)v;
    }
    if (RB_TYPE_P(n, T_BIGNUM) && rb_big_cmp(n, INT2FIX(0)) == INT2FIX(1)) return (size_t)-1;
    rb_raise(rb_eArgError, "%s must be a positive Integer", name);
}

/* The tokenizer's hash key (wb_xtok_config.hash_key): drawn once, at load, from
 * Random.urandom, and only read after that (so shared by every Ractor). */
static uint64_t hash_key[2];

/* Native.decode_source(source, config, block, references) -> Object or :doctype:
 * decodes one document from a Pure::Source as a Native::DecodeConfig says
 * (block: each item's, for mode :each; references: an XML::References or
 * nil); see Wirebind::XML::Native (native.rb). */
static VALUE wb_xml_native__decode_source(VALUE self, VALUE source, VALUE settings, VALUE block, VALUE refs)
{
    wb_config_check(settings, cDecodeConfig);
    VALUE item = wb_config_get(settings, DC_ITEM);
    VALUE path = wb_config_get(settings, DC_PATH);
    int code = mode_code(wb_config_get(settings, DC_MODE));
    if (code == WB_XDEC_EACH && NIL_P(block)) rb_raise(rb_eArgError, "mode :each needs a block");
    wb_xtok_config config = {
        xdec_limit(wb_config_get(settings, DC_MAX_DEPTH), "max_depth"),
        xdec_limit(wb_config_get(settings, DC_MAX_TOKEN_SIZE), "max_token_size"),
        xdec_limit(wb_config_get(settings, DC_MAX_ATTRIBUTES), "max_attributes"),
        xdec_limit(wb_config_get(settings, DC_MAX_NAMESPACES), "max_namespaces"),
        RTEST(wb_config_get(settings, DC_REJECT_DTD)),
        {hash_key[0], hash_key[1]},
    };
    decode_state *s;
    VALUE state = TypedData_Make_Struct(cDecodeState, decode_state, &state_type, s);
    wb_xdec *d = &s->d;
    wb_xdec_init(d, source, item, code, path, RTEST(wb_config_get(settings, DC_STRICT)), &config, block, refs,
                 wb_config_get(settings, DC_MISSING), wb_config_get(settings, DC_DEFAULT_OFFSET));
    d->state = state;
    VALUE result = wb_xdec_run(d);
    if (result == Qundef) {
        /* A DOCTYPE: give back everything read, for the pure backend to start over. */
        const char *text;
        size_t len;
        wb_xtok_read_so_far(&d->tok, &text, &len);
        VALUE back = rb_utf8_str_new(text, (long)len);
        wb_xdec_free(d);
        rb_funcall(source, id_unread, 1, back);
        result = sym_doctype;
    } else {
        wb_xdec_free(d);
    }
    RB_GC_GUARD(state);
    return result;
}

/* Compiles a Wirebind::XML::Plan into C tables (frozen, shareable). */
/* DecodeState#namespace_of(prefix) -> String or nil: the namespace a prefix
 * ("" the default) is bound to where the decoder is; asked by XML::Capture
 * for prefixes in attribute values, only while it is fed. */
static VALUE wb_xml_decode_state__namespace_of(VALUE self, VALUE prefix)
{
    decode_state *s = rb_check_typeddata(self, &state_type);
    return wb_xdec_namespace_of(&s->d, prefix);
}

static VALUE wb_xml_native__compile_plan(VALUE self, VALUE plan)
{
    return wb_xplan_compile(plan);
}

void Init_wirebind_xml_decoder(VALUE mNative)
{
    sym_list = ID2SYM(rb_intern("list"));
    sym_first = ID2SYM(rb_intern("first"));
    sym_each = ID2SYM(rb_intern("each"));
    sym_check = ID2SYM(rb_intern("check"));
    sym_doctype = ID2SYM(rb_intern("doctype"));
    id_unread = rb_intern("unread");
    wb_xdec_init_ids(mNative);
    VALUE key = rb_funcall(rb_cRandom, rb_intern("urandom"), 1, INT2FIX(16));
    if (!RB_TYPE_P(key, T_STRING) || RSTRING_LEN(key) != 16) rb_raise(rb_eRuntimeError, "Random.urandom gave no key");
    memcpy(hash_key, RSTRING_PTR(key), 16);
    RB_GC_GUARD(key);
    cDecodeConfig = wb_config_define(mNative, "DecodeConfig", decode_config_members, DC_COUNT);
    rb_define_singleton_method(mNative, "decode_source", wb_xml_native__decode_source, 4);
    rb_define_singleton_method(mNative, "compile_plan", wb_xml_native__compile_plan, 1);
    /* The state of one decode_source call; Ruby sees it only as a Capture's scope. */
    cDecodeState = rb_define_class_under(mNative, "DecodeState", rb_cObject);
    rb_gc_register_mark_object(cDecodeState);
    rb_undef_alloc_func(cDecodeState);
    rb_define_method(cDecodeState, "namespace_of", wb_xml_decode_state__namespace_of, 1);
}
