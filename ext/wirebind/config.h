/* The settings of a call, passed from Ruby as one frozen Struct instead of a
 * row of positional arguments (as ruby/json's Parser::Config): a binding
 * defines the Struct class at Init (wb_config_define: keyword_init, members in
 * the order of the binding's enum of indexes) and reads each field once per
 * call (wb_config_get). Lib code builds one per call site and options set. */
#ifndef WIREBIND_CONFIG_H
#define WIREBIND_CONFIG_H

#include <ruby.h>

/* Defines outer::name as Struct.new(*members, keyword_init: true), pinned. */
VALUE wb_config_define(VALUE outer, const char *name, const char *const *members, int count);

/* Raises TypeError unless config is a frozen instance of klass. */
void wb_config_check(VALUE config, VALUE klass);

/* The member at index (the binding's enum), for a config wb_config_check passed. */
static inline VALUE wb_config_get(VALUE config, int index)
{
    return RSTRUCT_GET(config, index);
}

#endif
