/* desc.h: the registry of event descriptors and probes (desc.c; the types
 * are evdesc.h's) */
#ifndef LTAP_B_DESC_H
#define LTAP_B_DESC_H

#include <lua.h>

struct ltap_ctx;
struct ltap_desc_ops;
struct ltap_evdesc;
struct ltap_probe;
struct ltap_source_event;
struct tep_event;

void ltap_open_desc(lua_State *L, struct ltap_ctx *ctx);
/* a bare descriptor of kind ops at event id (raises when out of memory) */
struct ltap_evdesc *ltap_desc_new(lua_State *L, struct ltap_ctx *ctx, int id, const struct ltap_desc_ops *ops);
/* a descriptor at id with ev's fields, name and field tables */
struct ltap_evdesc *ltap_desc_event(lua_State *L, struct ltap_ctx *ctx, int id, struct tep_event *ev,
				    const struct ltap_desc_ops *ops);
/* a descriptor at id without fields, called name */
struct ltap_evdesc *ltap_desc_synthetic(lua_State *L, struct ltap_ctx *ctx, int id, const char *name,
					const struct ltap_desc_ops *ops);
/* ev's descriptor (a raw one, made the first time) */
struct ltap_evdesc *ltap_desc_of(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev);
/* the function at stack index fn as a handler; returns its index */
int ltap_handler_add(lua_State *L, struct ltap_ctx *ctx, int fn);
/* a probe of d calling handler (a feed's probe adds in C: feed.h); NULL
 * when out of memory or a feed's names do not fit d (ctx->why says) */
struct ltap_probe *ltap_probe_on(struct ltap_ctx *ctx, struct ltap_evdesc *d, int handler, const char *filter,
				 const char *where);
/* raises why the last ltap_probe_on failed */
int ltap_probe_raise(lua_State *L, struct ltap_ctx *ctx);
/* declares a probe of d with the handler at stack index fn (raises) */
struct ltap_probe *ltap_probe_add(lua_State *L, struct ltap_ctx *ctx, struct ltap_evdesc *d, int fn,
				  const char *filter);
/* with probes declared: descriptors for the task events ltap follows
 * names through (tasks.h), made in a protected call; 0 or -1 */
int ltap_desc_follow_tasks(struct ltap_ctx *ctx);
/* whether a live run declares profiles only (no tracepoint, no
 * recording): the perf rings' task records then name the tasks */
int ltap_desc_profiles_only(struct ltap_ctx *ctx);
/* what the sources are to do: an event per descriptor, with the kernel
 * filter of its probes; the number, or -ENOMEM */
int ltap_desc_plan(struct ltap_ctx *ctx, struct ltap_source_event **out);
void ltap_desc_plan_free(struct ltap_source_event *evs, int n);
/* after the sources attached: each filtered probe whose filter is not the
 * whole kernel filter of a ring that serves it gets it applied in user
 * space (filter.c); 0, or -1 with a logged reason naming the probe */
int ltap_desc_plan_filters(struct ltap_ctx *ctx, const struct ltap_source_event *evs, int n);
/* the same for d, the kernel applying kernel (NULL: no filter) */
int ltap_desc_user_filters(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *kernel);
void ltap_descs_free(struct ltap_ctx *ctx);

#endif
