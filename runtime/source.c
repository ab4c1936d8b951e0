/* source.c: what every source shares: the one reader of a stream's counts,
 * and the filter the kernel gets for an event. */
#include "source.h"

#include "catalog.h"

#include <event-parse.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ltap_sources_counts(struct ltap_source *const *s, int n, ltap_source_count_fn fn, void *ud)
{
	for (int k = 0; k < n; k++) {
		struct ltap_stream **ss;
		int ns = s[k]->ops->streams(s[k], &ss);
		for (int i = 0; i < ns; i++) {
			struct ltap_source_counts c = {0};
			if (s[k]->ops->counts)
				s[k]->ops->counts(s[k], i, &c);
			c.lost += ss[i]->skipped;
			fn(ud, s[k], ss[i], &c);
		}
	}
}

/* The fields of ev that name a task other than the one running, the
 * event's other subjects: its pid_t fields (sched_switch's next_pid, the
 * woken task of sched_waking, the child of sched_process_fork, the task a
 * signal is sent to). A system call's pid_t fields are its arguments: its
 * subject is its caller alone. At most max; their number. */
static int source_subjects(const struct tep_event *ev, const char **out, int max)
{
	int n = 0;

	if (strcmp(ev->system, "syscalls") == 0 || strcmp(ev->system, "raw_syscalls") == 0)
		return 0;
	for (const struct tep_format_field *f = ev->format.fields; f && n < max; f = f->next)
		if (f->type && strcmp(f->type, "pid_t") == 0 && f->size == 4)
			out[n++] = f->name;
	return n;
}

/* System-wide, the ltap command leaves out its own events, as trace-cmd
 * does: each read of a ring is a syscall, and tracing them would feed the
 * rings with events of the reader itself (~9000 reads/s of nearly empty
 * pages here). A program hosting libltap is traced as any other (env->self
 * 0): it may be what it watches. But an event about another task is kept
 * whoever runs: ltap switched out for the task it hands the CPU to, a timer
 * waking a task while ltap runs. Such an event names that task in a field
 * (source_subjects), and is left out only when every task it names is
 * ltap; ltap's own switches and wake-ups cost a few events per batch read,
 * which read no more of them. */
char *ltap_source_kernel_filter(const struct ltap_source_event *ev, const struct ltap_source_env *env, int *err)
{
	const char *subj[8];
	struct tep_event *fmt = NULL;
	char spec[256], self[1024];
	char *out = NULL;
	int n = 0, k = 0, pid = (int)env->self;
	size_t used;

	*err = 0;
	if (env->npids || !env->self) {
		if (ev->filter && !(out = strdup(ev->filter)))
			*err = -ENOMEM;
		return out;
	}
	snprintf(spec, sizeof spec, "%s:%s", ev->sys, ev->name);
	if (env->cat && ev->sys)
		fmt = ltap_catalog_event(env->cat, spec);
	if (fmt)
		k = source_subjects(fmt, subj, (int)(sizeof subj / sizeof *subj));
	used = (size_t)snprintf(self, sizeof self, "common_pid != %d", pid);
	for (int i = 0; i < k; i++) /* 8 names of at most 64 bytes: no cut */
		used += (size_t)snprintf(self + used, sizeof self - used, " || %.64s != %d", subj[i], pid);
	if (ev->filter)
		n = asprintf(&out, k ? "(%s) && (%s)" : "(%s) && %s", ev->filter, self);
	else
		n = asprintf(&out, "%s", self);
	if (n < 0) {
		*err = -ENOMEM;
		return NULL;
	}
	return out;
}
