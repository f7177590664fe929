/* The JSON encoder's engine (see json_encoder.h): a loop over an explicit
 * stack of frames that does what Pure.encode, Pure::Writer.value and the
 * generated Pure::Encoder#write methods do. A record, a list attribute, an
 * Array or a Hash being written is a frame; a nested one pushes a frame, and
 * the enclosing one resumes when it is popped.
 *
 * Every Ruby object the frames hold is marked, pinned, by the encoding's
 * TypedData, so neither the GC nor compaction can take or move it while C
 * holds its address. */
#include "json_encoder.h"
#include "scalar_format.h"

#include <ruby/st.h>

enum { E_MODEL = 0, E_LIST = 1, E_ARRAY = 2, E_HASH = 3 };

static ID id_message, id_describe, id_expected, id_format_path, id_to_s, id_name, id_too_deep;

void wb_jenc_init(void)
{
    id_message = rb_intern("message");
    id_describe = rb_intern("describe");
    id_expected = rb_intern("expected");
    id_format_path = rb_intern("format_path");
    id_to_s = rb_intern("to_s");
    id_name = rb_intern("name");
    id_too_deep = rb_intern("too_deep");
    wb_jwrite_init();
}

/* ==== state ======================================================================= */

typedef struct frame {
    unsigned char kind;
    unsigned char rows;   /* E_LIST: a nested slot's outer list: the list levels each item holds (0: items are values) */
    const wb_jplan *plan; /* E_MODEL */
    VALUE plan_object;    /* E_MODEL: the plan's Ruby object, marked while the frame is open */
    wb_jplan_slot *slot;  /* E_LIST: the list attribute's slot */
    VALUE object;         /* the record, the Array, or the Hash's pairs ([k0, v0, k1, v1...]) */
    long next;            /* the next slot, item or pair */
    long part;            /* what an error's path names here: the slot, item or pair being written (-1: none) */
    long depth;           /* E_MODEL, E_ARRAY, E_HASH: the depth it was opened at; E_LIST: its items' depth */
} frame;

typedef struct encoding {
    wb_buffer buffer;
    VALUE io;
    long max_depth;
    size_t written;
    frame *frames;
    size_t depth, capacity;
    VALUE value;
    VALUE last_class; /* the class of the last record whose plan was looked up, and that plan */
    VALUE last_plan;
    int own_error; /* the EncodeError being raised has its path already */
} encoding;

static void jenc_encoding_mark(void *ptr)
{
    encoding *enc = ptr;
    rb_gc_mark(enc->io);
    rb_gc_mark(enc->value);
    rb_gc_mark(enc->last_class);
    rb_gc_mark(enc->last_plan);
    for (size_t i = 0; i < enc->depth; i++) {
        rb_gc_mark(enc->frames[i].object);
        if (enc->frames[i].kind == E_MODEL) rb_gc_mark(enc->frames[i].plan_object);
    }
}

static void jenc_encoding_release(encoding *enc)
{
    wb_buffer_release(&enc->buffer);
    ruby_xfree(enc->frames);
    enc->frames = NULL;
    enc->depth = enc->capacity = 0;
}

static void jenc_encoding_free(void *ptr)
{
    jenc_encoding_release(ptr);
    ruby_xfree(ptr);
}

static size_t jenc_encoding_memsize(const void *ptr)
{
    const encoding *enc = ptr;
    return sizeof(*enc) + enc->buffer.capa + enc->capacity * sizeof(frame);
}

static const rb_data_type_t encoding_type = {
    "Wirebind::JSON::Native::Encoding", {jenc_encoding_mark, jenc_encoding_free, jenc_encoding_memsize, NULL}, 0, 0,
    RUBY_TYPED_FREE_IMMEDIATELY,
};

/* ==== errors ========================================================================= */

