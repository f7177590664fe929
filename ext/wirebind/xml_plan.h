/* Compiled XML plans: the C tables a model's Wirebind::XML::Plan becomes once
 * per class (names to entries by open addressing, entries for scalars, nested
 * models, wrapper groups and open content), frozen and shareable TypedData
 * objects the decoder (xml_decoder.c) walks a document against. */
#ifndef WIREBIND_XML_PLAN_H
#define WIREBIND_XML_PLAN_H

#include <string.h>

#include "wirebind.h"
#include "scalar.h"

/* Entry kinds, as Plan::SCALAR, MODEL, GROUP, OPEN; and the frame of an OPEN
 * element whose content is being captured (Pure::Decoder::CAPTURE). */
enum { WB_XPLAN_SCALAR = 0, WB_XPLAN_MODEL = 1, WB_XPLAN_GROUP = 2, WB_XPLAN_OPEN = 3, WB_XPLAN_CAPTURE = 4 };

/* Entry types besides the WB_SCALAR_* scalar codes: :qname (a SCALAR entry whose
 * text is resolved in scope), :xml and :any (OPEN entries, captured by
 * XML::Capture, which the decoder feeds with Ruby calls). */
enum { WB_XDEC_QNAME = WB_SCALAR_TYPES, WB_XDEC_XML, WB_XDEC_ANY };

typedef struct wb_xplan_entry wb_xplan_entry;

/* Local name -> entry (the head of its alt chain), open addressing. */
typedef struct wb_xplan_bucket {
    const char *name;
    size_t len;
    uint32_t hash;
    wb_xplan_entry *entry;
} wb_xplan_bucket;

typedef struct wb_xplan_table {
    wb_xplan_bucket *buckets; /* NULL when empty */
    size_t mask;
} wb_xplan_table;

/* A Slot (where a value goes) or a Group (a wrapper element). */
struct wb_xplan_entry {
    int kind;
    int type; /* scalar type code (SCALAR) */
    int list;
    long index; /* in the record's values; -1 for the record itself */
    char *name;
    size_t name_len;
    char *uri; /* elements: NULL any namespace, "" none; attributes: NULL none */
    size_t uri_len;
    const char *home; /* the namespace of the model the entry belongs to (its plan's home); NULL: none */
    size_t home_len;
    char *default_offset; /* :time: appended to a date-time without a zone; NULL: none */
    size_t default_offset_len;
    wb_xplan_entry *alt;
    VALUE type_value;          /* the scalar Symbol or the model Class */
    VALUE plan;                /* MODEL: the type's compiled plan, looked up on first use (0 until then) */
    wb_xplan_table table;      /* GROUP */
    wb_xplan_entry *any;       /* GROUP */
    wb_xplan_table attributes; /* GROUP, SCALAR: XML attributes read by path ("a/@b", "a" beside "a/@b") */
};

typedef struct wb_xplan {
    VALUE klass;
    long size;
    ID filler;   /* Plan#filler: the __wb_fill_vN of the plan's schema (rb_sym2id pins the Symbol) */
    int checked; /* Plan#checked: building may refuse a value (Model::Attribute::Refusal), rescued */
    char *home;  /* Plan#namespace: a plain name prefers elements in it or in none; NULL: none */
    size_t home_len;
    wb_xplan_table table;
    wb_xplan_entry *any;
    wb_xplan_table attributes;
    wb_xplan_entry *text;
    wb_xplan_entry **entries; /* every entry, to mark and free */
    size_t entry_count, entries_cap;
} wb_xplan;

extern const rb_data_type_t wb_xplan_type;

/* Compiles a Ruby Plan into a frozen, shareable TypedData object. */
VALUE wb_xplan_compile(VALUE plan);
/* The compiled plan of a model entry (Native.plan_for, cached in the entry). */
const wb_xplan *wb_xplan_entry_plan(wb_xplan_entry *entry);

/* Looks up the plan's IDs and the module plans are compiled through (Native). */
void wb_xplan_init(VALUE native);

/* FNV-1a over a name: the tables' hash. */
static inline uint32_t wb_xplan_hash_name(const char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

/* The entry of a local name in a table, NULL for none (inlined into the decoder's loop). */
static inline wb_xplan_entry *wb_xplan_lookup(const wb_xplan_table *t, const char *name, size_t len)
{
    if (!t->buckets) return NULL;
    uint32_t h = wb_xplan_hash_name(name, len);
    for (size_t slot = h & t->mask;; slot = (slot + 1) & t->mask) {
        const wb_xplan_bucket *b = &t->buckets[slot];
        if (!b->entry) return NULL;
        if (b->hash == h && b->len == len && memcmp(b->name, name, len) == 0) return b->entry;
    }
}

#endif
