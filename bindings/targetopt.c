/* targetopt.c: the target options of a run, checked once for ltap's command
 * line and for ltap.options{} (targetopt.h). */
#include "targetopt.h"

#include "command.h"
#include "ctx.h"
#include "parse.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* each target option once: ltap -d 1s profile -d 2s has no answer */
static int targetopt_twice(const char *name, char *why, size_t len)
{
	snprintf(why, len, "%s was given twice", name);
	return -EINVAL;
}

int ltap_targetopt_set(struct ltap_options *o, int opt, const char *value, char *why, size_t len)
{
	char *end;
	long pid;

	switch (opt) {
	case 'p':
		if (o->pid)
			return targetopt_twice("-p", why, len);
		errno = 0;
		pid = strtol(value, &end, 10);
		/* a pid_t is 32 bits: 4294967297 must not wrap to 1 */
		if (*end || end == value || errno || pid <= 0 || pid > INT32_MAX) {
			snprintf(why, len, "-p: bad pid '%s' (1 to %d)", value, INT32_MAX);
			return -EINVAL;
		}
		o->pid = (pid_t)pid;
		return 0;
	case 'c':
		if (o->command)
			return targetopt_twice("-c", why, len);
		o->command = value;
		return 0;
	case 'a':
		o->all = 1;
		return 0;
	case 'd':
		if (o->duration)
			return targetopt_twice("-d", why, len);
		if (ltap_parse_duration(value, &o->duration) || !o->duration) {
			o->duration = 0;
			snprintf(why, len, "-d: bad duration '%s' (try 10s, 500ms)", value);
			return -EINVAL;
		}
		return 0;
	case 'R':
		if (o->record)
			return targetopt_twice("--record", why, len);
		o->record = value;
		return 0;
	}
	snprintf(why, len, "no target option '%c'", opt);
	return -EINVAL;
}

int ltap_targetopt_command(const char *text, struct ltap_cmd *c, char *why, size_t len)
{
	const char *reason;
	int e = ltap_cmd_parse(text, c, &reason);

	if (e == -EINVAL)
		snprintf(why, len, "-c: bad command '%s': %s", text, reason);
	else if (e)
		snprintf(why, len, "-c: %s", strerror(-e));
	return e;
}

int ltap_targetopt_check(const struct ltap_options *o, char *why, size_t len)
{
	const char *msg = NULL;

	if (o->input && o->record)
		msg = "--input and --record cannot be used together";
	else if (o->pid && o->command)
		msg = "-p and -c cannot be used together";
	else if (o->all && (o->pid || o->command))
		msg = "-a cannot be used with -p or -c";
	if (!msg)
		return 0;
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}
