/* hopper N NAME1 NAME2 [@FILE]: named NAME1, calls getpgid() N times on
 * each CPU it may run on, pinned to each in turn, then N times more on the
 * first; moves to the last CPU to rename itself NAME2 (prctl(PR_SET_NAME)),
 * and back to the first for N calls, then N on each CPU again. The first
 * CPU's ring holds calls under both names with the rename between them in
 * time but in another CPU's ring: counted in that ring's order alone, the
 * calls after it would keep the old name. getpgid: nothing else here calls
 * it, so a system-wide count is exact: N times (the CPUs + 1) under each
 * name. With @FILE, waits for FILE first (gate.h). */
#define _GNU_SOURCE
#include "gate.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		exit(1);
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpgid, 0L);
}

static void calls_on_each(const cpu_set_t *allowed, long n)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, allowed)) {
			pin(cpu);
			calls(n);
		}
}

int main(int argc, char **argv)
{
	cpu_set_t allowed;
	int first = -1, last = -1;
	long n;

	if (argc < 4)
		return 2;
	n = atol(argv[1]);
	if (argc > 4)
		gate_wait(argv[4]);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return 1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed)) {
			first = first < 0 ? cpu : first;
			last = cpu;
		}
	prctl(PR_SET_NAME, argv[2]);
	calls_on_each(&allowed, n);
	pin(first);
	calls(n);
	pin(last);
	prctl(PR_SET_NAME, argv[3]);
	pin(first);
	calls(n);
	calls_on_each(&allowed, n);
	return 0;
}
