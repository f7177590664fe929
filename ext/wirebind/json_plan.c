/* Compiled JSON plans (see json_plan.h): Wirebind::JSON::Plan's slots copied
 * into C once per model class. */
#include "json_plan.h"

static VALUE mNative;
static ID id_plan_for;

void wb_jplan_init(VALUE module)
{
    mNative = module;
    rb_gc_register_mark_object(mNative);
    id_plan_for = rb_intern("plan_for");
}

static void jplan_slot_mark(wb_jplan_slot *s)
{
    rb_gc_mark_movable(s->type);
    rb_gc_mark_movable(s->slot);
    rb_gc_mark_movable(s->key_str);
    if (s->plan) rb_gc_mark_movable(s->plan);
    for (long v = 0; v < s->nvariants; v++) {
        rb_gc_mark_movable(s->variants[v].tag);
        jplan_slot_mark(&s->variants[v].slot); /* one level: a variant's slot has none */
    }
}

static void jplan_plan_mark(void *ptr)
{
    wb_jplan *p = ptr;
    rb_gc_mark_movable(p->klass);
    if (!p->slots) return;
    for (long i = 0; i < p->size; i++) jplan_slot_mark(&p->slots[i]);
}

static void jplan_slot_compact(wb_jplan_slot *s)
{
    s->type = rb_gc_location(s->type);
    s->slot = rb_gc_location(s->slot);
    s->key_str = rb_gc_location(s->key_str);
    if (s->plan) s->plan = rb_gc_location(s->plan);
    for (long v = 0; v < s->nvariants; v++) {
        s->variants[v].tag = rb_gc_location(s->variants[v].tag);
        jplan_slot_compact(&s->variants[v].slot);
    }
}

static void jplan_plan_compact(void *ptr)
{
    wb_jplan *p = ptr;
    p->klass = rb_gc_location(p->klass);
    if (!p->slots) return;
    for (long i = 0; i < p->size; i++) jplan_slot_compact(&p->slots[i]);
}

static void jplan_slot_free(wb_jplan_slot *s)
{
    ruby_xfree(s->key);
    ruby_xfree(s->member);
    for (long v = 0; v < s->nvariants; v++) jplan_slot_free(&s->variants[v].slot);
    ruby_xfree(s->variants);
}

static void jplan_plan_free(void *ptr)
{
    wb_jplan *p = ptr;
    if (p->slots) {
        for (long i = 0; i < p->size; i++) jplan_slot_free(&p->slots[i]);
    }
    ruby_xfree(p->slots);
    ruby_xfree(p->table);
    ruby_xfree(p->tag);
    ruby_xfree(p);
}

static size_t jplan_plan_memsize(const void *ptr)
{
    const wb_jplan *p = ptr;
    size_t n = sizeof(*p) + (p->table ? (p->mask + 1) * sizeof(uint32_t) : 0) + p->tag_len;
    if (p->slots) {
        for (long i = 0; i < p->size; i++) {
            n += sizeof(wb_jplan_slot) + p->slots[i].key_len + p->slots[i].member_len + 2;
            for (long v = 0; v < p->slots[i].nvariants; v++) {
                n += sizeof(wb_jplan_variant) + p->slots[i].variants[v].slot.key_len + p->slots[i].variants[v].slot.member_len + 2;
            }
        }
    }
    return n;
}

const rb_data_type_t wb_jplan_type = {
    "Wirebind::JSON::Native::Plan",
    {jplan_plan_mark, jplan_plan_free, jplan_plan_memsize, jplan_plan_compact},
    0,
    0,
    /* Frozen, and holding only shareable objects: Ractors may share it. */
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_FROZEN_SHAREABLE,
};

static char *jplan_copy_bytes(VALUE str, size_t *len)
{
    StringValue(str);
    *len = (size_t)RSTRING_LEN(str);
    char *p = ruby_xmalloc(*len + 1);
    memcpy(p, RSTRING_PTR(str), *len);
    p[*len] = '\0';
    RB_GC_GUARD(str);
    return p;
}

static int code_of(VALUE symbol)
{
    int code = wb_scalar_type_code(symbol);
    if (code >= 0) return code;
    if (symbol == ID2SYM(rb_intern("model"))) return WB_JPLAN_MODEL;
    if (symbol == ID2SYM(rb_intern("any"))) return WB_JPLAN_ANY;
    rb_raise(rb_eArgError, "unknown value code %" PRIsVALUE, rb_inspect(symbol));
}

static void jplan_slot_clear(wb_jplan_slot *s)
{
    s->type = s->slot = s->key_str = Qnil;
    s->plan = 0;
    s->string_as = -1;
}

/* One row of wb_jplan_compile's `slots` into `slot` (cleared: the GC may mark it
 * meanwhile); `variants`: whether the row may have its 13th column. */
