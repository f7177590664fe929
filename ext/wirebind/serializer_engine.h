/* The serializer engine: runs the programs Wirebind::Serializer::Program
 * (lib/wirebind/serializer/program.rb) builds for a compiled serializer (one
 * per serializer, model class and format) over records, appending JSON to a
 * wb_buffer.
 *
 * The output is byte for byte what the pure backend's methods write, errors
 * included (EncodeError, message and path): those are generated from the same
 * program (lib/wirebind/serializer/generator.rb translates each op into the
 * Ruby this engine's case for it mirrors), and are the reference. What C does
 * not write itself it asks Ruby for, as a String: values it declines
 * (Serializer::Values.native_text), model-typed attribute values
 * (Compiled#native_model_value), and every error (Compiled#wrong_record,
 * #not_a_list, #too_deep, #nested_error). Link blocks are called from C. */
#ifndef WIREBIND_SERIALIZER_ENGINE_H
#define WIREBIND_SERIALIZER_ENGINE_H

#include "wirebind.h"
#include "buffer.h"
#include "scalar_format.h"

/* Program's operation codes, in its order. */
typedef enum wb_ser_op_code {
    WB_SER_LIT = 0,
    WB_SER_ATTR = 1,
    WB_SER_LINK = 2,
    WB_SER_LOAD = 3,
    WB_SER_HREF = 4,
    WB_SER_UNLESS_ANY = 5,
    WB_SER_FLAG_CLEAR = 6,
    WB_SER_FLAG_SET = 7,
    WB_SER_COMMA_IF = 8,
    WB_SER_ONE = 9,
    WB_SER_MANY = 10,
    WB_SER_HEAD = 11,
    WB_SER_ID = 12,
    WB_SER_SPARSE = 13,
    WB_SER_FIELD = 14,
    WB_SER_RELATE = 15,
    WB_SER_OP_LIMIT
} wb_ser_op_code;

/* An attribute that holds a record, written as a value: not a scalar. */
#define WB_SER_FORMAT_MODEL 0xFF
/* A reader's value, written by its class (Values.any). */
#define WB_SER_FORMAT_ANY 0xFE

/* A run of bytes in a program's string table. */
typedef struct wb_ser_bytes {
    size_t offset;
    size_t len;
} wb_ser_bytes;

struct wb_ser_program;

typedef struct wb_ser_op {
    unsigned char code;     /* wb_ser_op_code */
    unsigned char format;   /* ATTR: wb_format_kind, or WB_SER_FORMAT_MODEL */
    unsigned char list;     /* ATTR: a list of values; RELATE: a many relationship */
    unsigned char direct;   /* a model's attribute: read the ivar, not the reader */
    unsigned char skip_nil; /* ONE, MANY: a nil record is left out (else null) */
    unsigned char readers;  /* MANY, RELATE: an Enumerable not an Array is read as its to_a (Generator#each_item) */
    unsigned char hash;     /* the record is a Hash: read by key (Values.hash_value) */
    unsigned char dispatch; /* ONE, MANY, RELATE: `nested` is a Dispatch: the program is asked per record */
    int at;                 /* the field (or link) index, for errors; -1 none */
    int slot;               /* LINK, LOAD, HREF, FLAG_*, COMMA_IF */
    int target;             /* UNLESS_ANY, SPARSE: the op to jump to (forward); LINK: the link's index */
    int from;               /* ONE: the slot holding the record, -1: read it; FIELD: the fieldset's slot */
    int flag;               /* ONE, MANY, RELATE: the comma flag's slot, -1: none */
    ID ivar;
    ID reader;
    unsigned int ivar_index; /* Ruby 3.1: 1 + the ivar's index in the model's instances, 0: unknown */
    VALUE type;              /* ATTR: the type Symbol (for Values.native_text) */
    VALUE name;              /* ID, SPARSE: the resource type; FIELD, RELATE: the member's key (frozen Strings) */
    VALUE nested;            /* ONE, MANY, RELATE: the nested Compiled (or Dispatch), Compiled#nested(at) */
    VALUE nested_program;    /* its program object, looked up on first use */
    wb_ser_bytes text;       /* LIT */
    wb_ser_bytes head;       /* ONE, MANY: the nested record's head; ID: the resource identifier's, up to its id */
    int has_head;
    size_t slots_offset; /* UNLESS_ANY: its slots, in the program's cond table */
    size_t slots_count;
} wb_ser_op;

/* A compiled serializer's program. Marks its objects movable and updates
 * them on compaction. Not shareable between Ractors: it calls link blocks. */
typedef struct wb_ser_program {
    VALUE compiled; /* the Serializer::Compiled */
    VALUE model;    /* the model class records must be instances of */
    VALUE links;    /* the frozen Array of link blocks */
    int slot_count;
    long max_depth;          /* Compiled::MAX_DEPTH */
    size_t record_size_hint; /* bytes the first record of the last list took, plus one */
    size_t op_count;
    long id_op; /* JSON:API: the index of the ID op (how the id is read), -1: none */
    wb_ser_op *ops;
    size_t cond_count;
    int *cond;
    wb_buffer strings;
} wb_ser_program;

/* Interns names and defines the program class under `mNative`. */
void wb_ser_init(VALUE mNative);

/* Native.compile(program): a Serializer::Program (frozen, built once per
 * Compiled) compiled for C. Its fields are read once: compiled, model, links,
 * ops (flattened: Arrays of Program::FIELDS), slot_count, max_depth; each
 * nested serializer is asked of the Compiled (Compiled#nested). */
VALUE wb_ser_compile(VALUE program);

/* The document of one Serializer#to_json: the resource, written with
 * `list_opening`... around a list, each record with its head; all but the
 * first four members are the Serializer::Layout's, whose objects (frozen) it
 * holds while the document is written. */
typedef struct wb_ser_document {
    VALUE serializer; /* the Serializer instance (compiled_for) */
    VALUE resource;
    VALUE context;
    VALUE io; /* Qnil: return a String */
    VALUE list_opening;
    VALUE list_closing;
    VALUE list_head;   /* Qnil: none */
    VALUE single_head; /* Qnil: none */
    int skip_nil;      /* nil items of a list are left out (else null) */
    /* A JSON:API compound document: `opening` (the top-level object up to
     * "data":) before the primary data, then "included" and "}". */
    int compound;
    VALUE opening;
    VALUE fields;       /* the sparse fieldsets (Serializer#fields), Qnil: none */
    VALUE include_tree; /* Serializer#include_tree, Qnil: every related record */
} wb_ser_document;

/* Writes the document: a UTF-8 String, or the bytes written to io. */
VALUE wb_ser_write(const wb_ser_document *document);

#endif
