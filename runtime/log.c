/* log.c: formats log lines onto stderr. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

/* Process-wide by nature: every component logs to the same place. */
static enum ltap_log_level log_max = LTAP_LOG_INFO;

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
	fflush(stdout); /* keep report output and messages in order on a shared terminal */
	fprintf(stderr, "ltap: %s\n", msg);
}
