/* uprobe.c: writing and removing ltap's lines in uprobe_events. */
#include "uprobe.h"

#include "guardian.h"
#include "log.h"
#include "owner.h"
#include "tracefs_dir.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct ltap_uprobes {
	char group[32];
	char **names; /* events made, to remove */
	char *is_kprobe;
	int n, cap;
};

static const char *probe_file(int kprobe)
{
	return kprobe ? "kprobe_events" : "uprobe_events";
}

int ltap_kprobes_supported(void)
{
	char *s = ltap_tracefs_read("kprobe_events", NULL);
	free(s);
	return s != NULL;
}

struct ltap_uprobes *ltap_uprobes_new(int serial)
{
	struct ltap_uprobes *u = calloc(1, sizeof *u);
	int e;

	if (!u)
		return NULL;
	ltap_owner_name(u->group, sizeof u->group, '_', serial);
	/* listed before the first probe is written: a SIGKILL then still removes it */
	if ((e = ltap_guardian_add(LTAP_GUARD_PROBES, u->group)) != 0) {
		free(u);
		errno = -e;
		return NULL;
	}
	return u;
}

const char *ltap_uprobes_group(struct ltap_uprobes *u)
{
	return u->group;
}

static int uprobe_remove(const char *group, const char *name, int kprobe)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "-:%s/%s\n", group, name);
	return ltap_tracefs_write(probe_file(kprobe), cmd, 1);
}

void ltap_uprobes_free(struct ltap_uprobes *u)
{
	int left = 0;

	if (!u)
		return;
	for (int i = 0; i < u->n; i++) {
		int e = uprobe_remove(u->group, u->names[i], u->is_kprobe[i]);
		if (e && e != -ENOENT) {
			ltap_warn("uprobe: cannot remove %s/%s: %s", u->group, u->names[i], strerror(-e));
			left++;
		}
		free(u->names[i]);
	}
	/* what could not go now, the guardian retries once ltap is gone */
	if (!left)
		ltap_guardian_forget(LTAP_GUARD_PROBES, u->group);
	free(u->names);
	free(u->is_kprobe);
	free(u);
}

/* The last line of error_log names what the kernel refused in a definition. */
static void uprobe_reason(char *why, size_t len, int err)
{
	char *log = ltap_tracefs_read("error_log", NULL), *last = NULL;

	snprintf(why, len, "%s", strerror(-err));
	if (!log)
		return;
	for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, "trace_uprobe") || strstr(l, "Error:"))
			last = l;
	if (last) {
		char *e = strstr(last, "Error:");
		snprintf(why, len, "%s", e ? e + 7 : last);
	}
	free(log);
}

int ltap_uprobes_add(struct ltap_uprobes *u, int ret, const char *base, const char *path,
		     uint64_t offset, uint64_t ref_ctr, const char *fetchargs, char *name,
		     size_t namelen, char *why, size_t whylen)
{
	char clean[64], *cmd;
	size_t k = 0;
	int e, n;

	/* event names are C identifiers */
	for (const char *c = base; *c && k < 40; c++)
		clean[k++] = isalnum((unsigned char)*c) ? *c : '_';
	clean[k] = 0;
	snprintf(name, namelen, "%s_%s_%d", ret ? "r" : "p", clean, u->n + 1);
	if (u->n == u->cap) {
		int c = u->cap ? u->cap * 2 : 16;
		char **nn = realloc(u->names, (size_t)c * sizeof *nn);
		char *nk;
		if (!nn)
			return -ENOMEM;
		u->names = nn;
		if (!(nk = realloc(u->is_kprobe, (size_t)c)))
			return -ENOMEM;
		u->is_kprobe = nk;
		u->cap = c;
	}
	if (!path)
		n = asprintf(&cmd, "%c:%s/%s %s %s\n", ret ? 'r' : 'p', u->group, name, base,
			     fetchargs ? fetchargs : "");
	else if (ref_ctr)
		n = asprintf(&cmd, "%c:%s/%s %s:0x%llx(0x%llx) %s\n", ret ? 'r' : 'p', u->group, name, path,
			     (unsigned long long)offset, (unsigned long long)ref_ctr, fetchargs ? fetchargs : "");
	else
		n = asprintf(&cmd, "%c:%s/%s %s:0x%llx %s\n", ret ? 'r' : 'p', u->group, name, path,
			     (unsigned long long)offset, fetchargs ? fetchargs : "");
	if (n < 0)
		return -ENOMEM;
	e = ltap_tracefs_write(probe_file(!path), cmd, 1);
	free(cmd);
	if (e) {
		uprobe_reason(why, whylen, e);
		return e;
	}
	u->names[u->n] = strdup(name);
	u->is_kprobe[u->n] = !path;
	if (!u->names[u->n]) {
		uprobe_remove(u->group, name, !path);
		return -ENOMEM;
	}
	u->n++;
	return 0;
}

/* Removes the lines of one file whose group is `group`, or with group NULL
 * of every ltap group whose ltap no longer runs. Returns how many. */
static int uprobes_remove_lines(int kprobe, const char *group)
{
	char *defs = ltap_tracefs_read(probe_file(kprobe), NULL);
	int removed = 0;

	if (!defs)
		return 0;
	/* lines are "p:ltap_123/p_f_1 /path:0x..." */
	for (char *l = strtok(defs, "\n"); l; l = strtok(NULL, "\n")) {
		char g[64], event[128];
		pid_t pid;

		if (sscanf(l, "%*c:%63[^/]/%127s", g, event) != 2 || !ltap_owner_parse(g, '_', &pid))
			continue;
		if (group ? strcmp(g, group) != 0 : pid == getpid() || ltap_owner_alive(pid))
			continue;
		if (uprobe_remove(g, event, kprobe) == 0) {
			if (!group)
				ltap_info("uprobe: removed stale probe %s/%s (its ltap is gone)", g, event);
			removed++;
		}
	}
	free(defs);
	return removed;
}

int ltap_uprobes_reap_stale(void)
{
	return uprobes_remove_lines(0, NULL) + uprobes_remove_lines(1, NULL);
}

int ltap_uprobes_remove_group(const char *group)
{
	return uprobes_remove_lines(0, group) + uprobes_remove_lines(1, group);
}
