/* Shared by every file of the extension: Ruby's headers, the Ruby objects C
 * uses (hooks.h: the error classes, defined once in Ruby, among them), the
 * error raisers (errors.h), and the Init functions of each binding (called
 * from rbinit.c). */
#ifndef WIREBIND_H
#define WIREBIND_H

#include <ruby.h>
#include <ruby/encoding.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "hooks.h"

/* The index of UTF-8 among Ruby's encodings, set once by wb_hooks_init. */
extern int wb_utf8_index;

/* A new String of the n bytes at p, tagged UTF-8 without looking at them: for
 * text the caller has validated. rb_utf8_str_new also looks the encoding up and
 * checks the new String's state on every call (a few percent of a decode). */
static inline VALUE wb_utf8_str(const char *p, size_t n)
{
    VALUE s = rb_str_new(p, (long)n);
    RB_ENCODING_SET_INLINED(s, wb_utf8_index);
    return s;
}

void Init_wirebind_xml_text(VALUE mNative);
void Init_wirebind_xml_decoder(VALUE mNative);
void Init_wirebind_xml_encoder(VALUE mNative);
void Init_wirebind_scalar_format(VALUE mNative);
void Init_wirebind_json_decoder(VALUE mNative);
void Init_wirebind_json_encoder(VALUE mNative);
void Init_wirebind_serializer(VALUE mWirebind);
void Init_wirebind_binary_buffer(VALUE mNative);
void Init_wirebind_binary_record(VALUE mNative);
void Init_wirebind_hpack(VALUE mHPACK);

#endif
