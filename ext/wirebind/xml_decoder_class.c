/* The decoder's binding: Wirebind::XML::Native.decode_source and compile_plan
 * (called by lib/wirebind/xml/native.rb). The engine is xml_decoder.c over
 * xml_tokenizer.c; this file turns Ruby arguments into a decode state and back. */
#include "xml_decoder.h"

static VALUE sym_list, sym_first, sym_each, sym_check, sym_doctype;
static VALUE cDecodeState;
static ID id_unread;

/* A decode in progress, as a Ruby object: a raise anywhere in the middle leaves
 * it to the GC, which frees every buffer. */
typedef struct decode_state {
    wbd_decoder d;
} decode_state;

static void state_mark(void *ptr)
{
    wbd_mark(&((decode_state *)ptr)->d);
}

static void state_free(void *ptr)
{
    wbd_free(&((decode_state *)ptr)->d);
    xfree(ptr);
}

static size_t state_memsize(const void *ptr)
{
    return wbd_memsize(&((const decode_state *)ptr)->d);
}

static void state_compact(void *ptr)
{
    wbd_compact(&((decode_state *)ptr)->d);
}

static const rb_data_type_t state_type = {
    "Wirebind::XML::Native::DecodeState",
    {state_mark, state_free, state_memsize, state_compact},
    0,
    0,
    RUBY_TYPED_FREE_IMMEDIATELY,
};

static int mode_code(VALUE mode)
{
    if (mode == sym_list) return WBD_LIST;
    if (mode == sym_first) return WBD_FIRST;
    if (mode == sym_each) return WBD_EACH;
    if (mode == sym_check) return WBD_CHECK;
    rb_raise(rb_eArgError, "mode must be :list, :first, :each or :check, not %" PRIsVALUE, rb_inspect(mode));
}

/* A positive Integer limit; a Bignum means "no limit" in practice. */
static size_t limit(VALUE n, const char *name)
{
    if (FIXNUM_P(n)) {
        long v = FIX2LONG(n);
        if (v <= 0) rb_raise(rb_eArgError, "%s must be positive", name);
        return (size_t)v;
    }
    if (RB_TYPE_P(n, T_BIGNUM) && rb_big_cmp(n, INT2FIX(0)) == INT2FIX(1)) return (size_t)-1;
    rb_raise(rb_eArgError, "%s must be a positive Integer", name);
}

/* The tokenizer's hash key (wbx_config.hash_key): drawn once, at load, from
 * Random.urandom, and only read after that (so shared by every Ractor). */
static uint64_t hash_key[2];

/* Decodes one document from a Pure::Source; see Wirebind::XML::Native (native.rb). */
/* decode_source(source, item, mode, path, strict, limits, reject_dtd, block, references = nil, missing = nil,
 *               default_offset = nil), limits: [max_depth, max_token_size, max_attributes, max_namespaces];
 * missing: the message to raise when path never matched, or nil */
static VALUE wb_native__decode_source(int argc, VALUE *argv, VALUE self)
{
    VALUE source, item, mode, path, strict, limits, reject_dtd, block, refs, missing, default_offset;
    rb_check_arity(argc, 8, 11);
    source = argv[0];
    item = argv[1];
    mode = argv[2];
    path = argv[3];
    strict = argv[4];
    limits = argv[5];
    reject_dtd = argv[6];
    block = argv[7];
    refs = argc > 8 ? argv[8] : Qnil;
    missing = argc > 9 ? argv[9] : Qnil;
    default_offset = argc > 10 ? argv[10] : Qnil;
    int code = mode_code(mode);
    if (code == WBD_EACH && NIL_P(block)) rb_raise(rb_eArgError, "mode :each needs a block");
    Check_Type(limits, T_ARRAY);
    if (RARRAY_LEN(limits) != 4) rb_raise(rb_eArgError, "limits: [max_depth, max_token_size, max_attributes, max_namespaces]");
    wbx_config config = {
        limit(RARRAY_AREF(limits, 0), "max_depth"),
        limit(RARRAY_AREF(limits, 1), "max_token_size"),
        limit(RARRAY_AREF(limits, 2), "max_attributes"),
        limit(RARRAY_AREF(limits, 3), "max_namespaces"),
        RTEST(reject_dtd),
        {hash_key[0], hash_key[1]},
    };
    decode_state *s;
    VALUE state = TypedData_Make_Struct(cDecodeState, decode_state, &state_type, s);
    wbd_decoder *d = &s->d;
    wbd_init(d, source, item, code, path, RTEST(strict), &config, block, refs, missing, default_offset);
    d->state = state;
    VALUE result = wbd_run(d);
    if (result == Qundef) {
        /* A DOCTYPE: give back everything read, for the pure backend to start over. */
        const char *text;
        size_t len;
        wbx_read_so_far(&d->tok, &text, &len);
        VALUE back = rb_utf8_str_new(text, (long)len);
        wbd_free(d);
        rb_funcall(source, id_unread, 1, back);
        result = sym_doctype;
    } else {
        wbd_free(d);
    }
    RB_GC_GUARD(state);
    return result;
}

/* Compiles a Wirebind::XML::Plan into C tables (frozen, shareable). */
/* DecodeState#namespace_of(prefix) -> String or nil: the namespace a prefix
 * ("" the default) is bound to where the decoder is; asked by XML::Capture
 * for prefixes in attribute values, only while it is fed. */
static VALUE wb_decode_state__namespace_of(VALUE self, VALUE prefix)
{
    decode_state *s = rb_check_typeddata(self, &state_type);
    return wbd_namespace_of(&s->d, prefix);
}

static VALUE wb_native__compile_plan(VALUE self, VALUE plan)
{
    return wbp_compile(plan);
}

void Init_wirebind_xml_decoder(VALUE mNative)
{
    sym_list = ID2SYM(rb_intern("list"));
    sym_first = ID2SYM(rb_intern("first"));
    sym_each = ID2SYM(rb_intern("each"));
    sym_check = ID2SYM(rb_intern("check"));
    sym_doctype = ID2SYM(rb_intern("doctype"));
    id_unread = rb_intern("unread");
    wbd_init_ids(mNative);
    VALUE key = rb_funcall(rb_cRandom, rb_intern("urandom"), 1, INT2FIX(16));
    if (!RB_TYPE_P(key, T_STRING) || RSTRING_LEN(key) != 16) rb_raise(rb_eRuntimeError, "Random.urandom gave no key");
    memcpy(hash_key, RSTRING_PTR(key), 16);
    RB_GC_GUARD(key);
    rb_define_singleton_method(mNative, "decode_source", wb_native__decode_source, -1);
    rb_define_singleton_method(mNative, "compile_plan", wb_native__compile_plan, 1);
    /* The state of one decode_source call; Ruby sees it only as a Capture's scope. */
    cDecodeState = rb_define_class_under(mNative, "DecodeState", rb_cObject);
    rb_gc_register_mark_object(cDecodeState);
    rb_undef_alloc_func(cDecodeState);
    rb_define_method(cDecodeState, "namespace_of", wb_decode_state__namespace_of, 1);
}
