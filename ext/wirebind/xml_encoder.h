/* The XML encoder's engine: a model class's Wirebind::XML::Plan compiled, once
 * per class, into a flat program (wb_xml_plan), and the loop that runs those
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
typedef struct wb_xml_bytes {
    size_t offset;
    size_t len;
} wb_xml_bytes;

typedef enum wb_xml_op_code {
    WB_XML_OP_OPEN = 0,   /* a wrapper's start tag */
    WB_XML_OP_CLOSE = 1,  /* a wrapper's end tag */
    WB_XML_OP_SCALAR = 2, /* one attribute holding a scalar (or a list of them) */
    WB_XML_OP_MODEL = 3,  /* one attribute holding a record (or a list of them) */
    WB_XML_OP_CONTENT = 4 /* one attribute of an open type (:xml, :any, :qname): the element's
                           * content is XML::OpenContent.element_content's */
} wb_xml_op_code;

/* One step of a model's program: an entry of Plan#writes (a wrapper's start
 * and end, or an element slot), in document order.
 *
 * Names (Generator#name_parts): an entry in a namespace other than the model's
 * ("foreign") has a fixed name, "wbN:local" with the automatic prefix of its
 * namespace, declared on the element itself. Any other is written with the
 * prefix the record's scope decided at run time ("" or "p:"), and, when it is
 * a child of the record itself ("top") rather than of a wrapper, with the
 * reset of the default namespace (xmlns="") the scope may call for. */
typedef struct wb_xml_op {
    unsigned char code;    /* wb_xml_op_code */
    unsigned char format;  /* wb_format_kind, for SCALAR */
    unsigned char list;    /* the attribute holds an Array of values */
    unsigned char nil_xsi; /* the attribute says nil: :xsi */
    unsigned char named;   /* 0 for "*": scalars are <item>s, records use their own root tag */
    unsigned char foreign; /* the name is fixed: "wbN:local", declared by `declaration` */
    unsigned char top;     /* a child of the record's element, not of a wrapper */
    unsigned char no_namespace; /* foreign "{}local": the declaration resets the default namespace */
    ID ivar;               /* where the record keeps the value */
    VALUE type;            /* the scalar type's Symbol, or the model Class values must be */
    wb_xml_bytes field;    /* the attribute's xml path, for EncodeError#path */
    wb_xml_bytes name;     /* the local name ("item" for "*"), or the whole foreign name */
    wb_xml_bytes declaration; /* foreign: ' xmlns:wbN="uri"' */
    size_t attribute_first;   /* OPEN: its XML attributes ("a/@b"), attributes[first, first + count) */
    size_t attribute_count;
} wb_xml_op;

/* An XML attribute of the record's element, or its text ("."). */
typedef struct wb_xml_attribute {
    unsigned char format;  /* wb_format_kind */
    ID ivar;
    VALUE type;            /* the scalar type's Symbol */
    wb_xml_bytes declaration; /* in a namespace of its own: ' xmlns:wbN="uri"', written in any case */
    wb_xml_bytes field;    /* "@local" or ".", for EncodeError#path */
    wb_xml_bytes prefix;   /* ' name="' */
} wb_xml_attribute;

typedef enum wb_xml_namespace_mode {
    WB_XML_NS_NONE = 0,     /* no namespace: children reset an inherited default one */
    WB_XML_NS_DEFAULT = 1,  /* the default namespace at the top, an automatic prefix when nested */
    WB_XML_NS_PREFIXED = 2  /* xmlns:p="uri" unless the enclosing record declared it */
} wb_xml_namespace_mode;

/* A model class's compiled plan. Frozen and shareable once built; marks its
 * classes movable and updates them on compaction. */
typedef struct wb_xml_plan {
    VALUE klass;
    unsigned char namespace_mode;  /* wb_xml_namespace_mode */
    wb_xml_bytes root_tag;         /* "prefix:root" or "root" */
    wb_xml_bytes uri;              /* the namespace, as declared (compared byte for byte) */
    wb_xml_bytes prefix;           /* "p:", or DEFAULT's automatic "wbN:" */
    wb_xml_bytes declaration;      /* ' xmlns:p="uri"' (DEFAULT: with the automatic prefix) */
    wb_xml_bytes default_declaration; /* DEFAULT: ' xmlns="uri"' */
    wb_xml_bytes nil_suffix;       /* ' xsi:nil="true" xmlns:xsi="..."/>' */
    int attributes_declare_prefix; /* DEFAULT: an attribute in the model's namespace declares its prefix */
    size_t attribute_count, attribute_capacity;
    size_t record_attribute_count; /* the record's own; wrappers' ones follow them */
    wb_xml_attribute *attributes;
    int has_text;
    wb_xml_attribute text;
    size_t op_count, op_capacity;
    wb_xml_op *ops;
    wb_buffer strings;             /* the string table every wb_xml_bytes points into */
} wb_xml_plan;

#define WB_XML_PTR(plan, bytes) ((plan)->strings.ptr + (bytes).offset)

/* Interns names and defines the plans' class under `mNative`; call once from Init. */
void wb_xml_encoder_init(VALUE mNative);

/* The compiled plan of `klass` (a Wirebind::Model class), cached with
 * klass.wirebind_plan(:native_xml_encoder). Raises SchemaError as the pure
 * encoder does for a schema it cannot write. */
VALUE wb_xml_plan_for(VALUE klass);

/* Compiles `klass`'s plan afresh (uncached). */
VALUE wb_xml_plan_compile(VALUE klass);

/* Encodes `value` (a record, or an Array of them written inside <root>):
 * Wirebind::XML::Pure.encode's contract. Returns the document as a UTF-8
 * String, or, given an IO, writes it in pieces and returns the bytes written. */
VALUE wb_xml_encode(VALUE value, VALUE root, VALUE item, int xsi_all, int declaration, VALUE io);

#endif