/* Writer.nested, all the way down: the key or index each open frame is at. */
static VALUE error_path(const encoding *enc)
{
    VALUE parts = rb_ary_new();
    for (size_t i = 0; i < enc->depth; i++) {
        const frame *f = &enc->frames[i];
        if (f->part < 0) continue;
        switch (f->kind) {
        case E_MODEL: rb_ary_push(parts, f->plan->slots[f->part].key_str); break;
        case E_HASH: {
            VALUE key = RARRAY_AREF(f->object, f->part * 2);
            rb_ary_push(parts, RB_TYPE_P(key, T_SYMBOL) ? rb_sym2str(key) : key);
            break;
        }
        default: rb_ary_push(parts, LONG2NUM(f->part)); break;
        }
    }
    if (RARRAY_LEN(parts) == 0) return Qnil;
    return rb_funcall(wb_hooks.mJSONWriter, id_format_path, 1, parts);
}

static NORETURN(void jenc_fail(encoding *enc, VALUE message));
static void jenc_fail(encoding *enc, VALUE message)
{
    VALUE path = error_path(enc);
    enc->own_error = 1;
    wb_error_raise_encode(message, path);
}

static VALUE describe(const encoding *enc, VALUE value)
{
    return rb_funcall(wb_hooks.mTypes, id_describe, 1, value);
}

static NORETURN(void jenc_fail_expected(encoding *enc, VALUE expected, VALUE value));
static void jenc_fail_expected(encoding *enc, VALUE expected, VALUE value)
{
    VALUE message = rb_utf8_str_new_cstr("expected ");
    rb_str_append(message, expected);
    rb_str_cat_cstr(message, ", got ");
    rb_str_append(message, describe(enc, value));
    jenc_fail(enc, message);
}

/* Writer.too_deep */
static NORETURN(void too_deep(encoding *enc));
static void too_deep(encoding *enc)
{
    char text[96];
    snprintf(text, sizeof(text), "objects nest deeper than max_depth (%ld): is there a cycle?", enc->max_depth);
    jenc_fail(enc, rb_utf8_str_new_cstr(text));
}

/* ==== scalars (Pure::Writer) ============================================================ */

/* Appends what Pure::Writer.<method>(+"", value) writes; it raises EncodeError
 * (without a path) for a value it cannot write. */
static void jenc_write_ruby(encoding *enc, ID method, VALUE value)
{
    VALUE out = rb_utf8_str_new(NULL, 0);
    VALUE text = rb_funcall(wb_hooks.mJSONWriter, method, 2, out, value);
    StringValue(text);
    wb_buffer_append_str(&enc->buffer, text);
    RB_GC_GUARD(text);
    RB_GC_GUARD(out);
}

/* The JSON writer's type codes are scalar.h's, in the same order. */
_Static_assert(WB_SCALAR_STRING == (int)WB_FORMAT_STRING && WB_SCALAR_INTEGER == (int)WB_FORMAT_INTEGER &&
                   WB_SCALAR_FLOAT == (int)WB_FORMAT_FLOAT && WB_SCALAR_DECIMAL == (int)WB_FORMAT_DECIMAL &&
                   WB_SCALAR_BOOLEAN == (int)WB_FORMAT_BOOLEAN && WB_SCALAR_TIME == (int)WB_FORMAT_TIME &&
                   WB_SCALAR_DATE == (int)WB_FORMAT_DATE && WB_SCALAR_BASE64 == (int)WB_FORMAT_BASE64,
               "scalar.h and scalar_format.h number the types alike");

/* One scalar of a type (the generated code's #value for scalars, and
 * Writer.value's for a String, Integer...): json_writer.c's, else the Ruby
 * writer's method named after the type (Pure::Writer#integer...). */
static void jenc_write_scalar(encoding *enc, int code, VALUE value)
{
    if (!wb_jwrite_scalar(&enc->buffer, (wb_format_kind)code, value)) jenc_write_ruby(enc, wb_scalar_type_id(code), value);
}

/* ==== frames ============================================================================== */

static frame *push(encoding *enc, int kind, VALUE object, long depth)
{
    if (enc->depth == enc->capacity) {
        size_t capacity = enc->capacity ? enc->capacity * 2 : 16;
        /* A new array filled before the old one goes: a GC inside the
         * allocation still marks the old one, whole. */
        frame *grown = ruby_xmalloc2(capacity, sizeof(frame));
        if (enc->depth) memcpy(grown, enc->frames, enc->depth * sizeof(frame));
        frame *old = enc->frames;
        enc->frames = grown;
        enc->capacity = capacity;
        ruby_xfree(old);
    }
    frame *f = &enc->frames[enc->depth];
    memset(f, 0, sizeof(*f));
    f->kind = (unsigned char)kind;
    f->object = object;
    f->part = -1;
    f->depth = depth;
    enc->depth++; /* only now does the GC see (and pin) the object */
    return f;
}

