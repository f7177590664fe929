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

static void jplan_plan_mark(void *ptr)
{
    wb_jplan *p = ptr;
    rb_gc_mark_movable(p->klass);
    if (!p->slots) return;
    for (long i = 0; i < p->size; i++) {
        wb_jplan_slot *s = &p->slots[i];
        rb_gc_mark_movable(s->type);
        rb_gc_mark_movable(s->slot);
        rb_gc_mark_movable(s->key_str);
        if (s->plan) rb_gc_mark_movable(s->plan);
    }
}

static void jplan_plan_compact(void *ptr)
{
    wb_jplan *p = ptr;
    p->klass = rb_gc_location(p->klass);
    if (!p->slots) return;
    for (long i = 0; i < p->size; i++) {
        wb_jplan_slot *s = &p->slots[i];
        s->type = rb_gc_location(s->type);
        s->slot = rb_gc_location(s->slot);
        s->key_str = rb_gc_location(s->key_str);
        if (s->plan) s->plan = rb_gc_location(s->plan);
    }
}

static void jplan_plan_free(void *ptr)
{
    wb_jplan *p = ptr;
    if (p->slots) {
        for (long i = 0; i < p->size; i++) {
            ruby_xfree(p->slots[i].key);
            ruby_xfree(p->slots[i].member);
        }
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
        for (long i = 0; i < p->size; i++) n += sizeof(wb_jplan_slot) + p->slots[i].key_len + p->slots[i].member_len + 2;
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
    for (long i = 0; i < n; i++) {
        s[i].type = s[i].slot = s[i].key_str = Qnil;
        s[i].plan = 0;
        s[i].string_as = -1;
    }
    p->size = n;
    for (long i = 0; i < n; i++) {
        VALUE row = RARRAY_AREF(slots, i);
        Check_Type(row, T_ARRAY);
        if (RARRAY_LEN(row) != 12) {
            rb_raise(rb_eArgError,
                     "a plan slot is [key, index, code, type, list, ivar, slot, member, one_or_many, string_as, lenient, nested]");
        }
        wb_jplan_slot *slot = &s[i];
        VALUE key = RARRAY_AREF(row, 0);
        slot->key = jplan_copy_bytes(key, &slot->key_len);
        slot->hash = wb_jplan_hash(slot->key, slot->key_len);
        slot->key_str = rb_str_new_frozen(key);
        slot->index = NUM2LONG(RARRAY_AREF(row, 1));
        if (slot->index != i) rb_raise(rb_eArgError, "plan slots must come in index order");
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
        slot->nested = RTEST(RARRAY_AREF(row, 11));
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
