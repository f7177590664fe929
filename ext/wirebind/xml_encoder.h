/* The XML encoder's engine: a model class's Wirebind::XML::Plan compiled, once
 * per class, into a flat program (wb_xenc_plan), and the loop that runs those
 * programs over records, with an explicit stack of frames (one per record
 * being written), appending to a wb_buffer.
 *
 * The output is byte for byte what lib/wirebind/xml/pure/encoder.rb writes,
 * errors included (EncodeError with the same message and path); that file is
 * the reference, and this one names the Ruby it follows. */
#ifndef WIREBIND_XML_ENCODER_H
#define WIREBIND_XML_ENCODER_H

#include "wirebind.h"
#include "buffer.h"
#include "scalar_format.h"

/* A run of bytes in a plan's string table (offsets, so the table may grow
 * while the plan is compiled). */
typedef struct wb_xenc_bytes {
    size_t offset;
    size_t len;
} wb_xenc_bytes;

typedef enum wb_xenc_op_code {
    WB_XENC_OP_OPEN = 0,   /* a wrapper's start tag */
    WB_XENC_OP_CLOSE = 1,  /* a wrapper's end tag */
    WB_XENC_OP_SCALAR = 2, /* one attribute holding a scalar (or a list of them) */
    WB_XENC_OP_MODEL = 3,  /* one attribute holding a record (or a list of them) */
    WB_XENC_OP_CONTENT = 4 /* one attribute of an open type (:xml, :any, :qname): the element's
                           * content is XML::OpenContent.element_content's */
} wb_xenc_op_code;

/* One step of a model's program: an entry of Plan#writes (a wrapper's start
 * and end, or an element slot), in document order.
 *
 * Names (Generator#name_parts): an entry in a namespace other than the model's
 * ("foreign") has a fixed name, "p:local" with the prefix the plan chose for
 * its namespace (bound on the record's element: a need). Any other is written
 * with the prefix the record's scope decided at run time ("" or "p:"), and,
 * when it is a child of the record itself ("top") rather than of a wrapper,
 * with the reset of the default namespace (xmlns="") the scope may call for. */
typedef struct wb_xenc_op {
    unsigned char code;         /* wb_xenc_op_code */
    unsigned char format;       /* wb_format_kind, for SCALAR */
    unsigned char list;         /* the attribute holds an Array of values */
    unsigned char nil_xsi;      /* the attribute says nil: :xsi */
    unsigned char named;        /* 0 for "*": scalars are <item>s, records use their own root name */
    unsigned char foreign;      /* the name is fixed: "p:local", or "local" for no_namespace */
    unsigned char top;          /* a child of the record's element, not of a wrapper */
    unsigned char no_namespace; /* "{}local" in a model with a namespace: resets a default namespace in scope */
    ID ivar;                    /* where the record keeps the value */
    uint32_t ivar_slot;         /* its index + 1 in a record of exactly the plan's class, once known (read_ivar) */
    VALUE type;                 /* the scalar type's Symbol, or the model Class values must be */
    wb_xenc_bytes field;        /* the attribute's xml path, for EncodeError#path */
    wb_xenc_bytes name;         /* the local name ("item" for "*"), or the whole foreign name */
    size_t attribute_first;     /* OPEN, SCALAR: its XML attributes ("a/@b"), attributes[first, first + count) */
    size_t attribute_count;
} wb_xenc_op;

/* An XML attribute of the record's element, or its text ("."). */
typedef struct wb_xenc_attribute {
    unsigned char format; /* wb_format_kind */
    ID ivar;
    uint32_t ivar_slot;   /* as wb_xenc_op's */
    VALUE type;           /* the scalar type's Symbol */
    wb_xenc_bytes field;  /* "@local" or ".", for EncodeError#path */
    wb_xenc_bytes prefix; /* ' name="' */
    long qname_index;     /* a :qname: its index in the model (OpenContent.qname_attribute); -1 otherwise */
} wb_xenc_attribute;