/* Encoder.for(klass): the compiled plan (object) of a record's class. */
static VALUE jenc_plan_of(encoding *enc, VALUE klass)
{
    if (klass != enc->last_class) {
        enc->last_plan = wb_jplan_for(klass);
        enc->last_class = klass;
    }
    return enc->last_plan;
}

/* Encoder#write's first lines: a record opens at `depth`. The frame keeps the
 * plan object marked: the class's cache may let go of it meanwhile. */
static void jenc_push_record(encoding *enc, VALUE plan_object, VALUE record, long depth)
{
    if (depth >= enc->max_depth) too_deep(enc);
    const wb_jplan *plan = wb_jplan_get(plan_object);
    frame *f = push(enc, E_MODEL, record, depth);
    f->plan = plan;
    f->plan_object = plan_object;
}

static int jenc_collect_pair(VALUE key, VALUE value, VALUE pairs)
{
    rb_ary_push(pairs, key);
    rb_ary_push(pairs, value);
    return ST_CONTINUE;
}

/* Writer.value: any value at `depth`; containers and records push a frame. */
static void jenc_write_value(encoding *enc, VALUE value, long depth)
{
    if (NIL_P(value)) {
        wb_buffer_append_literal(&enc->buffer, "null");
        return;
    }
    if (RB_TYPE_P(value, T_STRING) || RB_TYPE_P(value, T_SYMBOL)) {
        jenc_write_scalar(enc, WB_SCALAR_STRING, value);
        return;
    }
    if (RB_INTEGER_TYPE_P(value)) {
        jenc_write_scalar(enc, WB_SCALAR_INTEGER, value);
        return;
    }
    if (RB_FLOAT_TYPE_P(value)) {
        jenc_write_scalar(enc, WB_SCALAR_FLOAT, value);
        return;
    }
    if (value == Qtrue) {
        wb_buffer_append_literal(&enc->buffer, "true");
        return;
    }
    if (value == Qfalse) {
        wb_buffer_append_literal(&enc->buffer, "false");
        return;
    }
    if (RB_TYPE_P(value, T_HASH)) {
        if (depth >= enc->max_depth) too_deep(enc);
        VALUE pairs = rb_ary_new_capa(RHASH_SIZE(value) * 2);
        rb_hash_foreach(value, jenc_collect_pair, pairs);
        push(enc, E_HASH, pairs, depth);
        wb_buffer_append_char(&enc->buffer, '{');
        return;
    }
    if (RB_TYPE_P(value, T_ARRAY)) {
        if (depth >= enc->max_depth) too_deep(enc);
        push(enc, E_ARRAY, value, depth);
        wb_buffer_append_char(&enc->buffer, '[');
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, wb_hooks.cBigDecimal))) {
        jenc_write_scalar(enc, WB_SCALAR_DECIMAL, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, rb_cTime))) {
        jenc_write_scalar(enc, WB_SCALAR_TIME, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, wb_hooks.cDate))) {
        if (RTEST(rb_obj_is_kind_of(value, wb_hooks.cDateTime))) {
            jenc_fail(enc, rb_utf8_str_new_cstr("cannot write a DateTime in JSON without a schema; use a Time"));
        }
        jenc_write_scalar(enc, WB_SCALAR_DATE, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, wb_hooks.mModel))) {
        jenc_push_record(enc, jenc_plan_of(enc, rb_obj_class(value)), value, depth);
        return;
    }
    VALUE message = rb_utf8_str_new_cstr("cannot write ");
    rb_str_append(message, describe(enc, value));
    rb_str_cat_cstr(message, " in JSON");
    jenc_fail(enc, message);
}

/* The generated code's #value for one item of a slot (not nil): a scalar, or
 * a record of the slot's class, which pushes a frame at `depth`. */
