/* The Ruby objects the C code uses: error classes, Date, BigDecimal, the
 * receivers of every Ruby callback and a few constants. They are listed once,
 * in Ruby (Wirebind::NativeHooks, lib/wirebind/native_hooks.rb, loaded before
 * the extension), read once by wb_hooks_init in Init_wirebind_ext, and pinned
 * for the life of the process (rb_gc_register_mark_object: compaction never
 * moves them). Set before any Ractor exists and never written again, so every
 * Ractor may read them. */
#ifndef WIREBIND_HOOKS_H
#define WIREBIND_HOOKS_H

#include <ruby.h>

struct wb_hooks {
    /* errors raised or rescued (lib/wirebind/errors.rb) */
    VALUE eParseError;
    VALUE eLimitError;
    VALUE eDecodeError;
    VALUE eEncodeError;
    VALUE eInvalidValue;        /* Types::InvalidValue: Ruby conversions raise it, C rewraps it */
    VALUE eRefusal;             /* Model::Attribute::Refusal: record builders raise it, C names the record's path */
    VALUE eBinaryRangeError;    /* Binary::RangeError */
    VALUE eBinaryReadOnlyError; /* Binary::ReadOnlyError */
    VALUE eJSONSourceInvalid;   /* JSON::Pure::Source::Invalid, from next_chunk */
    /* classes whose values C builds or recognizes */
    VALUE cDate;
    VALUE cDateTime;
    VALUE cBigDecimal;
    VALUE date_gregorian; /* Date::GREGORIAN */
    VALUE mModel;         /* Wirebind::Model (.xml_types?) */
    /* receivers of Ruby callbacks (NativeHooks::CALLBACKS names the methods) */
    VALUE mTypes;            /* excerpt, describe, to_xml_text, from_xml_text */
    VALUE mQNameType;        /* Types::QNameType: split, resolve */
    VALUE mXML;              /* Wirebind::XML: subtype_parts */
    VALUE cXMLPlan;          /* XML::Plan: for, namespaces */
    VALUE cXMLEncoder;       /* XML::Escape: text, attribute, declaration */
    VALUE cXMLCapture;       /* XML::Capture: new */
    VALUE mXMLOpenContent;   /* XML::OpenContent: element_content */
    VALUE mJSONPure;         /* JSON::Pure, the Ruby twin: convert_text, describe_char */
    VALUE mJSONWriter;       /* JSON::Writer: a method per scalar type, nested, format_path */
    VALUE mSerializerValues; /* Serializer::Values: native_text, native_any */
    VALUE mBinary;           /* Wirebind::Binary: check_decode, check_encode */
    /* constants */
    VALUE xsi_declaration;   /* XML::Escape::XSI_DECLARATION */
    VALUE reference_pending; /* XML::References::PENDING */
    VALUE json_expected;     /* JSON::Plan::EXPECTED */
    VALUE cJSONPlan;         /* JSON::Plan (.for: stray_key, for strict json_type decoding) */
    /* made here */
    VALUE item_true; /* {item: true}, frozen: keyword arguments */
    VALUE str_F;     /* "F", frozen: BigDecimal#to_s("F") */
    int posix_time;  /* Time#to_i counts no leap seconds (not so under a right/ time zone) */
};

extern struct wb_hooks wb_hooks;

/* Fills wb_hooks from Wirebind::NativeHooks; raises (and the extension does
 * not load) if that module or one of its constants is missing. */
void wb_hooks_init(void);

#endif
