/* The schema-directed XML decoder engine: compiled plans (C tables built once
 * per model class from a Wirebind::XML::Plan) and a decoder that walks the
 * tokenizer's events against them with an explicit stack of frames, building
 * records as their end tags are read. The C port of
 * lib/wirebind/xml/pure/decoder.rb, the reference. */
#ifndef WIREBIND_XML_DECODER_H
#define WIREBIND_XML_DECODER_H

#include "wirebind.h"
#include "scalar.h"
#include "xml_tokenizer.h"

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
    char *default_offset; /* :time: appended to a date-time without a zone; NULL: none */
    size_t default_offset_len;
    wb_xplan_entry *alt;
    VALUE type_value;          /* the scalar Symbol or the model Class */
    VALUE plan;                /* MODEL: the type's compiled plan, looked up on first use (0 until then) */
    wb_xplan_table table;      /* GROUP */
    wb_xplan_entry *any;       /* GROUP */
    wb_xplan_table attributes; /* GROUP: XML attributes read by path ("a/@b") */
};

typedef struct wb_xplan {
    VALUE klass;
    long size;
    ID filler; /* Plan#filler: the __wb_fill_vN of the plan's schema (rb_sym2id pins the Symbol) */
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

/* Decoding modes, as decode_source's mode Symbols. */
enum { WB_XDEC_LIST = 0, WB_XDEC_FIRST, WB_XDEC_EACH, WB_XDEC_CHECK, WB_XDEC_DONE };

typedef struct wb_xdec_step {
    char *local; /* NULL: any name */
    size_t local_len;
    char *uri; /* NULL: any namespace */
    size_t uri_len;
} wb_xdec_step;

typedef struct wb_xdec_frame {
    int kind;
    const wb_xplan *plan;  /* MODEL */
    wb_xplan_entry *entry; /* SCALAR: its slot; GROUP: the group; MODEL: the slot the record goes to */
    size_t values;         /* base of the record's values (for MODEL its own); (size_t)-1 for none */
    size_t parent;         /* MODEL: base of the values the record goes to; (size_t)-1: emitted */
    int nil;               /* SCALAR: xsi:nil */
    int wants_text;
    size_t mark; /* tokenizer mark of the start tag, or (size_t)-1 */
    wb_xtok_bytes text;
    int has_text;
    int children; /* a child element was seen (kept by frames that want text) */
    int holds;    /* MODEL: references wait for values of this record (References#hold) */
    size_t open;  /* CAPTURE: elements open inside the captured one (its Capture
                  * object sits in the values stack at `parent`) */
} wb_xdec_frame;

typedef struct wb_xdec {
    wb_xtok tok;
    wb_xtok_handler handler;
    int mode;
    int strict;
    VALUE source;
    VALUE block;
    VALUE results;
    VALUE result;
    VALUE chunk; /* the chunk the tokenizer reads (pinned: it holds its bytes) */
    VALUE root_plan;
    wb_xplan_entry record; /* the record slot: index -1, the item type */
    wb_xdec_step *steps;
    size_t step_count;
    wb_xdec_frame *frames;
    size_t frame_count, frames_cap;
    VALUE *values;
    size_t value_count, values_cap;
    long count;
    size_t located;
    size_t reached;       /* the most steps of the path matched at once */
    VALUE missing;        /* the DecodeError message when the path never matched; nil: none */
    char *default_offset; /* the call's default_offset:, NULL: none */
    size_t default_offset_len;
    size_t skip;
    size_t record_depth;
    wb_scalar_env env;
    wb_xtok_bytes scratch;
    /* SOAP encoding references (XML::References, or Qnil) and xsi:type subclasses. */
    VALUE refs;
    VALUE result_box;        /* WB_XDEC_FIRST: the record, when it was a reference */
    VALUE keep;              /* plans of xsi:type subclasses in use (a Hash), or Qnil */
    int poly;                /* some model declared xml_type: look at xsi:type */
    wb_xplan_entry referent; /* the slot of the referent being read (one at a time, at the top) */
    VALUE state;             /* the DecodeState that owns this decoder: the scope Captures ask (namespace_of) */
} wb_xdec;

/* Sets up a decoder (mode WB_XDEC_CHECK: well-formedness only). Raises on bad arguments. */
void wb_xdec_init(wb_xdec *d, VALUE source, VALUE item, int mode, VALUE path, int strict, const wb_xtok_config *config, VALUE block,
                  VALUE refs, VALUE missing, VALUE default_offset);
/* Runs it: the result, or Qundef when a DOCTYPE was met (see wb_xtok_read_so_far). */
VALUE wb_xdec_run(wb_xdec *d);
void wb_xdec_free(wb_xdec *d);
void wb_xdec_mark(wb_xdec *d);
void wb_xdec_compact(wb_xdec *d);
size_t wb_xdec_memsize(const wb_xdec *d);

void wb_xdec_init_ids(VALUE mNative);
/* DecodeState#namespace_of (see XML::Capture): the binding of a prefix where the decoder is. */
VALUE wb_xdec_namespace_of(wb_xdec *d, VALUE prefix);

#endif
