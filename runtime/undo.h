/* undo.h: the guardian's undo table (guardian.h): for each kind of thing
 * ltap changes outside itself, in enum ltap_guard_kind's order, how one is
 * undone and how what dead ltaps left of the kind is reaped. The table
 * depends on the kinds' own files (cgroup.c, instance.c, uprobe.c); the
 * guardian depends on the table it is handed, never on them. */
#ifndef LTAP_UNDO_H
#define LTAP_UNDO_H

#include "guardian.h"

extern const struct ltap_guard_undo ltap_undo_table[LTAP_GUARD_NKINDS];

#endif
