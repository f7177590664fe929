/* A model class's Wirebind::JSON::Plan (lib/wirebind/json/plan.rb) compiled
 * for C, once per class, and shared by the JSON decoder and encoder: the slots
 * in declaration order (which is the order of klass.attributes, so a slot's
 * position is its index), and a hash table from each JSON key's bytes to its
 * slot, probed without allocating.
 *
 * Frozen and RUBY_TYPED_FROZEN_SHAREABLE once built. Holds a class, Symbols,
 * frozen Strings, the plan's own frozen Slot objects and (filled in on first
 * use, since models may refer to each other or to themselves) the compiled
 * plans of nested model types; all marked movable and updated on compaction. */
#ifndef WIREBIND_JSON_PLAN_H
#define WIREBIND_JSON_PLAN_H

#include "wirebind.h"
#include "scalar.h"
#include <string.h>

#define WB_JPLAN_STRING_ITSELF (-2)

/* Value codes: the scalar types in scalar.h's order (WB_SCALAR_STRING...), then these. */
enum { WB_JPLAN_MODEL = WB_SCALAR_TYPES, WB_JPLAN_ANY, WB_JPLAN_CODES };

typedef struct wb_jplan_slot {
    char *key; /* the JSON key's UTF-8 bytes, as the input spells it once unescaped */
    size_t key_len;
    uint32_t hash;
    long index;    /* in the record's values; -1 for the value a decode returns */
    int code;      /* WB_SCALAR_* or WB_JPLAN_MODEL / WB_JPLAN_ANY */
    int list;      /* a JSON array of such values */
    ID ivar;       /* where a record keeps the value (0 for the root) */
    VALUE type;    /* the scalar Symbol, :any, or the model Class */
    VALUE slot;    /* the Ruby Plan::Slot (frozen): key String, expected() for messages */
    VALUE key_str; /* slot.key, a frozen String (Qnil for the root) */
    VALUE plan;    /* WB_JPLAN_MODEL: the type's compiled plan, looked up on first use (0 until then) */
    char *member;  /* encoder: the key written as a JSON string, and ':' */
    size_t member_len;
    /* JSON unions (Model::Attribute.json_union), read by the decoder only: */
    int one_or_many; /* a list that also takes one item */
    long string_as;  /* WB_JPLAN_MODEL: the index in the item's values a string fills; -1 for none;
                        WB_JPLAN_STRING_ITSELF (expandable): the string is the value, and a String is written as one */
    int lenient;     /* a number also read from a string holding one */
    int quoted;      /* lenient_numbers: :string: a number written inside a JSON string */
    /* json_type: a key the classes read differently (this slot reads :any, before the discriminator):
       each class's slot, at the same index, by the discriminator's value (a frozen String) */
    struct wb_jplan_variant *variants;
    long nvariants;
    int nested; /* a list of lists: the list levels holding the innermost list (1: [[Point]], [[:float]]; 2: [[[:float]]]) */
} wb_jplan_slot;

typedef struct wb_jplan_variant {
    VALUE tag;
    wb_jplan_slot slot;
} wb_jplan_variant;

typedef struct wb_jplan {
    VALUE klass;
    ID filler;    /* __wb_fill_vN: sets the ivars, checks enum:, converts :time format: (as the XML decoder builds);
                     with a discriminator, __wb_json_variant: the record of the class its value names */
    long size;    /* the values a decoder collects (Plan#read_slots) */
    long encoded; /* the slots an encoder writes, the first ones (Plan#slots) */
    char *tag;    /* json_type: the discriminator member an encoder writes first ("object":"charge"), or NULL */
    size_t tag_len;
    long tag_index; /* json_type: the discriminator's slot, whose value picks the class; -1 for none */
    int checked;    /* Plan#checked: building may refuse a value (Model::Attribute::Refusal), rescued */
    wb_jplan_slot *slots;
    uint32_t *table; /* slot position + 1, 0 for an empty bucket */
    size_t mask;
} wb_jplan;

extern const rb_data_type_t wb_jplan_type;

/* Interns names; call once from Init. `mNative` is Wirebind::JSON::Native,
 * whose plan_for compiles and caches plans. */
