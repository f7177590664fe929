/* Wirebind::Binary::Native: compiled record plans (TypedData) and the
 * decode/encode entry points. On a decline (truncated input, a value that
 * does not fit) the pure codec runs and raises with the reference message. */
#include "binary_record.h"

static ID id_model, id_steps, id_segments, id_big, id_attributes, id_ivar, id_list_p, id_kind, id_width, id_signed, id_at, id_index,
    id_length, id_codec, id_decode, id_encode, id_int, id_bits, id_payload, id_name, id_check_decode, id_check_encode;

typedef struct {
    wb_brec_plan plan;
    VALUE ruby_plan; /* the Binary::Plan: its codec raises the errors */
} record_plan;

static void brec_plan_mark(void *p)
{
    record_plan *rp = p;
    rb_gc_mark_movable(rp->plan.model);
    rb_gc_mark_movable(rp->ruby_plan);
}

static void brec_plan_compact(void *p)
{
    record_plan *rp = p;
    rp->plan.model = rb_gc_location(rp->plan.model);
    rp->ruby_plan = rb_gc_location(rp->ruby_plan);
}

static void brec_plan_free(void *p)
{
    record_plan *rp = p;
    ruby_xfree(rp->plan.attr_ivars);
    ruby_xfree(rp->plan.attr_list);
    ruby_xfree(rp->plan.steps);
    ruby_xfree(rp->plan.segments);
    ruby_xfree(rp);
}

static size_t plan_size(const void *p)
{
    const record_plan *rp = p;
    return sizeof(*rp) + (size_t)rp->plan.nattrs * (sizeof(ID) + 1) + (size_t)rp->plan.nsteps * sizeof(wb_brec_step) +
           (size_t)rp->plan.nsegments * sizeof(wb_brec_segment);
}

static const rb_data_type_t plan_type = {"Wirebind::Binary::Native::Plan",
                                         {brec_plan_mark, brec_plan_free, plan_size, brec_plan_compact},
                                         0,
                                         0,
                                         RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_FROZEN_SHAREABLE};

static VALUE get(VALUE obj, ID id)
{
    return rb_funcall(obj, id, 0);
}

/* Native.compile_plan(plan) -> Native::Plan: the Binary::Plan's steps and segments in C */
static VALUE wb_binary_native__compile_plan(VALUE mod, VALUE ruby_plan)
{
    record_plan *rp;
    VALUE obj = TypedData_Make_Struct(rb_cObject, record_plan, &plan_type, rp);
    rp->ruby_plan = ruby_plan;
    rp->plan.model = get(ruby_plan, id_model);
    rp->plan.big = RTEST(get(ruby_plan, id_big));
    VALUE attributes = get(rp->plan.model, id_attributes);
    long i, nattrs = RARRAY_LEN(attributes);
    rp->plan.attr_ivars = ruby_xcalloc((size_t)nattrs + 1, sizeof(ID));
    rp->plan.attr_list = ruby_xcalloc((size_t)nattrs + 1, 1);
    rp->plan.nattrs = nattrs;
    for (i = 0; i < nattrs; i++) {
        VALUE a = RARRAY_AREF(attributes, i);
        rp->plan.attr_ivars[i] = SYM2ID(get(a, id_ivar));
        rp->plan.attr_list[i] = RTEST(get(a, id_list_p));
    }
    VALUE steps = get(ruby_plan, id_steps);
    long nsteps = RARRAY_LEN(steps);
    rp->plan.steps = ruby_xcalloc((size_t)nsteps + 1, sizeof(wb_brec_step));
    rp->plan.nsteps = nsteps;
    for (i = 0; i < nsteps; i++) {
        VALUE st = RARRAY_AREF(steps, i);
        wb_brec_step *step = &rp->plan.steps[i];
        ID kind = SYM2ID(get(st, id_kind));
        VALUE is_signed = get(st, id_signed);
        step->kind = kind == id_payload ? WB_BREC_PAYLOAD : kind == id_bits ? WB_BREC_BITS : NIL_P(is_signed) ? WB_BREC_FLOAT : WB_BREC_INT;
        step->width = NUM2INT(get(st, id_width));
        step->is_signed = RTEST(is_signed);
        step->index = NUM2LONG(get(st, id_index));
        step->ivar = rp->plan.attr_ivars[step->index];
        VALUE at = get(st, id_at);
        step->at = NIL_P(at) ? 0 : NUM2SIZET(at);
        if (step->kind == WB_BREC_PAYLOAD) {
            VALUE length = get(st, id_length);
            if (NIL_P(length)) {
                step->length_kind = WB_BREC_LENGTH_REST;
            } else if (RB_INTEGER_TYPE_P(length)) {
                step->length_kind = WB_BREC_LENGTH_FIXED;
                step->length = NUM2LONG(length);
            } else {
                long j;
                step->length_kind = WB_BREC_LENGTH_FIELD;
                step->length = -1;
                for (j = 0; j < i; j++)
                    if (rb_equal(get(RARRAY_AREF(steps, j), id_name), length)) step->length = j;
                if (step->length < 0) rb_raise(rb_eArgError, "no length field");
            }
        }
    }
    VALUE segments = get(ruby_plan, id_segments);
    long nseg = RARRAY_LEN(segments), first = 0;
    rp->plan.segments = ruby_xcalloc((size_t)nseg + 1, sizeof(wb_brec_segment));
    rp->plan.nsegments = nseg;
    for (i = 0; i < nseg; i++) {
        VALUE seg = RARRAY_AREF(segments, i);
        wb_brec_segment *s = &rp->plan.segments[i];
        s->first = first;
        if (SYM2ID(RARRAY_AREF(seg, 0)) == id_payload) {
            s->payload = 1;
            s->count = 1;
        } else {
            s->size = NUM2SIZET(RARRAY_AREF(seg, 1));
            s->count = RARRAY_LEN(RARRAY_AREF(seg, 2));
        }
        first += s->count;
    }
    RB_OBJ_FREEZE(obj);
    return obj;
}

