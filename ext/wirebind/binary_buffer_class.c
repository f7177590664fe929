/* Wirebind::Buffer (Wirebind::Binary::Native::Buffer): a growable byte buffer
 * and views over Strings and other Buffers, every access bounds-checked. The
 * reference is Wirebind::Binary::Pure::Buffer (lib/wirebind/binary/pure/buffer.rb). */
#include "binary_buffer.h"
#include <stdarg.h>

VALUE wb_bbuf_class;
static ID id_big, id_little;

static void bbuf_mark(void *p)
{
    wb_bbuf *b = p;
    if (RB_TYPE_P(b->backing, T_STRING))
        rb_gc_mark(b->backing); /* pinned: base points into it */
    else
        rb_gc_mark_movable(b->backing);
}

static void bbuf_compact(void *p)
{
    wb_bbuf *b = p;
    if (!RB_TYPE_P(b->backing, T_STRING)) b->backing = rb_gc_location(b->backing);
}

static void bbuf_free(void *p)
{
    wb_bbuf *b = p;
    ruby_xfree(b->own);
    ruby_xfree(b);
}

static size_t bbuf_size(const void *p)
{
    const wb_bbuf *b = p;
    return sizeof(*b) + b->capa;
}

static const rb_data_type_t bbuf_type = {
    "Wirebind::Buffer", {bbuf_mark, bbuf_free, bbuf_size, bbuf_compact}, 0, 0, RUBY_TYPED_FREE_IMMEDIATELY};

void wb_bbuf_range_error(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    VALUE message = rb_vsprintf(fmt, args);
    va_end(args);
    rb_exc_raise(rb_exc_new_str(wb_hooks.eBinaryRangeError, message));
}

wb_bbuf *wb_bbuf_get(VALUE obj)
{
    return rb_check_typeddata(obj, &bbuf_type);
}

int wb_bbuf_p(VALUE obj)
{
    return rb_typeddata_is_kind_of(obj, &bbuf_type);
}

static VALUE bbuf_alloc(VALUE klass)
{
    wb_bbuf *b;
    VALUE obj = TypedData_Make_Struct(klass, wb_bbuf, &bbuf_type, b);
    b->backing = Qnil;
    b->big = 1;
    return obj;
}

uint8_t *wb_bbuf_root_bytes(wb_bbuf *b)
{
    wb_bbuf *root = RTYPEDDATA_DATA(b->backing);
    if (b->offset > root->len || root->len - b->offset < b->len)
        wb_bbuf_range_error("the buffer this view is a slice of is shorter than the view now");
    return root->own + b->offset;
}

uint8_t *wb_bbuf_reserve(VALUE obj, wb_bbuf *b, size_t n)
{
    if (!NIL_P(b->backing)) rb_raise(wb_hooks.eBinaryReadOnlyError, "a view cannot grow (append to the Buffer it is a view of)");
    if (n > SIZE_MAX - b->len) wb_bbuf_range_error("buffer too large");
    size_t need = b->len + n;
    if (need > b->capa) {
        size_t capa = b->capa < 64 ? 64 : b->capa;
        while (capa < need) capa = capa > SIZE_MAX / 2 ? need : capa * 2;
        b->own = ruby_xrealloc(b->own, capa);
        b->base = b->own;
        b->capa = capa;
    }
    return b->own + b->len;
}

static int parse_endian(VALUE sym)
{
    if (SYMBOL_P(sym)) {
        ID id = SYM2ID(sym);
        if (id == id_big) return 1;
        if (id == id_little) return 0;
    }
    rb_raise(rb_eArgError, "endian must be :big or :little, not %" PRIsVALUE, rb_inspect(sym));
}

/* An offset or length argument: an Integer, not negative. */
static size_t to_index(VALUE v, const char *what)
{
    if (RB_LIKELY(FIXNUM_P(v))) {
        long l = FIX2LONG(v);
        if (l < 0) wb_bbuf_range_error("%s %ld is negative", what, l);
        return (size_t)l;
    }
    if (RB_TYPE_P(v, T_BIGNUM)) wb_bbuf_range_error("%s %" PRIsVALUE " is out of range", what, v);
    rb_raise(rb_eTypeError, "%s must be an Integer, not %" PRIsVALUE, what, rb_obj_class(v));
}

