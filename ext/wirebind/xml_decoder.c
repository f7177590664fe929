/* The decoder engine (see xml_decoder.h): compiled plans, and the port of
 * lib/wirebind/xml/pure/decoder.rb. Functions carry the names of the Ruby
 * methods they port; the frame stack, the values stack and every buffer are
 * heap arrays owned by the decoder, so document depth costs heap, not C stack. */
#include "xml_decoder.h"

#include <stdlib.h>
#include <string.h>

#define XSI_NS "http://www.w3.org/2001/XMLSchema-instance"
#define NONE ((size_t)-1)

static VALUE mNative;
static ID id_reason, id_xml_path;
static ID id_text, id_next_chunk, id_call, id_plan_for, id_from_xml_text, id_message, id_lookup, id_into_array, id_hold, id_built,
    id_referent_type, id_define, id_list_of, id_instance_text, id_instance_rule, id_resolve, id_each_record, id_each_reference, id_finish,
    id_count, id_xml_types_p, id_subtype_plan, id_typed_any_plan, id_any, id_start, id_leaf, id_new, id_value, id_leaf_value, id_split,
    id_qresolve;
static VALUE sym_xml, sym_any, sym_qname, sym_scope, sym_named;

void wb_xdec_init_ids(VALUE module)
{
    mNative = module;
    rb_gc_register_mark_object(mNative);
    id_text = rb_intern("text");
    id_next_chunk = rb_intern("next_chunk");
    id_call = rb_intern("call");
    id_plan_for = rb_intern("plan_for");
    id_from_xml_text = rb_intern("from_xml_text");
    id_message = rb_intern("message");
    id_lookup = rb_intern("lookup");
    id_into_array = rb_intern("into_array");
    id_hold = rb_intern("hold");
    id_built = rb_intern("built");
    id_referent_type = rb_intern("referent_type");
    id_define = rb_intern("define");
    id_list_of = rb_intern("list_of");
    id_instance_text = rb_intern("instance_text");
    id_instance_rule = rb_intern("instance_rule");
    id_resolve = rb_intern("resolve");
    id_each_record = rb_intern("each_record");
    id_reason = rb_intern("reason");
    id_xml_path = rb_intern("xml_path");
    id_each_reference = rb_intern("each_reference");
    id_finish = rb_intern("finish");
    id_count = rb_intern("count");
    id_xml_types_p = rb_intern("xml_types?");
    id_subtype_plan = rb_intern("subtype_plan");
    id_typed_any_plan = rb_intern("typed_any_plan");
    id_any = rb_intern("any");
    id_start = rb_intern("start");
    id_leaf = rb_intern("leaf");
    id_new = rb_intern("new");
    id_value = rb_intern("value");
    id_leaf_value = rb_intern("leaf_value");
    id_split = rb_intern("split");
    id_qresolve = rb_intern("resolve");
    sym_xml = ID2SYM(rb_intern("xml"));
    sym_any = ID2SYM(rb_intern("any"));
    sym_qname = ID2SYM(rb_intern("qname"));
    sym_scope = ID2SYM(rb_intern("scope"));
    sym_named = ID2SYM(rb_intern("named"));
    wb_scalar_init();
    wb_xplan_init(module);
}

/* ---- the decoder ------------------------------------------------------------------- */

static inline wb_xdec_frame *xdec_top_frame(wb_xdec *d)
{
    return d->frame_count ? &d->frames[d->frame_count - 1] : NULL;
}

static wb_xdec_frame *xdec_push_frame(wb_xdec *d, int kind)
{
    if (d->frame_count == d->frames_cap) {
        size_t cap = d->frames_cap ? d->frames_cap * 2 : 16;
        wb_xdec_frame *f = ruby_xrealloc(d->frames, cap * sizeof(*f));
        memset(f + d->frames_cap, 0, (cap - d->frames_cap) * sizeof(*f));
        d->frames = f;
        d->frames_cap = cap;
    }
    wb_xdec_frame *f = &d->frames[d->frame_count++];
    f->kind = kind;
    f->plan = NULL;
    f->entry = NULL;
    f->values = NONE;
    f->parent = NONE;
    f->nil = 0;
    f->wants_text = 0;
    f->mark = NONE;
    f->whole = 0;
    f->text.len = 0;
    f->has_text = 0;
    f->children = 0;
    f->holds = 0;
    f->id_at = NONE;
    f->typed_at = NONE;
    return f;
}

static size_t xdec_push_values(wb_xdec *d, long size)
{
    size_t need = d->value_count + (size_t)size;
    if (need > d->values_cap) {
        size_t cap = d->values_cap ? d->values_cap : 64;
        while (cap < need) cap *= 2;
        VALUE *v = ruby_xrealloc(d->values, cap * sizeof(VALUE));
        d->values = v;
        unsigned char *loose = ruby_xrealloc(d->loose, cap);
        d->loose = loose;
        d->values_cap = cap;
    }
    size_t base = d->value_count;
    for (size_t i = base; i < need; i++) d->values[i] = Qnil;
    memset(d->loose + base, 0, need - base);
    d->value_count = need;
    return base;
}

/* Names and namespaces compared here are a few bytes long: inline, not memcmp. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static inline int uri_is(const wb_xtok_str uri, const char *p, size_t n)
{
    return uri.ptr && uri.len == n && memcmp(uri.ptr, p, n) == 0;
}

static inline int name_is(const wb_xtok_str s, const char *p, size_t n)
{
    return s.len == n && memcmp(s.ptr, p, n) == 0;
}

/* An element entry's namespace: NULL any, "" none (uri.ptr NULL), else that one. */
static inline int entry_uri_matches(const wb_xplan_entry *e, wb_xtok_str uri)
{
    if (!e->uri) return 1;
    return e->uri_len == 0 ? uri.ptr == NULL : uri_is(uri, e->uri, e->uri_len);
}

/* node.table[local], down the alt chain to a matching namespace, else node.any. */
static wb_xplan_entry *find_entry(const wb_xplan_table *table, wb_xplan_entry *any, wb_xtok_str local, wb_xtok_str uri)
{
    wb_xplan_entry *e = wb_xplan_lookup(table, local.ptr, local.len);
    while (e && e->uri && !entry_uri_matches(e, uri)) e = e->alt;
    return e ? e : any;
}

static wb_xplan_entry *lookup(wb_xdec_frame *top, wb_xtok_str local, wb_xtok_str uri)
{
    if (top->kind == WB_XPLAN_MODEL) return find_entry(&top->plan->table, top->plan->any, local, uri);
    return find_entry(&top->entry->table, top->entry->any, local, uri);
}

/* What a decode error names below the open elements: a leaf element, an
 * attribute, or both ("leaf/@attr"). */
typedef struct leaf_path {
    wb_xtok_str element;
    wb_xtok_str attribute;
} leaf_path;

static const leaf_path NO_LEAF = {{NULL, 0}, {NULL, 0}};

static void scratch_append(wb_xdec *d, const char *p, size_t n)
{
    if (d->scratch.cap - d->scratch.len < n) {
        size_t cap = d->scratch.cap ? d->scratch.cap : 64;
        while (cap - d->scratch.len < n) cap *= 2;
        char *s = ruby_xrealloc(d->scratch.ptr, cap);
        d->scratch.ptr = s;
        d->scratch.cap = cap;
    }
    memcpy(d->scratch.ptr + d->scratch.len, p, n);
    d->scratch.len += n;
}

/* decode_error: the path by local names from the record element down, plus
 * the leaf, plus +below+ (a place inside it, "s" or "@k", or Qnil). */
static NORETURN(void decode_error_below(wb_xdec *d, VALUE message, leaf_path leaf, VALUE below, size_t mark));
static void decode_error_below(wb_xdec *d, VALUE message, leaf_path leaf, VALUE below, size_t mark)
{
    size_t from = (d->record_depth ? d->record_depth : 1) - 1;
    size_t depth = wb_xtok_depth(&d->tok);
    d->scratch.len = 0;
    int first = 1;
    for (size_t i = from; i < depth; i++) {
        wb_xtok_str q = wb_xtok_name_at(&d->tok, i);
        size_t colon = wb_xtok_prefix_end(q.ptr, q.len);
        if (!first) scratch_append(d, "/", 1);
        scratch_append(d, q.ptr + colon, q.len - colon);
        first = 0;
    }
    if (leaf.element.ptr || leaf.attribute.ptr) {
        if (!first) scratch_append(d, "/", 1);
        if (leaf.element.ptr) scratch_append(d, leaf.element.ptr, leaf.element.len);
        if (leaf.element.ptr && leaf.attribute.ptr) scratch_append(d, "/", 1);
        if (leaf.attribute.ptr) {
            scratch_append(d, "@", 1);
            scratch_append(d, leaf.attribute.ptr, leaf.attribute.len);
        }
        first = 0;
    }
    if (!NIL_P(below)) {
        if (!first) scratch_append(d, "/", 1);
        scratch_append(d, RSTRING_PTR(below), (size_t)RSTRING_LEN(below));
    }
    VALUE path = rb_utf8_str_new(d->scratch.ptr, (long)d->scratch.len);
    long line, column;
    if (mark != NONE)
        wb_xtok_mark_position(&d->tok, mark, &line, &column);
    else
        wb_xtok_token_position(&d->tok, &line, &column);
    RB_GC_GUARD(below);
    wb_error_raise_decode(message, path, line, column);
}

