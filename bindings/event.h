/* event.h: the event object, one reused table (event.c) */
#ifndef LTAP_B_EVENT_H
#define LTAP_B_EVENT_H

#include <lua.h>

struct ltap_ctx;
struct ltap_evdesc;
struct ltap_rec;

void ltap_open_event(lua_State *L, struct ltap_ctx *ctx);
/* d's name tables: fields_ref (e.X) and args_ref (e.args.X) */
void ltap_event_fields_tables(lua_State *L, struct ltap_evdesc *d);
/* pushes the event's fixed stack slots; returns the event's index */
int ltap_event_push_slots(lua_State *L, struct ltap_ctx *ctx);
void ltap_event_fill(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r);
void ltap_event_clear(struct ltap_ctx *ctx);
void ltap_event_forget_comm(struct ltap_ctx *ctx, int tid);

#endif
