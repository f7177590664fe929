/* Raising wirebind's errors from C. The classes are Ruby's (lib/wirebind/
 * errors.rb, read into wb_hooks); these build them with the keyword arguments
 * their initializers take, as the pure backend does. */
#ifndef WIREBIND_ERRORS_H
#define WIREBIND_ERRORS_H

#include <ruby.h>

/* Interns the keywords; called once from Init_wirebind_ext. */
void wb_error_init(void);

/* ParseError#reason as C passes it: the class's own (LimitError: :limit,
 * ParseError: :syntax), or :truncated (the input ended first). */
enum { WB_ERROR_REASON_OF_CLASS = 0, WB_ERROR_REASON_TRUNCATED = 1 };

/* Raises klass (ParseError or LimitError) with its position readers and reason
 * (a WB_ERROR_REASON_*) set. */
NORETURN(void wb_error_raise_parse(VALUE klass, VALUE message, long line, long column, long offset, int reason));
/* Raises DecodeError with its path and position. */
NORETURN(void wb_error_raise_decode(VALUE message, VALUE path, long line, long column));
/* Raises EncodeError with its path. */
NORETURN(void wb_error_raise_encode(VALUE message, VALUE path));

#endif