static record_plan *get_plan(VALUE obj)
{
    return rb_check_typeddata(obj, &plan_type);
}

/* Native.decode(native_plan, source, offset, into) -> record (source: a String or a Buffer; into: nil or a record to fill) */
static VALUE wb_binary_native__decode(VALUE mod, VALUE plan, VALUE source, VALUE offset, VALUE into)
{
    record_plan *rp = get_plan(plan);
    /* Binary.check_decode's tests; it raises for what fails them */
    if (RB_UNLIKELY(!(FIXNUM_P(offset) && FIX2LONG(offset) >= 0 && (NIL_P(into) || rb_obj_class(into) == rp->plan.model) &&
                      (RB_TYPE_P(source, T_STRING) || wb_bbuf_p(source))))) {
        rb_funcall(wb_hooks.mBinary, id_check_decode, 4, source, rp->plan.model, offset, into);
        /* it did not raise: an offset past any Fixnum, so past the input; the pure codec says where */
        VALUE view = RB_TYPE_P(source, T_STRING) ? wb_bbuf_view_of_string(source, 0, (size_t)RSTRING_LEN(source), rp->plan.big) : source;
        return rb_funcall(get(rp->ruby_plan, id_codec), id_decode, 3, view, offset, into);
    }
    VALUE record = wb_brec_decode(&rp->plan, source, (size_t)FIX2LONG(offset), into);
    if (record != Qundef) return record;
    /* declined: the pure codec raises the ParseError */
    VALUE view = RB_TYPE_P(source, T_STRING) ? wb_bbuf_view_of_string(source, 0, (size_t)RSTRING_LEN(source), rp->plan.big) : source;
    return rb_funcall(get(rp->ruby_plan, id_codec), id_decode, 3, view, offset, into);
}

/* Native.encode(native_plan, record, buffer) -> buffer (a new one if buffer is nil or false) */
static VALUE wb_binary_native__encode(VALUE mod, VALUE plan, VALUE record, VALUE into)
{
    record_plan *rp = get_plan(plan);
    if (!RTEST(into))
        into = rb_class_new_instance(0, NULL, wb_bbuf_class);
    else if (RB_UNLIKELY(!wb_bbuf_p(into)))
        rb_funcall(wb_hooks.mBinary, id_check_encode, 1, into); /* raises */
    if (rb_obj_class(record) != rp->plan.model) rb_raise(rb_eTypeError, "the record is not of the plan's model");
    VALUE result = wb_brec_encode(&rp->plan, record, into);
    if (result != Qundef) return result;
    /* declined: the pure codec raises the EncodeError (or ReadOnlyError) */
    return rb_funcall(get(rp->ruby_plan, id_codec), id_encode, 2, record, into);
}

void Init_wirebind_binary_record(VALUE mNative)
{
#define I(name) id_##name = rb_intern(#name)
    I(model);
    I(steps);
    I(segments);
    I(big);
    I(attributes);
    I(ivar);
    I(kind);
    I(width);
    I(at);
    I(index);
    I(length);
    I(codec);
    I(decode);
    I(encode);
    I(int);
    I(bits);
    I(payload);
    I(name);
#undef I
    id_list_p = rb_intern("list?");
    id_check_decode = rb_intern("check_decode");
    id_check_encode = rb_intern("check_encode");
    id_signed = rb_intern("signed");
    rb_define_module_function(mNative, "compile_plan", wb_binary_native__compile_plan, 1);
    rb_define_module_function(mNative, "decode", wb_binary_native__decode, 4);
    rb_define_module_function(mNative, "encode", wb_binary_native__encode, 3);
}