NORETURN(static void out_of_range(wb_bbuf *b, VALUE offset, size_t n));
/* The error for n bytes at offset (an Integer or not) outside the buffer. */
static void out_of_range(wb_bbuf *b, VALUE offset, size_t n)
{
    size_t off = to_index(offset, "offset");
    wb_bbuf_range_error("%lu bytes at offset %lu are out of range (length %lu)", (unsigned long)n, (unsigned long)off,
                        (unsigned long)b->len);
}

/* The address of n bytes at offset, checked against the buffer's length. */
static inline uint8_t *at(wb_bbuf *b, VALUE offset, size_t n)
{
    /* one comparison for a Fixnum in range: a negative one is a huge unsigned */
    if (RB_LIKELY(FIXNUM_P(offset) && b->len >= n && (unsigned long)FIX2LONG(offset) <= b->len - n))
        return wb_bbuf_bytes(b) + FIX2LONG(offset);
    out_of_range(b, offset, n);
}

static inline void check_writable(VALUE self, wb_bbuf *b)
{
    if (b->read_only) rb_raise(wb_hooks.eBinaryReadOnlyError, "the buffer is read-only");
    if (RB_OBJ_FROZEN(self)) rb_raise(wb_hooks.eBinaryReadOnlyError, "the buffer is frozen");
}

/* Checks that an Integer fits width bytes, signed or not, and returns its bits. */
static uint64_t int_bits(VALUE v, int width, int is_signed)
{
    if (FIXNUM_P(v)) {
        long l = FIX2LONG(v);
        if (is_signed) {
            if (width < 8) {
                long lim = 1L << (width * 8 - 1);
                if (l < -lim || l >= lim) goto out;
            }
        } else {
            if (l < 0) goto out;
            if (width < 8 && (unsigned long)l >> (width * 8)) goto out;
        }
        return (uint64_t)l;
    }
    if (RB_TYPE_P(v, T_BIGNUM)) {
        if (width < 8) goto out;
        int negative = RTEST(rb_funcall(v, '<', 1, INT2FIX(0)));
        if (is_signed) {
            if (rb_absint_size(v, NULL) > 8) goto out;
            /* 2**63 and -2**63: only the latter fits */
            uint64_t u = 0;
            rb_integer_pack(v, &u, 1, 8, 0, INTEGER_PACK_LSWORD_FIRST | INTEGER_PACK_NATIVE_BYTE_ORDER | INTEGER_PACK_2COMP);
            if (negative != ((int64_t)u < 0)) goto out;
            return u;
        }
        if (negative || rb_absint_size(v, NULL) > 8) goto out;
        return NUM2ULL(v);
    }
    rb_raise(rb_eTypeError, "value must be an Integer, not %" PRIsVALUE, rb_obj_class(v));
out:
    wb_bbuf_range_error("%" PRIsVALUE " does not fit %s%d", v, is_signed ? "i" : "u", width * 8);
}

static double load_float(const uint8_t *p, int width, int big)
{
    uint64_t bits = wb_bbuf_load(p, width, big);
    if (width == 4) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static uint64_t float_bits(VALUE value, int width)
{
    double d = NUM2DBL(value);
    if (width == 4) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static inline int endian_arg(wb_bbuf *b, int argc, VALUE *argv, int fixed)
{
    if (RB_LIKELY(argc == fixed)) return b->big;
    if (argc == fixed + 1) return parse_endian(argv[fixed]);
    rb_error_arity(argc, fixed, fixed + 1);
}

/* The three accessor shapes, each written once: a type is its width in bytes
 * and whether it is signed or a float (is_signed -1). Inlined into each
 * type's method with constant arguments, so every load and store is
 * straight-line code. */

/* Buffer#get_T(offset, endian = buffer's) -> Integer or Float */
static inline VALUE get_value(int argc, VALUE *argv, VALUE self, int width, int is_signed)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    int big = endian_arg(b, argc, argv, 1);
    const uint8_t *p = at(b, argv[0], (size_t)width);
    if (is_signed < 0) return DBL2NUM(load_float(p, width, big));
    uint64_t v = wb_bbuf_load(p, width, big);
    if (is_signed) return LL2NUM(wb_bbuf_signed(v, width));
    return width < 8 ? LONG2FIX((long)v) : ULL2NUM(v);
}

/* The bits of value for a T, checked. */
static inline uint64_t value_bits(VALUE value, int width, int is_signed)
{
    return is_signed < 0 ? float_bits(value, width) : int_bits(value, width, is_signed);
}

/* Buffer#set_T(offset, value, endian = buffer's) -> self */
static inline VALUE set_value(int argc, VALUE *argv, VALUE self, int width, int is_signed)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    int big = endian_arg(b, argc, argv, 2);
    check_writable(self, b);
    uint64_t v = value_bits(argv[1], width, is_signed);
    wb_bbuf_store(at(b, argv[0], (size_t)width), width, big, v);
    return self;
}

