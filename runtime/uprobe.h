/* uprobe.h: ltap's uprobes (and kprobes), in the kernel's uprobe_events
 * (kprobe_events) under the group
 * "ltap_<pid>". Unlike events and filters, dynamic events are global (not
 * per instance), so every exit path removes them and the next start removes
 * those of an ltap that was killed. */
#ifndef LTAP_UPROBE_H
#define LTAP_UPROBE_H

#include <stddef.h>
#include <stdint.h>

struct ltap_uprobes;

struct ltap_uprobes *ltap_uprobes_new(int serial); /* serial: the host's (owner.h) */
/* Removes every probe made through this set; NULL-safe. Events must be
 * disabled first (the instance closed), or the kernel refuses (EBUSY). */
void ltap_uprobes_free(struct ltap_uprobes *u);
/* Removes the probes of ltap groups whose ltap no longer runs. */
int ltap_uprobes_reap_stale(void);
/* Removes every probe of one group, in both files; returns how many. */
int ltap_uprobes_remove_group(const char *group);

/* Adds "p:GROUP/NAME PATH:0xOFF[(0xREF)] ARGS" (ret: "r:") to uprobe_events,
 * or with path NULL "p:GROUP/NAME SYMBOL ARGS" to kprobe_events (symbol in
 * base). The group is ltap_<pid>; *name gets a unique event name made from
 * base. 0 or -errno, with the kernel's reason (from error_log) in why. */
int ltap_uprobes_add(struct ltap_uprobes *u, int ret, const char *base, const char *path,
		     uint64_t offset, uint64_t ref_ctr, const char *fetchargs, char *name,
		     size_t namelen, char *why, size_t whylen);
/* Whether the kernel offers kprobes (a kprobe_events file). */
int ltap_kprobes_supported(void);
const char *ltap_uprobes_group(struct ltap_uprobes *u);

#endif