static NORETURN(void decode_error(wb_xdec *d, VALUE message, leaf_path leaf, size_t mark));
static void decode_error(wb_xdec *d, VALUE message, leaf_path leaf, size_t mark)
{
    decode_error_below(d, message, leaf, Qnil, mark);
}

/* Raises DecodeError +message+ (made UTF-8 here) at element +local+, which
 * the path names when the element is a leaf. */
static NORETURN(void element_error(wb_xdec *d, VALUE message, wb_xtok_str local, int leaf));
static void element_error(wb_xdec *d, VALUE message, wb_xtok_str local, int leaf)
{
    rb_enc_associate_index(message, rb_utf8_encindex());
    leaf_path l = NO_LEAF;
    if (leaf) l.element = local;
    decode_error(d, message, l, NONE);
}

/* scalar_with_children: a child element inside a value declared as a scalar. */
static NORETURN(void scalar_with_children(wb_xdec *d, const wb_xdec_frame *top, wb_xtok_str local, int leaf));
static void scalar_with_children(wb_xdec *d, const wb_xdec_frame *top, wb_xtok_str local, int leaf)
{
    VALUE message = rb_sprintf("<%.*s> is an element inside a %" PRIsVALUE " value; a scalar holds text only "
                               "(declare a model, or :xml for the raw content)",
                               (int)local.len, local.ptr, rb_inspect(top->entry->type_value));
    element_error(d, message, local, leaf);
}

static NORETURN(void unknown_element(wb_xdec *d, wb_xtok_str local, int leaf));
static void unknown_element(wb_xdec *d, wb_xtok_str local, int leaf)
{
    VALUE message = rb_sprintf("unknown element <%.*s> (strict: true)", (int)local.len, local.ptr);
    element_error(d, message, local, leaf);
}

static NORETURN(void ambiguous_element(wb_xdec *d, wb_xtok_str local, int leaf));
static void ambiguous_element(wb_xdec *d, wb_xtok_str local, int leaf)
{
    VALUE message = rb_sprintf("<%.*s> matches \"%.*s\" in the record's own namespace (or none) and in another one "
                               "(strict: true; declare \"{uri}%.*s\" to choose)",
                               (int)local.len, local.ptr, (int)local.len, local.ptr, (int)local.len, local.ptr);
    element_error(d, message, local, leaf);
}

/* Pure::Decoder#single_taken?: whether an element matched by a single-valued entry
 * leaves the value it has. A plain name ("link") prefers an element in the record's
 * own namespace or in none over one in another namespace: the first such element
 * wins over an earlier one from elsewhere (strict: an error), and an element from
 * elsewhere never replaces it. */
static int single_taken(wb_xdec *d, const wb_xplan_entry *e, size_t values, wb_xtok_str uri, wb_xtok_str local, int leaf)
{
    size_t at = values + (size_t)e->index;
    unsigned char loose = !e->uri && uri.ptr && !(e->home && uri_is(uri, e->home, e->home_len));
    if (NIL_P(d->values[at])) {
        d->loose[at] = loose;
        return 0;
    }
    if (loose == d->loose[at]) return 1; /* the first one stays */
    if (d->strict) ambiguous_element(d, local, leaf);
    if (loose) return 1;
    d->values[at] = Qnil;
    d->loose[at] = 0;
    return 0;
}

typedef struct ruby_convert_args {
    wb_xdec *d;
    VALUE type;
    VALUE text;
    leaf_path leaf;
    size_t mark;
} ruby_convert_args;

static VALUE call_from_xml_text(VALUE arg)
{
    ruby_convert_args *a = (ruby_convert_args *)arg;
    return rb_funcall(wb_hooks.mTypes, id_from_xml_text, 2, a->type, a->text);
}

static VALUE rescue_invalid(VALUE arg, VALUE error)
{
    ruby_convert_args *a = (ruby_convert_args *)arg;
    decode_error(a->d, rb_funcall(error, id_message, 0), a->leaf, a->mark);
    return Qnil;
}

static int blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return 0;
    }
    return 1;
}

/* convert: text to value. Strings as they are; otherwise empty or blank is nil
 * (base64: zero bytes, a value of its own), the C fast path, else
 * Types.from_xml_text with InvalidValue made a DecodeError. */
static int xml_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* TimeType.with_default_offset: the date-time without its white space, and
 * +offset+ after it when it has no zone, in d->scratch. */
static void with_default_offset(wb_xdec *d, const char **p, size_t *n, const char *offset, size_t offset_len)
{
    const char *s = *p;
    size_t len = *n;
    while (len && xml_space(*s)) s++, len--;
    while (len && xml_space(s[len - 1])) len--;
    d->scratch.len = 0;
    scratch_append(d, s, len);
    int zoned = len < 7 || s[len - 1] == 'Z' || ((s[len - 6] == '+' || s[len - 6] == '-') && s[len - 3] == ':');
    if (!zoned) scratch_append(d, offset, offset_len);
    *p = d->scratch.ptr;
    *n = d->scratch.len;
}

static VALUE resolve_qname(wb_xdec *d, const char *p, size_t n, leaf_path leaf, size_t mark);

static VALUE convert(wb_xdec *d, const wb_xplan_entry *slot, const char *p, size_t n, leaf_path leaf, size_t mark)
{
    if (slot->type == WB_SCALAR_STRING) return wb_utf8_str(p, n);
    if (n == 0 || ((unsigned char)p[0] <= 32 && blank(p, n))) return slot->type == WB_SCALAR_BASE64 ? rb_str_new(NULL, 0) : Qnil;
    if (slot->type == WB_XDEC_QNAME) return resolve_qname(d, p, n, leaf, mark);
    if (slot->type == WB_SCALAR_TIME && (slot->default_offset || d->default_offset)) {
        if (slot->default_offset)
            with_default_offset(d, &p, &n, slot->default_offset, slot->default_offset_len);
        else
            with_default_offset(d, &p, &n, d->default_offset, d->default_offset_len);
    }
    VALUE v = wb_scalar_convert(&d->env, slot->type, p, n);
    if (v != Qundef) return v;
    ruby_convert_args a = {d, slot->type_value, wb_utf8_str(p, n), leaf, mark};
    return rb_rescue2(call_from_xml_text, (VALUE)&a, rescue_invalid, (VALUE)&a, wb_hooks.eInvalidValue, (VALUE)0);
}

/* ---- open content: :qname, and :xml / :any through XML::Capture ------------------- */

static VALUE str_or_nil(wb_xtok_str s)
{
    return s.ptr ? wb_utf8_str(s.ptr, s.len) : Qnil;
}

typedef struct qname_args {
    wb_xdec *d;
    VALUE text;
} qname_args;

/* Decoder#qname: QNameType.split, the prefix looked up where the text
 * appears (on_end runs before the element's own declarations are undone),
 * QNameType.resolve. */
static VALUE call_qname(VALUE arg)
{
    qname_args *a = (qname_args *)arg;
    VALUE parts = rb_funcall(wb_hooks.mQNameType, id_split, 1, a->text);
    VALUE prefix = rb_ary_entry(parts, 0);
    StringValue(prefix);
    wb_xtok_str uri = wb_xtok_namespace_of(&a->d->tok, RSTRING_PTR(prefix), (size_t)RSTRING_LEN(prefix));
    VALUE result = rb_funcall(wb_hooks.mQNameType, id_qresolve, 4, prefix, rb_ary_entry(parts, 1), str_or_nil(uri), a->text);
    RB_GC_GUARD(prefix);
    return result;
}

static VALUE rescue_qname(VALUE arg, VALUE error)
{
    ruby_convert_args *a = (ruby_convert_args *)arg;
    decode_error(a->d, rb_funcall(error, id_message, 0), a->leaf, a->mark);
    return Qnil;
}

static VALUE resolve_qname(wb_xdec *d, const char *p, size_t n, leaf_path leaf, size_t mark)
{
    qname_args q = {d, wb_utf8_str(p, n)};
    ruby_convert_args a = {d, Qnil, q.text, leaf, mark}; /* for rescue_qname */
    VALUE result = rb_rescue2(call_qname, (VALUE)&q, rescue_qname, (VALUE)&a, wb_hooks.eInvalidValue, (VALUE)0);
    RB_GC_GUARD(q.text);
    return result;
}