static void write_slot_value(encoding *enc, wb_jplan_slot *slot, VALUE value, long depth)
{
    if (slot->code == WB_JPLAN_ANY) {
        /* Writer.value: plain values (Hash, Array, scalars, records). */
        jenc_write_value(enc, value, depth);
        return;
    }
    if (slot->code != WB_JPLAN_MODEL) {
        if (slot->quoted) wb_buffer_append_char(&enc->buffer, '"');
        jenc_write_scalar(enc, slot->code, value);
        if (slot->quoted) wb_buffer_append_char(&enc->buffer, '"');
        return;
    }
    if (slot->string_as == WB_JPLAN_STRING_ITSELF && RB_TYPE_P(value, T_STRING)) { /* expandable: an id kept as it came */
        jenc_write_scalar(enc, WB_SCALAR_STRING, value);
        return;
    }
    VALUE klass = RB_SPECIAL_CONST_P(value) ? Qnil : RBASIC_CLASS(value);
    VALUE plan;
    if (klass == slot->type) {
        (void)wb_jplan_slot_plan(slot); /* compiles it on first use */
        plan = slot->plan;
    } else {
        if (!RTEST(rb_obj_is_kind_of(value, slot->type))) {
            VALUE options = wb_hooks.item_true;
            jenc_fail_expected(enc, rb_funcallv_kw(slot->slot, id_expected, 1, &options, RB_PASS_KEYWORDS), value);
        }
        plan = jenc_plan_of(enc, rb_obj_class(value));
    }
    jenc_push_record(enc, plan, value, depth);
}

/* An E_LIST or E_ARRAY frame's next item, after the comma before it; 0 when
 * the Array is done (its ']' written and the frame popped). */
static inline int jenc_next_item(encoding *enc, frame *f, VALUE *item)
{
    if (f->next >= RARRAY_LEN(f->object)) {
        wb_buffer_append_char(&enc->buffer, ']');
        enc->depth--;
        return 0;
    }
    if (f->next) wb_buffer_append_char(&enc->buffer, ',');
    *item = RARRAY_AREF(f->object, f->next);
    f->part = f->next;
    f->next++;
    return 1;
}

