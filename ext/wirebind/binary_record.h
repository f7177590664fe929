/* The binary record engine: decodes and encodes a model's binary layout
 * (Wirebind::Binary::Plan, compiled into a wbr_plan by binary_record_class.c),
 * a port of the generated Ruby in Binary::Pure::Codec. Anything it does not
 * accept (truncated input, a value that does not fit) it declines by returning
 * Qundef, and the caller runs the pure codec, which raises with its message. */
#ifndef WIREBIND_BINARY_RECORD_H
#define WIREBIND_BINARY_RECORD_H

#include "binary_buffer.h"

enum wbr_kind { WBR_INT = 0, WBR_FLOAT = 1, WBR_BITS = 2, WBR_PAYLOAD = 3 };
enum wbr_length { WBR_LENGTH_FIELD = 0, WBR_LENGTH_FIXED = 1, WBR_LENGTH_REST = 2 };

typedef struct wbr_step {
    int kind;
    int width;        /* bytes; bits for WBR_BITS */
    int is_signed;
    size_t at;        /* byte offset in the segment; bit offset for WBR_BITS */
    long index;       /* attribute index */
    ID ivar;
    int length_kind;  /* payloads */
    long length;      /* the step of the length field, or the fixed length */
} wbr_step;

typedef struct wbr_segment {
    int payload;      /* 0: a run of fixed-size steps; 1: one payload step */
    size_t size;      /* bytes of a fixed run */
    long first, count;
} wbr_segment;

typedef struct wbr_plan {
    VALUE model;
    long nattrs;
    ID *attr_ivars;
    char *attr_list;  /* 1 where the attribute is a list (an absent one is []) */
    long nsteps;
    wbr_step *steps;
    long nsegments;
    wbr_segment *segments;
    int big;
} wbr_plan;

/* A new record of plan->model from the bytes of source (a String or a
 * Buffer) at offset, or Qundef if the input is too short. */
VALUE wbr_decode(const wbr_plan *plan, VALUE source, size_t offset);
/* Appends record to the Buffer into; Qundef (nothing appended) if a value
 * does not fit. */
VALUE wbr_encode(const wbr_plan *plan, VALUE record, VALUE into);

#endif