/* attrs as [name, uri, value, ...]: the name as written (inside a capture) or
 * the local name (the captured element's own). */
static VALUE attrs_array(const wb_xtok_attr *attrs, size_t n, int written)
{
    if (!n) return Qnil;
    VALUE ary = rb_ary_new_capa((long)n * 3);
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        rb_ary_push(ary, written ? wb_utf8_str(a->qname.ptr, a->qname.len) : wb_utf8_str(a->local.ptr, a->local.len));
        rb_ary_push(ary, str_or_nil(a->uri));
        rb_ary_push(ary, wb_utf8_str(a->value.ptr, a->value.len));
    }
    return ary;
}

/* Tokenizer#tag_source's declarations: [prefix, uri or nil, ...], or nil. */
static VALUE tag_declarations(const wb_xtok *t)
{
    size_t count = wb_xtok_binding_count(t);
    if (count <= t->tag_ns) return Qnil;
    VALUE ary = rb_ary_new_capa((long)(count - t->tag_ns) * 2);
    for (size_t i = t->tag_ns; i < count; i++) {
        wb_xtok_str prefix, uri;
        wb_xtok_binding_at(t, i, &prefix, &uri);
        rb_ary_push(ary, wb_utf8_str(prefix.ptr, prefix.len));
        rb_ary_push(ary, str_or_nil(uri));
    }
    return ary;
}

/* DecodeState#namespace_of: what a prefix is bound to where the decoder is,
 * for the Capture being fed (nil: unbound). Only while a capture runs. */
VALUE wb_xdec_namespace_of(wb_xdec *d, VALUE prefix)
{
    StringValue(prefix);
    const wb_xdec_frame *top = xdec_top_frame(d);
    if (!top || top->kind != WB_XPLAN_CAPTURE) rb_raise(rb_eRuntimeError, "namespace_of is asked only while a capture runs");
    VALUE uri = str_or_nil(wb_xtok_namespace_of(&d->tok, RSTRING_PTR(prefix), (size_t)RSTRING_LEN(prefix)));
    RB_GC_GUARD(prefix);
    return uri;
}

/* xsi:nil="true" or "1" on the first xsi:nil attribute, surrounding whitespace
 * collapsed as xs:boolean's whiteSpace facet says (" true " is true). */
static int nil_attribute(const wb_xtok_attr *attrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        if (name_is(a->local, "nil", 3) && uri_is(a->uri, XSI_NS, sizeof(XSI_NS) - 1)) {
            wb_xtok_str v = a->value;
            while (v.len && xml_space(v.ptr[0])) v.ptr++, v.len--;
            while (v.len && xml_space(v.ptr[v.len - 1])) v.len--;
            return name_is(v, "true", 4) || name_is(v, "1", 1);
        }
    }
    return 0;
}

/* apply_attributes: XML attributes a plan (or a group) maps, converted into values[base..]. */
static void apply_attributes(wb_xdec *d, const wb_xplan_table *table, const wb_xtok_attr *attrs, size_t n, size_t base, wb_xtok_str leaf)
{
    if (!table->buckets) return;
    int memo = d->attribute_memo_table == table;
    if (!memo) {
        memset(d->attribute_memo, 0, sizeof(d->attribute_memo));
        d->attribute_memo_table = table;
    }
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        /* The entry this place matched in the last tag, if it is this name in
         * this namespace: an attribute matches exactly one entry of a chain. */
        wb_xplan_entry *slot = i < WB_XDEC_ATTRIBUTE_MEMO ? d->attribute_memo[i] : NULL;
        if (slot && slot->name_len == a->local.len && same_bytes(slot->name, a->local.ptr, a->local.len) &&
            (slot->uri ? uri_is(a->uri, slot->uri, slot->uri_len) : a->uri.ptr == NULL)) {
            /* found */
        } else {
            slot = wb_xplan_lookup(table, a->local.ptr, a->local.len);
            /* Exact: an unprefixed attribute (uri NULL) is in no namespace. */
            while (slot && (slot->uri ? !uri_is(a->uri, slot->uri, slot->uri_len) : a->uri.ptr != NULL)) slot = slot->alt;
            if (i < WB_XDEC_ATTRIBUTE_MEMO) d->attribute_memo[i] = slot;
        }
        if (!slot) continue;
        leaf_path l = {leaf, a->local};
        VALUE v = convert(d, slot, a->value.ptr, a->value.len, l, NONE);
        d->values[base + (size_t)slot->index] = v;
    }
}

/* Plan#build: allocated without initialize, the values go to the plan's
 * __wb_fill_vN as arguments, straight from the values stack (which nothing
 * changes meanwhile). */
static VALUE xdec_fill(wb_xdec *d, const wb_xplan *plan, size_t base)
{
    VALUE object = rb_obj_alloc(plan->klass);
    return rb_funcallv(object, plan->filler, (int)plan->size, d->values + base);
}

typedef struct build_args {
    wb_xdec *d;
    const wb_xplan *plan;
    size_t base;
    wb_xtok_str leaf;
    size_t mark;
} build_args;

static VALUE call_fill(VALUE arg)
{
    build_args *a = (build_args *)arg;
    return xdec_fill(a->d, a->plan, a->base);
}

/* Decoder#build: a value the builder refuses (Model::Attribute::Refusal) is an
 * error at its attribute's place in the record's element. */
static VALUE rescue_refusal(VALUE arg, VALUE error)
{
    build_args *a = (build_args *)arg;
    leaf_path l = NO_LEAF;
    l.element = a->leaf;
    decode_error_below(a->d, rb_funcall(error, id_reason, 0), l, rb_funcall(error, id_xml_path, 0), a->mark);
    return Qnil;
}

/* The record of the values at +base+; a refused value's error is positioned at
 * the element's start tag: +leaf+, the element's name when it is a leaf (not on
 * the name stack, its token the current one), else +mark+. Only plans that
 * check values pay for the rescue. */
static VALUE xdec_build(wb_xdec *d, const wb_xplan *plan, size_t base, wb_xtok_str leaf, size_t mark)
{
    if (!plan->checked) return xdec_fill(d, plan, base);
    build_args a = {d, plan, base, leaf, mark};
    return rb_rescue2(call_fill, (VALUE)&a, rescue_refusal, (VALUE)&a, wb_hooks.eRefusal, (VALUE)0);
}

static void emit(wb_xdec *d, VALUE record)
{
    d->count++;
    switch (d->mode) {
    case WB_XDEC_LIST: rb_ary_push(d->results, record); break;
    case WB_XDEC_EACH:
        if (NIL_P(d->refs))
            rb_funcallv(d->block, id_call, 1, &record);
        else
            rb_funcall(d->refs, id_each_record, 1, record);
        break;
    default:
        d->result = record;
        d->mode = WB_XDEC_DONE;
        break;
    }
}

/* The Array a list slot's values go into, made at its first value. */
static VALUE slot_list(wb_xdec *d, size_t at)
{
    VALUE list = d->values[at];
    if (NIL_P(list)) {
        list = rb_ary_new_capa(4);
        d->values[at] = list;
    }
    return list;
}

static void deliver(wb_xdec *d, const wb_xplan_entry *slot, size_t values, VALUE value)
{
    if (slot->index < 0) {
        if (slot == &d->referent)
            rb_funcall(d->refs, id_resolve, 1, value);
        else
            emit(d, value);
        return;
    }
    size_t at = values + (size_t)slot->index;
    if (slot->list) {
        rb_ary_push(slot_list(d, at), value);
    } else if (NIL_P(d->values[at])) {
        /* A single value takes the first matching element that gives one. */
        d->values[at] = value;
    }
}

/* The value of the attribute {uri}local (uri NULL: no namespace), or {NULL, 0}. */
static wb_xtok_str attr_value(const wb_xtok_attr *attrs, size_t n, const char *local, size_t len, const char *uri, size_t uri_len)
{
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        if (name_is(a->local, local, len) && (uri ? uri_is(a->uri, uri, uri_len) : a->uri.ptr == NULL)) return a->value;
    }
    return (wb_xtok_str){NULL, 0};
}

/* SOAP 1.2 encoding (Part 2 section 3.1.5): enc:ref="id" and enc:id="id" are
 * read as SOAP 1.1's href="#id" and id="id". */
#define ENCODING_NS_12 "http://www.w3.org/2003/05/soap-encoding"