/* Runs the frames until the value at the bottom is written. */
static void jenc_run(encoding *enc)
{
    while (enc->depth > 0) {
        if (!NIL_P(enc->io) && enc->buffer.len >= WB_BUFFER_PIECE) {
            enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 0);
        }
        frame *f = &enc->frames[enc->depth - 1];
        switch (f->kind) {
        case E_MODEL: {
            const wb_jplan *plan = f->plan;
            if (f->next == 0 && f->part < 0 && plan->tag) { /* a json_type class: its discriminator first */
                wb_buffer_append_char(&enc->buffer, '{');
                wb_buffer_append(&enc->buffer, plan->tag, plan->tag_len);
            }
            if (f->next >= plan->encoded) {
                wb_buffer_append_char(&enc->buffer, plan->encoded || plan->tag ? '}' : '{');
                if (!plan->encoded && !plan->tag) wb_buffer_append_char(&enc->buffer, '}');
                enc->depth--;
                continue;
            }
            wb_jplan_slot *slot = &plan->slots[f->next];
            long depth = f->depth;
            VALUE record = f->object;
            f->part = f->next;
            f->next++;
            wb_buffer_append_char(&enc->buffer, slot->index == 0 && !plan->tag ? '{' : ',');
            wb_buffer_append(&enc->buffer, slot->member, slot->member_len);
            VALUE value = rb_ivar_get(record, slot->ivar);
            if (slot->list) {
                if (NIL_P(value)) {
                    wb_buffer_append_literal(&enc->buffer, "[]");
                } else if (!RB_TYPE_P(value, T_ARRAY)) {
                    jenc_fail_expected(enc, rb_utf8_str_new_cstr("an Array"), value);
                } else {
                    wb_buffer_append_char(&enc->buffer, '[');
                    frame *list = push(enc, E_LIST, value, depth + 2);
                    list->slot = slot;
                    list->rows = (unsigned char)slot->nested;
                }
            } else if (NIL_P(value)) {
                wb_buffer_append_literal(&enc->buffer, "null");
            } else {
                write_slot_value(enc, slot, value, depth + 1);
            }
            RB_GC_GUARD(value);
            continue;
        }
        case E_LIST: {
            VALUE item;
            if (!jenc_next_item(enc, f, &item)) continue;
            if (NIL_P(item)) {
                wb_buffer_append_literal(&enc->buffer, "null");
            } else if (f->rows) { /* the generated code's #row */
                if (!RB_TYPE_P(item, T_ARRAY)) jenc_fail_expected(enc, rb_utf8_str_new_cstr("an Array"), item);
                wb_buffer_append_char(&enc->buffer, '[');
                wb_jplan_slot *slot = f->slot;
                unsigned char levels = (unsigned char)(f->rows - 1);
                frame *row = push(enc, E_LIST, item, f->depth + 1);
                row->slot = slot;
                row->rows = levels;
            } else {
                write_slot_value(enc, f->slot, item, f->depth);
            }
            RB_GC_GUARD(item);
            continue;
        }
        case E_ARRAY: {
            VALUE item;
            if (!jenc_next_item(enc, f, &item)) continue;
            jenc_write_value(enc, item, f->depth + 1);
            RB_GC_GUARD(item);
            continue;
        }
        default: { /* E_HASH */
            if (f->next * 2 >= RARRAY_LEN(f->object)) {
                wb_buffer_append_char(&enc->buffer, '}');
                enc->depth--;
                continue;
            }
            if (f->next) wb_buffer_append_char(&enc->buffer, ',');
            VALUE key = RARRAY_AREF(f->object, f->next * 2);
            VALUE item = RARRAY_AREF(f->object, f->next * 2 + 1);
            long depth = f->depth;
            f->part = -1;
            if (!RB_TYPE_P(key, T_STRING) && !RB_TYPE_P(key, T_SYMBOL)) {
                VALUE message = rb_utf8_str_new_cstr("an object key must be a String or Symbol, not ");
                rb_str_append(message, describe(enc, key));
                jenc_fail(enc, message);
            }
            f->part = f->next;
            f->next++;
            jenc_write_scalar(enc, WB_SCALAR_STRING, key);
            wb_buffer_append_char(&enc->buffer, ':');
            jenc_write_value(enc, item, depth + 1);
            RB_GC_GUARD(key);
            RB_GC_GUARD(item);
            continue;
        }
        }
    }
}

static VALUE jenc_encode_body(VALUE arg)
{
    encoding *enc = (encoding *)arg;
    /* Pure.encode: a top-level Array is written item by item at depth 1, as
     * Writer.array would. */
    jenc_write_value(enc, enc->value, 0);
    jenc_run(enc);
    if (NIL_P(enc->io)) return wb_buffer_to_str(&enc->buffer);
    enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 1);
    return SIZET2NUM(enc->written);
}

/* rescue EncodeError, Types::InvalidValue => e: raised by Ruby (Pure::Writer)
 * without a path, it is raised again with the path being written, as the
 * generated code's rescue clauses and Writer.nested do. */
static VALUE jenc_encode_rescue(VALUE arg, VALUE error)
{
    encoding *enc = (encoding *)arg;
    if (enc->own_error) rb_exc_raise(error);
    jenc_fail(enc, rb_funcall(error, id_message, 0));
    return Qnil;
}

static VALUE jenc_encode_protected(VALUE arg)
{
    return rb_rescue2(jenc_encode_body, arg, jenc_encode_rescue, arg, wb_hooks.eEncodeError, wb_hooks.eInvalidValue, (VALUE)0);
}

static VALUE jenc_encode_ensure(VALUE arg)
{
    jenc_encoding_release((encoding *)arg);
    return Qnil;
}

VALUE wb_jenc_encode(VALUE value, VALUE io, long max_depth)
{
    encoding *enc;
    VALUE holder = TypedData_Make_Struct(0, encoding, &encoding_type, enc);
    wb_buffer_init(&enc->buffer);
    enc->io = io;
    enc->value = value;
    enc->max_depth = max_depth;
    enc->last_class = Qundef;
    enc->last_plan = Qnil;
    VALUE result = rb_ensure(jenc_encode_protected, (VALUE)enc, jenc_encode_ensure, (VALUE)enc);
    RB_GC_GUARD(holder);
    return result;
}
