/* The XML encoder's engine (see xml_encoder.h). Two halves:
 *
 * - compiling: a model class's Plan (lib/wirebind/xml/plan.rb) becomes a
 *   wb_xenc_plan, a flat program whose markup is prebuilt, exactly as
 *   Pure::Encoder::Generator (lib/wirebind/xml/pure/encoder.rb) builds its
 *   Ruby source; one per class, cached by the class;
 * - encoding: a loop over an explicit stack of frames, one per record being
 *   written, that runs each record's program; a nested record pushes a frame
 *   and its enclosing record resumes when it is popped. Nothing recurses on
 *   the depth of the records.
 *
 * Every Ruby object the loop holds (records, lists, plans, the IO) is marked,
 * pinned, by the encoding's TypedData, so neither the GC nor compaction can
 * take or move it while C holds its address. */
#include "xml_encoder.h"
#include <ruby/st.h>

/* Records nested deeper than this raise EncodeError: a record that contains
 * itself (which the pure encoder meets as SystemStackError) must not eat all
 * the memory there is. */
#define MAX_DEPTH 100000

static const char DECLARATION[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

static VALUE cEncoderPlan;
static VALUE sym_native_xml_encoder;
static ID id_wirebind_plan, id_for, id_root_name, id_namespace, id_prefix, id_text, id_writes, id_kind, id_type, id_list, id_name, id_uri,
    id_nil_xsi, id_attribute, id_ivar, id_message, id_describe, id_attribute_writes, id_xml, id_subtype_parts, id_top_level_subtype_p,
    id_xml_abstract_p, id_abstract_message, id_namespaces, id_default_prefix, id_needs, id_declarations, id_declaration, id_default_at_top,
    id_element_content, id_qname_attribute, id_index, id_wildcard_element, id_xml_content;
static VALUE sym_qname, sym_any;

/* Plan kinds (Plan::SCALAR, MODEL, GROUP). */
enum { PLAN_SCALAR = 0, PLAN_MODEL = 1, PLAN_GROUP = 2, PLAN_OPEN = 3 };

/* ==== compiled plans ========================================================= */

/* Grows an array the GC marks: a new one is filled before the old one goes,
 * so a collection that runs inside the allocation still sees a whole array. */
static void *grow_marked(void *old, size_t count, size_t capacity, size_t size)
{
    void *grown = ruby_xmalloc2(capacity, size);
    if (count) memcpy(grown, old, count * size);
    return grown;
}

/* A full marked array of +count+ +size+-byte elements, grown to twice
 * *capacity (+first+ when none): returns the new array, the old one freed
 * (nothing between that and the caller's assignment can run the GC). The
 * caller tests for a full array, so that the common case costs no call. */
static void *double_marked(void *array, size_t count, size_t *capacity, size_t first, size_t size)
{
    size_t grown = *capacity ? *capacity * 2 : first;
    void *bigger = grow_marked(array, count, grown, size);
    ruby_xfree(array);
    *capacity = grown;
    return bigger;
}

static void xenc_plan_mark(void *ptr)
{
    wb_xenc_plan *plan = ptr;
    rb_gc_mark_movable(plan->klass);
    for (size_t i = 0; i < plan->attribute_count; i++) rb_gc_mark_movable(plan->attributes[i].type);
    if (plan->has_text) rb_gc_mark_movable(plan->text.type);
    for (size_t i = 0; i < plan->op_count; i++) rb_gc_mark_movable(plan->ops[i].type);
}

static void xenc_plan_compact(void *ptr)
{
    wb_xenc_plan *plan = ptr;
    plan->klass = rb_gc_location(plan->klass);
    for (size_t i = 0; i < plan->attribute_count; i++) plan->attributes[i].type = rb_gc_location(plan->attributes[i].type);
    if (plan->has_text) plan->text.type = rb_gc_location(plan->text.type);
    for (size_t i = 0; i < plan->op_count; i++) plan->ops[i].type = rb_gc_location(plan->ops[i].type);
}

static void xenc_plan_free(void *ptr)
{
    wb_xenc_plan *plan = ptr;
    ruby_xfree(plan->attributes);
    ruby_xfree(plan->ops);
    ruby_xfree(plan->needs);
    ruby_xfree(plan->document_needs);
    wb_buffer_release(&plan->strings);
    ruby_xfree(plan);
}

static size_t xenc_plan_memsize(const void *ptr)
{
    const wb_xenc_plan *plan = ptr;
    return sizeof(*plan) + plan->attribute_capacity * sizeof(wb_xenc_attribute) + plan->op_capacity * sizeof(wb_xenc_op) +
           (plan->need_count + plan->document_need_count) * sizeof(wb_xenc_need) + plan->strings.capa;
}

static const rb_data_type_t plan_type = {
    "Wirebind::XML::Native::EncoderPlan",
    {xenc_plan_mark, xenc_plan_free, xenc_plan_memsize, xenc_plan_compact},
    0,
    0,
    RUBY_TYPED_FREE_IMMEDIATELY | RUBY_TYPED_FROZEN_SHAREABLE,
};

/* Bytes readable past the end of the plan's string table. */
#define PLAN_STRING_SLACK 16

/* Adds a String's bytes to the plan's string table. */
static wb_xenc_bytes xenc_intern(wb_xenc_plan *plan, VALUE str)
{
    wb_xenc_bytes bytes;
    bytes.offset = plan->strings.len;
    wb_buffer_append_str(&plan->strings, str);
    bytes.len = plan->strings.len - bytes.offset;
    /* Sixteen readable bytes past every string: see append_bytes. */
    wb_buffer_reserve(&plan->strings, PLAN_STRING_SLACK);
    memset(plan->strings.ptr + plan->strings.len, 0, PLAN_STRING_SLACK);
    RB_GC_GUARD(str);
    return bytes;
}

static VALUE xenc_utf8(const char *cstr)
{
    return rb_utf8_str_new_cstr(cstr);
}

/* Things the compiler asks of the Ruby plan, so that both backends write the same. */
typedef struct compiler {
    wb_xenc_plan *plan;
    VALUE namespace;
} compiler;

static VALUE qualified(VALUE prefix, VALUE local)
{
    VALUE name = rb_str_plus(prefix, xenc_utf8(":"));
    rb_str_append(name, local);
    return name;
}

/* A Plan::Need as a wb_xenc_need. */
static void compile_need(wb_xenc_plan *plan, wb_xenc_need *need, VALUE prefix, VALUE uri, VALUE declaration)
{
    StringValue(prefix);
    StringValue(uri);
    StringValue(declaration);
    need->prefix_id = rb_intern_str(prefix);
    need->uri_id = rb_intern_str(uri);
    need->prefix = xenc_intern(plan, prefix);
    need->pre = xenc_intern(plan, rb_str_plus(prefix, xenc_utf8(":")));
    need->declaration = xenc_intern(plan, declaration);
}

/* An Array of Plan::Need as wb_xenc_needs (xmalloc'ed; *count set). */
static wb_xenc_need *compile_needs(wb_xenc_plan *plan, VALUE needs, size_t *count)
{
    long len = RARRAY_LEN(needs);
    *count = 0;
    if (len == 0) return NULL;
    wb_xenc_need *compiled = ruby_xmalloc2((size_t)len, sizeof(wb_xenc_need));
    for (long i = 0; i < len; i++) {
        VALUE need = rb_ary_entry(needs, i);
        compile_need(plan, &compiled[i], rb_funcall(need, id_prefix, 0), rb_funcall(need, id_uri, 0), rb_funcall(need, id_declaration, 0));
    }
    *count = (size_t)len;
    return compiled;
}

/* Generator#name_parts, the part fixed at compile time: an entry in another
 * namespace than the model's is named with the prefix the plan chose for it. */
static void name_parts(const compiler *c, wb_xenc_op *op, VALUE entry, int top)
{
    VALUE local = rb_funcall(entry, id_name, 0);
    VALUE uri = rb_funcall(entry, id_uri, 0);
    if (NIL_P(local)) local = xenc_utf8("item");
    op->top = (unsigned char)top;
    if (!NIL_P(uri) && RSTRING_LEN(uri) == 0 && !NIL_P(c->namespace)) {
        /* "{}local" in a model with a namespace: unprefixed, the default reset if one is in scope. */
        op->foreign = 1;
        op->no_namespace = 1;
        op->name = xenc_intern(c->plan, local);
    } else if (!NIL_P(uri) && RSTRING_LEN(uri) > 0 && !rb_equal(uri, c->namespace)) {
        VALUE prefix = rb_funcall(entry, id_prefix, 0);
        StringValue(prefix);
        op->foreign = 1;
        op->name = xenc_intern(c->plan, qualified(prefix, local));
    } else {
        op->name = xenc_intern(c->plan, local);
    }
}

static wb_xenc_op *new_op(wb_xenc_plan *plan)
{
    if (plan->op_count == plan->op_capacity)
        plan->ops = double_marked(plan->ops, plan->op_count, &plan->op_capacity, 16, sizeof(wb_xenc_op));
    /* Filled in by the caller before op_count counts it (the GC marks only
     * counted ops). */
    wb_xenc_op *op = &plan->ops[plan->op_count];
    memset(op, 0, sizeof(*op));
    op->type = Qnil;
    return op;
}

/* Generator#element, #one_value, #model_value for one slot. */
static void add_attribute(const compiler *c, VALUE slot, VALUE field);

static void add_element(const compiler *c, VALUE slot, int top)
{
    wb_xenc_plan *plan = c->plan;
    VALUE attribute = rb_funcall(slot, id_attribute, 0);
    VALUE type = rb_funcall(slot, id_type, 0);
    VALUE field = rb_funcall(attribute, id_xml, 0);
    VALUE ivar = rb_funcall(attribute, id_ivar, 0);
    int kind = FIX2INT(rb_funcall(slot, id_kind, 0));
    int model = kind == PLAN_MODEL;
    StringValue(field);

    wb_xenc_op *op = new_op(plan);
    op->code = model ? WB_XENC_OP_MODEL : kind == PLAN_OPEN || type == sym_qname ? WB_XENC_OP_CONTENT : WB_XENC_OP_SCALAR;
    op->format = (unsigned char)(model ? WB_FORMAT_OTHER : wb_format_kind_of(type));
    op->list = RTEST(rb_funcall(slot, id_list, 0));
    op->nil_xsi = RTEST(rb_funcall(slot, id_nil_xsi, 0));
    op->named = !NIL_P(rb_funcall(slot, id_name, 0));
    op->ivar = rb_sym2id(ivar);
    op->type = type;
    op->field = xenc_intern(plan, field);
    name_parts(c, op, slot, top);
    size_t at = plan->op_count++;
    /* A single scalar's XML attributes by path ("Amt" beside "Amt/@Ccy"). */
    VALUE attributes = rb_funcall(slot, id_attribute_writes, 0);
    if (NIL_P(attributes)) return;
    size_t first = plan->attribute_count;
    for (long i = 0; i < RARRAY_LEN(attributes); i++) {
        VALUE attribute_slot = rb_ary_entry(attributes, i);
        add_attribute(c, attribute_slot, rb_funcall(rb_funcall(attribute_slot, id_attribute, 0), id_xml, 0));
    }
    plan->ops[at].attribute_first = first;
    plan->ops[at].attribute_count = plan->attribute_count - first;
    RB_GC_GUARD(attributes);
}

/* Generator#attribute and #group_attributes (+field+ is then the whole path):
 * a namespaced attribute is named with the prefix the plan chose, which the
 * record's needs bind. */
static void add_attribute(const compiler *c, VALUE slot, VALUE field)
{
    wb_xenc_plan *plan = c->plan;
    VALUE local = rb_funcall(slot, id_name, 0);
    VALUE uri = rb_funcall(slot, id_uri, 0);
    VALUE name = local;
    if (!NIL_P(uri)) {
        VALUE prefix = rb_funcall(slot, id_prefix, 0);
        StringValue(prefix);
        name = qualified(prefix, local);
    }
    VALUE attribute = rb_funcall(slot, id_attribute, 0);
    VALUE type = rb_funcall(slot, id_type, 0);
    VALUE ivar = rb_funcall(attribute, id_ivar, 0);
    if (NIL_P(field)) field = rb_str_plus(xenc_utf8("@"), local);
    VALUE markup = rb_str_plus(xenc_utf8(" "), name);
    rb_str_cat_cstr(markup, "=\"");

    if (plan->attribute_count == plan->attribute_capacity)
        plan->attributes = double_marked(plan->attributes, plan->attribute_count, &plan->attribute_capacity, 4, sizeof(wb_xenc_attribute));
    wb_xenc_attribute *entry = &plan->attributes[plan->attribute_count];
    memset(entry, 0, sizeof(*entry));
    entry->type = type;
    entry->format = (unsigned char)wb_format_kind_of(type);
    entry->qname_index = type == sym_qname ? NUM2LONG(rb_funcall(slot, id_index, 0)) : -1;
    entry->ivar = rb_sym2id(ivar);
    entry->field = xenc_intern(plan, field);
    entry->prefix = xenc_intern(plan, markup);
    plan->attribute_count++;
}

/* Generator#text_content. */
static void add_text(const compiler *c, VALUE slot)
{
    wb_xenc_plan *plan = c->plan;
    VALUE attribute = rb_funcall(slot, id_attribute, 0);
    VALUE type = rb_funcall(slot, id_type, 0);
    VALUE ivar = rb_funcall(attribute, id_ivar, 0);
    wb_xenc_attribute *entry = &plan->text;
    memset(entry, 0, sizeof(*entry));
    entry->type = type;
    entry->format = (unsigned char)wb_format_kind_of(type);
    entry->ivar = rb_sym2id(ivar);
    entry->field = xenc_intern(plan, xenc_utf8("."));
    plan->has_text = 1;
    plan->text_xml = FIX2INT(rb_funcall(slot, id_kind, 0)) == PLAN_OPEN;
}

/* Generator#group and the writes loop of #source, without recursion: the
 * wrappers being written sit on a Ruby Array of [writes, next index, index of
 * the wrapper's start op]. Only the record's own children are "top". */
static void add_writes(const compiler *c, VALUE writes)
{
    wb_xenc_plan *plan = c->plan;
    VALUE pending = rb_ary_new();
    rb_ary_push(pending, rb_ary_new_from_args(3, writes, INT2FIX(0), Qnil));
    while (RARRAY_LEN(pending) > 0) {
        VALUE top = rb_ary_entry(pending, -1);
        VALUE entries = rb_ary_entry(top, 0);
        long index = FIX2LONG(rb_ary_entry(top, 1));
        if (index >= RARRAY_LEN(entries)) {
            VALUE open = rb_ary_entry(top, 2);
            if (!NIL_P(open)) {
                /* The wrapper's end tag: its start's name. */
                wb_xenc_op *op = new_op(plan);
                *op = plan->ops[FIX2LONG(open)];
                op->code = WB_XENC_OP_CLOSE;
                plan->op_count++;
            }
            rb_ary_pop(pending);
            continue;
        }
        rb_ary_store(top, 1, LONG2FIX(index + 1));
        int at_top = RARRAY_LEN(pending) == 1;
        VALUE entry = rb_ary_entry(entries, index);
        if (FIX2INT(rb_funcall(entry, id_kind, 0)) == PLAN_GROUP) {
            wb_xenc_op *op = new_op(plan);
            op->code = WB_XENC_OP_OPEN;
            name_parts(c, op, entry, at_top);
            VALUE open_index = LONG2FIX((long)plan->op_count);
            plan->op_count++;
            VALUE attributes = rb_funcall(entry, id_attribute_writes, 0);
            size_t first = plan->attribute_count;
            for (long i = 0; i < RARRAY_LEN(attributes); i++) {
                VALUE slot = rb_ary_entry(attributes, i);
                add_attribute(c, slot, rb_funcall(rb_funcall(slot, id_attribute, 0), id_xml, 0));
            }
            op = &plan->ops[FIX2LONG(open_index)];
            op->attribute_first = first;
            op->attribute_count = plan->attribute_count - first;
            rb_ary_push(pending, rb_ary_new_from_args(3, rb_funcall(entry, id_writes, 0), INT2FIX(0), open_index));
        } else {
            add_element(c, entry, at_top);
        }
    }
    RB_GC_GUARD(pending);
}

VALUE wb_xenc_plan_compile(VALUE klass)
{
    wb_xenc_plan *plan;
    VALUE object = TypedData_Make_Struct(cEncoderPlan, wb_xenc_plan, &plan_type, plan);
    plan->klass = klass;
    plan->text.type = Qnil;
    wb_buffer_init(&plan->strings);

    VALUE source = rb_funcall(wb_hooks.cXMLPlan, id_for, 1, klass);
    VALUE namespaces = rb_funcall(wb_hooks.cXMLPlan, id_namespaces, 1, klass);
    VALUE root_name = rb_funcall(source, id_root_name, 0);
    VALUE namespace = rb_funcall(source, id_namespace, 0);
    VALUE prefix = rb_funcall(source, id_prefix, 0);
    StringValue(root_name);
    compiler c = {plan, namespace};

    plan->root_name = xenc_intern(plan, root_name);
    plan->root_tag = xenc_intern(plan, NIL_P(prefix) ? root_name : qualified(prefix, root_name));
    VALUE nil_suffix = xenc_utf8(" xsi:nil=\"true\"");
    rb_str_append(nil_suffix, wb_hooks.xsi_declaration);
    rb_str_cat_cstr(nil_suffix, "/>");
    plan->nil_suffix = xenc_intern(plan, nil_suffix);
    plan->top_subtype = RTEST(rb_funcall(wb_hooks.mXML, id_top_level_subtype_p, 1, klass));
    plan->abstract = RTEST(rb_funcall(klass, id_xml_abstract_p, 0));

    /* Generator#scope, the part fixed at compile time. */
    if (NIL_P(namespace)) {
        plan->namespace_mode = WB_XENC_NS_NONE;
    } else if (!NIL_P(prefix)) {
        plan->namespace_mode = WB_XENC_NS_PREFIXED;
        plan->prefix = xenc_intern(plan, rb_str_plus(prefix, xenc_utf8(":")));
    } else {
        plan->namespace_mode = WB_XENC_NS_DEFAULT;
        VALUE escaped = rb_funcall(wb_hooks.cXMLEncoder, id_attribute, 1, namespace);
        StringValue(escaped);
        VALUE default_declaration = xenc_utf8(" xmlns=\"");
        rb_str_append(default_declaration, escaped);
        rb_str_cat_cstr(default_declaration, "\"");
        plan->default_declaration = xenc_intern(plan, default_declaration);
        VALUE own = rb_funcall(source, id_default_prefix, 0);
        compile_need(plan, &plan->own, own, namespace, rb_funcall(wb_hooks.cXMLEncoder, id_declaration, 2, own, namespace));
    }
    if (!NIL_P(namespace)) plan->uri = xenc_intern(plan, namespace);
    plan->default_at_top = RTEST(rb_funcall(namespaces, id_default_at_top, 0));
    plan->needs = compile_needs(plan, rb_funcall(source, id_needs, 0), &plan->need_count);
    plan->document_needs = compile_needs(plan, rb_funcall(namespaces, id_needs, 0), &plan->document_need_count);
    plan->document_declarations = xenc_intern(plan, rb_funcall(namespaces, id_declarations, 0));

    VALUE attributes = rb_funcall(source, id_attribute_writes, 0);
    for (long i = 0; i < RARRAY_LEN(attributes); i++) add_attribute(&c, rb_ary_entry(attributes, i), Qnil);
    plan->record_attribute_count = plan->attribute_count;
    VALUE text = rb_funcall(source, id_text, 0);
    if (!NIL_P(text)) add_text(&c, text);
    add_writes(&c, rb_funcall(source, id_writes, 0));

    RB_GC_GUARD(source);
    RB_GC_GUARD(namespaces);
    RB_GC_GUARD(attributes);
    return rb_obj_freeze(object);
}

static VALUE plan_block(RB_BLOCK_CALL_FUNC_ARGLIST(yielded, klass))
{
    return wb_xenc_plan_compile(klass);
}

VALUE wb_xenc_plan_for(VALUE klass)
{
    VALUE plan = rb_block_call(klass, id_wirebind_plan, 1, &sym_native_xml_encoder, plan_block, klass);
    /* Whatever sits under the key must be one of ours before C trusts it. */
    rb_check_typeddata(plan, &plan_type);
    return plan;
}

/* ==== encoding ============================================================== */

static const char RESET[] = " xmlns=\"\"";

/* One record being written: the arguments of the generated write, and the
 * locals its scope computed. */
typedef struct frame {
    const wb_xenc_plan *plan;
    VALUE record;
    const char *tag_prefix; /* tag = tag_prefix + tag_name: "pre + name" */
    size_t tag_prefix_len;
    const char *tag_name;
    size_t tag_name_len;
    const wb_xenc_plan *default_ns; /* the plan whose namespace is the default in scope (NULL: none) */
    int nested;
    /* Generator#scope */
    const char *pre; /* the prefix of the record's own children: "" or "p:" */
    size_t pre_len;
    int reset; /* its unprefixed children reset the default namespace */
    const wb_xenc_plan *child_default;
    size_t bound; /* bindings its element declared, released at its end tag */
    /* where the program is */
    size_t pc;         /* the next op */
    VALUE list;        /* the list the op at pc is writing, or Qundef */
    long index;        /* its next item */
    const char *field; /* what is being written, for EncodeError#path (NULL: the element itself) */
    size_t field_len;
} frame;

/* A namespace binding in scope (Pure::Encoder::Scope): the prefix and URI,
 * the "p:" written for it, and what the scope's tables held before it. */
typedef struct binding {
    ID prefix;
    ID uri;
    const char *pre;
    size_t pre_len;
    long previous_of_prefix; /* the binding the prefix had (-1: none) */
    long previous_of_uri;    /* the binding the URI was found by (-1: none) */
} binding;

/* One call of encode_value. */
typedef struct encoding {
    wb_buffer buffer;
    VALUE value;
    VALUE io;
    int xsi_all;
    int declaration;
    size_t written;
    char *root;
    size_t root_len;
    char *item;
    size_t item_len;
    frame *frames;
    size_t depth;
    size_t capacity;
    st_table *plans; /* class => plan object, for this call */
    VALUE last_class;
    const wb_xenc_plan *last_plan;
    /* the scope: bindings in the order declared, and the current one of each
     * prefix and of each URI (ID => index) */
    binding *bindings;
    size_t binding_count, binding_capacity;
    st_table *by_prefix;
    st_table *by_uri;
} encoding;

static int mark_plan_entry(st_data_t key, st_data_t value, st_data_t arg)
{
    rb_gc_mark((VALUE)key);
    rb_gc_mark((VALUE)value);
    return ST_CONTINUE;
}

/* Pins everything: C holds these objects' addresses. */
static void xenc_encoding_mark(void *ptr)
{
    encoding *enc = ptr;
    rb_gc_mark(enc->value);
    rb_gc_mark(enc->io);
    for (size_t i = 0; i < enc->depth; i++) {
        rb_gc_mark(enc->frames[i].record);
        if (enc->frames[i].list != Qundef) rb_gc_mark(enc->frames[i].list);
    }
    if (enc->plans) st_foreach(enc->plans, mark_plan_entry, 0);
}

static void xenc_encoding_release(encoding *enc)
{
    wb_buffer_release(&enc->buffer);
    ruby_xfree(enc->frames);
    enc->frames = NULL;
    enc->depth = enc->capacity = 0;
    ruby_xfree(enc->root);
    enc->root = NULL;
    ruby_xfree(enc->item);
    enc->item = NULL;
    if (enc->plans) st_free_table(enc->plans);
    enc->plans = NULL;
    enc->last_class = Qundef;
    enc->last_plan = NULL;
    ruby_xfree(enc->bindings);
    enc->bindings = NULL;
    enc->binding_count = enc->binding_capacity = 0;
    if (enc->by_prefix) st_free_table(enc->by_prefix);
    enc->by_prefix = NULL;
    if (enc->by_uri) st_free_table(enc->by_uri);
    enc->by_uri = NULL;
}

static void xenc_encoding_free(void *ptr)
{
    xenc_encoding_release(ptr);
    ruby_xfree(ptr);
}

static size_t xenc_encoding_memsize(const void *ptr)
{
    const encoding *enc = ptr;
    return sizeof(*enc) + enc->buffer.capa + enc->capacity * sizeof(frame) + enc->binding_capacity * sizeof(binding);
}

static const rb_data_type_t encoding_type = {
    "wirebind/xml_encoding", {xenc_encoding_mark, xenc_encoding_free, xenc_encoding_memsize, NULL}, 0, 0, RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Pure::Encoder.for(klass), memoized for this call: a record's class is only
 * asked for its plan once per document. */
NORETURN(static void xenc_fail(const encoding *enc, VALUE message));

static const wb_xenc_plan *xenc_plan_of(encoding *enc, VALUE klass)
{
    if (klass == enc->last_class) return enc->last_plan;
    st_data_t found;
    VALUE object;
    if (enc->plans && st_lookup(enc->plans, (st_data_t)klass, &found)) {
        object = (VALUE)found;
    } else {
        object = wb_xenc_plan_for(klass);
        if (!enc->plans) enc->plans = st_init_numtable();
        st_insert(enc->plans, (st_data_t)klass, (st_data_t)object);
    }
    const wb_xenc_plan *plan = RTYPEDDATA_DATA(object);
    RB_GC_GUARD(object);
    if (plan->abstract) xenc_fail(enc, rb_funcall(wb_hooks.mXML, id_abstract_message, 1, klass));
    enc->last_class = klass;
    enc->last_plan = plan;
    return plan;
}

static void append_tag(VALUE path, const frame *f)
{
    rb_str_cat(path, f->tag_prefix, (long)f->tag_prefix_len);
    rb_str_cat(path, f->tag_name, (long)f->tag_name_len);
}

/* EncodeError#path: the tags of the records being written, then the field. */
static VALUE current_path(const encoding *enc)
{
    VALUE path = rb_utf8_str_new(NULL, 0);
    for (size_t i = 0; i < enc->depth; i++) {
        if (i > 0) rb_str_cat(path, "/", 1);
        append_tag(path, &enc->frames[i]);
    }
    if (enc->depth > 0 && enc->frames[enc->depth - 1].field) {
        rb_str_cat(path, "/", 1);
        rb_str_cat(path, enc->frames[enc->depth - 1].field, (long)enc->frames[enc->depth - 1].field_len);
    }
    return path;
}

/* The rescue clauses of the generated write: raise EncodeError at the path of
 * what is being written. */
NORETURN(static void xenc_fail(const encoding *enc, VALUE message));
static void xenc_fail(const encoding *enc, VALUE message)
{
    wb_error_raise_encode(message, current_path(enc));
}

/* "expected <what>, got <Types.describe(value)>" */
NORETURN(static void xenc_fail_expected(const encoding *enc, VALUE what, VALUE value));
static void xenc_fail_expected(const encoding *enc, VALUE what, VALUE value)
{
    VALUE message = xenc_utf8("expected ");
    rb_str_append(message, what);
    rb_str_cat_cstr(message, ", got ");
    rb_str_append(message, rb_funcall(wb_hooks.mTypes, id_describe, 1, value));
    xenc_fail(enc, message);
}

/* A string of the plan (a name, a prefix, a declaration). Most are names of a
 * few bytes, appended several times per record: one sixteen-byte move (the
 * table has that many bytes past every string, the buffer room for them; the
 * bytes past the string's end are written over next), not a call to memcpy. */
static inline void append_bytes(encoding *enc, const wb_xenc_plan *plan, wb_xenc_bytes bytes)
{
    wb_buffer *buffer = &enc->buffer;
    if (bytes.len <= PLAN_STRING_SLACK && buffer->capa - buffer->len >= PLAN_STRING_SLACK) {
        memcpy(buffer->ptr + buffer->len, WB_XENC_PTR(plan, bytes), PLAN_STRING_SLACK);
        buffer->len += bytes.len;
        return;
    }
    wb_buffer_append(buffer, WB_XENC_PTR(plan, bytes), bytes.len);
}

static inline void set_field(frame *f, const wb_xenc_plan *plan, wb_xenc_bytes field)
{
    f->field = WB_XENC_PTR(plan, field);
    f->field_len = field.len;
}

/* `ns == uri` in the generated code: is the namespace in scope the plan's? */
#if RUBY_API_VERSION_CODE < 30200
/* The slot of `ivar` in a record's ivar array, learned from a record: the one
 * slot that holds the (non-nil) value rb_ivar_get gives; not learned while
 * another slot holds the same value (or it is nil), the next record may tell. */
static NOINLINE(VALUE learn_ivar(VALUE record, ID ivar, uint32_t *slot));
static VALUE learn_ivar(VALUE record, ID ivar, uint32_t *slot)
{
    VALUE value = rb_ivar_get(record, ivar);
    if (NIL_P(value)) return value;
    uint32_t count = ROBJECT_NUMIV(record), found = 0;
    const VALUE *ivars = ROBJECT_IVPTR(record);
    for (uint32_t k = 0; k < count; k++) {
        if (ivars[k] != value) continue;
        if (found) return value;
        found = k + 1;
    }
    if (found) __atomic_store_n(slot, found, __ATOMIC_RELAXED);
    return value;
}
#endif

/* A record's attribute: rb_ivar_get looks the name up in the class's index
 * table on every read (a tenth of an encode). Ruby 3.1 keeps a T_OBJECT's ivars
 * in an array indexed by that table, shared by every instance of exactly that
 * class and never changed once given: for a record of exactly the plan's class,
 * the slot learned once (kept in the plan, written relaxed: every writer
 * writes the same) is read directly. Ruby 3.2's object shapes: by name. */
static inline VALUE read_ivar(const wb_xenc_plan *plan, VALUE record, ID ivar, const uint32_t *slot)
{
#if RUBY_API_VERSION_CODE < 30200
    if (RB_TYPE_P(record, T_OBJECT) && RBASIC_CLASS(record) == plan->klass) {
        uint32_t known = __atomic_load_n(slot, __ATOMIC_RELAXED);
        if (!known) return learn_ivar(record, ivar, (uint32_t *)slot); /* the plan's one mutable field */
        if (known <= ROBJECT_NUMIV(record)) {
            VALUE value = ROBJECT_IVPTR(record)[known - 1];
            return value == Qundef ? Qnil : value;
        }
    }
#endif
    return rb_ivar_get(record, ivar);
}

static inline int same_namespace(const wb_xenc_plan *ns, const wb_xenc_plan *plan)
{
    return ns && ns->uri.len == plan->uri.len && memcmp(WB_XENC_PTR(ns, ns->uri), WB_XENC_PTR(plan, plan->uri), plan->uri.len) == 0;
}

/* ---- the scope (Pure::Encoder::Scope) ---- */

static long scope_lookup(st_table *table, ID key)
{
    st_data_t found;
    return table && st_lookup(table, (st_data_t)key, &found) ? (long)found : -1;
}

/* Adds a binding; `replace_uri` 0 keeps the binding a URI is already found by
 * (the document element's first prefix for it). */
static void scope_push(encoding *enc, ID prefix, ID uri, const char *pre, size_t pre_len, int replace_uri)
{
    if (enc->binding_count == enc->binding_capacity) {
        size_t capacity = enc->binding_capacity ? enc->binding_capacity * 2 : 16;
        enc->bindings = ruby_xrealloc2(enc->bindings, capacity, sizeof(binding));
        enc->binding_capacity = capacity;
    }
    if (!enc->by_prefix) enc->by_prefix = st_init_numtable();
    if (!enc->by_uri) enc->by_uri = st_init_numtable();
    long index = (long)enc->binding_count++;
    binding *b = &enc->bindings[index];
    b->prefix = prefix;
    b->uri = uri;
    b->pre = pre;
    b->pre_len = pre_len;
    b->previous_of_prefix = scope_lookup(enc->by_prefix, prefix);
    b->previous_of_uri = scope_lookup(enc->by_uri, uri);
    st_insert(enc->by_prefix, (st_data_t)prefix, (st_data_t)index);
    if (replace_uri || b->previous_of_uri < 0) st_insert(enc->by_uri, (st_data_t)uri, (st_data_t)index);
}

/* Scope#release: undoes the last `count` bindings. */
static void scope_release(encoding *enc, size_t count)
{
    while (count-- > 0) {
        binding *b = &enc->bindings[--enc->binding_count];
        st_data_t key = (st_data_t)b->prefix;
        if (b->previous_of_prefix < 0)
            st_delete(enc->by_prefix, &key, NULL);
        else
            st_insert(enc->by_prefix, key, (st_data_t)b->previous_of_prefix);
        key = (st_data_t)b->uri;
        if (b->previous_of_uri < 0)
            st_delete(enc->by_uri, &key, NULL);
        else
            st_insert(enc->by_uri, key, (st_data_t)b->previous_of_uri);
    }
}

/* `uris[prefix]`: the URI bound to the prefix, or 0. */
static ID scope_uri(const encoding *enc, ID prefix)
{
    long index = scope_lookup(enc->by_prefix, prefix);
    return index < 0 ? 0 : enc->bindings[index].uri;
}

/* Scope#pre_for: the binding of a prefix bound to `uri` in scope, or NULL. */
static const binding *scope_pre_for(const encoding *enc, ID uri)
{
    long index = scope_lookup(enc->by_uri, uri);
    if (index < 0) return NULL;
    const binding *b = &enc->bindings[index];
    return scope_uri(enc, b->prefix) == uri ? b : NULL;
}

/* The byte at `at` of the frame's tag (tag_prefix + tag_name); `at` is in range. */
static char tag_byte(const frame *f, size_t at)
{
    return at < f->tag_prefix_len ? f->tag_prefix[at] : f->tag_name[at - f->tag_prefix_len];
}

/* Whether the frame's tag is "prefix:..." */
static int tag_uses_prefix(const frame *f, const char *prefix, size_t len)
{
    if (f->tag_prefix_len + f->tag_name_len <= len) return 0;
    for (size_t i = 0; i < len; i++) {
        if (tag_byte(f, i) != prefix[i]) return 0;
    }
    return tag_byte(f, len) == ':';
}

static int contains(const char *haystack, size_t haystack_len, const char *needle, size_t needle_len)
{
    if (needle_len == 0 || needle_len > haystack_len) return needle_len == 0;
    for (size_t i = 0; i + needle_len <= haystack_len; i++) {
        if (haystack[i] == needle[0] && memcmp(haystack + i, needle, needle_len) == 0) return 1;
    }
    return 0;
}

/* Scope#bind: declares `need` on the element being written (unless the start
 * tag's additions did: an xsi:type's namespace). */
static void scope_bind(encoding *enc, frame *f, const wb_xenc_plan *plan, const wb_xenc_need *need, const char *tag_declaration,
                       size_t tag_declaration_len)
{
    ID current = scope_uri(enc, need->prefix_id);
    const char *prefix = WB_XENC_PTR(plan, need->prefix);
    if (current && tag_uses_prefix(f, prefix, need->prefix.len)) {
        VALUE tag = rb_utf8_str_new(NULL, 0);
        append_tag(tag, f);
        VALUE message = rb_sprintf("the prefix %" PRIsVALUE " of <%" PRIsVALUE "> stands for %" PRIsVALUE
                                   ", and its content needs it for %" PRIsVALUE ": declare another prefix for one of them",
                                   rb_inspect(rb_id2str(need->prefix_id)), tag, rb_inspect(rb_id2str(current)),
                                   rb_inspect(rb_id2str(need->uri_id)));
        xenc_fail(enc, message);
    }
    if (!contains(tag_declaration, tag_declaration_len, WB_XENC_PTR(plan, need->declaration), need->declaration.len)) {
        append_bytes(enc, plan, need->declaration);
    }
    scope_push(enc, need->prefix_id, need->uri_id, WB_XENC_PTR(plan, need->pre), need->pre.len, 1);
    f->bound++;
}

/* The document element's bindings (Plan.namespaces). */
static void scope_declare_document(encoding *enc, const wb_xenc_plan *plan)
{
    for (size_t i = 0; i < plan->document_need_count; i++) {
        const wb_xenc_need *need = &plan->document_needs[i];
        scope_push(enc, need->prefix_id, need->uri_id, WB_XENC_PTR(plan, need->pre), need->pre.len, 0);
    }
}

/* The start of a record's element: the generated write up to its first child
 * (Generator#scope, start tag, declarations, XML attributes, text). A NULL
 * tag_name is the class's own root name, in its namespace. */
static void write_attributes(encoding *enc, frame *f, size_t first, size_t count);

static void open_record(encoding *enc, frame *f, const char *tag_declaration, size_t tag_declaration_len)
{
    const wb_xenc_plan *plan = f->plan;
    wb_buffer *buffer = &enc->buffer;
    int own_name = f->tag_name == NULL;
    const wb_xenc_need *own = NULL;
    int default_declaration = 0;

    f->pre = "";
    f->pre_len = 0;
    f->reset = 0;
    f->child_default = f->default_ns;
    switch (plan->namespace_mode) {
    case WB_XENC_NS_NONE:
        f->reset = f->default_ns != NULL;
        f->child_default = NULL;
        if (own_name) {
            f->tag_name = WB_XENC_PTR(plan, plan->root_name);
            f->tag_name_len = plan->root_name.len;
        }
        break;
    case WB_XENC_NS_PREFIXED:
        f->pre = WB_XENC_PTR(plan, plan->prefix);
        f->pre_len = plan->prefix.len;
        if (own_name) {
            f->tag_name = WB_XENC_PTR(plan, plan->root_tag);
            f->tag_name_len = plan->root_tag.len;
        }
        break;
    default: /* WB_XENC_NS_DEFAULT */
        if (same_namespace(f->default_ns, plan)) {
            /* already the default namespace */
        } else if (!f->nested && plan->default_at_top) {
            default_declaration = 1;
            f->child_default = plan;
        } else {
            const binding *bound = scope_pre_for(enc, plan->own.uri_id);
            if (bound) {
                f->pre = bound->pre;
                f->pre_len = bound->pre_len;
            } else {
                own = &plan->own;
                f->pre = WB_XENC_PTR(plan, own->pre);
                f->pre_len = own->pre.len;
            }
            /* At the top, or a "*" item: the name is in the model's namespace. */
            if (own_name || !f->nested) {
                f->tag_prefix = f->pre;
                f->tag_prefix_len = f->pre_len;
            }
        }
        if (own_name) {
            f->tag_name = WB_XENC_PTR(plan, plan->root_name);
            f->tag_name_len = plan->root_name.len;
        }
        break;
    }

    wb_buffer_append_char(buffer, '<');
    wb_buffer_append(buffer, f->tag_prefix, f->tag_prefix_len);
    wb_buffer_append(buffer, f->tag_name, f->tag_name_len);
    /* A "*" item without a namespace under a default one resets it. */
    if (own_name && f->reset) wb_buffer_append_literal(buffer, RESET);
    if (default_declaration) append_bytes(enc, plan, plan->default_declaration);
    wb_buffer_append(buffer, tag_declaration, tag_declaration_len);

    if (own) scope_bind(enc, f, plan, own, tag_declaration, tag_declaration_len);
    for (size_t i = 0; i < plan->need_count; i++) {
        const wb_xenc_need *need = &plan->needs[i];
        if (scope_uri(enc, need->prefix_id) != need->uri_id) scope_bind(enc, f, plan, need, tag_declaration, tag_declaration_len);
    }

    write_attributes(enc, f, 0, plan->record_attribute_count);
    wb_buffer_append_char(buffer, '>');

    if (plan->has_text) {
        set_field(f, plan, plan->text.field);
        VALUE value = read_ivar(plan, f->record, plan->text.ivar, &plan->text.ivar_slot);
        if (NIL_P(value)) {
            /* nothing */
        } else if (plan->text_xml) {
            VALUE content = rb_funcall(wb_hooks.mXMLOpenContent, id_xml_content, 1, value);
            StringValue(content);
            wb_buffer_append_str(buffer, content);
            RB_GC_GUARD(content);
        } else {
            wb_format_write(buffer, (wb_format_kind)plan->text.format, plan->text.type, value, WB_FORMAT_ESCAPE_TEXT);
        }
        RB_GC_GUARD(value);
    }
}

/* Starts writing a record: a new frame, and its start tag. */
static void xenc_push_record(encoding *enc, const wb_xenc_plan *plan, VALUE record, const char *tag_prefix, size_t tag_prefix_len,
                             const char *tag_name, size_t tag_name_len, const char *tag_declaration, size_t tag_declaration_len,
                             const wb_xenc_plan *default_ns, int nested)
{
    if (enc->depth >= MAX_DEPTH) {
        VALUE message = rb_sprintf("records nest more than %d deep (does a record contain itself?)", MAX_DEPTH);
        VALUE path = rb_utf8_str_new(NULL, 0);
        append_tag(path, &enc->frames[0]);
        wb_error_raise_encode(message, path);
    }
    if (enc->depth == enc->capacity) enc->frames = double_marked(enc->frames, enc->depth, &enc->capacity, 16, sizeof(frame));
    frame *f = &enc->frames[enc->depth];
    memset(f, 0, sizeof(*f));
    f->plan = plan;
    f->record = record;
    f->tag_prefix = tag_prefix;
    f->tag_prefix_len = tag_prefix_len;
    f->tag_name = tag_name;
    f->tag_name_len = tag_name_len;
    f->default_ns = default_ns;
    f->nested = nested;
    f->list = Qundef;
    enc->depth++; /* only now does the GC see (and pin) the record */
    open_record(enc, f, tag_declaration, tag_declaration_len);
}

/* Generator#attribute and #group_attributes: plan->attributes[first, first + count) of the record. */
static void write_attributes(encoding *enc, frame *f, size_t first, size_t count)
{
    const wb_xenc_plan *plan = f->plan;
    for (size_t i = first; i < first + count; i++) {
        const wb_xenc_attribute *attribute = &plan->attributes[i];
        set_field(f, plan, attribute->field);
        VALUE value = read_ivar(plan, f->record, attribute->ivar, &attribute->ivar_slot);
        if (NIL_P(value)) continue;
        append_bytes(enc, plan, attribute->prefix);
        if (attribute->qname_index >= 0) {
            /* OpenContent.qname_attribute: the value, the quote and its prefix's declaration. */
            VALUE markup = rb_funcall(wb_hooks.mXMLOpenContent, id_qname_attribute, 3, value, f->child_default ? Qtrue : Qfalse,
                                      LONG2NUM(attribute->qname_index));
            StringValue(markup);
            wb_buffer_append_str(&enc->buffer, markup);
            RB_GC_GUARD(markup);
            continue;
        }
        wb_format_write(&enc->buffer, (wb_format_kind)attribute->format, attribute->type, value, WB_FORMAT_ESCAPE_ATTRIBUTE);
        wb_buffer_append_char(&enc->buffer, '"');
        RB_GC_GUARD(value);
    }
}

/* Generator#name_parts: "<name" with the reset of the default namespace it may need. */
static void open_name(encoding *enc, const frame *f, const wb_xenc_op *op)
{
    const wb_xenc_plan *plan = f->plan;
    wb_buffer_append_char(&enc->buffer, '<');
    if (op->foreign) {
        append_bytes(enc, plan, op->name);
        if (op->no_namespace && f->child_default) wb_buffer_append_literal(&enc->buffer, RESET);
    } else {
        wb_buffer_append(&enc->buffer, f->pre, f->pre_len);
        append_bytes(enc, plan, op->name);
        if (op->top && f->reset) wb_buffer_append_literal(&enc->buffer, RESET);
    }
}

static void close_name(encoding *enc, const frame *f, const wb_xenc_op *op)
{
    wb_buffer_append_literal(&enc->buffer, "</");
    if (!op->foreign) wb_buffer_append(&enc->buffer, f->pre, f->pre_len);
    append_bytes(enc, f->plan, op->name);
    wb_buffer_append_char(&enc->buffer, '>');
}

/* Encoder.subtype: the xsi:type attributes of a subclass that declared
 * xml_type, without declaring its namespace when the scope binds it already. */
static VALUE subtype_attributes(encoding *enc, VALUE klass)
{
    VALUE parts = rb_funcall(wb_hooks.mXML, id_subtype_parts, 1, klass);
    VALUE prefix = rb_ary_entry(parts, 2);
    VALUE uri = rb_ary_entry(parts, 3);
    int bare = !NIL_P(prefix) && scope_uri(enc, rb_intern_str(prefix)) == rb_intern_str(uri);
    return rb_ary_entry(parts, bare ? 1 : 0);
}

/* Generator#one_value for a single scalar whose element carries XML attributes
 * by path ("Amt" beside "Amt/@Ccy"): a nil value is written as xsi:nil when an
 * attribute has a value (or nil: :xsi, xsi_all), so the attributes stay. */
static void write_scalar_with_attributes(encoding *enc, const wb_xenc_op *op, VALUE value)
{
    frame *f = &enc->frames[enc->depth - 1];
    const wb_xenc_plan *plan = f->plan;
    if (NIL_P(value)) {
        int any = op->nil_xsi || enc->xsi_all;
        for (size_t i = op->attribute_first; !any && i < op->attribute_first + op->attribute_count; i++)
            any = !NIL_P(read_ivar(plan, f->record, plan->attributes[i].ivar, &plan->attributes[i].ivar_slot));
        if (!any) return;
    }
    open_name(enc, f, op);
    write_attributes(enc, f, op->attribute_first, op->attribute_count);
    set_field(f, plan, op->field);
    if (NIL_P(value)) {
        append_bytes(enc, plan, plan->nil_suffix);
        return;
    }
    wb_buffer_append_char(&enc->buffer, '>');
    wb_format_write(&enc->buffer, (wb_format_kind)op->format, op->type, value, WB_FORMAT_ESCAPE_TEXT);
    close_name(enc, f, op);
}

/* Generator#one_value and #model_value: one value of the op at the top
 * frame's pc (nil, a scalar, or a record, which pushes a frame). */
static void xenc_write_value(encoding *enc, const wb_xenc_op *op, VALUE value)
{
    const frame *parent = &enc->frames[enc->depth - 1];
    const wb_xenc_plan *plan = parent->plan;
    if (op->attribute_count) {
        write_scalar_with_attributes(enc, op, value);
        return;
    }
    if (NIL_P(value)) {
        /* A nil item of a list is always written: leaving it out would lose it. */
        if (op->nil_xsi || enc->xsi_all || parent->list != Qundef) {
            open_name(enc, parent, op);
            append_bytes(enc, plan, plan->nil_suffix);
        }
        return;
    }
    if (op->code == WB_XENC_OP_CONTENT && !op->named && op->type == sym_any) {
        /* A wildcard item is written under the name it holds. */
        VALUE pre = rb_utf8_str_new(parent->pre, (long)parent->pre_len);
        VALUE element = rb_funcall(wb_hooks.mXMLOpenContent, id_wildcard_element, 2, value, pre);
        StringValue(element);
        wb_buffer_append_str(&enc->buffer, element);
        RB_GC_GUARD(element);
        RB_GC_GUARD(pre);
        return;
    }
    if (op->code == WB_XENC_OP_CONTENT) {
        /* Generator#one_value for open types: "<name", then what
         * OpenContent.element_content writes, then the end tag. */
        VALUE qname;
        if (op->foreign) {
            qname = rb_utf8_str_new(WB_XENC_PTR(plan, op->name), (long)op->name.len);
        } else {
            qname = rb_utf8_str_new(parent->pre, (long)parent->pre_len);
            rb_str_cat(qname, WB_XENC_PTR(plan, op->name), (long)op->name.len);
        }
        /* Whether a default namespace is in scope in the element (a "{}local" one resets it). */
        VALUE default_in_scope = !op->no_namespace && parent->child_default ? Qtrue : Qfalse;
        VALUE content = rb_funcall(wb_hooks.mXMLOpenContent, id_element_content, 4, op->type, value, qname, default_in_scope);
        StringValue(content);
        parent = &enc->frames[enc->depth - 1];
        open_name(enc, parent, op);
        wb_buffer_append_str(&enc->buffer, content);
        close_name(enc, parent, op);
        RB_GC_GUARD(content);
        RB_GC_GUARD(qname);
        return;
    }
    if (op->code == WB_XENC_OP_SCALAR) {
        open_name(enc, parent, op);
        wb_buffer_append_char(&enc->buffer, '>');
        wb_format_write(&enc->buffer, (wb_format_kind)op->format, op->type, value, WB_FORMAT_ESCAPE_TEXT);
        close_name(enc, parent, op);
        return;
    }
    /* value.is_a?(type): exactly the declared class is the usual case. */
    int exact = !RB_SPECIAL_CONST_P(value) && RBASIC_CLASS(value) == op->type;
    if (!exact && !RTEST(rb_obj_is_kind_of(value, op->type))) xenc_fail_expected(enc, rb_obj_as_string(op->type), value);
    const wb_xenc_plan *child = xenc_plan_of(enc, rb_obj_class(value));
    /* xenc_push_record may move the frames: read the parent first. */
    const wb_xenc_plan *child_default = parent->child_default;
    const char *declaration = "";
    size_t declaration_len = 0;
    if (op->no_namespace) {
        if (child_default) {
            declaration = RESET;
            declaration_len = sizeof(RESET) - 1;
        }
    } else if (!op->foreign && op->named && op->top && parent->reset) {
        declaration = RESET;
        declaration_len = sizeof(RESET) - 1;
    }
    /* A subclass that declared xml_type says so with xsi:type. */
    VALUE subtype = Qnil;
    if (!exact) {
        VALUE extra = subtype_attributes(enc, rb_obj_class(value));
        if (RSTRING_LEN(extra) > 0) {
            subtype = rb_str_buf_new((long)declaration_len + RSTRING_LEN(extra));
            rb_str_buf_cat(subtype, declaration, (long)declaration_len);
            rb_str_buf_append(subtype, extra);
            declaration = RSTRING_PTR(subtype);
            declaration_len = (size_t)RSTRING_LEN(subtype);
        }
    }
    if (!op->named) {
        /* A "*" item is named after its own class, in its own namespace. */
        xenc_push_record(enc, child, value, "", 0, NULL, 0, declaration, declaration_len, child_default, 1);
    } else if (op->foreign) {
        xenc_push_record(enc, child, value, "", 0, WB_XENC_PTR(plan, op->name), op->name.len, declaration, declaration_len,
                         op->no_namespace ? NULL : child_default, 1);
    } else {
        /* Named in this model's namespace. */
        xenc_push_record(enc, child, value, parent->pre, parent->pre_len, WB_XENC_PTR(plan, op->name), op->name.len, declaration,
                         declaration_len, child_default, 1);
    }
    RB_GC_GUARD(subtype);
}

/* Runs the frames until the record at the bottom is written. */
static void xenc_run(encoding *enc)
{
    while (enc->depth > 0) {
        if (!NIL_P(enc->io) && enc->buffer.len >= WB_BUFFER_PIECE) {
            enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 0);
        }
        frame *f = &enc->frames[enc->depth - 1];
        const wb_xenc_plan *plan = f->plan;

        if (f->list != Qundef) {
            /* Inside a list: its next item, or the next op. */
            const wb_xenc_op *op = &plan->ops[f->pc];
            if (f->index < RARRAY_LEN(f->list)) {
                VALUE item = RARRAY_AREF(f->list, f->index);
                f->index++;
                xenc_write_value(enc, op, item);
                RB_GC_GUARD(item);
            } else {
                f->list = Qundef;
                f->pc++;
            }
            continue;
        }

        if (f->pc >= plan->op_count) {
            wb_buffer_append_literal(&enc->buffer, "</");
            wb_buffer_append(&enc->buffer, f->tag_prefix, f->tag_prefix_len);
            wb_buffer_append(&enc->buffer, f->tag_name, f->tag_name_len);
            wb_buffer_append_char(&enc->buffer, '>');
            if (f->bound) scope_release(enc, f->bound);
            enc->depth--;
            continue;
        }

        const wb_xenc_op *op = &plan->ops[f->pc];
        switch (op->code) {
        case WB_XENC_OP_OPEN:
            open_name(enc, f, op);
            if (op->attribute_count) write_attributes(enc, f, op->attribute_first, op->attribute_count);
            wb_buffer_append_char(&enc->buffer, '>');
            f->pc++;
            continue;
        case WB_XENC_OP_CLOSE:
            close_name(enc, f, op);
            f->pc++;
            continue;
        default: break;
        }
        set_field(f, plan, op->field);
        VALUE value = read_ivar(plan, f->record, op->ivar, &op->ivar_slot);
        if (op->list) {
            if (NIL_P(value)) {
                f->pc++;
            } else if (!RB_TYPE_P(value, T_ARRAY)) {
                xenc_fail_expected(enc, xenc_utf8("an Array"), value);
            } else {
                f->list = value;
                f->index = 0;
            }
            continue;
        }
        f->pc++;
        xenc_write_value(enc, op, value);
        RB_GC_GUARD(value);
    }
}

static VALUE xenc_encode_body(VALUE arg)
{
    encoding *enc = (encoding *)arg;
    VALUE value = enc->value;
    if (enc->declaration) wb_buffer_append_literal(&enc->buffer, DECLARATION);

    if (RB_TYPE_P(value, T_ARRAY)) {
        /* The wrapper declares what the first item's class can use. */
        wb_buffer_append_char(&enc->buffer, '<');
        wb_buffer_append(&enc->buffer, enc->root, enc->root_len);
        if (RARRAY_LEN(value) > 0) {
            const wb_xenc_plan *first = xenc_plan_of(enc, rb_obj_class(RARRAY_AREF(value, 0)));
            append_bytes(enc, first, first->document_declarations);
            scope_declare_document(enc, first);
        }
        wb_buffer_append_char(&enc->buffer, '>');
        for (long i = 0; i < RARRAY_LEN(value); i++) {
            VALUE record = RARRAY_AREF(value, i);
            const wb_xenc_plan *plan = xenc_plan_of(enc, rb_obj_class(record));
            VALUE subtype = plan->top_subtype ? subtype_attributes(enc, rb_obj_class(record)) : Qnil;
            if (NIL_P(subtype)) {
                xenc_push_record(enc, plan, record, "", 0, enc->item, enc->item_len, "", 0, NULL, 0);
            } else {
                xenc_push_record(enc, plan, record, "", 0, enc->item, enc->item_len, RSTRING_PTR(subtype), (size_t)RSTRING_LEN(subtype),
                                 NULL, 0);
            }
            xenc_run(enc);
            RB_GC_GUARD(record);
            RB_GC_GUARD(subtype);
        }
        wb_buffer_append_literal(&enc->buffer, "</");
        wb_buffer_append(&enc->buffer, enc->root, enc->root_len);
        wb_buffer_append_char(&enc->buffer, '>');
    } else {
        const wb_xenc_plan *plan = xenc_plan_of(enc, rb_obj_class(value));
        scope_declare_document(enc, plan);
        VALUE declarations = Qnil;
        if (plan->top_subtype) {
            declarations = rb_str_dup(subtype_attributes(enc, rb_obj_class(value)));
            rb_str_cat(declarations, WB_XENC_PTR(plan, plan->document_declarations), (long)plan->document_declarations.len);
            xenc_push_record(enc, plan, value, "", 0, enc->root, enc->root_len, RSTRING_PTR(declarations),
                             (size_t)RSTRING_LEN(declarations), NULL, 0);
        } else {
            xenc_push_record(enc, plan, value, "", 0, enc->root, enc->root_len, WB_XENC_PTR(plan, plan->document_declarations),
                             plan->document_declarations.len, NULL, 0);
        }
        xenc_run(enc);
        RB_GC_GUARD(declarations);
    }

    if (NIL_P(enc->io)) return wb_buffer_to_str(&enc->buffer);
    enc->written += wb_buffer_flush_io(&enc->buffer, enc->io, 1);
    return SIZET2NUM(enc->written);
}

/* rescue Types::InvalidValue => e: an EncodeError at the path being written.
 * Outside any record (a top-level record's plan being compiled) the pure
 * encoder does not rescue, and neither does this. */
static VALUE xenc_encode_rescue(VALUE arg, VALUE error)
{
    encoding *enc = (encoding *)arg;
    if (enc->depth == 0) rb_exc_raise(error);
    xenc_fail(enc, rb_funcall(error, id_message, 0));
    return Qnil;
}

static VALUE xenc_encode_protected(VALUE arg)
{
    return rb_rescue2(xenc_encode_body, arg, xenc_encode_rescue, arg, wb_hooks.eInvalidValue, (VALUE)0);
}

static VALUE xenc_encode_ensure(VALUE arg)
{
    xenc_encoding_release((encoding *)arg);
    return Qnil;
}

static char *copy_name(VALUE name, size_t *len)
{
    *len = (size_t)RSTRING_LEN(name);
    char *copy = ruby_xmalloc(*len ? *len : 1);
    memcpy(copy, RSTRING_PTR(name), *len);
    return copy;
}

VALUE wb_xenc_encode(VALUE value, VALUE root, VALUE item, int xsi_all, int declaration, VALUE io)
{
    encoding *enc;
    VALUE holder = TypedData_Make_Struct(0, encoding, &encoding_type, enc);
    wb_buffer_init(&enc->buffer);
    enc->value = value;
    enc->io = io;
    enc->xsi_all = xsi_all;
    enc->declaration = declaration;
    enc->last_class = Qundef;
    if (!NIL_P(root)) enc->root = copy_name(root, &enc->root_len);
    if (!NIL_P(item)) enc->item = copy_name(item, &enc->item_len);
    if (RB_TYPE_P(value, T_ARRAY) && !enc->root) rb_raise(rb_eArgError, "encoding a list needs root:");

    VALUE result = rb_ensure(xenc_encode_protected, (VALUE)enc, xenc_encode_ensure, (VALUE)enc);
    RB_GC_GUARD(holder);
    return result;
}

void wb_xenc_init(VALUE mNative)
{
    /* The class of compiled plans, so that one met from Ruby (in a class's
     * plan cache) inspects as what it is. Only C makes them. */
    cEncoderPlan = rb_define_class_under(mNative, "EncoderPlan", rb_cObject);
    rb_undef_alloc_func(cEncoderPlan);

    sym_native_xml_encoder = ID2SYM(rb_intern("native_xml_encoder"));
    id_wirebind_plan = rb_intern("wirebind_plan");
    id_for = rb_intern("for");
    id_root_name = rb_intern("root_name");
    id_top_level_subtype_p = rb_intern("top_level_subtype?");
    id_xml_abstract_p = rb_intern("xml_abstract?");
    id_abstract_message = rb_intern("abstract_message");
    id_namespace = rb_intern("namespace");
    id_prefix = rb_intern("prefix");
    id_text = rb_intern("text");
    id_writes = rb_intern("writes");
    id_kind = rb_intern("kind");
    id_type = rb_intern("type");
    id_list = rb_intern("list");
    id_name = rb_intern("name");
    id_uri = rb_intern("uri");
    id_nil_xsi = rb_intern("nil_xsi");
    id_subtype_parts = rb_intern("subtype_parts");
    id_namespaces = rb_intern("namespaces");
    id_default_prefix = rb_intern("default_prefix");
    id_needs = rb_intern("needs");
    id_declarations = rb_intern("declarations");
    id_declaration = rb_intern("declaration");
    id_default_at_top = rb_intern("default_at_top");
    id_attribute = rb_intern("attribute");
    id_ivar = rb_intern("ivar");
    id_message = rb_intern("message");
    id_describe = rb_intern("describe");
    id_attribute_writes = rb_intern("attribute_writes");
    id_xml = rb_intern("xml");
    id_element_content = rb_intern("element_content");
    id_xml_content = rb_intern("xml_content");
    id_qname_attribute = rb_intern("qname_attribute");
    id_index = rb_intern("index");
    sym_qname = ID2SYM(rb_intern("qname"));
    sym_any = ID2SYM(rb_intern("any"));
    id_wildcard_element = rb_intern("wildcard_element");
}
