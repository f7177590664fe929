/* The serializer engine (see serializer_engine.h). Two halves:
 *
 * - compiling: Program#ops (Arrays of Program::FIELDS) become a wb_ser_program,
 *   a flat array of ops with the literal text in one string table;
 * - writing: write_record runs a record's program; a nested record
 *   (ONE, MANY) runs its program by a call of write_record. That recursion is
 *   on the depth of the records, and capped: a record deeper than the
 *   serializer's MAX_DEPTH (1024) raises EncodeError before its program runs,
 *   as the generated methods do, so the C stack holds at most 1025 small
 *   write_record frames (a few hundred KiB at worst).
 *
 * Per call, one TypedData (`state`) holds what the GC must see: the
 * document's objects, the slots (link hrefs, prefetched records, comma flags)
 * of every record being written, and the frames (which Compiled is writing
 * which field at which list index), from which an error's path is built. */
#include "serializer_engine.h"
#include "json_writer.h"
#include <ruby/version.h>

static VALUE cProgram;
static ID id_hash_value, id_each_item, id_collection_p;
static ID id_native_any, id_compiled, id_model, id_links, id_ops, id_slot_count, id_max_depth;
static ID id_call, id_compiled_for, id_native_program, id_native_text, id_native_model_value, id_wrong_record, id_not_a_list, id_too_deep,
    id_nested_error, id_nested, id_href, id_id_of, id_native_program_for, id_to_a, id_any;
static VALUE str_included;

/* ==== compiled programs ===================================================== */

static void program_mark(void *ptr)
{
    wb_ser_program *program = ptr;
    rb_gc_mark_movable(program->compiled);
    rb_gc_mark_movable(program->model);
    rb_gc_mark_movable(program->links);
    for (size_t i = 0; i < program->op_count; i++) {
        rb_gc_mark_movable(program->ops[i].type);
        rb_gc_mark_movable(program->ops[i].name);
        rb_gc_mark_movable(program->ops[i].nested);
        rb_gc_mark_movable(program->ops[i].nested_program);
    }
}

static void program_compact(void *ptr)
{
    wb_ser_program *program = ptr;
    program->compiled = rb_gc_location(program->compiled);
    program->model = rb_gc_location(program->model);
    program->links = rb_gc_location(program->links);
    for (size_t i = 0; i < program->op_count; i++) {
        program->ops[i].type = rb_gc_location(program->ops[i].type);
        program->ops[i].name = rb_gc_location(program->ops[i].name);
        program->ops[i].nested = rb_gc_location(program->ops[i].nested);
        program->ops[i].nested_program = rb_gc_location(program->ops[i].nested_program);
    }
}

static void program_free(void *ptr)
{
    wb_ser_program *program = ptr;
    ruby_xfree(program->ops);
    ruby_xfree(program->cond);
    wb_buffer_release(&program->strings);
    ruby_xfree(program);
}

static size_t program_memsize(const void *ptr)
{
    const wb_ser_program *program = ptr;
    return sizeof(*program) + program->op_count * sizeof(wb_ser_op) + program->cond_count * sizeof(int) + program->strings.capa;
}

/* Not WB_PROTECTED: an op's nested program is stored on first use, without a
 * write barrier, so the GC always marks programs in full. */
