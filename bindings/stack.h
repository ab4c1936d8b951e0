/* stack.h: what stack.c lends the other bindings that show stacks: frame
 * tables and the one rule of folded names. */
#ifndef LTAP_BINDINGS_STACK_H
#define LTAP_BINDINGS_STACK_H

#include "ctx.h"
#include "symbols.h"

#include <lauxlib.h>

/* Pushes the table of frame f: {addr=RAW, sym=, off=, module=, kernel=},
 * and file=, line= when lines is set. */
void ltap_stack_push_frame(lua_State *L, struct ltap_ctx *ctx, const struct ltap_frame *f, uint64_t raw, int lines);
/* Folded names: a frame's; the rule itself, from sym, module, kernel; a
 * command's (blanks and ';' made '_'). */
void ltap_stack_add_frame_name(luaL_Buffer *b, struct ltap_ctx *ctx, const struct ltap_frame *f);
void ltap_stack_add_folded_name(luaL_Buffer *b, const char *name, const char *module, int kernel);
void ltap_stack_add_comm(luaL_Buffer *b, const char *comm, size_t len);

#endif