static void jplan_fill_slot(wb_jplan_slot *slot, VALUE row, int variants)
{
    Check_Type(row, T_ARRAY);
    if (RARRAY_LEN(row) != 12 + variants) {
        rb_raise(rb_eArgError,
                 "a plan slot is [key, index, code, type, list, ivar, slot, member, one_or_many, string_as, lenient, nested, variants]");
    }
    VALUE key = RARRAY_AREF(row, 0);
    slot->key = jplan_copy_bytes(key, &slot->key_len);
    slot->hash = wb_jplan_hash(slot->key, slot->key_len);
    slot->key_str = rb_str_new_frozen(key);
    slot->index = NUM2LONG(RARRAY_AREF(row, 1));
    slot->code = code_of(RARRAY_AREF(row, 2));
    slot->type = RARRAY_AREF(row, 3);
    slot->list = RTEST(RARRAY_AREF(row, 4));
    slot->ivar = rb_sym2id(RARRAY_AREF(row, 5)); /* pins a dynamic Symbol: the ID stays valid */
    slot->slot = RARRAY_AREF(row, 6);
    slot->member = jplan_copy_bytes(RARRAY_AREF(row, 7), &slot->member_len);
    slot->one_or_many = RTEST(RARRAY_AREF(row, 8));
    VALUE string_as = RARRAY_AREF(row, 9);
    slot->string_as = NIL_P(string_as) ? -1 : NUM2LONG(string_as);
    VALUE lenient = RARRAY_AREF(row, 10);
    slot->lenient = RTEST(lenient);
    slot->quoted = lenient == ID2SYM(rb_intern("string"));
    VALUE nested = RARRAY_AREF(row, 11);
    slot->nested = NIL_P(nested) ? 0 : NUM2INT(nested);
    if (slot->nested < 0 || slot->nested > 255) rb_raise(rb_eArgError, "a nested slot's levels must be 0..255");
    VALUE pairs = variants ? RARRAY_AREF(row, 12) : Qnil;
    if (NIL_P(pairs)) return;
    Check_Type(pairs, T_ARRAY);
    long n = RARRAY_LEN(pairs);
    slot->variants = ruby_xcalloc(n ? (size_t)n : 1, sizeof(wb_jplan_variant));
    for (long v = 0; v < n; v++) {
        slot->variants[v].tag = Qnil;
        jplan_slot_clear(&slot->variants[v].slot);
    }
    slot->nvariants = n;
    for (long v = 0; v < n; v++) {
        VALUE pair = RARRAY_AREF(pairs, v);
        Check_Type(pair, T_ARRAY);
        if (RARRAY_LEN(pair) != 2) rb_raise(rb_eArgError, "a variant is [discriminator value, slot row]");
        VALUE tag = RARRAY_AREF(pair, 0);
        StringValue(tag);
        slot->variants[v].tag = rb_str_new_frozen(tag);
        jplan_fill_slot(&slot->variants[v].slot, RARRAY_AREF(pair, 1), 0);
        if (slot->variants[v].slot.index != slot->index) rb_raise(rb_eArgError, "a variant's slot has its key's index");
    }
    RB_GC_GUARD(pairs);
}

VALUE wb_jplan_compile(VALUE klass, VALUE slots, VALUE filler, VALUE encoded, VALUE tag, VALUE tag_index, VALUE checked)
{
    Check_Type(slots, T_ARRAY);
    wb_jplan *p;
    VALUE self = TypedData_Make_Struct(rb_cObject, wb_jplan, &wb_jplan_type, p);
    p->klass = klass;
    p->filler = rb_sym2id(filler); /* pins a dynamic Symbol */
    long n = RARRAY_LEN(slots);
    p->encoded = NUM2LONG(encoded);
    p->tag_index = NIL_P(tag_index) ? -1 : NUM2LONG(tag_index);
    p->checked = RTEST(checked);
    if (p->encoded < 0 || p->encoded > n || p->tag_index >= n) rb_raise(rb_eArgError, "encoded slots or tag index out of range");
    if (!NIL_P(tag)) p->tag = jplan_copy_bytes(tag, &p->tag_len);
    /* Filled in before size counts them: the GC marks only counted slots. */
    wb_jplan_slot *s = ruby_xcalloc(n ? (size_t)n : 1, sizeof(wb_jplan_slot));
    p->slots = s;
    for (long i = 0; i < n; i++) jplan_slot_clear(&s[i]);
    p->size = n;
    for (long i = 0; i < n; i++) {
        jplan_fill_slot(&s[i], RARRAY_AREF(slots, i), 1);
        if (s[i].index != i) rb_raise(rb_eArgError, "plan slots must come in index order");
    }
    if (n) {
        size_t cap = 8;
        while (cap < (size_t)n * 2) cap *= 2;
        p->table = ruby_xcalloc(cap, sizeof(uint32_t));
        p->mask = cap - 1;
        for (long i = 0; i < n; i++) {
            size_t b = s[i].hash & p->mask;
            while (p->table[b]) b = (b + 1) & p->mask;
            p->table[b] = (uint32_t)(i + 1);
        }
    }
    RB_GC_GUARD(slots);
    rb_obj_freeze(self);
    return self;
}

VALUE wb_jplan_for(VALUE klass)
{
    VALUE plan = rb_funcall(mNative, id_plan_for, 1, klass);
    (void)wb_jplan_get(plan);
    return plan;
}

const wb_jplan *wb_jplan_slot_plan(wb_jplan_slot *slot)
{
    if (!slot->plan) slot->plan = wb_jplan_for(slot->type);
    return wb_jplan_get(slot->plan);
}
