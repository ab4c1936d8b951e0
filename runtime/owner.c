/* owner.c: the names of what ltap makes in the kernel (owner.h). */
#include "owner.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Process-wide by nature: the hosts of one process share its pid. */
static _Atomic uint64_t owner_used;

int ltap_owner_take(void)
{
	uint64_t used = atomic_load(&owner_used);

	for (;;) {
		int bit;
		if (used == UINT64_MAX)
			return -EMFILE;
		bit = __builtin_ctzll(~used);
		if (atomic_compare_exchange_weak(&owner_used, &used, used | (1ull << bit)))
			return bit + 1;
	}
}

void ltap_owner_release(int serial)
{
	if (serial >= 1 && serial <= LTAP_OWNER_MAX)
		atomic_fetch_and(&owner_used, ~(1ull << (serial - 1)));
}

void ltap_owner_name(char *buf, size_t len, char sep, int serial)
{
	if (serial > 1)
		snprintf(buf, len, "ltap%c%d%c%d", sep, (int)getpid(), sep, serial);
	else
		snprintf(buf, len, "ltap%c%d", sep, (int)getpid());
}

/* a decimal number at *p, at most 10 digits; the end in *p */
static int owner_number(const char **p, long *v)
{
	const char *s = *p;
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	*v = strtol(s, &end, 10);
	if (end - s > 10)
		return 0;
	*p = end;
	return 1;
}

int ltap_owner_parse(const char *name, char sep, pid_t *pid)
{
	const char *p = name + 5;
	long v, n;

	if (strncmp(name, "ltap", 4) != 0 || name[4] != sep || !owner_number(&p, &v) || v <= 0 || v > INT32_MAX)
		return 0;
	if (*p == sep) {
		p++;
		if (!owner_number(&p, &n) || n < 2)
			return 0;
	}
	if (*p)
		return 0;
	*pid = (pid_t)v;
	return 1;
}

int ltap_owner_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}