static const rb_data_type_t program_type = {
    "Wirebind::Serializer::Native::Program",
    {program_mark, program_free, program_memsize, program_compact},
    0,
    0,
    RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Program::FIELDS, in its order. */
enum {
    F_CODE = 0,
    F_AT,
    F_SLOT,
    F_TARGET,
    F_TEXT,
    F_IVAR,
    F_READER,
    F_DIRECT,
    F_TYPE,
    F_LIST,
    F_SKIP_NIL,
    F_HEAD,
    F_SLOTS,
    F_FROM,
    F_FLAG,
    F_READERS,
    F_HASH,
    F_COUNT
};

static wb_ser_bytes ser_intern(wb_ser_program *program, VALUE str)
{
    wb_ser_bytes bytes;
    StringValue(str);
    bytes.offset = program->strings.len;
    wb_buffer_append_str(&program->strings, str);
    bytes.len = program->strings.len - bytes.offset;
    RB_GC_GUARD(str);
    return bytes;
}

/* An int field; -1 for nil. */
static int int_field(VALUE op, int index, int limit)
{
    VALUE value = rb_ary_entry(op, index);
    if (NIL_P(value)) return -1;
    long n = NUM2LONG(value);
    if (n < -1 || n >= limit) rb_raise(rb_eArgError, "serializer program: field %d out of range (%ld)", index, n);
    return (int)n;
}

static ID id_field(VALUE op, int index)
{
    VALUE value = rb_ary_entry(op, index);
    return NIL_P(value) ? 0 : rb_sym2id(value);
}

#if RUBY_API_VERSION_CODE < 30200
/* Ruby 3.1 keeps an object's ivars in an array indexed by a table of its
 * class (every instance of exactly that class shares it, and an index never
 * changes once given). The index of each ivar the program reads is found on
 * a fresh instance (allocated, filled by __wb_load with distinct markers),
 * each marker looked for in the array. Ruby 3.2's object shapes are another
 * story: there, rb_ivar_get it is. */
static VALUE probe_ivars(VALUE arg)
{
    wb_ser_program *program = (wb_ser_program *)arg;
    VALUE probe = rb_obj_alloc(program->model);
    if (!RB_TYPE_P(probe, T_OBJECT) || RBASIC_CLASS(probe) != program->model) return Qnil;
    /* Every attribute set, in the model's order, as __wb_load sets them when
     * records are built (so the class's table grows as it would anyway):
     * attribute i holds i. */
    long count_attributes = RARRAY_LEN(rb_funcall(program->model, rb_intern("attributes"), 0));
    VALUE markers = rb_ary_new_capa(count_attributes);
    for (long i = 0; i < count_attributes; i++) rb_ary_push(markers, LONG2FIX(i));
    rb_funcall(probe, rb_intern("__wb_load"), 1, markers);
    uint32_t count = ROBJECT_NUMIV(probe);
    const VALUE *ivars = ROBJECT_IVPTR(probe);
    for (size_t i = 0; i < program->op_count; i++) {
        wb_ser_op *op = &program->ops[i];
        if (!op->direct) continue;
        VALUE marker = rb_ivar_get(probe, op->ivar);
        if (!FIXNUM_P(marker)) continue; /* not one __wb_load sets: by name */
        for (uint32_t k = 0; k < count; k++) {
            if (ivars[k] == marker) {
                op->ivar_index = k + 1;
                break;
            }
        }
    }
    RB_GC_GUARD(probe);
    return Qnil;
}
#endif

VALUE wb_ser_compile(VALUE description)
{
    /* The description's fields, read once. */
    VALUE compiled = rb_funcall(description, id_compiled, 0);
    VALUE model = rb_funcall(description, id_model, 0);
    VALUE links = rb_funcall(description, id_links, 0);
    VALUE ops = rb_funcall(description, id_ops, 0);
    int slot_count = NUM2INT(rb_funcall(description, id_slot_count, 0));
    long max_depth = NUM2LONG(rb_funcall(description, id_max_depth, 0));
    Check_Type(ops, T_ARRAY);
    Check_Type(links, T_ARRAY);
    if (!RB_TYPE_P(model, T_CLASS)) rb_raise(rb_eTypeError, "serializer program: the model is not a Class");
    wb_ser_program *program;
    VALUE object = TypedData_Make_Struct(cProgram, wb_ser_program, &program_type, program);
    program->compiled = compiled;
    program->model = model;
    program->links = links;
    program->slot_count = slot_count;
    program->max_depth = max_depth;
    program->id_op = -1;
    if (program->slot_count < 0) rb_raise(rb_eArgError, "serializer program: negative slot count");
    wb_buffer_init(&program->strings);

    long count = RARRAY_LEN(ops);
    size_t conds = 0;
    for (long i = 0; i < count; i++) {
        VALUE op = rb_ary_entry(ops, i);
        Check_Type(op, T_ARRAY);
        if (RARRAY_LEN(op) != F_COUNT) rb_raise(rb_eArgError, "serializer program: an op has %d fields", F_COUNT);
        VALUE slots = rb_ary_entry(op, F_SLOTS);
        if (!NIL_P(slots)) {
            Check_Type(slots, T_ARRAY);
            conds += (size_t)RARRAY_LEN(slots);
        }
    }
    /* Filled before op_count counts them: the GC marks counted ops only. */
    wb_ser_op *filled = ruby_xcalloc(count > 0 ? (size_t)count : 1, sizeof(wb_ser_op));
    program->ops = filled;
    program->cond = ruby_xcalloc(conds ? conds : 1, sizeof(int));
    int limit_slot = program->slot_count;
    int limit_target = (int)count + 1;
    for (long i = 0; i < count; i++) {
        VALUE op = rb_ary_entry(ops, i);
        wb_ser_op *o = &filled[i];
        o->type = Qnil;
        o->name = Qnil;
        o->nested = Qnil;
        o->nested_program = Qnil;
        /* Counted from here on (marked): Ruby runs below, and may collect. */
        program->op_count = (size_t)i + 1;
        long code = NUM2LONG(rb_ary_entry(op, F_CODE));
        if (code < 0 || code >= WB_SER_OP_LIMIT) rb_raise(rb_eArgError, "serializer program: unknown op %ld", code);
        o->code = (unsigned char)code;
        o->at = int_field(op, F_AT, INT_MAX);
        o->slot = int_field(op, F_SLOT, limit_slot);
        o->from = int_field(op, F_FROM, limit_slot);
        o->flag = int_field(op, F_FLAG, limit_slot);
        o->ivar = id_field(op, F_IVAR);
        o->reader = id_field(op, F_READER);
        o->direct = RTEST(rb_ary_entry(op, F_DIRECT)) && o->ivar != 0;
        o->list = RTEST(rb_ary_entry(op, F_LIST));
        o->skip_nil = RTEST(rb_ary_entry(op, F_SKIP_NIL));
        o->readers = RTEST(rb_ary_entry(op, F_READERS));
        o->hash = RTEST(rb_ary_entry(op, F_HASH));
        switch (o->code) {
        case WB_SER_UNLESS_ANY:
        case WB_SER_SPARSE: o->target = int_field(op, F_TARGET, limit_target); break;
        case WB_SER_LINK: o->target = int_field(op, F_TARGET, (int)RARRAY_LEN(links)); break;
        default: o->target = -1; break;
        }
        VALUE text = rb_ary_entry(op, F_TEXT);
        if (o->code == WB_SER_ID || o->code == WB_SER_SPARSE || o->code == WB_SER_FIELD || o->code == WB_SER_RELATE) {
            /* Looked up in Hashes, as Strings. */
            StringValue(text);
            o->name = rb_str_new_frozen(text);
        } else if (!NIL_P(text)) {
            o->text = ser_intern(program, text);
        }
        VALUE head = rb_ary_entry(op, F_HEAD);
        if (!NIL_P(head)) {
            o->head = ser_intern(program, head);
            o->has_head = 1;
        }
        VALUE type = rb_ary_entry(op, F_TYPE);
        if (o->code == WB_SER_ATTR) {
            o->type = type;
            if (SYMBOL_P(type) && SYM2ID(type) == rb_intern("model")) {
                o->format = WB_SER_FORMAT_MODEL;
            } else if (SYMBOL_P(type) && SYM2ID(type) == id_any) {
                o->format = WB_SER_FORMAT_ANY;
            } else {
                o->format = (unsigned char)wb_format_kind_of(type);
            }
        }
        if (o->code == WB_SER_ONE || o->code == WB_SER_MANY || o->code == WB_SER_RELATE) {
            if (o->at < 0) rb_raise(rb_eArgError, "serializer program: op %ld needs its field", i);
            o->nested = rb_funcall(compiled, id_nested, 1, INT2FIX(o->at));
        }
        o->dispatch = !NIL_P(o->nested) && rb_respond_to(o->nested, id_native_program_for);
        VALUE slots = rb_ary_entry(op, F_SLOTS);
        if (!NIL_P(slots)) {
            o->slots_offset = program->cond_count;
            o->slots_count = (size_t)RARRAY_LEN(slots);
            for (long k = 0; k < RARRAY_LEN(slots) && program->cond_count < conds; k++) {
                int s = int_field(slots, (int)k, limit_slot);
                if (s < 0) rb_raise(rb_eArgError, "serializer program: a nil slot");
                program->cond[program->cond_count++] = s;
            }
            o->slots_count = program->cond_count - o->slots_offset;
        }
        /* Ops that need their slots or readers have them. */
        if ((o->code == WB_SER_LINK || o->code == WB_SER_LOAD || o->code == WB_SER_HREF || o->code == WB_SER_FLAG_CLEAR ||
             o->code == WB_SER_FLAG_SET || o->code == WB_SER_COMMA_IF || o->code == WB_SER_SPARSE || o->code == WB_SER_FIELD) &&
            o->slot < 0) {
            rb_raise(rb_eArgError, "serializer program: op %ld needs a slot", i);
        }
        if (((o->code == WB_SER_ATTR && o->from < 0) || o->code == WB_SER_LOAD || o->code == WB_SER_MANY || o->code == WB_SER_ID ||
             o->code == WB_SER_RELATE || (o->code == WB_SER_ONE && o->from < 0)) &&
            o->reader == 0) {
            rb_raise(rb_eArgError, "serializer program: op %ld needs a reader", i);
        }
        if ((o->code == WB_SER_ONE || o->code == WB_SER_MANY || o->code == WB_SER_RELATE) && NIL_P(o->nested)) {
            rb_raise(rb_eArgError, "serializer program: op %ld needs a nested serializer", i);
        }
        if (o->code == WB_SER_LINK && o->target < 0) rb_raise(rb_eArgError, "serializer program: a link without an index");
        if ((o->code == WB_SER_UNLESS_ANY || o->code == WB_SER_SPARSE) && o->target <= i) {
            rb_raise(rb_eArgError, "serializer program: a jump that is not forward");
        }
        if (o->code == WB_SER_FIELD && o->from < 0) rb_raise(rb_eArgError, "serializer program: a field without its fieldset");
        if (o->code == WB_SER_ID) {
            if (!o->has_head) rb_raise(rb_eArgError, "serializer program: an id without its identifier's head");
            if (program->id_op < 0) program->id_op = i;
        }
    }
#if RUBY_API_VERSION_CODE < 30200
    /* A model that cannot be allocated (or raises doing it) is read by name. */
    int failed = 0;
    rb_protect(probe_ivars, (VALUE)program, &failed);
    if (failed) {
        /* Only an error gives up the shortcut; an Interrupt, a kill or a throw goes on. */
        if (!RTEST(rb_obj_is_kind_of(rb_errinfo(), rb_eStandardError))) rb_jump_tag(failed);
        rb_set_errinfo(Qnil);
        for (size_t i = 0; i < program->op_count; i++) program->ops[i].ivar_index = 0;
    }
#endif
    RB_GC_GUARD(ops);
    RB_GC_GUARD(description);
    return rb_obj_freeze(object);
}

static const wb_ser_program *program_of(VALUE object)
{
    return rb_check_typeddata(object, &program_type);
}

/* ==== writing ================================================================ */

/* Which field of which Compiled a record being written is at: the locals
 * +at+ and +i+ of a generated method, for Compiled#nested_error. */
typedef struct frame {
    VALUE compiled;
    int at;
    long index;
} frame;

typedef struct state {
    wb_buffer buffer;
    const wb_ser_document *document;
    size_t written;
    frame *frames;
    size_t depth;
    size_t frame_capacity;
    VALUE *slots;
    size_t slot_len;
    size_t slot_capacity;
    int in_list;
    long list_index;
    long included_index; /* JSON:API: the included record being written, -1: none */
    VALUE seen;          /* JSON:API: type => {id => true}, the resources written or queued */
    VALUE queue;         /* JSON:API: program, record, include node... for "included" */
    VALUE node;          /* JSON:API: the include paths below the resource being written, Qnil: all */
    VALUE last_class;
    VALUE last_program;
    /* The heads, copied: Ruby code runs while they are in use. */
    char *list_head;
    size_t list_head_len;
    char *single_head;
    size_t single_head_len;
} state;

static void ser_state_mark(void *ptr)
{
    state *st = ptr;
    if (st->document) {
        rb_gc_mark(st->document->serializer);
        rb_gc_mark(st->document->resource);
        rb_gc_mark(st->document->context);
        rb_gc_mark(st->document->io);
        rb_gc_mark(st->document->list_opening);
        rb_gc_mark(st->document->list_closing);
        rb_gc_mark(st->document->list_head);
        rb_gc_mark(st->document->single_head);
        rb_gc_mark(st->document->opening);
        rb_gc_mark(st->document->fields);
        rb_gc_mark(st->document->include_tree);
    }
    rb_gc_mark(st->seen);
    rb_gc_mark(st->queue);
    rb_gc_mark(st->node);
    for (size_t i = 0; i < st->depth; i++) rb_gc_mark(st->frames[i].compiled);
    for (size_t i = 0; i < st->slot_len; i++) rb_gc_mark(st->slots[i]);
    rb_gc_mark(st->last_class);
    rb_gc_mark(st->last_program);
}

static void state_release(state *st)
{
    wb_buffer_release(&st->buffer);
    ruby_xfree(st->frames);
    st->frames = NULL;
    st->depth = st->frame_capacity = 0;
    ruby_xfree(st->slots);
    st->slots = NULL;
    st->slot_len = st->slot_capacity = 0;
    st->document = NULL;
    ruby_xfree(st->list_head);
    st->list_head = NULL;
    ruby_xfree(st->single_head);
    st->single_head = NULL;
    st->last_class = Qnil;
    st->last_program = Qnil;
    st->seen = Qnil;
    st->queue = Qnil;
    st->node = Qnil;
}

static void ser_state_free(void *ptr)
{
    state_release(ptr);
    ruby_xfree(ptr);
}

static size_t ser_state_memsize(const void *ptr)
{
    const state *st = ptr;
    return sizeof(*st) + st->buffer.capa + st->frame_capacity * sizeof(frame) + st->slot_capacity * sizeof(VALUE);
}

static const rb_data_type_t state_type = {
    "wirebind/serializer_state", {ser_state_mark, ser_state_free, ser_state_memsize, NULL}, 0, 0, RUBY_TYPED_FREE_IMMEDIATELY,
};

/* ---- values --------------------------------------------------------------------- */

/* Values.native_text(type, value): Ruby writes it, or raises. */
static void ser_write_ruby(state *st, VALUE type, VALUE value)
{
    VALUE text = rb_funcall(wb_hooks.mSerializerValues, id_native_text, 2, type, value);
    StringValue(text);
    wb_buffer_append_str(&st->buffer, text);
    RB_GC_GUARD(text);
}

/* Values.any's common cases (a reader's value, written by its class): 0 for
 * the rest (Arrays, Hashes, Dates, records...), which Ruby writes. */
static int write_any(wb_buffer *buffer, VALUE value)
{
    if (RB_TYPE_P(value, T_STRING) || RB_TYPE_P(value, T_SYMBOL)) return wb_jwrite_text(buffer, value);
    if (RB_INTEGER_TYPE_P(value)) return wb_jwrite_integer(buffer, value);
    if (RB_FLOAT_TYPE_P(value)) return wb_jwrite_float(buffer, value);
    if (value == Qtrue || value == Qfalse) return wb_jwrite_boolean(buffer, value);
    if (RB_SPECIAL_CONST_P(value)) return 0;
    if (RBASIC_CLASS(value) == rb_cTime) return wb_jwrite_time(buffer, value);
    if (RBASIC_CLASS(value) == wb_hooks.cBigDecimal) return wb_jwrite_decimal(buffer, value);
    return 0;
}

static void ser_write_scalar(state *st, const wb_ser_op *op, VALUE value, long depth)
{
    if (NIL_P(value)) {
        wb_buffer_append_literal(&st->buffer, "null");
        return;
    }
    if (op->format == WB_SER_FORMAT_MODEL) {
        VALUE compiled = st->frames[st->depth - 1].compiled;
        VALUE text = rb_funcall(compiled, id_native_model_value, 3, INT2FIX(op->at), value, LONG2NUM(depth));
        StringValue(text);
        wb_buffer_append_str(&st->buffer, text);
        RB_GC_GUARD(text);
        return;
    }
    if (op->format == WB_SER_FORMAT_ANY) {
        /* Values.any's common values in C; the rest Values.native_any, at the record's depth. */
        if (!write_any(&st->buffer, value)) {
            VALUE text = rb_funcall(wb_hooks.mSerializerValues, id_native_any, 2, value, LONG2NUM(depth));
            StringValue(text);
            wb_buffer_append_str(&st->buffer, text);
            RB_GC_GUARD(text);
        }
        return;
    }
    if (!wb_jwrite_scalar(&st->buffer, (wb_format_kind)op->format, value)) ser_write_ruby(st, op->type, value);
}

/* ---- records ---------------------------------------------------------------------- */

/* A model's attribute is its ivar, whatever its class's readers do (the
 * generated Ruby's instance_variable_get); an object that is not a model is
 * read through its reader (r.name). */
static inline VALUE read_field(VALUE record, const wb_ser_op *op, int exact)
{
    if (op->hash) {
        /* A Symbol key found at once; anything else (a String key, none) as Values.hash_value does. */
        if (RB_TYPE_P(record, T_HASH)) {
            VALUE value = rb_hash_lookup2(record, ID2SYM(op->reader), Qundef);
            if (value != Qundef) return value;
        }
        return rb_funcall(wb_hooks.mSerializerValues, id_hash_value, 2, record, ID2SYM(op->reader));
    }
    if (op->direct) {
#if RUBY_API_VERSION_CODE < 30200
        /* rb_ivar_get looks the name up in the class's index table each time;
         * the index found once (probe_ivars) reads the same slot, for a
         * record of exactly the model class (a subclass has its own table). */
        if (exact && op->ivar_index && RB_TYPE_P(record, T_OBJECT) && op->ivar_index <= ROBJECT_NUMIV(record)) {
            VALUE value = ROBJECT_IVPTR(record)[op->ivar_index - 1];
            return value == Qundef ? Qnil : value;
        }
#endif
        return rb_ivar_get(record, op->ivar);
    }
    return rb_funcallv_public(record, op->reader, 0, NULL);
}

NORETURN(static void raise_from(VALUE compiled, ID method, VALUE argument));
static void raise_from(VALUE compiled, ID method, VALUE argument)
{
    rb_exc_raise(NIL_P(argument) ? rb_funcall(compiled, method, 0) : rb_funcall(compiled, method, 1, argument));
}

/* The program object that writes `record`, a record of `op`'s relation: the
 * nested Compiled's (kept in the op), or a Dispatch's for the record's class. */
static VALUE nested_program_object(wb_ser_op *op, VALUE record)
{
    if (op->dispatch) {
        VALUE object = rb_funcall(op->nested, id_native_program_for, 1, record);
        program_of(object);
        return object;
    }
    if (NIL_P(op->nested_program)) {
        VALUE object = rb_funcall(op->nested, id_native_program, 0);
        program_of(object);
        op->nested_program = object;
    }
    return op->nested_program;
}

/* Generator#each_item: a list read through a reader may be any Enumerable. */
static VALUE list_of(const wb_ser_op *op, VALUE value)
{
    if (op->readers && !RB_TYPE_P(value, T_ARRAY) && RTEST(rb_obj_is_kind_of(value, rb_mEnumerable))) {
        return rb_funcall(value, id_to_a, 0);
    }
    return value;
}

static inline VALUE *slot_at(state *st, size_t base, int slot)
{
    return &st->slots[base + (size_t)slot];
}

static void grow_slots(state *st, size_t extra)
{
    if (st->slot_capacity - st->slot_len >= extra) return;
    size_t capacity = st->slot_capacity ? st->slot_capacity : 64;
    while (capacity - st->slot_len < extra) capacity *= 2;
    /* A new array filled before the old one goes: a GC in the allocation
     * still marks the old. */
    VALUE *grown = ruby_xmalloc2(capacity, sizeof(VALUE));
    if (st->slot_len) memcpy(grown, st->slots, st->slot_len * sizeof(VALUE));
    VALUE *old = st->slots;
    st->slots = grown;
    st->slot_capacity = capacity;
    ruby_xfree(old);
}

static void ser_push_frame(state *st, VALUE compiled)
{
    if (st->depth == st->frame_capacity) {
        size_t capacity = st->frame_capacity ? st->frame_capacity * 2 : 16;
        frame *grown = ruby_xmalloc2(capacity, sizeof(frame));
        if (st->depth) memcpy(grown, st->frames, st->depth * sizeof(frame));
        frame *old = st->frames;
        st->frames = grown;
        st->frame_capacity = capacity;
        ruby_xfree(old);
    }
    frame *f = &st->frames[st->depth];
    f->compiled = compiled;
    f->at = -1;
    f->index = -1;
    st->depth++;
}

static inline void comma_flag(state *st, size_t base, int flag)
{
    if (flag < 0) return;
    VALUE *slot = slot_at(st, base, flag);
    if (*slot == Qtrue) {
        wb_buffer_append_char(&st->buffer, ',');
    } else {
        *slot = Qtrue;
    }
}

static void write_record(state *st, const wb_ser_program *program, VALUE record, const char *head, size_t head_len, long depth);

/* ---- JSON:API (JsonApi::Compiled#id_of, #relate and State) ---- */

/* The id of a JSON:API resource as a String: JsonApi::Compiled#id_of's
 * cases, and Ruby's for the rest (which raises). */
static VALUE resource_id(const wb_ser_program *program, VALUE record, int exact)
{
    if (program->id_op < 0) rb_raise(rb_eArgError, "serializer program: a JSON:API resource without an id");
    VALUE value = read_field(record, &program->ops[program->id_op], exact);
    if (RB_TYPE_P(value, T_STRING)) return value;
    if (FIXNUM_P(value)) return rb_fix2str(value, 10);
    if (RB_TYPE_P(value, T_BIGNUM)) return rb_big2str(value, 10);
    return rb_funcall(program->compiled, id_id_of, 1, record);
}

/* An id written as a JSON string (Values.string's escaping, Ruby's for what
 * C declines). */
static void write_id(state *st, VALUE id)
{
    if (!wb_jwrite_string(&st->buffer, id)) ser_write_ruby(st, ID2SYM(id_href), id);
}

/* State#see: marks the resource `type`, `id` as written; whether it was new. */
static int see(state *st, VALUE type, VALUE id)
{
    VALUE ids = rb_hash_lookup2(st->seen, type, Qnil);
    if (NIL_P(ids)) {
        ids = rb_hash_new();
        rb_hash_aset(st->seen, type, ids);
    }
    if (rb_hash_lookup2(ids, id, Qundef) != Qundef) return 0;
    rb_hash_aset(ids, id, Qtrue);
    return 1;
}

/* Compiled#relate: the resource identifier of `record`, a related record of
 * the relationship `op`, queued for "included" (State#include) unless the
 * include paths do not go there or it was seen. */
static void relate(state *st, wb_ser_op *op, VALUE record)
{
    VALUE program = nested_program_object(op, record);
    const wb_ser_program *nested = RTYPEDDATA_DATA(program);
    int exact = !RB_SPECIAL_CONST_P(record) && RBASIC_CLASS(record) == nested->model;
    if (!exact && !RTEST(rb_obj_is_kind_of(record, nested->model))) raise_from(nested->compiled, id_wrong_record, record);
    VALUE id = resource_id(nested, record, exact);
    const wb_ser_op *identifier = &nested->ops[nested->id_op];
    wb_buffer_append(&st->buffer, nested->strings.ptr + identifier->head.offset, identifier->head.len);
    write_id(st, id);
    wb_buffer_append_char(&st->buffer, '}');

    VALUE node = Qnil;
    if (!NIL_P(st->node)) {
        node = rb_hash_lookup2(st->node, op->name, Qundef);
        if (node == Qundef) return;
    }
    if (!see(st, identifier->name, id)) return;
    rb_ary_push(st->queue, program);
    rb_ary_push(st->queue, record);
    rb_ary_push(st->queue, node);
    RB_GC_GUARD(id);
    RB_GC_GUARD(program);
}

/* A nested record (ONE, MANY) and its head. */
static void write_nested(state *st, const wb_ser_program *program, wb_ser_op *op, VALUE record, long depth)
{
    VALUE nested = nested_program_object(op, record);
    const char *head = op->has_head ? program->strings.ptr + op->head.offset : NULL;
    write_record(st, RTYPEDDATA_DATA(nested), record, head, op->head.len, depth + 1);
    RB_GC_GUARD(nested);
}

/* The generated write: one record, by its program. */
static void write_record(state *st, const wb_ser_program *program, VALUE record, const char *head, size_t head_len, long depth)
{
    size_t fi = st->depth;
    ser_push_frame(st, program->compiled);
    int exact = !RB_SPECIAL_CONST_P(record) && RBASIC_CLASS(record) == program->model;
    if (!exact && !RTEST(rb_obj_is_kind_of(record, program->model))) raise_from(program->compiled, id_wrong_record, record);
    if (depth > program->max_depth) raise_from(program->compiled, id_too_deep, Qnil);

    size_t base = st->slot_len;
    grow_slots(st, (size_t)program->slot_count);
    for (int i = 0; i < program->slot_count; i++) st->slots[base + (size_t)i] = Qnil;
    st->slot_len = base + (size_t)program->slot_count;

    wb_buffer *buffer = &st->buffer;
    size_t pc = 0;
    while (pc < program->op_count) {
        wb_ser_op *op = &program->ops[pc++];
        switch ((wb_ser_op_code)op->code) {
        case WB_SER_LIT: wb_buffer_append(buffer, program->strings.ptr + op->text.offset, op->text.len); break;
        case WB_SER_ATTR: {
            st->frames[fi].at = op->at;
            /* A computed attribute's value is in the slot its LINK set. */
            VALUE value = op->from >= 0 ? *slot_at(st, base, op->from) : read_field(record, op, exact);
            if (!op->list) {
                ser_write_scalar(st, op, value, depth);
            } else {
                wb_buffer_append_char(buffer, '[');
                if (!NIL_P(value)) {
                    if (!RB_TYPE_P(value, T_ARRAY)) raise_from(program->compiled, id_not_a_list, value);
                    for (long i = 0; i < RARRAY_LEN(value); i++) {
                        st->frames[fi].index = i;
                        if (i > 0) wb_buffer_append_char(buffer, ',');
                        ser_write_scalar(st, op, RARRAY_AREF(value, i), depth);
                    }
                    st->frames[fi].index = -1;
                }
                wb_buffer_append_char(buffer, ']');
            }
            RB_GC_GUARD(value);
            break;
        }
        case WB_SER_LINK: {
            st->frames[fi].at = op->at;
            VALUE args[2] = {record, st->document->context};
            VALUE block = rb_ary_entry(program->links, op->target);
            VALUE href = rb_proc_call_with_block(block, 2, args, Qnil);
            *slot_at(st, base, op->slot) = href;
            break;
        }
        case WB_SER_LOAD: {
            st->frames[fi].at = op->at;
            VALUE value = read_field(record, op, exact);
            *slot_at(st, base, op->slot) = value;
            break;
        }
        case WB_SER_HREF: {
            st->frames[fi].at = op->at;
            VALUE href = *slot_at(st, base, op->slot);
            if (!wb_jwrite_text(buffer, href)) ser_write_ruby(st, ID2SYM(id_href), href);
            RB_GC_GUARD(href);
            break;
        }
        case WB_SER_UNLESS_ANY: {
            int any = 0;
            for (size_t k = 0; k < op->slots_count && !any; k++) {
                any = !NIL_P(*slot_at(st, base, program->cond[op->slots_offset + k]));
            }
            if (!any) pc = (size_t)op->target;
            break;
        }
        case WB_SER_FLAG_CLEAR: *slot_at(st, base, op->slot) = Qfalse; break;
        case WB_SER_FLAG_SET: *slot_at(st, base, op->slot) = Qtrue; break;
        case WB_SER_COMMA_IF:
            if (*slot_at(st, base, op->slot) == Qtrue) wb_buffer_append_char(buffer, ',');
            break;
        case WB_SER_ONE: {
            st->frames[fi].at = op->at;
            VALUE value = op->from >= 0 ? *slot_at(st, base, op->from) : read_field(record, op, exact);
            if (NIL_P(value)) {
                if (!op->skip_nil) wb_buffer_append_literal(buffer, "null");
            } else {
                comma_flag(st, base, op->flag);
                write_nested(st, program, op, value, depth);
            }
            RB_GC_GUARD(value);
            break;
        }
        case WB_SER_MANY: {
            st->frames[fi].at = op->at;
            VALUE list = list_of(op, read_field(record, op, exact));
            if (NIL_P(list)) break;
            if (!RB_TYPE_P(list, T_ARRAY)) raise_from(program->compiled, id_not_a_list, list);
            for (long i = 0; i < RARRAY_LEN(list); i++) {
                st->frames[fi].index = i;
                VALUE item = RARRAY_AREF(list, i);
                if (NIL_P(item)) {
                    if (op->skip_nil) continue;
                    comma_flag(st, base, op->flag);
                    wb_buffer_append_literal(buffer, "null");
                } else {
                    comma_flag(st, base, op->flag);
                    write_nested(st, program, op, item, depth);
                }
                RB_GC_GUARD(item);
            }
            st->frames[fi].index = -1;
            RB_GC_GUARD(list);
            break;
        }
        case WB_SER_ID: {
            st->frames[fi].at = -1;
            VALUE id = resource_id(program, record, exact);
            write_id(st, id);
            RB_GC_GUARD(id);
            break;
        }
        case WB_SER_SPARSE: {
            VALUE fields = st->document->fields;
            VALUE fieldset = NIL_P(fields) ? Qnil : rb_hash_lookup2(fields, op->name, Qnil);
            if (!NIL_P(fieldset)) {
                *slot_at(st, base, op->slot) = fieldset;
                pc = (size_t)op->target;
            }
            break;
        }
        case WB_SER_FIELD: {
            VALUE fieldset = *slot_at(st, base, op->from);
            int kept = RB_TYPE_P(fieldset, T_HASH) && rb_hash_lookup2(fieldset, op->name, Qundef) != Qundef;
            *slot_at(st, base, op->slot) = kept ? Qtrue : Qnil;
            break;
        }
        case WB_SER_RELATE: {
            st->frames[fi].at = op->at;
            VALUE value = read_field(record, op, exact);
            if (op->list) value = list_of(op, value);
            if (!op->list) {
                if (NIL_P(value)) {
                    wb_buffer_append_literal(buffer, "null");
                } else {
                    relate(st, op, value);
                }
            } else if (!NIL_P(value)) {
                if (!RB_TYPE_P(value, T_ARRAY)) raise_from(program->compiled, id_not_a_list, value);
                for (long i = 0; i < RARRAY_LEN(value); i++) {
                    st->frames[fi].index = i;
                    VALUE item = RARRAY_AREF(value, i);
                    if (NIL_P(item)) continue;
                    comma_flag(st, base, op->flag);
                    relate(st, op, item);
                    RB_GC_GUARD(item);
                }
                st->frames[fi].index = -1;
            }
            RB_GC_GUARD(value);
            break;
        }
        case WB_SER_HEAD:
            if (head) {
                wb_buffer_append(buffer, head, head_len);
            } else {
                wb_buffer_append_char(buffer, '{');
            }
            break;
        default: rb_raise(rb_eRuntimeError, "wirebind: serializer op %d unknown", op->code);
        }
    }
    st->slot_len = base;
    st->depth = fi;
    RB_GC_GUARD(record);
}

/* ---- documents ---------------------------------------------------------------------- */

/* compiled_for(record).native_program, memoized by the record's class for
 * this call (compiled_for depends on nothing else). */
static const wb_ser_program *program_for(state *st, VALUE record)
{
    VALUE klass = rb_obj_class(record);
    if (klass != st->last_class || NIL_P(st->last_program)) {
        VALUE compiled = rb_funcall(st->document->serializer, id_compiled_for, 1, record);
        VALUE object = rb_funcall(compiled, id_native_program, 0);
        program_of(object);
        st->last_program = object;
        st->last_class = klass;
    }
    return RTYPEDDATA_DATA(st->last_program);
}

static void append_value_str(wb_buffer *buffer, VALUE str)
{
    if (!NIL_P(str)) wb_buffer_append_str(buffer, str);
}

/* A list's buffer is sized once, from the bytes per record its program wrote
 * last time (a hint, kept in the program: a stale one costs a regrowth). */
#define MAX_PRESIZE (64L * 1024 * 1024)

static void write_top(state *st, VALUE record, const char *head, size_t head_len, long count)
{
    const wb_ser_program *program = program_for(st, record);
    /* Not for an IO: the output goes out in 64 KiB pieces, and stays that small. */
    if (count > 0 && NIL_P(st->document->io) && program->record_size_hint > 0 && (size_t)count <= MAX_PRESIZE / program->record_size_hint) {
        wb_buffer_reserve(&st->buffer, (size_t)count * program->record_size_hint);
    }
    size_t before = st->buffer.len;
    write_record(st, program, record, head, head_len, 1);
    if (count > 0) ((wb_ser_program *)program)->record_size_hint = st->buffer.len - before + 1;
}

/* JsonApi.primary: the primary data's resources are marked as written (so
 * never repeated in "included") before any is written, and so checked first. */
static void see_primary(state *st, VALUE record)
{
    const wb_ser_program *program = program_for(st, record);
    int exact = !RB_SPECIAL_CONST_P(record) && RBASIC_CLASS(record) == program->model;
    if (!exact && !RTEST(rb_obj_is_kind_of(record, program->model))) raise_from(program->compiled, id_wrong_record, record);
    VALUE id = resource_id(program, record, exact);
    see(st, program->ops[program->id_op].name, id);
    RB_GC_GUARD(id);
}

/* JsonApi.included: the queued related records, the queue growing while it
 * is written (included records relate to more). */
static void write_included(state *st)
{
    wb_buffer *buffer = &st->buffer;
    VALUE queue = st->queue;
    if (RARRAY_LEN(queue) == 0) return;
    wb_buffer_append_literal(buffer, ",\"included\":[");
    for (long position = 0; position < RARRAY_LEN(queue); position += 3) {
        if (position > 0) wb_buffer_append_char(buffer, ',');
        st->included_index = position / 3;
        st->node = RARRAY_AREF(queue, position + 2);
        write_record(st, program_of(RARRAY_AREF(queue, position)), RARRAY_AREF(queue, position + 1), NULL, 0, 1);
        if (!NIL_P(st->document->io) && buffer->len >= WB_BUFFER_PIECE) {
            st->written += wb_buffer_flush_io(buffer, st->document->io, 1);
        }
    }
    st->included_index = -1;
    wb_buffer_append_char(buffer, ']');
}

/* One item of the primary list: JsonApi.primary's first pass (see_item), then
 * the list's member (write_item), `count` the list's length when known. */
static void see_item(state *st, VALUE item, long i)
{
    st->list_index = i;
    if (!NIL_P(item)) see_primary(st, item);
}

static void write_item(state *st, VALUE item, long i, long count, int *first)
{
    const wb_ser_document *document = st->document;
    wb_buffer *buffer = &st->buffer;
    st->list_index = i;
    if (NIL_P(item)) {
        if (document->skip_nil) return;
        if (!*first) wb_buffer_append_char(buffer, ',');
        wb_buffer_append_literal(buffer, "null");
    } else {
        if (!*first) wb_buffer_append_char(buffer, ',');
        write_top(st, item, st->list_head, st->list_head_len, i == 0 ? count : 0);
    }
    *first = 0;
    if (!NIL_P(document->io) && buffer->len >= WB_BUFFER_PIECE) st->written += wb_buffer_flush_io(buffer, document->io, 1);
}

/* A collection that is not an Array, walked by Values.each_item (in batches
 * for a Relation): the index of the item yielded next. */
typedef struct {
    state *st;
    long index;
    int first;
} list_walk;

static VALUE see_yielded(RB_BLOCK_CALL_FUNC_ARGLIST(item, arg))
{
    list_walk *walk = (list_walk *)arg;
    see_item(walk->st, item, walk->index++);
    return Qnil;
}

static VALUE write_yielded(RB_BLOCK_CALL_FUNC_ARGLIST(item, arg))
{
    list_walk *walk = (list_walk *)arg;
    write_item(walk->st, item, walk->index++, 0, &walk->first);
    return Qnil;
}

static void walk_list(state *st, VALUE resource, int collection, int writing)
{
    if (collection) {
        list_walk walk = {st, 0, 1};
        rb_block_call(wb_hooks.mSerializerValues, id_each_item, 1, &resource, writing ? write_yielded : see_yielded, (VALUE)&walk);
        return;
    }
    int first = 1;
    for (long i = 0; i < RARRAY_LEN(resource); i++) {
        VALUE item = RARRAY_AREF(resource, i);
        if (writing) {
            write_item(st, item, i, RARRAY_LEN(resource), &first);
        } else {
            see_item(st, item, i);
        }
        RB_GC_GUARD(item);
    }
}

static VALUE write_body(VALUE arg)
{
    state *st = (state *)arg;
    const wb_ser_document *document = st->document;
    VALUE resource = document->resource;
    wb_buffer *buffer = &st->buffer;
    int collection = !RB_TYPE_P(resource, T_ARRAY) && RTEST(rb_funcall(wb_hooks.mSerializerValues, id_collection_p, 1, resource));
    int list = collection || RB_TYPE_P(resource, T_ARRAY);
    if (document->compound) {
        st->seen = rb_hash_new();
        st->queue = rb_ary_new();
        st->node = document->include_tree;
        append_value_str(buffer, document->opening);
        if (list) {
            st->in_list = 1;
            walk_list(st, resource, collection, 0);
            st->in_list = 0;
        } else if (!NIL_P(resource)) {
            see_primary(st, resource);
        }
    }
    if (list) {
        append_value_str(buffer, document->list_opening);
        st->in_list = 1;
        walk_list(st, resource, collection, 1);
        st->in_list = 0;
        append_value_str(buffer, document->list_closing);
    } else if (NIL_P(resource)) {
        wb_buffer_append_literal(buffer, "null");
    } else {
        write_top(st, resource, st->single_head, st->single_head_len, 0);
    }
    if (document->compound) {
        write_included(st);
        wb_buffer_append_char(buffer, '}');
    }
    if (NIL_P(document->io)) return wb_buffer_to_str(buffer);
    st->written += wb_buffer_flush_io(buffer, document->io, 1);
    return SIZET2NUM(st->written);
}

/* The generated methods' rescue clauses, innermost first
 * (Compiled#nested_error), then Document.flush_each's (the list index). */
static VALUE write_rescue(VALUE arg, VALUE error)
{
    state *st = (state *)arg;
    for (size_t k = st->depth; k-- > 0;) {
        const frame *f = &st->frames[k];
        error = rb_funcall(f->compiled, id_nested_error, 3, error, f->at < 0 ? Qnil : INT2FIX(f->at),
                           f->index < 0 ? Qnil : LONG2NUM(f->index));
    }
    st->depth = 0;
    if (st->in_list && RTEST(rb_obj_is_kind_of(error, wb_hooks.eEncodeError))) {
        error = rb_funcall(wb_hooks.mJSONWriter, id_nested, 2, error, LONG2NUM(st->list_index));
    }
    if (st->included_index >= 0 && RTEST(rb_obj_is_kind_of(error, wb_hooks.eEncodeError))) {
        error = rb_funcall(wb_hooks.mJSONWriter, id_nested, 2, error, LONG2NUM(st->included_index));
        error = rb_funcall(wb_hooks.mJSONWriter, id_nested, 2, error, str_included);
    }
    rb_exc_raise(error);
    return Qnil;
}

static VALUE write_protected(VALUE arg)
{
    return rb_rescue2(write_body, arg, write_rescue, arg, wb_hooks.eEncodeError, wb_hooks.eInvalidValue, (VALUE)0);
}

static VALUE write_ensure(VALUE arg)
{
    state_release((state *)arg);
    return Qnil;
}

static char *copy_head(VALUE head, size_t *len)
{
    *len = 0;
    if (NIL_P(head)) return NULL;
    StringValue(head);
    *len = (size_t)RSTRING_LEN(head);
    char *copy = ruby_xmalloc(*len ? *len : 1);
    memcpy(copy, RSTRING_PTR(head), *len);
    return copy;
}

VALUE wb_ser_write(const wb_ser_document *document)
{
    state *st;
    VALUE holder = TypedData_Make_Struct(0, state, &state_type, st);
    wb_buffer_init(&st->buffer);
    st->last_class = Qnil;
    st->last_program = Qnil;
    st->included_index = -1;
    st->seen = Qnil;
    st->queue = Qnil;
    st->node = Qnil;
    /* The heads are copied before the state points at the caller's document: a
     * raise in between leaves nothing for the GC to follow into a dead frame. */
    st->list_head = copy_head(document->list_head, &st->list_head_len);
    st->single_head = copy_head(document->single_head, &st->single_head_len);
    st->document = document;
    VALUE result = rb_ensure(write_protected, (VALUE)st, write_ensure, (VALUE)st);
    RB_GC_GUARD(holder);
    return result;
}

void wb_ser_init(VALUE mNative)
{
    cProgram = rb_define_class_under(mNative, "Program", rb_cObject);
    rb_undef_alloc_func(cProgram);
    id_call = rb_intern("call");
    id_compiled_for = rb_intern("compiled_for");
    id_native_program = rb_intern("native_program");
    id_native_text = rb_intern("native_text");
    id_native_any = rb_intern("native_any");
    id_hash_value = rb_intern("hash_value");
    id_each_item = rb_intern("each_item");
    id_collection_p = rb_intern("collection?");
    id_native_model_value = rb_intern("native_model_value");
    id_wrong_record = rb_intern("wrong_record");
    id_not_a_list = rb_intern("not_a_list");
    id_too_deep = rb_intern("too_deep");
    id_nested_error = rb_intern("nested_error");
    id_nested = rb_intern("nested");
    id_href = rb_intern("href");
    id_id_of = rb_intern("id_of");
    id_native_program_for = rb_intern("native_program_for");
    id_to_a = rb_intern("to_a");
    id_any = rb_intern("any");
    id_compiled = rb_intern("compiled");
    id_model = rb_intern("model");
    id_links = rb_intern("links");
    id_ops = rb_intern("ops");
    id_slot_count = rb_intern("slot_count");
    id_max_depth = rb_intern("max_depth");
    str_included = rb_obj_freeze(rb_str_new_cstr("included"));
    rb_gc_register_mark_object(str_included);
    wb_jwrite_init();
}
