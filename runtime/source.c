/* source.c: what every source shares: the one reader of a stream's counts,
 * and the filter the kernel gets for an event. */
#include "source.h"

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

/* System-wide, the ltap command leaves out its own events, as trace-cmd
 * does: each read of a ring is a syscall, and tracing them would feed the
 * rings with events of the reader itself (~9000 reads/s of nearly empty
 * pages here). A program hosting libltap is traced as any other (env->self
 * 0): it may be what it watches. */
char *ltap_source_kernel_filter(const struct ltap_source_event *ev, const struct ltap_source_env *env, int *err)
{
	char *out = NULL;
	int n = 0;

	*err = 0;
	if (env->npids || !env->self)
		n = ev->filter ? ((out = strdup(ev->filter)) ? 0 : -1) : 0;
	else if (ev->filter)
		n = asprintf(&out, "(%s) && common_pid != %d", ev->filter, (int)env->self);
	else
		n = asprintf(&out, "common_pid != %d", (int)env->self);
	if (n < 0) {
		*err = -ENOMEM;
		return NULL;
	}
	return out;
}