/* The id a reference names (href="#id", or enc:ref="id"), or {NULL, 0}. */
static wb_xtok_str href_id(const wb_xtok_attr *attrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        if (name_is(a->local, "href", 4) && a->uri.ptr == NULL) {
            wb_xtok_str v = a->value;
            if (v.len == 0 || v.ptr[0] != '#') return (wb_xtok_str){NULL, 0};
            return (wb_xtok_str){v.ptr + 1, v.len - 1};
        }
        if (name_is(a->local, "ref", 3) && uri_is(a->uri, ENCODING_NS_12, sizeof(ENCODING_NS_12) - 1)) return a->value;
    }
    return (wb_xtok_str){NULL, 0};
}

/* The id a referent carries (id, or enc:id), or {NULL, 0}. */
static wb_xtok_str referent_id(const wb_xtok_attr *attrs, size_t n)
{
    wb_xtok_str id = attr_value(attrs, n, "id", 2, NULL, 0);
    if (!id.ptr) id = attr_value(attrs, n, "id", 2, ENCODING_NS_12, sizeof(ENCODING_NS_12) - 1);
    return id;
}

/* The element's xsi:type as [local, uri] Strings (uri nil when its prefix is unbound), or 0. */
static int xsi_type(wb_xdec *d, const wb_xtok_attr *attrs, size_t n, VALUE *local, VALUE *uri)
{
    wb_xtok_str q = attr_value(attrs, n, "type", 4, XSI_NS, sizeof(XSI_NS) - 1);
    if (!q.ptr) return 0;
    size_t colon = wb_xtok_prefix_end(q.ptr, q.len);
    wb_xtok_str ns = wb_xtok_namespace_of(&d->tok, q.ptr, colon ? colon - 1 : 0);
    *local = wb_utf8_str(q.ptr + colon, q.len - colon);
    *uri = ns.ptr ? wb_utf8_str(ns.ptr, ns.len) : Qnil;
    return 1;
}

static int plain_type(wb_xdec *d, VALUE declared, wb_xtok_str q);

/* instance_type_plain: whether the leaf's instance xsi:type (if any) leaves its text
 * as it is for a value declared `declared` (XML.instance_rule decides; an
 * incompatible pair raises there). Answers are remembered in d->plain_types. */
static int instance_type_plain(wb_xdec *d, VALUE declared, const wb_xtok_attr *attrs, size_t n)
{
    wb_xtok_str q = attr_value(attrs, n, "type", 4, XSI_NS, sizeof(XSI_NS) - 1);
    return !q.ptr || plain_type(d, declared, q);
}

/* xsi_attributes: a leaf's xsi:nil and xsi:type found in one pass over its
 * attributes (most leaves of rpc/encoded carry one xsi:type and nothing else).
 * Returns whether xsi:nil is true; *type is the xsi:type's value or {NULL, 0}. */
static int xsi_attributes(const wb_xtok_attr *attrs, size_t n, wb_xtok_str *type)
{
    int nil = -1;
    for (size_t i = 0; i < n; i++) {
        const wb_xtok_attr *a = &attrs[i];
        if (a->uri.len != sizeof(XSI_NS) - 1) continue;
        if (!type->ptr && name_is(a->local, "type", 4) && uri_is(a->uri, XSI_NS, sizeof(XSI_NS) - 1)) {
            *type = a->value;
        } else if (nil < 0 && name_is(a->local, "nil", 3) && uri_is(a->uri, XSI_NS, sizeof(XSI_NS) - 1)) {
            nil = nil_attribute(a, 1);
        }
    }
    return nil > 0;
}

/* Remembers q as the way t's pair was written at this namespace generation. */
static void remember_written(wb_xdec_plain_type *t, wb_xtok_str q, uint64_t generation)
{
    if (q.len > sizeof(t->written)) {
        t->written_generation = 0;
        return;
    }
    memcpy(t->written, q.ptr, q.len);
    t->written_len = (unsigned char)q.len;
    t->written_generation = generation;
}

/* plain_type: instance_type_plain for the xsi:type value q. */
static int plain_type(wb_xdec *d, VALUE declared, wb_xtok_str q)
{
    /* The same bytes as last time, under the same bindings: the same pair. */
    uint64_t generation = wb_xtok_namespace_generation(&d->tok);
    for (size_t i = 0; i < d->plain_type_count; i++) {
        const wb_xdec_plain_type *t = &d->plain_types[i];
        if (t->declared == declared && t->written_generation == generation && t->written_len == q.len &&
            same_bytes(t->written, q.ptr, q.len))
            return 1;
    }
    size_t colon = wb_xtok_prefix_end(q.ptr, q.len);
    wb_xtok_str ns = wb_xtok_namespace_of(&d->tok, q.ptr, colon ? colon - 1 : 0);
    const char *local = q.ptr + colon;
    size_t local_len = q.len - colon, uri_len = ns.ptr ? ns.len : 0;
    for (size_t i = 0; i < d->plain_type_count; i++) {
        wb_xdec_plain_type *t = &d->plain_types[i];
        if (t->declared == declared && t->local_len == local_len && t->uri_len == uri_len && same_bytes(t->local, local, local_len) &&
            same_bytes(t->uri, ns.ptr, uri_len)) {
            remember_written(t, q, generation);
            return 1;
        }
    }
    VALUE args[3] = {declared, wb_utf8_str(local, local_len), ns.ptr ? wb_utf8_str(ns.ptr, ns.len) : Qnil};
    if (!NIL_P(rb_funcallv(wb_hooks.mXML, id_instance_rule, 3, args))) return 0;
    if (local_len <= sizeof(d->plain_types[0].local) && uri_len <= sizeof(d->plain_types[0].uri)) {
        wb_xdec_plain_type *t = &d->plain_types[d->plain_type_next];
        t->declared = declared;
        t->local_len = (unsigned char)local_len;
        t->uri_len = (unsigned char)uri_len;
        memcpy(t->local, local, local_len);
        if (uri_len) memcpy(t->uri, ns.ptr, uri_len);
        remember_written(t, q, generation);
        d->plain_type_next = (d->plain_type_next + 1) % WB_XDEC_PLAIN_TYPES;
        if (d->plain_type_count < WB_XDEC_PLAIN_TYPES) d->plain_type_count++;
    }
    return 1;
}

/* subtype_plan: the compiled plan of the subclass an xsi:type names (Native.subtype_plan
 * decides, as the pure decoder does), else plan. */
static const wb_xplan *subtype_plan(wb_xdec *d, const wb_xplan *plan, const wb_xtok_attr *attrs, size_t n, wb_xtok_str leaf)
{
    VALUE local, uri;
    if (!xsi_type(d, attrs, n, &local, &uri)) return plan;
    VALUE found = rb_funcall(mNative, id_subtype_plan, 4, plan->klass, local, uri, d->strict ? Qtrue : Qfalse);
    if (NIL_P(found)) return plan;
    if (RB_TYPE_P(found, T_STRING)) {
        leaf_path l = {leaf, {NULL, 0}};
        decode_error(d, found, l, NONE);
    }
    if (NIL_P(d->keep)) d->keep = rb_hash_new();
    rb_hash_aset(d->keep, found, Qtrue); /* held for as long as the decode runs */
    return rb_check_typeddata(found, &wb_xplan_type);
}

/* typed_any_plan: the compiled plan of the model an :any element's xsi:type
 * names (Native.typed_any_plan decides, as the pure decoder does, given the
 * innermost record's class), or NULL: then its content is captured. */
static const wb_xplan *typed_any_plan(wb_xdec *d, const wb_xplan_entry *slot, const wb_xtok_attr *attrs, size_t n)
{
    VALUE local, uri;
    if (!d->poly || !n || slot->type_value != ID2SYM(id_any) || !xsi_type(d, attrs, n, &local, &uri)) return NULL;
    VALUE owner = Qnil;
    for (size_t i = d->frame_count; i-- > 0;) {
        if (d->frames[i].kind == WB_XPLAN_MODEL) {
            owner = d->frames[i].plan->klass;
            break;
        }
    }
    VALUE found = rb_funcall(mNative, id_typed_any_plan, 3, local, uri, owner);
    if (NIL_P(found)) return NULL;
    if (NIL_P(d->keep)) d->keep = rb_hash_new();
    rb_hash_aset(d->keep, found, Qtrue); /* held for as long as the decode runs */
    return rb_check_typeddata(found, &wb_xplan_type);
}

static void deliver(wb_xdec *d, const wb_xplan_entry *slot, size_t values, VALUE value);

/* reference: an element with href="#id" where slot's value goes. Its value when
 * the referent was read, else a place References remembers. */
