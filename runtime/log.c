/* log.c: formats log lines onto stderr. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

/* Process-wide by nature: every component logs to the same place. */
static ltap_log_sink log_sink;
static void *log_ud;
static enum ltap_log_level log_max = LTAP_LOG_INFO;
static ltap_log_before_fn log_before;
static void *log_before_ud;

void ltap_log_set_sink(ltap_log_sink sink, void *ud)
{
	log_sink = sink;
	log_ud = ud;
}

void ltap_log_set_before(ltap_log_before_fn fn, void *ud)
{
	log_before = fn;
	log_before_ud = ud;
}

enum ltap_log_level ltap_log_set_verbosity(enum ltap_log_level max)
{
	enum ltap_log_level old = log_max;
	log_max = max;
	return old;
}

void ltap_log(enum ltap_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (log_sink) {
		log_sink(level, msg, log_ud);
		return;
	}
	if (log_before)
		log_before(log_before_ud);
	fflush(stdout); /* keep report output and messages in order on a shared terminal */
	fprintf(stderr, "ltap: %s\n", msg);
}
