/* annotate_target.c: a hot loop over known source lines, for ltap annotate.
 * Built -O1 -g with frame pointers.
 *   annotate_target SECONDS [@FILE]  runs crunch() for SECONDS of its own
 *                                    CPU time, after FILE exists (gate.h)
 * The loop body is the lines between ANNOTATE_HOT_BEGIN and
 * ANNOTATE_HOT_END (the test finds them by these words). */
#include "gate.h"

#include <stdlib.h>
#include <time.h>

volatile unsigned long result;

__attribute__((noinline)) unsigned long crunch(unsigned long n, unsigned long seed)
{
	unsigned long a = seed, b = seed ^ 0x9e3779b97f4a7c15ul;

	for (unsigned long i = 0; i < n; i++) { /* ANNOTATE_HOT_BEGIN */
		a = a * 6364136223846793005ul + i;
		b ^= a >> 17;
		b = (b << 5) | (b >> 59);
		a += b & 0xff;
	} /* ANNOTATE_HOT_END */
	return a + b;
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end;
	unsigned long seed = (unsigned long)argc;

	if (argc > 2)
		gate_wait(argv[2]);
	end = cpu_seconds() + secs;
	while (cpu_seconds() < end)
		seed = crunch(2000000, seed);
	result = seed;
	return 0;
}
