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

static ID id_message, id_describe, id_expected, id_item, id_format_path, id_to_s, id_name, id_string, id_integer, id_float,
    id_decimal, id_boolean, id_time, id_date, id_base64, id_finite_p, id_exponent, id_too_deep;

/* Ruby constants, defined after the extension loads: looked up on first use
 * (every Ractor that races here writes the same values), and pinned. */
typedef struct ruby_env {
    VALUE mTypes;      /* Wirebind::Types (describe) */
    VALUE mWriter;     /* Wirebind::JSON::Pure::Writer: every value C does not write */
    VALUE cDecoder;    /* Wirebind::JSON::Pure::Decoder (format_path) */
    VALUE mModel;      /* Wirebind::Model */
    VALUE cBigDecimal;
    VALUE cDate;
    VALUE cDateTime;
    VALUE str_F;       /* "F" */
    VALUE item_true;   /* {item: true} */
    const wb_format_env *format;
} ruby_env;

static ruby_env env_cache;
static int env_ready;

static const ruby_env *env_get(void)
{
    if (__atomic_load_n(&env_ready, __ATOMIC_ACQUIRE)) return &env_cache;
    ruby_env e;
    e.mTypes = wb_pinned(rb_path2class("Wirebind::Types"));
    e.mWriter = wb_pinned(rb_path2class("Wirebind::JSON::Pure::Writer"));
    e.cDecoder = wb_pinned(rb_path2class("Wirebind::JSON::Pure::Decoder"));
    e.mModel = wb_pinned(rb_path2class("Wirebind::Model"));
    e.cBigDecimal = wb_pinned(rb_path2class("BigDecimal"));
    e.cDate = wb_pinned(rb_path2class("Date"));
    e.cDateTime = wb_pinned(rb_path2class("DateTime"));
    e.str_F = wb_pinned(rb_obj_freeze(rb_str_new_cstr("F")));
    VALUE options = rb_hash_new();
    rb_hash_aset(options, ID2SYM(id_item), Qtrue);
    e.item_true = wb_pinned(rb_obj_freeze(options));
    e.format = wb_format_env_get();
    env_cache = e;
    __atomic_store_n(&env_ready, 1, __ATOMIC_RELEASE);
    return &env_cache;
}

void wbj_encoder_init(void)
{
    id_message = rb_intern("message");
    id_describe = rb_intern("describe");
    id_expected = rb_intern("expected");
    id_item = rb_intern("item");
    id_format_path = rb_intern("format_path");
    id_to_s = rb_intern("to_s");
    id_name = rb_intern("name");
    id_string = rb_intern("string");
    id_integer = rb_intern("integer");
    id_float = rb_intern("float");
    id_decimal = rb_intern("decimal");
    id_boolean = rb_intern("boolean");
    id_time = rb_intern("time");
    id_date = rb_intern("date");
    id_base64 = rb_intern("base64");
    id_finite_p = rb_intern("finite?");
    id_exponent = rb_intern("exponent");
    id_too_deep = rb_intern("too_deep");
}

/* ==== state ======================================================================= */

typedef struct frame {
    unsigned char kind;
    const wbj_plan *plan; /* E_MODEL */
    VALUE plan_object;    /* E_MODEL: the plan's Ruby object, marked while the frame is open */
    wbj_slot *slot;       /* E_LIST: the list attribute's slot */
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
    int own_error;    /* the EncodeError being raised has its path already */
    const ruby_env *env;
} encoding;

static void encoding_mark(void *ptr)
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

static void encoding_release(encoding *enc)
{
    wb_buffer_release(&enc->buffer);
    ruby_xfree(enc->frames);
    enc->frames = NULL;
    enc->depth = enc->capacity = 0;
}

static void encoding_free(void *ptr)
{
    encoding_release(ptr);
    ruby_xfree(ptr);
}

static size_t encoding_memsize(const void *ptr)
{
    const encoding *enc = ptr;
    return sizeof(*enc) + enc->buffer.capa + enc->capacity * sizeof(frame);
}

static const rb_data_type_t encoding_type = {
    "Wirebind::JSON::Native::Encoding",
    {encoding_mark, encoding_free, encoding_memsize, NULL},
    0,
    0,
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
    return rb_funcall(enc->env->cDecoder, id_format_path, 1, parts);
}

static NORETURN(void fail(encoding *enc, VALUE message));
static void fail(encoding *enc, VALUE message)
{
    VALUE path = error_path(enc);
    enc->own_error = 1;
    wb_raise_encode_error(message, path);
}

