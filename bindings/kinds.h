/* kinds.h: the kinds of raw and synthetic records (kinds.c) */
#ifndef LTAP_B_KINDS_H
#define LTAP_B_KINDS_H

#include <lua.h>

struct ltap_desc_ops;
struct ltap_rec;
struct tep_format_field;

extern const struct ltap_desc_ops ltap_kind_raw, ltap_kind_task, ltap_kind_synthetic;
/* pushes field f of the raw record rec (nil beyond its end) */
void ltap_push_raw_field(lua_State *L, const struct ltap_rec *rec, const struct tep_format_field *f);

#endif
