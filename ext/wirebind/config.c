/* The config Structs of the bindings (see config.h). */
#include "config.h"

VALUE wb_config_define(VALUE outer, const char *name, const char *const *members, int count)
{
    VALUE args[16];
    if (count >= 16) rb_raise(rb_eArgError, "a config has at most 15 members");
    for (int i = 0; i < count; i++) args[i] = ID2SYM(rb_intern(members[i]));
    VALUE options = rb_hash_new();
    rb_hash_aset(options, ID2SYM(rb_intern("keyword_init")), Qtrue);
    args[count] = options;
    VALUE klass = rb_funcallv_kw(rb_cStruct, rb_intern("new"), count + 1, args, RB_PASS_KEYWORDS);
    rb_define_const(outer, name, klass);
    rb_gc_register_mark_object(klass);
    return klass;
}

void wb_config_check(VALUE config, VALUE klass)
{
    if (!rb_obj_is_kind_of(config, klass) || !OBJ_FROZEN(config)) {
        rb_raise(rb_eTypeError, "expected a frozen %" PRIsVALUE ", not %" PRIsVALUE, rb_class_name(klass), rb_inspect(config));
    }
}
