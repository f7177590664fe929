/* Compiled XML plans (see xml_plan.h): a model's Wirebind::XML::Plan turned
 * once into C tables the decoder looks names up in, frozen and shareable. */
#include "xml_plan.h"

#include <stdlib.h>
#include <string.h>

static VALUE mNative;
static ID id_alt, id_any, id_attributes, id_checked, id_default_offset, id_filler, id_index, id_kind, id_klass, id_list, id_name,
    id_namespace, id_plan_for, id_size, id_table, id_text, id_type, id_uri;
static VALUE sym_any, sym_qname, sym_xml;

void wb_xplan_init(VALUE module)
{
    mNative = module;
    id_alt = rb_intern("alt");
    id_any = rb_intern("any");
    id_attributes = rb_intern("attributes");
    id_checked = rb_intern("checked");
    id_default_offset = rb_intern("default_offset");
    id_filler = rb_intern("filler");
    id_index = rb_intern("index");
    id_kind = rb_intern("kind");
    id_namespace = rb_intern("namespace");
    id_klass = rb_intern("klass");
    id_list = rb_intern("list");
    id_name = rb_intern("name");
    id_plan_for = rb_intern("plan_for");
    id_size = rb_intern("size");
    id_table = rb_intern("table");
    id_text = rb_intern("text");
    id_type = rb_intern("type");
    id_uri = rb_intern("uri");
    sym_any = ID2SYM(rb_intern("any"));
    sym_qname = ID2SYM(rb_intern("qname"));
    sym_xml = ID2SYM(rb_intern("xml"));
}

static void table_free(wb_xplan_table *t)
{
    ruby_xfree(t->buckets);
    t->buckets = NULL;
}

static void xplan_plan_free(void *ptr)
{
    wb_xplan *p = ptr;
    for (size_t i = 0; i < p->entry_count; i++) {
        wb_xplan_entry *e = p->entries[i];
        ruby_xfree(e->name);
        ruby_xfree(e->uri);
        ruby_xfree(e->default_offset);
        table_free(&e->table);
        table_free(&e->attributes);
        ruby_xfree(e);
    }
    ruby_xfree(p->entries);
    ruby_xfree(p->home);
    table_free(&p->table);
    table_free(&p->attributes);
    xfree(p);
}

static void xplan_plan_mark(void *ptr)
{
    wb_xplan *p = ptr;
    rb_gc_mark_movable(p->klass);
    for (size_t i = 0; i < p->entry_count; i++) {
        rb_gc_mark_movable(p->entries[i]->type_value);
        if (p->entries[i]->plan) rb_gc_mark_movable(p->entries[i]->plan);
    }
}

static void xplan_plan_compact(void *ptr)
{
    wb_xplan *p = ptr;
    p->klass = rb_gc_location(p->klass);
    for (size_t i = 0; i < p->entry_count; i++) {
        wb_xplan_entry *e = p->entries[i];
        e->type_value = rb_gc_location(e->type_value);
        if (e->plan) e->plan = rb_gc_location(e->plan);
    }
}

static size_t table_size(const wb_xplan_table *t)
{
    return t->buckets ? (t->mask + 1) * sizeof(wb_xplan_bucket) : 0;
}

static size_t xplan_plan_memsize(const void *ptr)
{
    const wb_xplan *p = ptr;
    size_t n = sizeof(*p) + p->entries_cap * sizeof(wb_xplan_entry *);
    n += table_size(&p->table) + table_size(&p->attributes);
    for (size_t i = 0; i < p->entry_count; i++)
        n += sizeof(wb_xplan_entry) + p->entries[i]->name_len + p->entries[i]->uri_len + table_size(&p->entries[i]->table) +
             table_size(&p->entries[i]->attributes);
    return n;
}

const rb_data_type_t wb_xplan_type = {
    "Wirebind::XML::Native::Plan",
    {xplan_plan_mark, xplan_plan_free, xplan_plan_memsize, xplan_plan_compact},
    0,
    0,
    /* Frozen and holding only shareable objects (a class, Symbols, other plans):
     * Ractors may share it. */
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_FROZEN_SHAREABLE,
};

static void *xcalloc_or_raise(size_t n, size_t size)
{
    return ruby_xcalloc(n ? n : 1, size);
}

static char *copy_string(VALUE s, size_t *len)
{
    if (NIL_P(s)) {
        *len = 0;
        return NULL;
    }
    StringValue(s);
    *len = (size_t)RSTRING_LEN(s);
    char *p = xcalloc_or_raise(*len + 1, 1);
    memcpy(p, RSTRING_PTR(s), *len);
    return p;
}

