/* The schema-directed XML decoder engine: compiled plans (C tables built once
 * per model class from a Wirebind::XML::Plan) and a decoder that walks the
 * tokenizer's events against them with an explicit stack of frames, building
 * records as their end tags are read. The C port of
 * lib/wirebind/xml/pure/decoder.rb, the reference. */
#ifndef WIREBIND_XML_DECODER_H
#define WIREBIND_XML_DECODER_H

#include "wirebind.h"
#include "scalar.h"
#include "xml_plan.h"
#include "xml_tokenizer.h"

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
    int children;    /* a child element was seen (kept by frames that want text) */
    int holds;       /* MODEL: references wait for values of this record (References#hold) */
    size_t id_at;    /* MODEL: where its id (a String) sits in the values stack, for
                   * References#define; (size_t)-1 for none */
    size_t open;     /* CAPTURE: elements open inside the captured one (its Capture
                  * object sits in the values stack at `parent`) */
    size_t typed_at; /* SCALAR: where the [local, uri] Strings of an instance xsi:type
                      * that changes its text sit in the values stack (applied to the
                      * text as assembled, at its end); (size_t)-1 for none */
    int whole;       /* CAPTURE: a record's whole content (:xml as "."): its end tag ends the record too */
} wb_xdec_frame;

/* An instance xsi:type found to leave a scalar's text as it is (XML.instance_rule
 * answered nil) for a declared type: remembered so that a document writing
 * xsi:type on every leaf (rpc/encoded) asks Ruby once per pair, not per leaf. */
#define WB_XDEC_PLAIN_TYPES 8
#define WB_XDEC_ATTRIBUTE_MEMO 16
typedef struct wb_xdec_plain_type {
    VALUE declared; /* the declared type's Symbol (a static one: never moved or freed) */
    unsigned char local_len, uri_len;
    char local[32];
    char uri[64];
    /* The xsi:type as last written for it ("xsd:string") and the tokenizer's
     * namespace generation then: while that holds, the same bytes need no
     * prefix resolved (written_generation 0: none remembered). */
    uint64_t written_generation;
    unsigned char written_len;
    char written[40];
} wb_xdec_plain_type;

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
    unsigned char *loose; /* beside values: a single value a plain name took from another namespace */
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
    wb_xdec_plain_type plain_types[WB_XDEC_PLAIN_TYPES];
    /* apply_attributes: the entry the i-th attribute of the last tag read
     * through attribute_memo_table matched (tags of one kind repeat their
     * attributes in one order), checked by name and namespace before use. */
    const wb_xplan_table *attribute_memo_table;
    wb_xplan_entry *attribute_memo[WB_XDEC_ATTRIBUTE_MEMO];
    size_t plain_type_count, plain_type_next;
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
