/* The error raisers (see errors.h). */
#include "errors.h"
#include "hooks.h"

static ID id_new;
static VALUE sym_line, sym_column, sym_offset, sym_path, sym_reason, sym_truncated;

void wb_error_init(void)
{
    id_new = rb_intern("new");
    sym_line = ID2SYM(rb_intern("line"));
    sym_column = ID2SYM(rb_intern("column"));
    sym_offset = ID2SYM(rb_intern("offset"));
    sym_path = ID2SYM(rb_intern("path"));
    sym_reason = ID2SYM(rb_intern("reason"));
    sym_truncated = ID2SYM(rb_intern("truncated"));
}

void wb_error_raise_parse(VALUE klass, VALUE message, long line, long column, long offset, int reason)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_line, LONG2NUM(line));
    rb_hash_aset(options, sym_column, LONG2NUM(column));
    rb_hash_aset(options, sym_offset, LONG2NUM(offset));
    if (reason == WB_ERROR_REASON_TRUNCATED) rb_hash_aset(options, sym_reason, sym_truncated);
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(klass, id_new, 2, args, RB_PASS_KEYWORDS));
}

void wb_error_raise_decode(VALUE message, VALUE path, long line, long column)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_path, path);
    rb_hash_aset(options, sym_line, LONG2NUM(line));
    rb_hash_aset(options, sym_column, LONG2NUM(column));
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(wb_hooks.eDecodeError, id_new, 2, args, RB_PASS_KEYWORDS));
}

void wb_error_raise_encode(VALUE message, VALUE path)
{
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_path, path);
    VALUE args[2] = {message, options};
    rb_exc_raise(rb_funcallv_kw(wb_hooks.eEncodeError, id_new, 2, args, RB_PASS_KEYWORDS));
}