/* Buffer#append_T(value, endian = buffer's) -> self */
static inline VALUE append_value(int argc, VALUE *argv, VALUE self, int width, int is_signed)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    int big = endian_arg(b, argc, argv, 1);
    check_writable(self, b);
    uint64_t v = value_bits(argv[0], width, is_signed);
    wb_bbuf_store(wb_bbuf_reserve(self, b, (size_t)width), width, big, v);
    b->len += (size_t)width;
    return self;
}

/* One type's three methods: entry points that only name the type (Ruby
 * passes no data to a C method, so each needs a function of its own). */
#define ACCESSORS(type, width, is_signed)                              \
    static VALUE wb_buffer__get_##type(int c, VALUE *v, VALUE self)    \
    {                                                                  \
        return get_value(c, v, self, width, is_signed);                \
    }                                                                  \
    static VALUE wb_buffer__set_##type(int c, VALUE *v, VALUE self)    \
    {                                                                  \
        return set_value(c, v, self, width, is_signed);                \
    }                                                                  \
    static VALUE wb_buffer__append_##type(int c, VALUE *v, VALUE self) \
    {                                                                  \
        return append_value(c, v, self, width, is_signed);             \
    }

/* The table of types: name, width in bytes, signed (1), unsigned (0) or float (-1). */
#define BUFFER_TYPES(X) \
    X(u8, 1, 0)         \
    X(i8, 1, 1) X(u16, 2, 0) X(i16, 2, 1) X(u24, 3, 0) X(u32, 4, 0) X(i32, 4, 1) X(u64, 8, 0) X(i64, 8, 1) X(f32, 4, -1) X(f64, 8, -1)

BUFFER_TYPES(ACCESSORS)

static void check_bits(wb_bbuf *b, VALUE bit_offset, VALUE count, size_t *off, unsigned *n)
{
    size_t o = to_index(bit_offset, "bit offset");
    size_t c = to_index(count, "bit count");
    if (c < 1 || c > 64) wb_bbuf_range_error("bit count %lu is not in 1..64", (unsigned long)c);
    if (o > b->len * 8 || b->len * 8 - o < c)
        wb_bbuf_range_error("%lu bits at bit offset %lu are out of range (length %lu bytes)", (unsigned long)c, (unsigned long)o,
                            (unsigned long)b->len);
    *off = o;
    *n = (unsigned)c;
}

/* Buffer#get_bits(bit_offset, count) -> Integer: count bits, most significant first */
static VALUE wb_buffer__get_bits(VALUE self, VALUE bit_offset, VALUE count)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    size_t off;
    unsigned n;
    check_bits(b, bit_offset, count, &off, &n);
    return ULL2NUM(wb_bbuf_get_bits(wb_bbuf_bytes(b), off, n));
}

/* Buffer#set_bits(bit_offset, count, value) -> self */
static VALUE wb_buffer__set_bits(VALUE self, VALUE bit_offset, VALUE count, VALUE value)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    size_t off;
    unsigned n;
    check_writable(self, b);
    check_bits(b, bit_offset, count, &off, &n);
    uint64_t v = int_bits(value, 8, 0);
    if (n < 64 && (v >> n)) wb_bbuf_range_error("%" PRIsVALUE " does not fit %u bits", value, n);
    wb_bbuf_set_bits(wb_bbuf_bytes(b), off, n, v);
    return self;
}

