/* log.c: routes log lines to the target of the host running on this
 * thread, or to the process-wide one. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

/* Process-wide by nature: messages of calls made without a host. */
static struct ltap_log_target log_process = {NULL, NULL, LTAP_LOG_INFO};
/* The host whose call runs on this thread (hosts may run on several). */
static _Thread_local struct ltap_log_target *log_current;

static struct ltap_log_target *log_target(void)
{
	return log_current ? log_current : &log_process;
}

struct ltap_log_target *ltap_log_enter(struct ltap_log_target *t)
{
	struct ltap_log_target *prev = log_current;
	log_current = t;
	return prev;
}

void ltap_log_leave(struct ltap_log_target *prev)
{
	log_current = prev;
}

void ltap_log_set_sink(ltap_log_fn fn, void *ud)
{
	log_process.fn = fn;
	log_process.ud = ud;
}

enum ltap_log_level ltap_log_set_verbosity(enum ltap_log_level max)
{
	struct ltap_log_target *t = log_target();
	enum ltap_log_level old = t->max;
	t->max = max;
	return old;
}

void ltap_set_log(ltap_log_fn fn, void *ud, int verbose)
{
	ltap_log_set_sink(fn, ud);
	log_process.max = verbose ? LTAP_LOG_DEBUG : LTAP_LOG_INFO;
}

void ltap_log_to_file(void *ud, enum ltap_log_level level, const char *msg)
{
	(void)level;
	fflush(stdout); /* keep report output and messages in order on a shared terminal */
	fprintf(ud, "ltap: %s\n", msg);
}

void ltap_log(enum ltap_log_level level, const char *fmt, ...)
{
	struct ltap_log_target *t = log_target();
	char msg[1024];
	va_list ap;

	if ((int)level > (int)t->max || !t->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	t->fn(t->ud, level, msg);
}