static VALUE describe(const encoding *enc, VALUE value)
{
    return rb_funcall(enc->env->mTypes, id_describe, 1, value);
}

static NORETURN(void fail_expected(encoding *enc, VALUE expected, VALUE value));
static void fail_expected(encoding *enc, VALUE expected, VALUE value)
{
    VALUE message = rb_utf8_str_new_cstr("expected ");
    rb_str_append(message, expected);
    rb_str_cat_cstr(message, ", got ");
    rb_str_append(message, describe(enc, value));
    fail(enc, message);
}

/* Writer.too_deep */
static NORETURN(void too_deep(encoding *enc));
static void too_deep(encoding *enc)
{
    char text[96];
    snprintf(text, sizeof(text), "objects nest deeper than max_depth (%ld): is there a cycle?", enc->max_depth);
    fail(enc, rb_utf8_str_new_cstr(text));
}

/* ==== scalars (Pure::Writer) ============================================================ */

/* Appends what Pure::Writer.<method>(+"", value) writes; it raises EncodeError
 * (without a path) for a value it cannot write. */
static void write_ruby(encoding *enc, ID method, VALUE value)
{
    VALUE out = rb_utf8_str_new(NULL, 0);
    VALUE text = rb_funcall(enc->env->mWriter, method, 2, out, value);
    StringValue(text);
    wb_buffer_append_str(&enc->buffer, text);
    RB_GC_GUARD(text);
    RB_GC_GUARD(out);
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

static const char HEX[] = "0123456789abcdef";

/* Whether a byte of w may need a look: a C0 control, '"', '\\', or 0xE2 (the
 * lead of U+2028 and U+2029). (b - 0x20) borrows into the high bit of a byte
 * below 0x20; ~w keeps bytes below 0x80; a zero byte of w ^ c is a c. */
static inline int word_needs_look(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\'), e = w ^ (ONES * 0xE2);
    return ((((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((e - ONES) & ~e)) & HIGHS) != 0;
}

/* Writer::ESCAPES for one byte that needs it (not U+2028/U+2029). */
static void append_escape(wb_buffer *buffer, unsigned char c)
{
    switch (c) {
    case '"': wb_buffer_append_literal(buffer, "\\\""); return;
    case '\\': wb_buffer_append_literal(buffer, "\\\\"); return;
    case '\b': wb_buffer_append_literal(buffer, "\\b"); return;
    case '\f': wb_buffer_append_literal(buffer, "\\f"); return;
    case '\n': wb_buffer_append_literal(buffer, "\\n"); return;
    case '\r': wb_buffer_append_literal(buffer, "\\r"); return;
    case '\t': wb_buffer_append_literal(buffer, "\\t"); return;
    default: {
        char seq[6] = {'\\', 'u', '0', '0', HEX[c >> 4], HEX[c & 15]};
        wb_buffer_append(buffer, seq, 6);
    }
    }
}

/* Writer::ESCAPE over p[0, n), quoted: runs that need nothing are copied whole.
 * Room for the common case (nothing to escape) is reserved up front; escapes
 * reserve their own. Reads only p[0, n). */
static void append_escaped(wb_buffer *buffer, const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    const unsigned char *run = p;
    wb_buffer_reserve(buffer, n + 2);
    buffer->ptr[buffer->len++] = '"';
    while (p < end) {
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (word_needs_look(w)) break;
            p += 8;
        }
        if (p >= end) break;
        unsigned char c = *p;
        if (c == 0xE2) {
            /* E2 80 A8 / E2 80 A9; any other character starting E2 stays as it is. */
            if (end - p >= 3 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
                wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
                wb_buffer_append(buffer, p[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
                p += 3;
                run = p;
            } else {
                p++;
            }
        } else if (c < 0x20 || c == '"' || c == '\\') {
            wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
            append_escape(buffer, c);
            run = ++p;
        } else {
            p++;
        }
    }
    wb_buffer_append(buffer, (const char *)run, (size_t)(p - run));
    wb_buffer_append_char(buffer, '"');
}

int wbj_write_string(wb_buffer *buffer, VALUE str)
{
    int index = ENCODING_GET(str);
    int cr = rb_enc_str_coderange(str);
    if (cr == ENC_CODERANGE_BROKEN) return 0;
    /* ASCII-only text reads the same in any ASCII-compatible encoding as the
     * UTF-8 Writer.string would transcode it to. */
    if (index != wb_utf8_index && (cr != ENC_CODERANGE_7BIT || !rb_enc_asciicompat(rb_enc_from_index(index)))) return 0;
    /* Growing the buffer may run the GC while the bytes are read: str stays on
     * this stack (pinned) meanwhile. */
    append_escaped(buffer, (const unsigned char *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str));
    RB_GC_GUARD(str);
    return 1;
}

/* Writer.string: a String or Symbol as a JSON string; Ruby writes what C
 * declines (transcoding, or raising). */
static void write_string(encoding *enc, VALUE value)
{
    VALUE str = value;
    if (RB_TYPE_P(str, T_SYMBOL)) str = rb_sym2str(str);
    if (RB_TYPE_P(str, T_STRING) && wbj_write_string(&enc->buffer, str)) return;
    write_ruby(enc, id_string, value);
}

/* Longer number texts go to Ruby (Writer.integer, Writer.decimal), which
 * refuses what JSON.decode's max_number_length would. */
#define SHORT_NUMBER_TEXT 1024

static void write_integer(encoding *enc, VALUE value)
{
    if (FIXNUM_P(value)) {
        wb_buffer_append_long(&enc->buffer, FIX2LONG(value));
    } else {
        VALUE digits = rb_big2str(value, 10);
        if (RSTRING_LEN(digits) > SHORT_NUMBER_TEXT) {
            write_ruby(enc, id_integer, value);
            return;
        }
        wb_buffer_append_str(&enc->buffer, digits);
        RB_GC_GUARD(digits);
    }
}

/* Writer.float: a finite Float as Float#to_s; anything else to Ruby. */
static void write_float(encoding *enc, VALUE value)
{
    if (RB_FLOAT_TYPE_P(value) && isfinite(RFLOAT_VALUE(value))) {
        VALUE text = rb_funcall(value, id_to_s, 0);
        wb_buffer_append_str(&enc->buffer, text);
        RB_GC_GUARD(text);
        return;
    }
    write_ruby(enc, id_float, value);
}

/* Writer.decimal: an Integer as to_s, a finite BigDecimal of a modest
 * exponent as to_s("F"); anything else to Ruby. */
static void write_decimal(encoding *enc, VALUE value)
{
    if (RB_INTEGER_TYPE_P(value)) {
        write_integer(enc, value);
        return;
    }
    if (!RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == enc->env->cBigDecimal && RTEST(rb_funcall(value, id_finite_p, 0))) {
        VALUE exponent = rb_funcall(value, id_exponent, 0);
        if (FIXNUM_P(exponent) && labs(FIX2LONG(exponent)) <= 100) {
            VALUE text = rb_funcall(value, id_to_s, 1, enc->env->str_F);
            StringValue(text);
            if (RSTRING_LEN(text) > SHORT_NUMBER_TEXT) {
                write_ruby(enc, id_decimal, value);
                return;
            }
            wb_buffer_append_str(&enc->buffer, text);
            RB_GC_GUARD(text);
            return;
        }
    }
    write_ruby(enc, id_decimal, value);
}

/* Writer.time and Writer.date: the C twins of TimeType/DateType.generate
 * (scalar_format.c), in quotes; what they decline, to Ruby. */
static void write_calendar(encoding *enc, wb_format_kind kind, ID method, VALUE value)
{
    size_t mark = enc->buffer.len;
    wb_buffer_append_char(&enc->buffer, '"');
    if (wb_format_write_c(&enc->buffer, enc->env->format, kind, value, WB_ESCAPE_TEXT)) {
        wb_buffer_append_char(&enc->buffer, '"');
        return;
    }
    wb_buffer_truncate(&enc->buffer, mark);
    write_ruby(enc, method, value);
}

static void write_base64(encoding *enc, VALUE value)
{
    if (!RB_TYPE_P(value, T_STRING)) {
        write_ruby(enc, id_base64, value);
        return;
    }
    size_t n = (size_t)RSTRING_LEN(value);
    if (n > ((size_t)LONG_MAX / 4) * 3 - 3) rb_raise(rb_eNoMemError, "wirebind: %zu bytes are too many to write as base64", n);
    wb_buffer_reserve(&enc->buffer, ((n + 2) / 3) * 4 + 2);
    wb_buffer_append_char(&enc->buffer, '"');
    wb_buffer_append_base64(&enc->buffer, (const unsigned char *)RSTRING_PTR(value), n);
    wb_buffer_append_char(&enc->buffer, '"');
    RB_GC_GUARD(value);
}

/* One scalar of a slot's type (the generated code's #value for scalars). */
static void write_scalar(encoding *enc, int code, VALUE value)
{
    switch (code) {
    case WBS_STRING: write_string(enc, value); break;
    case WBS_INTEGER:
        if (RB_INTEGER_TYPE_P(value)) {
            write_integer(enc, value);
        } else {
            write_ruby(enc, id_integer, value);
        }
        break;
    case WBS_BOOLEAN:
        if (value == Qtrue) {
            wb_buffer_append_literal(&enc->buffer, "true");
        } else if (value == Qfalse) {
            wb_buffer_append_literal(&enc->buffer, "false");
        } else {
            write_ruby(enc, id_boolean, value);
        }
        break;
    case WBS_FLOAT: write_float(enc, value); break;
    case WBS_DECIMAL: write_decimal(enc, value); break;
    case WBS_TIME: write_calendar(enc, WB_FORMAT_TIME, id_time, value); break;
    case WBS_DATE: write_calendar(enc, WB_FORMAT_DATE, id_date, value); break;
    default: write_base64(enc, value); break;
    }
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
static VALUE plan_of(encoding *enc, VALUE klass)
{
    if (klass != enc->last_class) {
        enc->last_plan = wbj_plan_for(klass);
        enc->last_class = klass;
    }
    return enc->last_plan;
}

/* Encoder#write's first lines: a record opens at `depth`. The frame keeps the
 * plan object marked: the class's cache may let go of it meanwhile. */
static void push_record(encoding *enc, VALUE plan_object, VALUE record, long depth)
{
    if (depth >= enc->max_depth) too_deep(enc);
    const wbj_plan *plan = wbj_plan_get(plan_object);
    frame *f = push(enc, E_MODEL, record, depth);
    f->plan = plan;
    f->plan_object = plan_object;
}

static int collect_pair(VALUE key, VALUE value, VALUE pairs)
{
    rb_ary_push(pairs, key);
    rb_ary_push(pairs, value);
    return ST_CONTINUE;
}

/* Writer.value: any value at `depth`; containers and records push a frame. */
static void write_value(encoding *enc, VALUE value, long depth)
{
    if (NIL_P(value)) {
        wb_buffer_append_literal(&enc->buffer, "null");
        return;
    }
    if (RB_TYPE_P(value, T_STRING) || RB_TYPE_P(value, T_SYMBOL)) {
        write_string(enc, value);
        return;
    }
    if (RB_INTEGER_TYPE_P(value)) {
        write_integer(enc, value);
        return;
    }
    if (RB_FLOAT_TYPE_P(value)) {
        write_float(enc, value);
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
        rb_hash_foreach(value, collect_pair, pairs);
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
    const ruby_env *env = enc->env;
    if (RTEST(rb_obj_is_kind_of(value, env->cBigDecimal))) {
        write_decimal(enc, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, rb_cTime))) {
        write_calendar(enc, WB_FORMAT_TIME, id_time, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, env->cDate))) {
        if (RTEST(rb_obj_is_kind_of(value, env->cDateTime))) {
            fail(enc, rb_utf8_str_new_cstr("cannot write a DateTime in JSON without a schema; use a Time"));
        }
        write_calendar(enc, WB_FORMAT_DATE, id_date, value);
        return;
    }
    if (RTEST(rb_obj_is_kind_of(value, env->mModel))) {
        push_record(enc, plan_of(enc, rb_obj_class(value)), value, depth);
        return;
    }
    VALUE message = rb_utf8_str_new_cstr("cannot write ");
    rb_str_append(message, describe(enc, value));
    rb_str_cat_cstr(message, " in JSON");
    fail(enc, message);
}

/* The generated code's #value for one item of a slot (not nil): a scalar, or
 * a record of the slot's class, which pushes a frame at `depth`. */
static void write_slot_value(encoding *enc, wbj_slot *slot, VALUE value, long depth)
{
    if (slot->code == WBJ_ANY) {
        /* Writer.value: plain values (Hash, Array, scalars, records). */
        write_value(enc, value, depth);
        return;
    }
    if (slot->code != WBJ_MODEL) {
        write_scalar(enc, slot->code, value);
        return;
    }
    VALUE klass = RB_SPECIAL_CONST_P(value) ? Qnil : RBASIC_CLASS(value);
    VALUE plan;
    if (klass == slot->type) {
        (void)wbj_slot_plan(slot); /* compiles it on first use */
        plan = slot->plan;
    } else {
        if (!RTEST(rb_obj_is_kind_of(value, slot->type))) {
            VALUE options = enc->env->item_true;
            fail_expected(enc, rb_funcallv_kw(slot->slot, id_expected, 1, &options, RB_PASS_KEYWORDS), value);
        }
        plan = plan_of(enc, rb_obj_class(value));
    }
    push_record(enc, plan, value, depth);
}

/* Runs the frames until the value at the bottom is written. */
static void run(encoding *enc)
{
    while (enc->depth > 0) {
        if (!NIL_P(enc->io) && enc->buffer.len >= WB_BUFFER_PIECE) {
            enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 0);
        }
        frame *f = &enc->frames[enc->depth - 1];
        switch (f->kind) {
        case E_MODEL: {
            const wbj_plan *plan = f->plan;
            if (f->next >= plan->size) {
                wb_buffer_append_char(&enc->buffer, plan->size ? '}' : '{');
                if (!plan->size) wb_buffer_append_char(&enc->buffer, '}');
                enc->depth--;
                continue;
            }
            wbj_slot *slot = &plan->slots[f->next];
            long depth = f->depth;
            VALUE record = f->object;
            f->part = f->next;
            f->next++;
            wb_buffer_append_char(&enc->buffer, slot->index == 0 ? '{' : ',');
            wb_buffer_append(&enc->buffer, slot->member, slot->member_len);
            VALUE value = rb_ivar_get(record, slot->ivar);
            if (slot->list) {
                if (NIL_P(value)) {
                    wb_buffer_append_literal(&enc->buffer, "[]");
                } else if (!RB_TYPE_P(value, T_ARRAY)) {
                    fail_expected(enc, rb_utf8_str_new_cstr("an Array"), value);
                } else {
                    wb_buffer_append_char(&enc->buffer, '[');
                    frame *list = push(enc, E_LIST, value, depth + 2);
                    list->slot = slot;
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
            if (f->next >= RARRAY_LEN(f->object)) {
                wb_buffer_append_char(&enc->buffer, ']');
                enc->depth--;
                continue;
            }
            if (f->next) wb_buffer_append_char(&enc->buffer, ',');
            VALUE item = RARRAY_AREF(f->object, f->next);
            f->part = f->next;
            f->next++;
            if (NIL_P(item)) {
                wb_buffer_append_literal(&enc->buffer, "null");
            } else {
                write_slot_value(enc, f->slot, item, f->depth);
            }
            RB_GC_GUARD(item);
            continue;
        }
        case E_ARRAY: {
            if (f->next >= RARRAY_LEN(f->object)) {
                wb_buffer_append_char(&enc->buffer, ']');
                enc->depth--;
                continue;
            }
            if (f->next) wb_buffer_append_char(&enc->buffer, ',');
            VALUE item = RARRAY_AREF(f->object, f->next);
            f->part = f->next;
            f->next++;
            write_value(enc, item, f->depth + 1);
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
                fail(enc, message);
            }
            f->part = f->next;
            f->next++;
            write_string(enc, key);
            wb_buffer_append_char(&enc->buffer, ':');
            write_value(enc, item, depth + 1);
            RB_GC_GUARD(key);
            RB_GC_GUARD(item);
            continue;
        }
        }
    }
}

static VALUE encode_body(VALUE arg)
{
    encoding *enc = (encoding *)arg;
    /* Pure.encode: a top-level Array is written item by item at depth 1, as
     * Writer.array would. */
    write_value(enc, enc->value, 0);
    run(enc);
    if (NIL_P(enc->io)) return wb_buffer_to_str(&enc->buffer);
    enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 1);
    return SIZET2NUM(enc->written);
}

/* rescue EncodeError, Types::InvalidValue => e: raised by Ruby (Pure::Writer)
 * without a path, it is raised again with the path being written, as the
 * generated code's rescue clauses and Writer.nested do. */
static VALUE encode_rescue(VALUE arg, VALUE error)
{
    encoding *enc = (encoding *)arg;
    if (enc->own_error) rb_exc_raise(error);
    fail(enc, rb_funcall(error, id_message, 0));
    return Qnil;
}

static VALUE encode_protected(VALUE arg)
{
    return rb_rescue2(encode_body, arg, encode_rescue, arg, wb_eEncodeError, rb_path2class("Wirebind::Types::InvalidValue"), (VALUE)0);
}

static VALUE encode_ensure(VALUE arg)
{
    encoding_release((encoding *)arg);
    return Qnil;
}

VALUE wbj_encode(VALUE value, VALUE io, long max_depth)
{
    encoding *enc;
    VALUE holder = TypedData_Make_Struct(0, encoding, &encoding_type, enc);
    wb_buffer_init(&enc->buffer);
    enc->io = io;
    enc->value = value;
    enc->max_depth = max_depth;
    enc->last_class = Qundef;
    enc->last_plan = Qnil;
    enc->env = env_get();
    VALUE result = rb_ensure(encode_protected, (VALUE)enc, encode_ensure, (VALUE)enc);
    RB_GC_GUARD(holder);
    return result;
}