/* Buffer#initialize(capacity = 0, endian: :big) */
static VALUE wb_buffer__initialize(int argc, VALUE *argv, VALUE self)
{
    VALUE capacity, opts;
    rb_scan_args(argc, argv, "01:", &capacity, &opts);
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    /* again (through send): the storage views of it point into would be replaced */
    if (b->initialized) rb_raise(wb_hooks.eBinaryReadOnlyError, "the buffer is already initialized");
    if (!NIL_P(opts)) {
        VALUE endian = rb_hash_lookup2(opts, ID2SYM(rb_intern("endian")), Qundef);
        if (RHASH_SIZE(opts) != (endian == Qundef ? 0 : 1)) rb_raise(rb_eArgError, "unknown keyword (only endian:)");
        if (endian != Qundef) b->big = parse_endian(endian);
    }
    b->initialized = 1;
    if (!NIL_P(capacity)) {
        size_t c = to_index(capacity, "capacity");
        if (c > 0) {
            b->own = ruby_xmalloc(c);
            b->base = b->own;
            b->capa = c;
        }
    }
    return self;
}

/* Buffer#initialize_copy(original) (dup, clone) -> self: a Buffer of its own
 * with original's bytes, byte order and read-only flag (a view's copy is not a
 * view). Called again, it keeps its storage (views of it see their root
 * shrink or change, bounds-checked) and copies into it. */
static VALUE wb_buffer__initialize_copy(VALUE self, VALUE original)
{
    if (self == original) return self;
    rb_check_frozen(self);
    wb_bbuf *o = wb_bbuf_get(original);
    wb_bbuf *b = wb_bbuf_get(self);
    size_t n = o->len;
    /* original's bytes checked first (a view whose root shrank raises), and
     * copied aside if they are self's own, which are reset below */
    VALUE aside = Qnil;
    if (o->of_buffer && o->backing == self)
        aside = rb_str_new((const char *)wb_bbuf_bytes(o), (long)n);
    else
        (void)wb_bbuf_bytes(o);
    b->backing = Qnil;
    b->of_buffer = 0;
    b->offset = 0;
    b->base = b->own;
    b->len = 0;
    b->read_only = 0;
    b->initialized = 1;
    uint8_t *dst = wb_bbuf_reserve(self, b, n); /* may run the GC: original's bytes are looked up after */
    if (n > 0) memcpy(dst, NIL_P(aside) ? wb_bbuf_bytes(o) : (const uint8_t *)RSTRING_PTR(aside), n);
    b->len = n;
    b->big = o->big;
    b->read_only = o->read_only;
    RB_GC_GUARD(aside);
    RB_GC_GUARD(original);
    return self;
}

VALUE wb_bbuf_view_of_string(VALUE string, size_t offset, size_t len, int big)
{
    VALUE frozen = rb_str_new_frozen(string); /* string itself if frozen; else shares its bytes */
    VALUE obj = bbuf_alloc(wb_bbuf_class);
    wb_bbuf *b = RTYPEDDATA_DATA(obj);
    b->backing = frozen;
    b->base = (const uint8_t *)RSTRING_PTR(frozen) + offset; /* stays valid: frozen, and pinned by bbuf_mark */
    b->offset = offset;
    b->len = len;
    b->big = big;
    b->read_only = 1;
    b->initialized = 1;
    RB_GC_GUARD(frozen);
    return obj;
}

/* Buffer.read_only(string, endian: :big) -> a read-only Buffer over string's bytes, not copied */
static VALUE wb_buffer_s__read_only(int argc, VALUE *argv, VALUE klass)
{
    VALUE string, opts;
    int big = 1;
    rb_scan_args(argc, argv, "1:", &string, &opts);
    StringValue(string);
    if (!NIL_P(opts)) {
        VALUE endian = rb_hash_lookup2(opts, ID2SYM(rb_intern("endian")), Qundef);
        if (RHASH_SIZE(opts) != (endian == Qundef ? 0 : 1)) rb_raise(rb_eArgError, "unknown keyword (only endian:)");
        if (endian != Qundef) big = parse_endian(endian);
    }
    return wb_bbuf_view_of_string(string, 0, (size_t)RSTRING_LEN(string), big);
}