void wb_jplan_init(VALUE mNative);

/* Compiles `klass`'s plan from `slots`, an Array of
 * [key, index, code, type, list, ivar, slot, member, one_or_many, string_as, lenient, nested, variants]
 * in index order (variants: nil, or [[discriminator value, row without variants]...]) (Plan#read_slots, see Native.plan_for in lib/wirebind/json/native.rb);
 * `filler` the Symbol of the method that builds its records from their values;
 * `encoded` how many of the slots encoders write; `tag` the discriminator
 * member encoders write first (nil: none); `tag_index` the discriminator's
 * slot (nil: none). */
VALUE wb_jplan_compile(VALUE klass, VALUE slots, VALUE filler, VALUE encoded, VALUE tag, VALUE tag_index, VALUE checked);

/* The compiled plan of a model class (Native.plan_for, cached by the class). */
VALUE wb_jplan_for(VALUE klass);

static inline const wb_jplan *wb_jplan_get(VALUE plan)
{
    return rb_check_typeddata(plan, &wb_jplan_type);
}

/* The slot of a `variants` slot that the discriminator value `tag` (a
 * String, or anything else: none) names, or NULL. */
static inline wb_jplan_slot *wb_jplan_variant_slot(const wb_jplan_slot *slot, VALUE tag)
{
    if (!RB_TYPE_P(tag, T_STRING)) return NULL;
    for (long i = 0; i < slot->nvariants; i++) {
        VALUE known = slot->variants[i].tag;
        if (RSTRING_LEN(known) == RSTRING_LEN(tag) && memcmp(RSTRING_PTR(known), RSTRING_PTR(tag), (size_t)RSTRING_LEN(tag)) == 0) {
            return &slot->variants[i].slot;
        }
    }
    return NULL;
}

/* The compiled plan of a model slot's type, looked up on first use. */
const wb_jplan *wb_jplan_slot_plan(wb_jplan_slot *slot);

/* FNV-1a over the key's bytes. */
static inline uint32_t wb_jplan_hash(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static inline uint64_t wb_jplan_load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t wb_jplan_load32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Whether the n bytes at a and b are equal: keys are short, and a call to
 * memcmp cost more than the comparison (2-3% of a decode); from 4 to 16 bytes
 * by two overlapping loads of each. */
static inline int wb_jplan_key_equal(const char *a, const char *b, size_t n)
{
    if (n >= 8 && n <= 16) {
        return ((wb_jplan_load64(a) ^ wb_jplan_load64(b)) | (wb_jplan_load64(a + n - 8) ^ wb_jplan_load64(b + n - 8))) == 0;
    }
    if (n >= 4 && n < 8) {
        return ((wb_jplan_load32(a) ^ wb_jplan_load32(b)) | (wb_jplan_load32(a + n - 4) ^ wb_jplan_load32(b + n - 4))) == 0;
    }
    if (n < 4) {
        for (size_t i = 0; i < n; i++) {
            if (a[i] != b[i]) return 0;
        }
        return 1;
    }
    return memcmp(a, b, n) == 0;
}

/* The slot whose key is these bytes, or NULL. `hint` is the position where the
 * next key is expected (members usually come in declaration order): it is
 * tried first, with one length and one key comparison, and updated. */
static inline wb_jplan_slot *wb_jplan_lookup(const wb_jplan *plan, const char *key, size_t len, long *hint)
{
    long h = *hint;
    if (h < plan->size) {
        wb_jplan_slot *s = &plan->slots[h];
        if (s->key_len == len && wb_jplan_key_equal(s->key, key, len)) {
            *hint = h + 1;
            return s;
        }
    }
    if (!plan->table) return NULL;
    uint32_t hash = wb_jplan_hash(key, len);
    for (size_t b = hash & plan->mask;; b = (b + 1) & plan->mask) {
        uint32_t at = plan->table[b];
        if (!at) return NULL;
        wb_jplan_slot *s = &plan->slots[at - 1];
        if (s->hash == hash && s->key_len == len && wb_jplan_key_equal(s->key, key, len)) {
            *hint = (long)at;
            return s;
        }
    }
}

#endif
