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
enum { WBP_SCALAR = 0, WBP_MODEL = 1, WBP_GROUP = 2, WBP_OPEN = 3, WBP_CAPTURE = 4 };

/* Entry types besides the WBS_* scalar codes: :qname (a SCALAR entry whose
 * text is resolved in scope), :xml and :any (OPEN entries, captured by
 * XML::Capture, which the decoder feeds with Ruby calls). */
enum { WBD_QNAME = WBS_TYPES, WBD_XML, WBD_ANY };

typedef struct wbp_entry wbp_entry;

/* Local name -> entry (the head of its alt chain), open addressing. */
typedef struct wbp_bucket {
    const char *name;
    size_t len;
    uint32_t hash;
    wbp_entry *entry;
} wbp_bucket;

typedef struct wbp_table {
    wbp_bucket *buckets; /* NULL when empty */
    size_t mask;
} wbp_table;

/* A Slot (where a value goes) or a Group (a wrapper element). */
struct wbp_entry {
    int kind;
    int type;   /* scalar type code (SCALAR) */
    int list;
    long index; /* in the record's values; -1 for the record itself */
    char *name;
    size_t name_len;
    char *uri; /* elements: NULL any namespace, "" none; attributes: NULL none */
    size_t uri_len;
    char *default_offset; /* :time: appended to a date-time without a zone; NULL: none */
    size_t default_offset_len;
    wbp_entry *alt;
    VALUE type_value; /* the scalar Symbol or the model Class */
    VALUE plan;       /* MODEL: the type's compiled plan, looked up on first use (0 until then) */
    wbp_table table;  /* GROUP */
    wbp_entry *any;   /* GROUP */
    wbp_table attributes; /* GROUP: XML attributes read by path ("a/@b") */
};

typedef struct wbp_plan {
    VALUE klass;
    long size;
    ID filler; /* Plan#filler: the __wb_fill_vN of the plan's schema (rb_sym2id pins the Symbol) */
    wbp_table table;
    wbp_entry *any;
    wbp_table attributes;
    wbp_entry *text;
    wbp_entry **entries; /* every entry, to mark and free */
    size_t entry_count, entries_cap;
} wbp_plan;

extern const rb_data_type_t wbp_plan_type;

/* Compiles a Ruby Plan into a frozen, shareable TypedData object. */
VALUE wbp_compile(VALUE plan);
/* The compiled plan of a model entry (Native.plan_for, cached in the entry). */
const wbp_plan *wbp_entry_plan(wbp_entry *entry);

/* Decoding modes, as decode_source's mode Symbols. */
enum { WBD_LIST = 0, WBD_FIRST, WBD_EACH, WBD_CHECK, WBD_DONE };

typedef struct wbd_step {
    char *local; /* NULL: any name */
    size_t local_len;
    char *uri; /* NULL: any namespace */
    size_t uri_len;
} wbd_step;

typedef struct wbd_frame {
    int kind;
    const wbp_plan *plan; /* MODEL */
    wbp_entry *entry;     /* SCALAR: its slot; GROUP: the group; MODEL: the slot the record goes to */
    size_t values;        /* base of the record's values (for MODEL its own); (size_t)-1 for none */
    size_t parent;        /* MODEL: base of the values the record goes to; (size_t)-1: emitted */
    int nil;              /* SCALAR: xsi:nil */
    int wants_text;
    size_t mark; /* tokenizer mark of the start tag, or (size_t)-1 */
    wbx_bytes text;
    int has_text;
    int children; /* a child element was seen (kept by frames that want text) */
    int holds; /* MODEL: references wait for values of this record (References#hold) */
    size_t open; /* CAPTURE: elements open inside the captured one (its Capture
                  * object sits in the values stack at `parent`) */
} wbd_frame;

typedef struct wbd_decoder {
    wbx_tokenizer tok;
    wbx_handler handler;
    int mode;
    int strict;
    VALUE source;
    VALUE block;
    VALUE results;
    VALUE result;
    VALUE chunk; /* the chunk the tokenizer reads (pinned: it holds its bytes) */
    VALUE root_plan;
    wbp_entry record; /* the record slot: index -1, the item type */
    wbd_step *steps;
    size_t step_count;
    wbd_frame *frames;
    size_t frame_count, frames_cap;
    VALUE *values;
    size_t value_count, values_cap;
    long count;
    size_t located;
    size_t reached; /* the most steps of the path matched at once */
    VALUE missing;  /* the DecodeError message when the path never matched; nil: none */
    char *default_offset; /* the call's default_offset:, NULL: none */
    size_t default_offset_len;
    size_t skip;
    size_t record_depth;
    wbs_env env;
    wbx_bytes scratch;
    /* SOAP encoding references (XML::References, or Qnil) and xsi:type subclasses. */
    VALUE refs;
    VALUE result_box; /* WBD_FIRST: the record, when it was a reference */
    VALUE keep;       /* plans of xsi:type subclasses in use (a Hash), or Qnil */
    int poly;         /* some model declared xml_type: look at xsi:type */
    wbp_entry referent; /* the slot of the referent being read (one at a time, at the top) */
    VALUE state;        /* the DecodeState that owns this decoder: the scope Captures ask (namespace_of) */
} wbd_decoder;

/* Sets up a decoder (mode WBD_CHECK: well-formedness only). Raises on bad arguments. */
void wbd_init(wbd_decoder *d, VALUE source, VALUE item, int mode, VALUE path, int strict, const wbx_config *config, VALUE block,
              VALUE refs, VALUE missing, VALUE default_offset);
/* Runs it: the result, or Qundef when a DOCTYPE was met (see wbx_read_so_far). */
VALUE wbd_run(wbd_decoder *d);
void wbd_free(wbd_decoder *d);
void wbd_mark(wbd_decoder *d);
void wbd_compact(wbd_decoder *d);
size_t wbd_memsize(const wbd_decoder *d);

void wbd_init_ids(VALUE mNative);
/* DecodeState#namespace_of (see XML::Capture): the binding of a prefix where the decoder is. */
VALUE wbd_namespace_of(wbd_decoder *d, VALUE prefix);

#endif