static void reference(wb_xdec *d, wb_xplan_entry *slot, size_t values, wb_xtok_str id)
{
    VALUE idv = wb_utf8_str(id.ptr, id.len);
    VALUE value = rb_funcall(d->refs, id_lookup, 1, idv);
    if (value != wb_hooks.reference_pending) {
        deliver(d, slot, values, value);
        return;
    }
    if (slot->index >= 0) {
        size_t at = values + (size_t)slot->index;
        if (slot->list) {
            VALUE list = slot_list(d, at);
            rb_ary_push(list, Qnil);
            rb_funcall(d->refs, id_into_array, 4, idv, slot->type_value, list, LONG2NUM(RARRAY_LEN(list) - 1));
        } else {
            d->values[at] = Qnil;
            /* The record these values belong to: the innermost model frame. */
            for (size_t i = d->frame_count; i-- > 0;) {
                if (d->frames[i].kind == WB_XPLAN_MODEL) {
                    d->frames[i].holds = 1;
                    break;
                }
            }
            rb_funcall(d->refs, id_hold, 4, idv, slot->type_value, SIZET2NUM(values), LONG2NUM(slot->index));
        }
    } else if (slot == &d->referent) {
        decode_error(d, rb_utf8_str_new_cstr("a referenced element (id) may not itself be a reference (href)"), NO_LEAF, NONE);
    } else {
        d->count++;
        switch (d->mode) {
        case WB_XDEC_LIST:
            rb_ary_push(d->results, Qnil);
            rb_funcall(d->refs, id_into_array, 4, idv, slot->type_value, d->results, LONG2NUM(RARRAY_LEN(d->results) - 1));
            break;
        case WB_XDEC_EACH: rb_funcall(d->refs, id_each_reference, 2, idv, slot->type_value); break;
        default:
            d->result_box = rb_ary_new_from_args(1, Qnil);
            rb_funcall(d->refs, id_into_array, 4, idv, slot->type_value, d->result_box, INT2FIX(0));
            d->mode = WB_XDEC_DONE;
            break;
        }
    }
}

/* Decoder#referenced_list: the one list slot of a wrapper group (an href on
 * it points at a shared soapenc:Array), or NULL. */
static wb_xplan_entry *referenced_list(const wb_xplan_entry *group)
{
    wb_xplan_entry *only = group->any;
    size_t count = only ? 1 : 0;
    if (group->table.buckets) {
        for (size_t i = 0; i <= group->table.mask; i++) {
            if (group->table.buckets[i].entry) {
                only = group->table.buckets[i].entry;
                count++;
            }
        }
    }
    return count == 1 && only->list && !only->alt ? only : NULL;
}

/* An href on a list wrapper: the whole list is the referent's value, read as
 * References.list_of its item type. */
static void list_reference(wb_xdec *d, const wb_xplan_entry *list, size_t values, wb_xtok_str id)
{
    wb_xplan_entry whole = *list;
    whole.list = 0;
    whole.kind = WB_XPLAN_MODEL;
    whole.plan = 0;
    whole.type_value = rb_funcall(rb_obj_class(d->refs), id_list_of, 1, list->type_value);
    reference(d, &whole, values, id);
    RB_GC_GUARD(whole.type_value);
}

/* An element outside the records with an id whose type References knows: the
 * referent slot is set up for it. */
static int referent(wb_xdec *d, const wb_xtok_attr *attrs, size_t n)
{
    wb_xtok_str id = referent_id(attrs, n);
    if (!id.ptr) return 0;
    VALUE local = Qnil, uri = Qnil;
    xsi_type(d, attrs, n, &local, &uri);
    VALUE type = rb_funcall(d->refs, id_referent_type, 3, wb_utf8_str(id.ptr, id.len), local, uri);
    if (NIL_P(type)) return 0;
    d->referent.type_value = type;
    d->referent.plan = 0;
    d->referent.index = -1;
    d->referent.list = 0;
    if (RB_TYPE_P(type, T_CLASS)) {
        d->referent.kind = WB_XPLAN_MODEL;
    } else {
        d->referent.kind = WB_XPLAN_SCALAR;
        d->referent.type = wb_scalar_type_code(type);
    }
    return 1;
}

/* start_model: plan is the slot's own, or (an :any slot) the one its xsi:type named. */
static void start_capture(wb_xdec *d, wb_xplan_entry *slot, size_t values, const wb_xtok_attr *attrs, size_t n, wb_xtok_str uri,
                          wb_xtok_str local);

static void start_model(wb_xdec *d, wb_xplan_entry *slot, size_t parent, const wb_xtok_attr *attrs, size_t n, const wb_xplan *plan)
{
    if (n && nil_attribute(attrs, n)) {
        deliver(d, slot, parent, Qnil);
        d->skip = 1;
        d->tok.want_text = 0;
        return;
    }
    if (!plan) plan = wb_xplan_entry_plan(slot);
    if (d->poly && n) plan = subtype_plan(d, plan, attrs, n, (wb_xtok_str){NULL, 0});
    /* A record with an id (PHP's first copy of a repeated value): its id goes
     * below its values, for References#define at its end. */
    size_t id_at = NONE;
    if (n && !NIL_P(d->refs) && slot != &d->referent) {
        wb_xtok_str id = referent_id(attrs, n);
        if (id.ptr) {
            id_at = xdec_push_values(d, 1);
            d->values[id_at] = wb_utf8_str(id.ptr, id.len);
        }
    }
    size_t base = xdec_push_values(d, plan->size);
    if (n) apply_attributes(d, &plan->attributes, attrs, n, base, (wb_xtok_str){NULL, 0});
    int whole = plan->text && plan->text->kind == WB_XPLAN_OPEN;
    int wants = plan->text != NULL && !whole;
    wb_xdec_frame *f = xdec_push_frame(d, WB_XPLAN_MODEL);
    f->plan = plan;
    f->entry = slot;
    f->values = base;
    f->parent = parent;
    f->id_at = id_at;
    f->wants_text = wants;
    /* A mark for the text's errors, and for a value the builder refuses (at the start tag). */
    if (wants || plan->checked) f->mark = wb_xtok_mark_push(&d->tok);
    d->tok.want_text = wants;
    if (whole) {
        /* Decoder#start_whole_content: the capture's end tag is the record's. */
        start_capture(d, plan->text, base, attrs, n, (wb_xtok_str){NULL, 0}, (wb_xtok_str){NULL, 0});
        xdec_top_frame(d)->whole = 1;
    }
}

static void start_scalar(wb_xdec *d, wb_xplan_entry *slot, size_t values, const wb_xtok_attr *attrs, size_t n)
{
    int nil = n ? nil_attribute(attrs, n) : 0;
    /* Text in pieces (IO reads, references, CDATA): an instance xsi:type that
     * changes it applies at the end, to the text as assembled. */
    size_t typed_at = NONE;
    if (n && !nil && !instance_type_plain(d, slot->type_value, attrs, n)) {
        typed_at = xdec_push_values(d, 2);
        xsi_type(d, attrs, n, &d->values[typed_at], &d->values[typed_at + 1]);
    }
    wb_xdec_frame *f = xdec_push_frame(d, WB_XPLAN_SCALAR);
    f->typed_at = typed_at;
    f->entry = slot;
    f->values = values;
    f->nil = nil;
    f->wants_text = 1;
    f->mark = wb_xtok_mark_push(&d->tok);
    d->tok.want_text = 1;
}

static int nil_attribute(const wb_xtok_attr *attrs, size_t n);

/* Decoder#wildcard: a "*" :any item keeps its element's name, [local, the
 * record's namespace] (Capture's named:); Qnil for any other entry. */
static VALUE wildcard(const wb_xplan_entry *slot, wb_xtok_str local)
{
    if (slot->name || slot->kind != WB_XPLAN_OPEN || slot->type_value != sym_any) return Qnil;
    return rb_assoc_new(wb_utf8_str(local.ptr, local.len), slot->home ? wb_utf8_str(slot->home, slot->home_len) : Qnil);
}

/* Decoder#start_capture: a :xml or :any element; text is wanted throughout,
 * and every event inside goes to its Capture (kept in the values stack). */
static void start_capture(wb_xdec *d, wb_xplan_entry *slot, size_t values, const wb_xtok_attr *attrs, size_t n, wb_xtok_str uri,
                          wb_xtok_str local)
{
    VALUE named = wildcard(slot, local);
    if (NIL_P(named) && n && nil_attribute(attrs, n)) {
        deliver(d, slot, values, Qnil);
        d->skip = 1;
        d->tok.want_text = 0;
        return;
    }
    /* A wildcard item keeps its element (xsi:nil and xsi:type among its attributes). */
    const wb_xplan *typed = NIL_P(named) ? typed_any_plan(d, slot, attrs, n) : NULL;
    if (typed) {
        start_model(d, slot, values, attrs, n, typed);
        return;
    }
    size_t at = xdec_push_values(d, 1);
    VALUE options = rb_hash_new();
    rb_hash_aset(options, sym_scope, d->state);
    if (!NIL_P(named)) rb_hash_aset(options, sym_named, named);
    VALUE args[4] = {slot->type_value, str_or_nil(uri), attrs_array(attrs, n, 0), options};
    VALUE capture = rb_class_new_instance_kw(4, args, wb_hooks.cXMLCapture, RB_PASS_KEYWORDS);
    d->values[at] = capture;
    wb_xdec_frame *f = xdec_push_frame(d, WB_XPLAN_CAPTURE);
    f->entry = slot;
    f->values = values;
    f->parent = at;
    f->wants_text = 1;
    f->open = 0;
    d->tok.want_text = 1;
}

