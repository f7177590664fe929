/* The serializer engine's binding: Wirebind::Serializer::Native.compile and
 * .write, called by Serializer::Compiled#native_program and Serializer#to_json
 * (lib/wirebind/serializer.rb, compiler.rb), each given one frozen description
 * built once (a Serializer::Program, a Serializer::Layout) besides its per-call
 * arguments. The engine is serializer_engine.c. */
#include "serializer_engine.h"

/* Native.compile(program) -> Native::Program: a Serializer::Program compiled for C. */
static VALUE wb_serializer_native__compile(VALUE self, VALUE program)
{
    return wb_ser_compile(program);
}

static ID id_list_opening, id_list_closing, id_list_head, id_single_head, id_skip_nil, id_opening, id_fields, id_include_tree;

/* A String member of the layout, or nil where `optional`. */
static VALUE layout_string(VALUE layout, ID member, int optional)
{
    VALUE value = rb_struct_getmember(layout, member);
    if (optional && NIL_P(value)) return value;
    StringValue(value);
    return value;
}

/* Native.write(serializer, resource, context, io, layout) -> String or Integer:
 * writes a document, laid out as the Serializer::Layout says (its members read
 * once here; see wb_ser_document). */
static VALUE wb_serializer_native__write(VALUE self, VALUE serializer, VALUE resource, VALUE context, VALUE io, VALUE layout)
{
    Check_Type(layout, T_STRUCT);
    if (!OBJ_FROZEN(layout)) rb_raise(rb_eArgError, "a serializer's layout is frozen");
    wb_ser_document document;
    document.serializer = serializer;
    document.resource = resource;
    document.context = context;
    document.io = io;
    document.list_opening = layout_string(layout, id_list_opening, 0);
    document.list_closing = layout_string(layout, id_list_closing, 0);
    document.list_head = layout_string(layout, id_list_head, 1);
    document.single_head = layout_string(layout, id_single_head, 1);
    document.skip_nil = RTEST(rb_struct_getmember(layout, id_skip_nil));
    document.opening = layout_string(layout, id_opening, 1);
    document.compound = !NIL_P(document.opening);
    document.fields = rb_struct_getmember(layout, id_fields);
    document.include_tree = rb_struct_getmember(layout, id_include_tree);
    if (!NIL_P(document.fields)) Check_Type(document.fields, T_HASH);
    if (!NIL_P(document.include_tree)) Check_Type(document.include_tree, T_HASH);
    VALUE result = wb_ser_write(&document);
    RB_GC_GUARD(serializer);
    RB_GC_GUARD(resource);
    RB_GC_GUARD(context);
    RB_GC_GUARD(io);
    RB_GC_GUARD(layout);
    return result;
}

void Init_wirebind_serializer(VALUE mWirebind)
{
    wb_format_init();
    VALUE cSerializer = rb_define_class_under(mWirebind, "Serializer", rb_cObject);
    VALUE mNative = rb_define_module_under(cSerializer, "Native");
    wb_ser_init(mNative);
    rb_define_singleton_method(mNative, "compile", wb_serializer_native__compile, 1);
    rb_define_singleton_method(mNative, "write", wb_serializer_native__write, 5);
    id_list_opening = rb_intern("list_opening");
    id_list_closing = rb_intern("list_closing");
    id_list_head = rb_intern("list_head");
    id_single_head = rb_intern("single_head");
    id_skip_nil = rb_intern("skip_nil");
    id_opening = rb_intern("opening");
    id_fields = rb_intern("fields");
    id_include_tree = rb_intern("include_tree");
}