static wb_xplan_entry *new_entry(wb_xplan *p)
{
    if (p->entry_count == p->entries_cap) {
        size_t cap = p->entries_cap ? p->entries_cap * 2 : 16;
        wb_xplan_entry **e = ruby_xrealloc(p->entries, cap * sizeof(*e));
        p->entries = e;
        p->entries_cap = cap;
    }
    wb_xplan_entry *e = xcalloc_or_raise(1, sizeof(wb_xplan_entry));
    e->type_value = Qnil;
    e->index = -1;
    p->entries[p->entry_count++] = e;
    return e;
}

/* A table still to fill: its C side and the Ruby Hash it comes from. */
typedef struct pending_table {
    wb_xplan_table *table;
    VALUE hash;
} pending_table;

typedef struct compile_state {
    wb_xplan *plan;
    pending_table *pending;
    size_t pending_count, pending_cap;
    VALUE keep; /* the Hashes waiting in pending, reachable for the GC */
} compile_state;

static void schedule(compile_state *cs, wb_xplan_table *table, VALUE hash)
{
    if (cs->pending_count == cs->pending_cap) {
        size_t cap = cs->pending_cap ? cs->pending_cap * 2 : 8;
        pending_table *p = ruby_xrealloc(cs->pending, cap * sizeof(*p));
        cs->pending = p;
        cs->pending_cap = cap;
    }
    cs->pending[cs->pending_count].table = table;
    cs->pending[cs->pending_count].hash = hash;
    cs->pending_count++;
    rb_ary_push(cs->keep, hash);
}

/* One Slot or Group (not its alt chain); a group's table is scheduled. */
static wb_xplan_entry *compile_entry(compile_state *cs, VALUE node)
{
    wb_xplan_entry *e = new_entry(cs->plan);
    e->kind = NUM2INT(rb_funcall(node, id_kind, 0));
    e->name = copy_string(rb_funcall(node, id_name, 0), &e->name_len);
    e->uri = copy_string(rb_funcall(node, id_uri, 0), &e->uri_len);
    e->home = cs->plan->home;
    e->home_len = cs->plan->home_len;
    if (e->kind == WB_XPLAN_GROUP) {
        schedule(cs, &e->table, rb_funcall(node, id_table, 0));
        schedule(cs, &e->attributes, rb_funcall(node, id_attributes, 0));
        VALUE any = rb_funcall(node, id_any, 0);
        if (!NIL_P(any)) e->any = compile_entry(cs, any);
        return e;
    }
    VALUE index = rb_funcall(node, id_index, 0);
    e->index = NIL_P(index) ? -1 : NUM2LONG(index);
    e->list = RTEST(rb_funcall(node, id_list, 0));
    e->type_value = rb_funcall(node, id_type, 0);
    e->default_offset = copy_string(rb_funcall(node, id_default_offset, 0), &e->default_offset_len);
    if (e->kind == WB_XPLAN_SCALAR) {
        /* A single scalar's XML attributes by path ("Amt" beside "Amt/@Ccy"). */
        VALUE attributes = rb_funcall(node, id_attributes, 0);
        if (!NIL_P(attributes)) schedule(cs, &e->attributes, attributes);
        e->type = e->type_value == sym_qname ? WB_XDEC_QNAME : wb_scalar_type_code(e->type_value);
        if (e->type < 0) rb_raise(rb_eArgError, "unknown scalar type %" PRIsVALUE, rb_inspect(e->type_value));
    } else if (e->kind == WB_XPLAN_OPEN) {
        if (e->type_value != sym_xml && e->type_value != sym_any)
            rb_raise(rb_eArgError, "unknown open type %" PRIsVALUE, rb_inspect(e->type_value));
        e->type = e->type_value == sym_xml ? WB_XDEC_XML : WB_XDEC_ANY;
    }
    return e;
}

/* Follows a head's alt chain. */
static wb_xplan_entry *compile_chain(compile_state *cs, VALUE node)
{
    wb_xplan_entry *head = NULL, **link = &head;
    while (!NIL_P(node)) {
        wb_xplan_entry *e = compile_entry(cs, node);
        *link = e;
        link = &e->alt;
        node = rb_funcall(node, id_alt, 0);
    }
    return head;
}

typedef struct collect_state {
    VALUE pairs;
} collect_state;

static int xplan_collect_pair(VALUE key, VALUE value, VALUE pairs)
{
    rb_ary_push(pairs, key);
    rb_ary_push(pairs, value);
    return ST_CONTINUE;
}