/* A namespace binding (Plan::Need): `prefix` bound to `uri` by `declaration`.
 * The prefix and URI are also interned as IDs, the keys of an encoding's
 * scope. */
typedef struct wb_xenc_need {
    ID prefix_id;
    ID uri_id;
    wb_xenc_bytes prefix;      /* "p" */
    wb_xenc_bytes pre;         /* "p:" */
    wb_xenc_bytes declaration; /* ' xmlns:p="uri"' */
} wb_xenc_need;

typedef enum wb_xenc_namespace_mode {
    WB_XENC_NS_NONE = 0,    /* no namespace: children reset an inherited default one */
    WB_XENC_NS_DEFAULT = 1, /* the default namespace at the top (if default_at_top), else a prefix in scope or its own */
    WB_XENC_NS_PREFIXED = 2 /* its prefix, bound by a need */
} wb_xenc_namespace_mode;

/* A model class's compiled plan. Frozen and shareable once built; marks its
 * classes movable and updates them on compaction. */
typedef struct wb_xenc_plan {
    VALUE klass;
    unsigned char namespace_mode;      /* wb_xenc_namespace_mode */
    unsigned char default_at_top;      /* Plan.namespaces(klass).default_at_top */
    wb_xenc_bytes root_name;           /* "root" */
    wb_xenc_bytes root_tag;            /* "prefix:root" (PREFIXED) or "root" */
    wb_xenc_bytes uri;                 /* the namespace, as declared (compared byte for byte) */
    wb_xenc_bytes prefix;              /* "p:" (PREFIXED) */
    wb_xenc_bytes default_declaration; /* DEFAULT: ' xmlns="uri"' */
    wb_xenc_need own;                  /* DEFAULT: its default_prefix, bound where it is not the default namespace */
    wb_xenc_bytes nil_suffix;          /* ' xsi:nil="true" xmlns:xsi="..."/>' */
    size_t need_count;                 /* Plan#needs: bindings the record's own names use */
    wb_xenc_need *needs;
    size_t document_need_count; /* Plan.namespaces(klass): what a document element of this class declares */
    wb_xenc_need *document_needs;
    wb_xenc_bytes document_declarations;
    int top_subtype; /* XML.top_level_subtype?: at the top of a document, it writes its xsi:type */
    int abstract;    /* Model.xml_abstract?: a record of exactly this class is an EncodeError */
    size_t attribute_count, attribute_capacity;
    size_t record_attribute_count; /* the record's own; wrappers' ones follow them */
    wb_xenc_attribute *attributes;
    int has_text;
    int text_xml; /* the text is :xml as ".": the whole content, raw (OpenContent.xml_content) */
    wb_xenc_attribute text;
    size_t op_count, op_capacity;
    wb_xenc_op *ops;
    wb_buffer strings; /* the string table every wb_xenc_bytes points into */
} wb_xenc_plan;

#define WB_XENC_PTR(plan, bytes) ((plan)->strings.ptr + (bytes).offset)

/* Interns names and defines the plans' class under `mNative`; call once from Init. */
void wb_xenc_init(VALUE mNative);

/* The compiled plan of `klass` (a Wirebind::Model class), cached with
 * klass.wirebind_plan(:native_xml_encoder). Raises SchemaError as the pure
 * encoder does for a schema it cannot write. */
VALUE wb_xenc_plan_for(VALUE klass);

/* Compiles `klass`'s plan afresh (uncached). */
VALUE wb_xenc_plan_compile(VALUE klass);

/* Encodes `value` (a record, or an Array of them written inside <root>):
 * Wirebind::XML::Pure.encode's contract. Returns the document as a UTF-8
 * String, or, given an IO, writes it in pieces and returns the bytes written. */
VALUE wb_xenc_encode(VALUE value, VALUE root, VALUE item, int xsi_all, int declaration, VALUE io);

#endif