/* An element inside a captured one: Capture#start, or #leaf when seen whole. */
static void capture_element(wb_xdec *d, wb_xdec_frame *top, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n, const wb_xtok_str *text)
{
    const wb_xtok *t = &d->tok;
    VALUE capture = d->values[top->parent];
    VALUE args[5] = {wb_utf8_str(t->tag_qname.ptr, t->tag_qname.len), str_or_nil(uri), attrs_array(attrs, n, 1), tag_declarations(t), Qnil};
    if (text) {
        args[4] = wb_utf8_str(text->ptr, text->len);
        rb_funcallv(capture, id_leaf, 5, args);
    } else {
        top->open++;
        rb_funcallv(capture, id_start, 4, args);
    }
}

static int step_matches(const wb_xdec_step *step, wb_xtok_str local, wb_xtok_str uri)
{
    return (!step->local || name_is(local, step->local, step->local_len)) && (!step->uri || uri_is(uri, step->uri, step->uri_len));
}

/* locate: outside any record, follow the at: path, passing over every subtree
 * that cannot lead to a record. */
static void locate_record(wb_xdec *d, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n)
{
    size_t depth = wb_xtok_depth(&d->tok);
    if (n && !NIL_P(d->refs) && referent(d, attrs, n)) {
        d->located++; /* undone at its end, as for a record */
        d->record_depth = depth;
        if (d->referent.kind == WB_XPLAN_MODEL)
            start_model(d, &d->referent, NONE, attrs, n, NULL);
        else
            start_scalar(d, &d->referent, NONE, attrs, n);
        return;
    }
    if (d->located != depth - 1 || d->mode == WB_XDEC_DONE || depth - 1 >= d->step_count ||
        !step_matches(&d->steps[depth - 1], local, uri)) {
        d->skip = 1;
        return;
    }
    d->located = depth;
    if (depth > d->reached) d->reached = depth;
    if (depth < d->step_count) return;
    d->record_depth = depth;
    if (d->record.kind == WB_XPLAN_MODEL)
        start_model(d, &d->record, NONE, attrs, n, NULL);
    else
        start_scalar(d, &d->record, NONE, attrs, n);
}

static void on_start(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n)
{
    wb_xdec *d = ctx;
    if (d->skip) {
        d->skip++;
        return;
    }
    wb_xdec_frame *top = xdec_top_frame(d);
    if (!top) {
        locate_record(d, local, uri, attrs, n);
        return;
    }
    if (top->kind == WB_XPLAN_CAPTURE) {
        capture_element(d, top, uri, attrs, n, NULL);
        return;
    }
    if (top->kind == WB_XPLAN_SCALAR) scalar_with_children(d, top, local, 0);
    if (top->wants_text) top->children = 1;
    wb_xplan_entry *e = lookup(top, local, uri);
    if (!e) {
        if (d->strict) unknown_element(d, local, 0);
        d->skip = 1;
        d->tok.want_text = 0;
        return;
    }
    size_t values = top->values;
    if (n && !NIL_P(d->refs)) {
        wb_xtok_str id = href_id(attrs, n);
        const wb_xplan_entry *list = id.ptr && e->kind == WB_XPLAN_GROUP ? referenced_list(e) : NULL;
        if (id.ptr && (e->kind != WB_XPLAN_GROUP || list)) {
            if (list)
                list_reference(d, list, values, id);
            else
                reference(d, e, values, id);
            d->skip = 1;
            d->tok.want_text = 0;
            return;
        }
    }
    if (e->kind != WB_XPLAN_GROUP && !e->list && single_taken(d, e, values, uri, local, 0)) {
        /* A single value takes the first matching element that gives one. */
        d->skip = 1;
        d->tok.want_text = 0;
        return;
    }
    switch (e->kind) {
    case WB_XPLAN_GROUP: {
        if (n) apply_attributes(d, &e->attributes, attrs, n, values, (wb_xtok_str){NULL, 0});
        /* want_text stays as it is, as in pure. */
        wb_xdec_frame *f = xdec_push_frame(d, WB_XPLAN_GROUP);
        f->entry = e;
        f->values = values;
        break;
    }
    case WB_XPLAN_MODEL: start_model(d, e, values, attrs, n, NULL); break;
    case WB_XPLAN_OPEN: start_capture(d, e, values, attrs, n, uri, local); break;
    default:
        /* "Amt/@Ccy" beside "Amt" */
        if (n && e->attributes.buckets) apply_attributes(d, &e->attributes, attrs, n, values, (wb_xtok_str){NULL, 0});
        start_scalar(d, e, values, attrs, n);
        break;
    }
}

/* leaf_value: a value element that holds only text, seen whole. */
static void leaf_value(wb_xdec *d, wb_xplan_entry *slot, size_t values, const wb_xtok_attr *attrs, size_t n, wb_xtok_str text,
                       wb_xtok_str local, wb_xtok_str uri)
{
    VALUE named = wildcard(slot, local);
    if (!NIL_P(named)) {
        VALUE args[5] = {slot->type_value, attrs_array(attrs, n, 0), wb_utf8_str(text.ptr, text.len), named, str_or_nil(uri)};
        deliver(d, slot, values, rb_funcallv(wb_hooks.cXMLCapture, id_leaf_value, 5, args));
        return;
    }
    if (n && nil_attribute(attrs, n)) {
        deliver(d, slot, values, Qnil);
        return;
    }
    leaf_path l = {local, {NULL, 0}};
    const wb_xplan *typed = slot->kind == WB_XPLAN_OPEN ? typed_any_plan(d, slot, attrs, n) : NULL;
    if (slot->kind == WB_XPLAN_OPEN && !typed) {
        VALUE args[3] = {slot->type_value, attrs_array(attrs, n, 0), wb_utf8_str(text.ptr, text.len)};
        deliver(d, slot, values, rb_funcallv(wb_hooks.cXMLCapture, id_leaf_value, 3, args));
        return;
    }
    if (typed || slot->kind == WB_XPLAN_MODEL) {
        const wb_xplan *plan = typed ? typed : wb_xplan_entry_plan(slot);
        if (d->poly && n) plan = subtype_plan(d, plan, attrs, n, local);
        size_t base = xdec_push_values(d, plan->size);
        if (n) apply_attributes(d, &plan->attributes, attrs, n, base, local);
        if (plan->text && plan->text->kind == WB_XPLAN_OPEN) {
            VALUE args[3] = {plan->text->type_value, attrs_array(attrs, n, 0), wb_utf8_str(text.ptr, text.len)};
            d->values[base + (size_t)plan->text->index] = rb_funcallv(wb_hooks.cXMLCapture, id_leaf_value, 3, args);
        } else if (plan->text) {
            VALUE v = convert(d, plan->text, text.ptr, text.len, l, NONE);
            d->values[base + (size_t)plan->text->index] = v;
        }
        VALUE record = xdec_build(d, plan, base, local, NONE);
        d->value_count = base;
        deliver(d, slot, values, record);
        return;
    }
    if (n && !instance_type_plain(d, slot->type_value, attrs, n)) {
        /* An instance xsi:type that changes the text: as XML.instance_text gives it. */
        VALUE xsi_local, xsi_uri;
        xsi_type(d, attrs, n, &xsi_local, &xsi_uri);
        VALUE args[4] = {slot->type_value, xsi_local, xsi_uri, wb_utf8_str(text.ptr, text.len)};
        VALUE typed = rb_funcallv(wb_hooks.mXML, id_instance_text, 4, args);
        deliver(d, slot, values, convert(d, slot, RSTRING_PTR(typed), (size_t)RSTRING_LEN(typed), l, NONE));
        RB_GC_GUARD(typed);
        return;
    }
    deliver(d, slot, values, convert(d, slot, text.ptr, text.len, l, NONE));
}

