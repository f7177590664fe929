/* The schema-directed JSON decoder engine: a port of
 * lib/wirebind/json/pure/{parser,decoder}.rb (the reference), which reads the
 * tokens of the scanner engine (json_scanner.h, the port of scanner.rb, which
 * links without Ruby) straight into records driven by compiled plans
 * (json_plan.h), with the open records and lists on an explicit stack of
 * frames, and the open containers of untyped (:any) or skipped values on a
 * second one: nesting costs heap, never C stack.
 *
 * Input comes from a Wirebind::JSON::Pure::Source (which hands out valid UTF-8
 * in 64 KiB chunks, and raises Source::Invalid where the text stops being
 * UTF-8). A chunk is read in place; only when a token straddles two chunks is
 * its start copied, with the next chunk after it, into the decoder's own
 * buffer. Positions are absolute byte offsets; lines and columns are worked out
 * only for errors, from counts kept for the text let go. */
#ifndef WIREBIND_JSON_DECODER_H
#define WIREBIND_JSON_DECODER_H

#include "wirebind.h"
#include "scalar.h"
#include "json_plan.h"
#include "json_scanner.h"

/* An open record (OBJECT) or an open array of records, or the top-level array
 * (LIST). Pure::Decoder's frames. */
typedef struct wb_jdec_frame {
    unsigned char kind;
    unsigned char started;
    unsigned char single;    /* LIST: a one_or_many list whose value is one object: ends after it, no index in paths */
    unsigned char levels;    /* LIST: a nested slot's outer list: the list levels each item holds (0: items are values) */
    const wb_jplan *plan;    /* OBJECT: the record's plan; LIST of models: the items' plan (NULL: a nested slot's rows) */
    wb_jplan_slot *slot;     /* OBJECT: the slot the record fills; LIST: the list's slot */
    const wb_jplan_slot *at; /* OBJECT: the member being read (paths); NULL before the first */
    size_t values;           /* OBJECT: base of its values; LIST: the base of its items on the values stack (NONE: yielded) */
    long index;              /* LIST: items delivered so far */
    long hint;               /* OBJECT: the slot the next key is expected to be */
} wb_jdec_frame;

typedef struct wb_jdec {
    /* ---- input: the scanner (json_scanner.h), this decoder its handler's ctx */
    wb_jscan s;
    VALUE source;
    VALUE chunk;          /* the chunk the scanner reads in place (pinned: its window points into it) */
    VALUE previous_chunk; /* the one before, which the scanner may still copy from */
    /* ---- options (the token limits are the scanner's) */
    size_t max_depth;
    int strict;
    VALUE block; /* each: the block; Qnil otherwise */
    /* ---- what is being built */
    wb_jplan_slot root; /* the slot of the document's value (index -1) */
    VALUE result;
    wb_jdec_frame *frames;
    size_t nframes, frames_cap;
    VALUE *values; /* records' values, lists' items, :any containers and keys (marked) */
    size_t nvalues, values_cap;
    unsigned char *any_kinds; /* read_any's stack: 1 object, 0 array */
    size_t nany, any_cap;
    wb_scalar_env env;
    VALUE decimal_text; /* reused for BigDecimal() (0 until needed) */
} wb_jdec;

/* Sets up a decode of `source` (a Pure::Source) into values of the root slot
 * (code, type, list; `slot` its Plan::Slot for messages). `block` non-nil: each. */
void wb_jdec_init(wb_jdec *d, VALUE source, int code, VALUE type, int list, VALUE slot, int strict, size_t max_depth, size_t max_token_size,
                  size_t max_number_length, VALUE block);
/* Reads the document: its value, or for each the number of items yielded. */
VALUE wb_jdec_run(wb_jdec *d);
void wb_jdec_free(wb_jdec *d);
void wb_jdec_mark(wb_jdec *d);
size_t wb_jdec_memsize(const wb_jdec *d);

void wb_jdec_init_ids(void);

#endif
