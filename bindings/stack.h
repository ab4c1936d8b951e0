/* stack.h: e:stack() and friends, sym() (stack.c), and what it lends the
 * other bindings that show stacks: frame tables and the one rule of
 * folded names. */
#ifndef LTAP_BINDINGS_STACK_H
#define LTAP_BINDINGS_STACK_H

#include "symbols.h"

#include <lauxlib.h>
#include <stdint.h>

struct ltap_ctx;
struct ltap_rec;

enum { STACK_ALL, STACK_KERNEL, STACK_USER, STACK_FOLDED, STACK_FRAME, STACK_LEAF, STACK_SCRIPT };
/* pushes e:stack() (which: STACK_ALL/KERNEL/USER), e:folded() (STACK_FOLDED;
 * arg: the comm at stack index arg) or e:frame(N) (STACK_FRAME; arg: N) */
int ltap_stack_push(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int which, int arg);
/* the frames of r, leaf first, at most LTAP_STACK_MAX_FRAMES (raw: NULL or
 * their addresses), the chain cut where a user frame leaves every mapping:
 * ltap_symbols_chain, the one walk of a call chain */
#define LTAP_STACK_MAX_FRAMES 512
int ltap_stack_frames(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw);
/* frames[0..n) of r (raw: NULL or their addresses) without the tracing's
 * own first frame of a tracepoint's chain; the number left */
int ltap_stack_untraced(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw,
			int n);

/* Pushes the table of frame f: {addr=RAW, sym=, off=, module=, kernel=},
 * and file=, line= when lines is set. */
void ltap_stack_push_frame(lua_State *L, struct ltap_ctx *ctx, const struct ltap_frame *f, uint64_t raw, int lines);
/* Folded names: a frame's; the rule itself, from sym, module, kernel; a
 * command's (blanks and ';' made '_'). */
void ltap_stack_add_frame_name(luaL_Buffer *b, struct ltap_ctx *ctx, const struct ltap_frame *f);
void ltap_stack_add_folded_name(luaL_Buffer *b, const char *name, const char *module, int kernel);
void ltap_stack_add_comm(luaL_Buffer *b, const char *comm, size_t len);
/* the Lua functions api.c lists */
int stack_sym(lua_State *L);
int stack_folded_name(lua_State *L);

#endif
