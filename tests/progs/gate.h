/* gate.h: a start gate for test programs run beside ltap (-p, -a): with an
 * argument "@FILE" the program says so on stderr once it runs (exec'd, its
 * own mappings in place), then waits for FILE to exist, which the test
 * creates once ltap is attached: no head start to guess. */
#ifndef LTAP_TEST_GATE_H
#define LTAP_TEST_GATE_H

#include <stdio.h>
#include <unistd.h>

/* 1 if arg was a gate (and it opened), 0 if arg is something else */
static inline int gate_wait(const char *arg)
{
	if (!arg || arg[0] != '@')
		return 0;
	fprintf(stderr, "waiting for %s\n", arg + 1);
	fflush(stderr);
	while (access(arg + 1, F_OK) != 0)
		usleep(1000);
	return 1;
}

#endif