/* The hottest hook: most elements of a payload are leaves. */
static void on_leaf(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n, wb_xtok_str text)
{
    wb_xdec *d = ctx;
    if (d->skip) return;
    wb_xdec_frame *top = xdec_top_frame(d);
    if (!top) {
        size_t depth = wb_xtok_depth(&d->tok);
        if (n && !NIL_P(d->refs) && referent(d, attrs, n)) {
            d->record_depth = depth + 1;
            leaf_value(d, &d->referent, NONE, attrs, n, text, local, (wb_xtok_str){NULL, 0});
            return;
        }
        if (!(depth + 1 <= d->step_count && d->located == depth && d->mode != WB_XDEC_DONE && step_matches(&d->steps[depth], local, uri)))
            return;
        if (depth + 1 > d->reached) d->reached = depth + 1;
        if (depth + 1 < d->step_count) return;
        d->record_depth = depth + 1;
        if (n && !NIL_P(d->refs)) {
            wb_xtok_str id = href_id(attrs, n);
            if (id.ptr) {
                reference(d, &d->record, NONE, id);
                return;
            }
        }
        leaf_value(d, &d->record, NONE, attrs, n, text, local, (wb_xtok_str){NULL, 0});
        return;
    }
    if (top->kind == WB_XPLAN_CAPTURE) {
        capture_element(d, top, uri, attrs, n, &text);
        return;
    }
    if (top->kind == WB_XPLAN_SCALAR) scalar_with_children(d, top, local, 1);
    if (top->wants_text) top->children = 1;
    wb_xplan_entry *e = lookup(top, local, uri);
    if (!e) {
        if (d->strict) unknown_element(d, local, 1);
        return;
    }
    if (n && !NIL_P(d->refs)) {
        wb_xtok_str id = href_id(attrs, n);
        const wb_xplan_entry *list = id.ptr && e->kind == WB_XPLAN_GROUP ? referenced_list(e) : NULL;
        if (list) {
            list_reference(d, list, top->values, id);
            return;
        }
        if (id.ptr && e->kind != WB_XPLAN_GROUP) {
            reference(d, e, top->values, id);
            return;
        }
    }
    if (e->kind != WB_XPLAN_GROUP && !e->list && single_taken(d, e, top->values, uri, local, 1)) return; /* the first one stays */
    /* "Amt/@Ccy" beside "Amt" */
    if (n && e->kind == WB_XPLAN_SCALAR && e->attributes.buckets) apply_attributes(d, &e->attributes, attrs, n, top->values, local);
    if (e->kind == WB_XPLAN_SCALAR) {
        /* One pass over the attributes; an xsi:type that leaves the text as it
         * is (remembered per decoder) costs no more than that. */
        wb_xtok_str type = {NULL, 0};
        if (n && xsi_attributes(attrs, n, &type)) {
            deliver(d, e, top->values, Qnil);
        } else if (!type.ptr || plain_type(d, e->type_value, type)) {
            leaf_path l = {local, {NULL, 0}};
            deliver(d, e, top->values, convert(d, e, text.ptr, text.len, l, NONE));
        } else {
            leaf_value(d, e, top->values, attrs, n, text, local, uri);
        }
    } else if (e->kind != WB_XPLAN_GROUP) {
        /* (an empty wrapper leaves its lists empty, as they are by default) */
        leaf_value(d, e, top->values, attrs, n, text, local, uri);
    } else if (n) {
        apply_attributes(d, &e->attributes, attrs, n, top->values, local);
    }
}

static NORETURN(void text_too_large(wb_xdec *d));
static void text_too_large(wb_xdec *d)
{
    long line, column;
    wb_xtok_token_position(&d->tok, &line, &column);
    VALUE message = rb_sprintf("a text value is larger than max_token_size (%zu bytes)", d->tok.max_token_size);
    wb_error_raise_parse(wb_hooks.eLimitError, message, line, column, (long)d->tok.tok, WB_ERROR_REASON_OF_CLASS);
}

static void on_text(void *ctx, const char *p, size_t n)
{
    wb_xdec *d = ctx;
    wb_xdec_frame *top = xdec_top_frame(d);
    if (!top) return;
    if (top->kind == WB_XPLAN_CAPTURE) {
        rb_funcall(d->values[top->parent], id_text, 1, wb_utf8_str(p, n));
        return;
    }
    top->has_text = 1;
    /* An empty CDATA section: nothing to copy, and no buffer may exist yet
     * (memcpy with a NULL destination is undefined even for 0 bytes). */
    if (n == 0) return;
    wb_xtok_bytes *b = &top->text;
    /* max_token_size bounds a text value as assembled: pieces from a stream, around
     * comments, CDATA sections and character references add up. */
    if (b->len > d->tok.max_token_size || n > d->tok.max_token_size - b->len) text_too_large(d);
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n) {
            if (cap > ((size_t)-1) / 2) rb_memerror();
            cap *= 2;
        }
        char *s = ruby_xrealloc(b->ptr, cap);
        b->ptr = s;
        b->cap = cap;
    }
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

static void on_end(void *ctx)
{
    wb_xdec *d = ctx;
    if (d->skip) {
        d->skip--;
        if (!d->skip) {
            wb_xdec_frame *top = xdec_top_frame(d);
            d->tok.want_text = top ? top->wants_text : 0;
        }
        return;
    }
    if (!d->frame_count) {
        d->located--;
        return;
    }
    wb_xdec_frame *capture = xdec_top_frame(d);
    if (capture->kind == WB_XPLAN_CAPTURE && capture->open) {
        capture->open--;
        rb_funcall(d->values[capture->parent], id_finish, 0);
        return;
    }
    /* The frame leaves the stack, its memory (text) stays until the next push. */
    wb_xdec_frame *f = &d->frames[--d->frame_count];
    wb_xdec_frame *top = xdec_top_frame(d);
    d->tok.want_text = top ? top->wants_text : 0;
    const char *text = f->text.ptr ? f->text.ptr : "";
    int whole = f->kind == WB_XPLAN_CAPTURE && f->whole;
    if (f->kind == WB_XPLAN_SCALAR && f->typed_at != NONE) {
        VALUE args[4] = {f->entry->type_value, d->values[f->typed_at], d->values[f->typed_at + 1], wb_utf8_str(text, f->text.len)};
        VALUE typed = rb_funcallv(wb_hooks.mXML, id_instance_text, 4, args);
        VALUE v = convert(d, f->entry, RSTRING_PTR(typed), (size_t)RSTRING_LEN(typed), NO_LEAF, f->mark);
        RB_GC_GUARD(typed);
        d->value_count = f->typed_at;
        deliver(d, f->entry, f->values, v);
    } else if (f->kind == WB_XPLAN_SCALAR) {
        VALUE v = f->nil ? Qnil : convert(d, f->entry, text, f->text.len, NO_LEAF, f->mark);
        deliver(d, f->entry, f->values, v);
    } else if (f->kind == WB_XPLAN_CAPTURE) {
        VALUE v = rb_funcall(d->values[f->parent], id_value, 0);
        d->value_count = f->parent;
        deliver(d, f->entry, f->values, v);
    } else if (f->kind == WB_XPLAN_MODEL) {
        const wb_xplan *plan = f->plan;
        if (plan->text && plan->text->kind != WB_XPLAN_OPEN) {
            /* White space between child elements is layout, not text. */
            VALUE v = f->children && blank(text, f->text.len) ? Qnil : convert(d, plan->text, text, f->text.len, NO_LEAF, f->mark);
            d->values[f->values + (size_t)plan->text->index] = v;
        }
        VALUE record = xdec_build(d, plan, f->values, NO_LEAF.element, f->mark);
        VALUE id = f->id_at == NONE ? Qnil : d->values[f->id_at];
        d->value_count = f->id_at == NONE ? f->values : f->id_at;
        if (f->holds) rb_funcall(d->refs, id_built, 2, record, SIZET2NUM(f->values));
        deliver(d, f->entry, f->parent, record);
        if (!NIL_P(id)) rb_funcall(d->refs, id_define, 2, id, record);
        RB_GC_GUARD(id);
    }
    if (f->mark != NONE) wb_xtok_mark_pop(&d->tok);
    if (!d->frame_count) d->located--;
    if (whole) on_end(ctx); /* the record's end tag too (one level: a record's frame is no capture) */
}

/* ---- input and errors --------------------------------------------------------------- */

static int xdec_read_chunk(void *ctx, const char **ptr, size_t *len)
{
    wb_xdec *d = ctx;
    d->chunk = Qnil;
    VALUE chunk = rb_funcall(d->source, id_next_chunk, 0);
    if (NIL_P(chunk)) return 0;
    StringValue(chunk);
    /* A frozen copy (shared, not copied, for a long String): the caller's String
     * may be the chunk, and a block given to each could change it under us. */
    chunk = rb_str_new_frozen(chunk);
    d->chunk = chunk;
    *ptr = RSTRING_PTR(chunk);
    *len = (size_t)RSTRING_LEN(chunk);
    return 1;
}

