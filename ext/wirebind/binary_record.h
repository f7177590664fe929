/* The binary record engine: decodes and encodes a model's binary layout
 * (Wirebind::Binary::Plan, compiled into a wb_brec_plan by binary_record_class.c),
 * a port of the generated Ruby in Binary::Pure::Codec. Anything it does not
 * accept (truncated input, a value that does not fit) it declines by returning
 * Qundef, and the caller runs the pure codec, which raises with its message. */
#ifndef WIREBIND_BINARY_RECORD_H
#define WIREBIND_BINARY_RECORD_H

#include "binary_buffer.h"

enum wb_brec_kind { WB_BREC_INT = 0, WB_BREC_FLOAT = 1, WB_BREC_BITS = 2, WB_BREC_PAYLOAD = 3 };
enum wb_brec_length { WB_BREC_LENGTH_FIELD = 0, WB_BREC_LENGTH_FIXED = 1, WB_BREC_LENGTH_REST = 2 };

typedef struct wb_brec_step {
    int kind;
    int width; /* bytes; bits for WB_BREC_BITS */
    int is_signed;
    size_t at;  /* byte offset in the segment; bit offset for WB_BREC_BITS */
    long index; /* attribute index */
    ID ivar;
    int length_kind; /* payloads */
    long length;     /* the step of the length field, or the fixed length */
} wb_brec_step;

typedef struct wb_brec_segment {
    int payload; /* 0: a run of fixed-size steps; 1: one payload step */
    size_t size; /* bytes of a fixed run */
    long first, count;
} wb_brec_segment;

typedef struct wb_brec_plan {
    VALUE model;
    long nattrs;
    ID *attr_ivars;
    char *attr_list; /* 1 where the attribute is a list (an absent one is []) */
    long nsteps;
    wb_brec_step *steps;
    long nsegments;
    wb_brec_segment *segments;
    int big;
} wb_brec_plan;

/* A new record of plan->model (or into, filled, if not nil) from the bytes
 * of source (a String or a Buffer) at offset, or Qundef if the input is too short. */
VALUE wb_brec_decode(const wb_brec_plan *plan, VALUE source, size_t offset, VALUE into);
/* Appends record to the Buffer into; Qundef (nothing appended) if a value
 * does not fit. */
VALUE wb_brec_encode(const wb_brec_plan *plan, VALUE record, VALUE into);

#endif