VALUE wb_bbuf_slice(VALUE self, size_t off, size_t n)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    if (off > b->len || b->len - off < n)
        wb_bbuf_range_error("%lu bytes at offset %lu are out of range (length %lu)", (unsigned long)n, (unsigned long)off,
                            (unsigned long)b->len);
    VALUE obj = bbuf_alloc(rb_obj_class(self));
    wb_bbuf *v = RTYPEDDATA_DATA(obj);
    v->len = n;
    v->big = b->big;
    v->read_only = b->read_only || RB_OBJ_FROZEN(self); /* a frozen Buffer's bytes are not written through its views either */
    v->initialized = 1;
    if (NIL_P(b->backing)) {
        v->backing = self;
        v->offset = off;
        v->of_buffer = 1;
    } else {
        v->backing = b->backing; /* always the root: views never chain */
        v->of_buffer = b->of_buffer;
        v->base = b->of_buffer ? NULL : b->base + off;
        v->offset = b->offset + off;
    }
    return obj;
}

/* Buffer#slice(offset, length) -> a Buffer over those bytes (a view: not copied) */
static VALUE wb_buffer__slice(VALUE self, VALUE offset, VALUE length)
{
    size_t n = to_index(length, "length");
    size_t off = to_index(offset, "offset");
    return wb_bbuf_slice(self, off, n);
}

/* Buffer#to_s -> a binary String of the bytes (a copy; for a view of a String, a shared substring) */
static VALUE wb_buffer__to_s(VALUE self)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    if (RB_TYPE_P(b->backing, T_STRING)) return rb_str_substr(b->backing, (long)b->offset, (long)b->len);
    return rb_str_new((const char *)wb_bbuf_bytes(b), (long)b->len);
}

/* Buffer#get_bytes(offset, length) -> String (a copy) */
static VALUE wb_buffer__get_bytes(VALUE self, VALUE offset, VALUE length)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    size_t n = to_index(length, "length");
    const uint8_t *p = at(b, offset, n);
    return rb_str_new((const char *)p, (long)n);
}

/* Buffer#set_bytes(offset, string) -> self */
static VALUE wb_buffer__set_bytes(VALUE self, VALUE offset, VALUE string)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    StringValue(string);
    check_writable(self, b);
    uint8_t *p = at(b, offset, (size_t)RSTRING_LEN(string));
    /* memcpy's pointers must be valid even for 0 bytes, and an empty buffer's may be NULL. */
    if (RSTRING_LEN(string) > 0) memcpy(p, RSTRING_PTR(string), (size_t)RSTRING_LEN(string));
    return self;
}

/* Buffer#append(string_or_buffer) -> self */
static VALUE wb_buffer__append(VALUE self, VALUE data)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    check_writable(self, b);
    if (rb_typeddata_is_kind_of(data, &bbuf_type)) {
        wb_bbuf *src = RTYPEDDATA_DATA(data);
        size_t n = src->len;
        uint8_t *dst = wb_bbuf_reserve(self, b, n); /* first: src may be self */
        if (n > 0) memmove(dst, wb_bbuf_bytes(src), n);
        b->len += n;
        return self;
    }
    StringValue(data);
    size_t n = (size_t)RSTRING_LEN(data);
    uint8_t *dst = wb_bbuf_reserve(self, b, n); /* may run the GC: read the String's pointer after */
    if (n > 0) memcpy(dst, RSTRING_PTR(data), n);
    b->len += n;
    RB_GC_GUARD(data);
    return self;
}

/* Buffer#length -> Integer */
static VALUE wb_buffer__length(VALUE self)
{
    return SIZET2NUM(((wb_bbuf *)RTYPEDDATA_DATA(self))->len);
}

/* Buffer#read_only? -> true if writes raise ReadOnlyError */
static VALUE wb_buffer__read_only_p(VALUE self)
{
    return ((wb_bbuf *)RTYPEDDATA_DATA(self))->read_only ? Qtrue : Qfalse;
}

/* Buffer#view? -> true if the bytes belong to a String or another Buffer */
static VALUE wb_buffer__view_p(VALUE self)
{
    return NIL_P(((wb_bbuf *)RTYPEDDATA_DATA(self))->backing) ? Qfalse : Qtrue;
}