static void raise_error(void *ctx, int kind, const char *message, size_t length, long line, long column, long long offset)
{
    if (kind == WB_XTOK_NO_MEMORY) rb_memerror();
    VALUE text = rb_utf8_str_new(message, (long)length);
    wb_error_raise_parse(kind == WB_XTOK_LIMIT_ERROR ? wb_hooks.eLimitError : wb_hooks.eParseError, text, line, column, (long)offset,
                         kind == WB_XTOK_TRUNCATED ? WB_ERROR_REASON_TRUNCATED : WB_ERROR_REASON_OF_CLASS);
}

static void check_start(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n) {}
static void check_leaf(void *ctx, wb_xtok_str local, wb_xtok_str uri, const wb_xtok_attr *attrs, size_t n, wb_xtok_str text) {}
static void check_text(void *ctx, const char *p, size_t n) {}
static void check_end(void *ctx) {}

/* ---- lifecycle -------------------------------------------------------------------------- */

static char *xdec_copy_bytes(VALUE s, size_t *len)
{
    if (NIL_P(s)) return NULL;
    StringValue(s);
    *len = (size_t)RSTRING_LEN(s);
    char *p = ruby_xmalloc(*len + 1);
    memcpy(p, RSTRING_PTR(s), *len);
    p[*len] = '\0';
    return p;
}

void wb_xdec_init(wb_xdec *d, VALUE source, VALUE item, int mode, VALUE path, int strict, const wb_xtok_config *config, VALUE block,
                  VALUE refs, VALUE missing, VALUE default_offset)
{
    d->missing = missing;
    if (!NIL_P(default_offset)) d->default_offset = xdec_copy_bytes(default_offset, &d->default_offset_len);
    d->source = source;
    d->refs = refs;
    d->result_box = Qnil;
    d->keep = Qnil;
    d->poly = 0;
    d->referent.type_value = Qnil;
    d->referent.plan = 0;
    d->block = block;
    d->mode = mode;
    d->strict = strict;
    d->results = Qnil;
    d->result = Qnil;
    d->chunk = Qnil;
    d->root_plan = Qnil;
    d->env.decimal_text = 0;
    d->record.type_value = Qnil;
    d->record.index = -1;
    if (mode == WB_XDEC_CHECK) {
        d->handler = (wb_xtok_handler){xdec_read_chunk, raise_error, check_start, check_leaf, check_text, check_end};
    } else {
        d->handler = (wb_xtok_handler){xdec_read_chunk, raise_error, on_start, on_leaf, on_text, on_end};
        if (mode == WB_XDEC_LIST) d->results = rb_ary_new();
        d->poly = RTEST(rb_funcall(wb_hooks.mModel, id_xml_types_p, 0));
        d->record.type_value = item;
        if (RB_TYPE_P(item, T_CLASS)) {
            d->record.kind = WB_XPLAN_MODEL;
            d->root_plan = rb_funcall(mNative, id_plan_for, 1, item);
            d->record.plan = d->root_plan;
            (void)rb_check_typeddata(d->root_plan, &wb_xplan_type);
        } else {
            d->record.kind = WB_XPLAN_SCALAR;
            d->record.type = wb_scalar_type_code(item);
            if (d->record.type < 0) rb_raise(rb_eArgError, "not a scalar type: %" PRIsVALUE, rb_inspect(item));
        }
        Check_Type(path, T_ARRAY);
        long n = RARRAY_LEN(path);
        if (n < 1) rb_raise(rb_eArgError, "the path has no steps");
        d->steps = ruby_xcalloc((size_t)n, sizeof(wb_xdec_step));
        d->step_count = (size_t)n;
        for (long i = 0; i < n; i++) {
            VALUE step = RARRAY_AREF(path, i);
            Check_Type(step, T_ARRAY);
            if (RARRAY_LEN(step) != 2) rb_raise(rb_eArgError, "a path step is [local, uri]");
            d->steps[i].local = xdec_copy_bytes(RARRAY_AREF(step, 0), &d->steps[i].local_len);
            d->steps[i].uri = xdec_copy_bytes(RARRAY_AREF(step, 1), &d->steps[i].uri_len);
        }
    }
    wb_xtok_init(&d->tok, &d->handler, d, config);
}

VALUE wb_xdec_run(wb_xdec *d)
{
    if (wb_xtok_run(&d->tok) == WB_XTOK_DOCTYPE) return Qundef;
    if (!NIL_P(d->refs)) rb_funcall(d->refs, id_finish, 0);
    if (!NIL_P(d->missing) && d->mode != WB_XDEC_CHECK) {
        /* Decoder#check_found: a single record needs the whole path, a list its parent. */
        size_t needed = d->mode == WB_XDEC_FIRST || d->mode == WB_XDEC_DONE ? d->step_count : d->step_count - 1;
        if (d->reached < needed) rb_exc_raise(rb_class_new_instance(1, &d->missing, wb_hooks.eDecodeError));
    }
    switch (d->mode) {
    case WB_XDEC_CHECK: return Qtrue;
    case WB_XDEC_LIST: return d->results;
    case WB_XDEC_EACH: return NIL_P(d->refs) ? LONG2NUM(d->count) : rb_funcall(d->refs, id_count, 0);
    default: return NIL_P(d->result_box) ? d->result : rb_ary_entry(d->result_box, 0);
    }
}

void wb_xdec_free(wb_xdec *d)
{
    wb_xtok_free(&d->tok);
    for (size_t i = 0; i < d->frames_cap; i++) ruby_xfree(d->frames[i].text.ptr);
    ruby_xfree(d->frames);
    d->frames = NULL;
    d->frames_cap = d->frame_count = 0;
    ruby_xfree(d->values);
    d->values = NULL;
    ruby_xfree(d->loose);
    d->loose = NULL;
    d->values_cap = d->value_count = 0;
    for (size_t i = 0; i < d->step_count; i++) {
        ruby_xfree(d->steps[i].local);
        ruby_xfree(d->steps[i].uri);
    }
    ruby_xfree(d->steps);
    d->steps = NULL;
    d->step_count = 0;
    ruby_xfree(d->default_offset);
    d->default_offset = NULL;
    ruby_xfree(d->scratch.ptr);
    d->scratch.ptr = NULL;
    d->scratch.cap = d->scratch.len = 0;
}

void wb_xdec_mark(wb_xdec *d)
{
    rb_gc_mark_movable(d->source);
    rb_gc_mark_movable(d->block);
    rb_gc_mark_movable(d->results);
    rb_gc_mark_movable(d->result);
    /* Pinned: the tokenizer holds pointers into its bytes (an embedded String's
     * bytes live in the object itself). */
    rb_gc_mark(d->chunk);
    rb_gc_mark_movable(d->root_plan);
    rb_gc_mark_movable(d->missing);
    rb_gc_mark_movable(d->record.type_value);
    rb_gc_mark_movable(d->refs);
    if (d->state) rb_gc_mark_movable(d->state);
    rb_gc_mark_movable(d->result_box);
    rb_gc_mark_movable(d->keep);
    rb_gc_mark_movable(d->referent.type_value);
    if (d->referent.plan) rb_gc_mark_movable(d->referent.plan);
    if (d->env.decimal_text) rb_gc_mark_movable(d->env.decimal_text);
    for (size_t i = 0; i < d->value_count; i++) rb_gc_mark_movable(d->values[i]);
}

void wb_xdec_compact(wb_xdec *d)
{
    d->source = rb_gc_location(d->source);
    d->block = rb_gc_location(d->block);
    d->results = rb_gc_location(d->results);
    d->result = rb_gc_location(d->result);
    d->root_plan = rb_gc_location(d->root_plan);
    d->missing = rb_gc_location(d->missing);
    d->record.plan = d->root_plan;
    d->record.type_value = rb_gc_location(d->record.type_value);
    d->refs = rb_gc_location(d->refs);
    if (d->state) d->state = rb_gc_location(d->state);
    d->result_box = rb_gc_location(d->result_box);
    d->keep = rb_gc_location(d->keep);
    d->referent.type_value = rb_gc_location(d->referent.type_value);
    if (d->referent.plan) d->referent.plan = rb_gc_location(d->referent.plan);
    if (d->env.decimal_text) d->env.decimal_text = rb_gc_location(d->env.decimal_text);
    for (size_t i = 0; i < d->value_count; i++) d->values[i] = rb_gc_location(d->values[i]);
}

size_t wb_xdec_memsize(const wb_xdec *d)
{
    size_t n = sizeof(*d) + wb_xtok_memsize(&d->tok) + d->frames_cap * sizeof(wb_xdec_frame) + d->values_cap * (sizeof(VALUE) + 1) +
               d->scratch.cap;
    for (size_t i = 0; i < d->frames_cap; i++) n += d->frames[i].text.cap;
    return n;
}
