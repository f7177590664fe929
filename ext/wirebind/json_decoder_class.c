/* The JSON decoder's binding: Wirebind::JSON::Native.decode_source and
 * compile_plan (called by lib/wirebind/json/native.rb). The engine is
 * json_decoder.c over json_plan.c; this file turns Ruby arguments into a
 * decode state and back. */
#include "json_decoder.h"
#include "config.h"

static VALUE sym_model, sym_any, cDecodeConfig;

/* Native::DecodeConfig's members, in order. */
enum {
    DC_CODE,      /* the document value's code: :model, :any or a scalar type Symbol (Plan.root) */
    DC_TYPE,      /* its model class or type */
    DC_LIST,      /* the document is a list of them */
    DC_SLOT,      /* that Plan::Slot, asked for messages only */
    DC_STRICT,    /* unknown keys are errors */
    DC_MAX_DEPTH, /* the limits: positive Integers */
    DC_MAX_TOKEN_SIZE,
    DC_MAX_NUMBER_LENGTH,
    DC_COUNT
};
static const char *const decode_config_members[DC_COUNT] = {
    "code", "type", "list", "slot", "strict", "max_depth", "max_token_size", "max_number_length",
};

/* A decode in progress, as a Ruby object: a raise anywhere in the middle (a
 * DecodeError, the each block) leaves it to the GC, which frees every buffer. */
typedef struct decode_state {
    wb_jdec d;
} decode_state;

static void jdec_state_mark(void *ptr)
{
    wb_jdec_mark(&((decode_state *)ptr)->d);
}

static void jdec_state_free(void *ptr)
{
    wb_jdec_free(&((decode_state *)ptr)->d);
    ruby_xfree(ptr);
}

static size_t jdec_state_memsize(const void *ptr)
{
    return wb_jdec_memsize(&((const decode_state *)ptr)->d);
}

static const rb_data_type_t state_type = {
    "Wirebind::JSON::Native::DecodeState", {jdec_state_mark, jdec_state_free, jdec_state_memsize, NULL}, 0, 0, RUBY_TYPED_FREE_IMMEDIATELY,
};

/* A positive Integer limit; a Bignum means "no limit" in practice. */
static size_t jdec_limit(VALUE n, const char *name)
{
    if (FIXNUM_P(n)) {
        long v = FIX2LONG(n);
        if (v <= 0) rb_raise(rb_eArgError, "%s must be positive", name);
        return (size_t)v;
    }
    if (RB_TYPE_P(n, T_BIGNUM) && rb_big_cmp(n, INT2FIX(0)) == INT2FIX(1)) return (size_t)-1 / 2;
    rb_raise(rb_eArgError, "%s must be a positive Integer", name);
}

static int root_code(VALUE code)
{
    if (code == sym_model) return WB_JPLAN_MODEL;
    if (code == sym_any) return WB_JPLAN_ANY;
    int c = wb_scalar_type_code(code);
    if (c < 0) rb_raise(rb_eArgError, "unknown root code %" PRIsVALUE, rb_inspect(code));
    return c;
}

/* Native.decode_source(source, config, block) -> Object: decodes one document
 * from a Pure::Source into the root slot's values as a Native::DecodeConfig
 * says (block non-nil: yields each top-level item, returns their number). */
static VALUE wb_json_native__decode_source(VALUE self, VALUE source, VALUE config, VALUE block)
{
    wb_config_check(config, cDecodeConfig);
    VALUE type = wb_config_get(config, DC_TYPE), slot = wb_config_get(config, DC_SLOT);
    int code = root_code(wb_config_get(config, DC_CODE));
    int list = RTEST(wb_config_get(config, DC_LIST));
    if (!NIL_P(block) && !list) rb_raise(rb_eArgError, "each reads a list");
    if (code == WB_JPLAN_MODEL && !RB_TYPE_P(type, T_CLASS)) rb_raise(rb_eArgError, "a model root needs its class");
    decode_state *s;
    VALUE state = TypedData_Make_Struct(rb_cObject, decode_state, &state_type, s);
    wb_jdec *d = &s->d;
    wb_jdec_init(d, source, code, type, list, slot, RTEST(wb_config_get(config, DC_STRICT)),
                 jdec_limit(wb_config_get(config, DC_MAX_DEPTH), "max_depth"),
                 jdec_limit(wb_config_get(config, DC_MAX_TOKEN_SIZE), "max_token_size"),
                 jdec_limit(wb_config_get(config, DC_MAX_NUMBER_LENGTH), "max_number_length"), block);
    VALUE result = wb_jdec_run(d);
    wb_jdec_free(d);
    RB_GC_GUARD(state);
    return result;
}

/* Native.compile_plan(klass, slots, filler, encoded, tag, tag_index, checked) -> plan: a Plan's
 * slots compiled into C tables (frozen, shareable); see json_plan.h. */
static VALUE wb_json_native__compile_plan(VALUE self, VALUE klass, VALUE slots, VALUE filler, VALUE encoded, VALUE tag, VALUE tag_index,
                                          VALUE checked)
{
    return wb_jplan_compile(klass, slots, filler, encoded, tag, tag_index, checked);
}

void Init_wirebind_json_decoder(VALUE mNative)
{
    sym_model = ID2SYM(rb_intern("model"));
    sym_any = ID2SYM(rb_intern("any"));
    wb_jdec_init_ids();
    wb_jplan_init(mNative);
    cDecodeConfig = wb_config_define(mNative, "DecodeConfig", decode_config_members, DC_COUNT);
    rb_define_singleton_method(mNative, "decode_source", wb_json_native__decode_source, 3);
    rb_define_singleton_method(mNative, "compile_plan", wb_json_native__compile_plan, 7);
}
