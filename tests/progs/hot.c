/* hot.c: a program with one known hot function, for profiles and symbol
 * lookups. Built as a PIE with frame pointers and debug info.
 *   hot SECONDS [@FILE]  spins in hot_spin() for SECONDS of its own CPU time
 *                        (the profile's target), after FILE exists (gate.h);
 *                        says on stderr the CPU time it used in all
 *                        ("hot: CPU S s")
 * CPU time, not wall time: a profile at F Hz gets about F * S samples of it
 * however loaded the machine is. cold_helper() exists so a lookup test
 * has a second, never-hot function. */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long cold_helper(unsigned long x)
{
	return x * 2654435761u;
}

/* not a leaf (it calls cold_helper), so gcc gives it a frame pointer and
 * the user call chain reaches main */
__attribute__((noinline)) void hot_spin(unsigned long rounds)
{
	sink += cold_helper(rounds);
	for (unsigned long i = 0; i < rounds; i++) /* HOT_BEGIN */
		sink += i ^ (sink >> 3);
	/* HOT_END */
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

	if (argc > 2)
		gate_wait(argv[2]);
	end = cpu_seconds() + secs;
	sink = cold_helper((unsigned long)argc);
	while (cpu_seconds() < end)
		hot_spin(1000000);
	fprintf(stderr, "hot: CPU %.6f s\n", cpu_seconds());
	return 0;
}