static void fill_table(compile_state *cs, wb_xplan_table *table, VALUE hash)
{
    VALUE pairs = rb_ary_new();
    rb_hash_foreach(hash, xplan_collect_pair, pairs);
    long n = RARRAY_LEN(pairs) / 2;
    if (n == 0) return;
    size_t cap = 8;
    while (cap < (size_t)n * 2) cap *= 2;
    table->buckets = xcalloc_or_raise(cap, sizeof(wb_xplan_bucket));
    table->mask = cap - 1;
    for (long i = 0; i < n; i++) {
        VALUE key = RARRAY_AREF(pairs, i * 2);
        wb_xplan_entry *head = compile_chain(cs, RARRAY_AREF(pairs, i * 2 + 1));
        StringValue(key);
        /* The bucket's name is the head's own copy of it (the head's local name). */
        const char *name = head->name;
        size_t len = head->name_len;
        if (!name || len != (size_t)RSTRING_LEN(key) || memcmp(name, RSTRING_PTR(key), len) != 0) {
            /* Tables are keyed by their entries' names; anything else is a bug. */
            rb_raise(rb_eArgError, "plan table key %" PRIsVALUE " does not name its entry", rb_inspect(key));
        }
        uint32_t h = wb_xplan_hash_name(name, len);
        size_t slot = h & table->mask;
        while (table->buckets[slot].entry) slot = (slot + 1) & table->mask;
        table->buckets[slot].name = name;
        table->buckets[slot].len = len;
        table->buckets[slot].hash = h;
        table->buckets[slot].entry = head;
    }
    RB_GC_GUARD(pairs);
}

typedef struct compile_args {
    VALUE plan;
    VALUE self;
    compile_state *cs;
} compile_args;

static VALUE compile_body(VALUE arg)
{
    compile_args *a = (compile_args *)arg;
    compile_state *cs = a->cs;
    wb_xplan *p = cs->plan;
    VALUE ruby = a->plan;
    p->klass = rb_funcall(ruby, id_klass, 0);
    p->size = NUM2LONG(rb_funcall(ruby, id_size, 0));
    VALUE attributes = rb_funcall(p->klass, id_attributes, 0);
    Check_Type(attributes, T_ARRAY);
    /* Records are built by the __wb_fill_vN generated for the plan's schema, one
     * argument per attribute: a schema changed since has a method of its own. */
    if (RARRAY_LEN(attributes) != p->size) rb_raise(rb_eArgError, "plan size does not match %" PRIsVALUE ".attributes", p->klass);
    p->filler = rb_sym2id(rb_funcall(ruby, id_filler, 0));
    p->checked = RTEST(rb_funcall(ruby, id_checked, 0));
    p->home = copy_string(rb_funcall(ruby, id_namespace, 0), &p->home_len);
    schedule(cs, &p->table, rb_funcall(ruby, id_table, 0));
    VALUE any = rb_funcall(ruby, id_any, 0);
    if (!NIL_P(any)) p->any = compile_entry(cs, any);
    schedule(cs, &p->attributes, rb_funcall(ruby, id_attributes, 0));
    VALUE text = rb_funcall(ruby, id_text, 0);
    if (!NIL_P(text)) p->text = compile_entry(cs, text);
    /* Wrappers may nest: a worklist, not recursion. */
    while (cs->pending_count) {
        pending_table job = cs->pending[--cs->pending_count];
        fill_table(cs, job.table, job.hash);
    }
    return Qnil;
}

static VALUE compile_cleanup(VALUE arg)
{
    compile_args *a = (compile_args *)arg;
    ruby_xfree(a->cs->pending);
    a->cs->pending = NULL;
    return Qnil;
}

VALUE wb_xplan_compile(VALUE ruby_plan)
{
    wb_xplan *p;
    VALUE self = TypedData_Make_Struct(rb_cObject, wb_xplan, &wb_xplan_type, p);
    p->klass = Qnil;
    compile_state cs = {p, NULL, 0, 0, rb_ary_new()};
    compile_args args = {ruby_plan, self, &cs};
    rb_ensure(compile_body, (VALUE)&args, compile_cleanup, (VALUE)&args);
    RB_GC_GUARD(cs.keep);
    rb_obj_freeze(self);
    return self;
}

const wb_xplan *wb_xplan_entry_plan(wb_xplan_entry *e)
{
    if (!e->plan) {
        /* Models may refer to each other (or themselves): resolved on first use. */
        VALUE plan = rb_funcall(mNative, id_plan_for, 1, e->type_value);
        (void)rb_check_typeddata(plan, &wb_xplan_type);
        e->plan = plan;
    }
    return rb_check_typeddata(e->plan, &wb_xplan_type);
}