/* Buffer#endian -> :big or :little */
static VALUE wb_buffer__endian(VALUE self)
{
    return ID2SYM(((wb_bbuf *)RTYPEDDATA_DATA(self))->big ? id_big : id_little);
}

/* Buffer#clear -> self: length 0, storage kept (a view of it raises on its next access) */
static VALUE wb_buffer__clear(VALUE self)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    check_writable(self, b);
    if (!NIL_P(b->backing)) rb_raise(wb_hooks.eBinaryReadOnlyError, "a view cannot be cleared");
    b->len = 0;
    return self;
}

/* Buffer#==(other) -> true if other is a Buffer with the same bytes */
static VALUE wb_buffer__eq(VALUE self, VALUE other)
{
    if (!rb_typeddata_is_kind_of(other, &bbuf_type)) return Qfalse;
    wb_bbuf *a = RTYPEDDATA_DATA(self), *b = RTYPEDDATA_DATA(other);
    return a->len == b->len && memcmp(wb_bbuf_bytes(a), wb_bbuf_bytes(b), a->len) == 0 ? Qtrue : Qfalse;
}

/* Buffer#hash -> Integer, as to_s.hash */
static VALUE wb_buffer__hash(VALUE self)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    return ST2FIX(rb_memhash(wb_bbuf_bytes(b), (long)b->len));
}

/* Buffer#inspect -> String */
static VALUE wb_buffer__inspect(VALUE self)
{
    wb_bbuf *b = RTYPEDDATA_DATA(self);
    return rb_sprintf("#<%" PRIsVALUE " length=%lu%s>", rb_obj_class(self), (unsigned long)b->len, b->read_only ? " read_only" : "");
}

void Init_wirebind_binary_buffer(VALUE mNative)
{
    id_big = rb_intern("big");
    id_little = rb_intern("little");

    VALUE c = wb_bbuf_class = rb_define_class_under(mNative, "Buffer", rb_cObject);
    rb_gc_register_mark_object(c);
    rb_define_alloc_func(c, bbuf_alloc);
    rb_define_const(c, "RangeError", wb_hooks.eBinaryRangeError);
    rb_define_const(c, "ReadOnlyError", wb_hooks.eBinaryReadOnlyError);
    rb_define_method(c, "initialize", wb_buffer__initialize, -1);
    rb_define_method(c, "initialize_copy", wb_buffer__initialize_copy, 1);
    rb_define_singleton_method(c, "read_only", wb_buffer_s__read_only, -1);
#define DEFINE(type, width, is_signed)                            \
    rb_define_method(c, "get_" #type, wb_buffer__get_##type, -1); \
    rb_define_method(c, "set_" #type, wb_buffer__set_##type, -1); \
    rb_define_method(c, "append_" #type, wb_buffer__append_##type, -1);
    BUFFER_TYPES(DEFINE)
#undef DEFINE
    rb_define_method(c, "get_bits", wb_buffer__get_bits, 2);
    rb_define_method(c, "set_bits", wb_buffer__set_bits, 3);
    rb_define_method(c, "slice", wb_buffer__slice, 2);
    rb_define_method(c, "to_s", wb_buffer__to_s, 0);
    rb_define_method(c, "get_bytes", wb_buffer__get_bytes, 2);
    rb_define_method(c, "set_bytes", wb_buffer__set_bytes, 2);
    rb_define_method(c, "append", wb_buffer__append, 1);
    rb_define_method(c, "length", wb_buffer__length, 0);
    rb_define_method(c, "size", wb_buffer__length, 0);
    rb_define_method(c, "read_only?", wb_buffer__read_only_p, 0);
    rb_define_method(c, "view?", wb_buffer__view_p, 0);
    rb_define_method(c, "endian", wb_buffer__endian, 0);
    rb_define_method(c, "clear", wb_buffer__clear, 0);
    rb_define_method(c, "==", wb_buffer__eq, 1);
    rb_define_method(c, "eql?", wb_buffer__eq, 1);
    rb_define_method(c, "hash", wb_buffer__hash, 0);
    rb_define_method(c, "inspect", wb_buffer__inspect, 0);
}
