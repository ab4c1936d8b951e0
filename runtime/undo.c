/* undo.c: the guardian's undo table (undo.h): each kind's one removal and
 * its reap of dead ltaps' leftovers, in the kinds' own files; here only
 * what the guardian adds to them (a retry while a child still holds an
 * instance's file). */
#include "undo.h"

#include "cgroup.h"
#include "instance.h"
#include "uprobe.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#define UNDO_RETRY_MS 1000 /* an instance still busy */

static int undo_pgrp(const char *name)
{
	if (kill(-atoi(name), SIGKILL) == 0)
		return 1;
	return errno == ESRCH ? 0 : -errno;
}

static int undo_instance(const char *name)
{
	int e = ltap_instance_remove(name);

	/* a file of the instance is still open: a child of ltap that held it */
	for (int ms = 0; e == -EBUSY && ms < UNDO_RETRY_MS; ms += 10) {
		nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
		e = ltap_instance_remove(name);
	}
	return e == -ENOENT ? 0 : e == 0 ? 1 : e;
}

static int undo_probes(const char *name)
{
	return ltap_uprobes_remove_group(name) > 0;
}

const struct ltap_guard_undo ltap_undo_table[LTAP_GUARD_NKINDS] = {
	[LTAP_GUARD_PGRP] = {"killed process group", undo_pgrp, NULL},
	[LTAP_GUARD_CGROUP] = {"killed and removed cgroup", ltap_cgroup_remove, ltap_cgroup_reap_stale},
	[LTAP_GUARD_INSTANCE] = {"removed instance", undo_instance, ltap_instance_reap_stale},
	[LTAP_GUARD_PROBES] = {"removed probes of", undo_probes, ltap_uprobes_reap_stale},
};
