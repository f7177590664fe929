/* The serializer engine's binding: Wirebind::Serializer::Native.compile and
 * .write, called by Serializer::Compiled#native_program and Serializer#to_json
 * (lib/wirebind/serializer.rb, compiler.rb). The engine is serializer_engine.c. */
#include "serializer_engine.h"

/* Native.compile(compiled, model, links, ops, slot_count, max_depth) -> Program: a Program's ops compiled for C. */
static VALUE wb_native__compile(VALUE self, VALUE compiled, VALUE model, VALUE links, VALUE ops, VALUE slot_count,
                                VALUE max_depth)
{
    return wb_ser_compile(compiled, model, links, ops, slot_count, max_depth);
}

/* Native.write(serializer, resource, context, io, list_opening, list_closing, list_head, single_head, skip_nil
 * [, compound]) -> String or Integer: writes a document; `compound`, for JSON:API, is
 * [opening, fields, include_tree] (see wb_ser_document). */
static VALUE wb_native__write(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 9, 10);
    wb_ser_document document;
    document.serializer = argv[0];
    document.resource = argv[1];
    document.context = argv[2];
    document.io = argv[3];
    document.list_opening = argv[4];
    document.list_closing = argv[5];
    document.list_head = argv[6];
    document.single_head = argv[7];
    document.skip_nil = RTEST(argv[8]);
    if (!NIL_P(document.list_opening)) StringValue(document.list_opening);
    if (!NIL_P(document.list_closing)) StringValue(document.list_closing);
    document.compound = 0;
    document.opening = document.fields = document.include_tree = Qnil;
    VALUE compound = argc > 9 ? argv[9] : Qnil;
    if (!NIL_P(compound)) {
        Check_Type(compound, T_ARRAY);
        if (RARRAY_LEN(compound) != 3) rb_raise(rb_eArgError, "a compound document is [opening, fields, include_tree]");
        document.compound = 1;
        document.opening = RARRAY_AREF(compound, 0);
        StringValue(document.opening);
        document.fields = RARRAY_AREF(compound, 1);
        document.include_tree = RARRAY_AREF(compound, 2);
        if (!NIL_P(document.fields)) Check_Type(document.fields, T_HASH);
        if (!NIL_P(document.include_tree)) Check_Type(document.include_tree, T_HASH);
    }
    VALUE result = wb_ser_write(&document);
    RB_GC_GUARD(document.serializer);
    RB_GC_GUARD(document.resource);
    RB_GC_GUARD(document.context);
    RB_GC_GUARD(document.io);
    RB_GC_GUARD(compound);
    return result;
}

void Init_wirebind_serializer(VALUE mWirebind)
{
    wb_format_init();
    VALUE cSerializer = rb_define_class_under(mWirebind, "Serializer", rb_cObject);
    VALUE mNative = rb_define_module_under(cSerializer, "Native");
    wb_ser_init(mNative);
    rb_define_singleton_method(mNative, "compile", wb_native__compile, 6);
    rb_define_singleton_method(mNative, "write", wb_native__write, -1);
}
