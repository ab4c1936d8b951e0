/* switcher.c: a thread that blocks a known number of times, for counts of
 * context switches in both directions.
 *   switcher N US [@FILE]
 * After FILE exists (gate.h), calls getpgid(7771) (a marker a probe can
 * select: `pid == 7771`), then sleeps US microseconds N times (each a
 * switch out in state S, one wake-up, a switch back in), then calls
 * getpgid(7772). Between the two markers, every switch out of the thread
 * is followed by its switch in, and N of them are sleeps. A millisecond of
 * spinning after the first marker and before the second keeps the sleeps
 * clear of them in time, whatever the clocks of two rings differ by (the
 * markers come from ltap's tracefs ring, switches with stacks from perf's).
 * Prints its pid, N, and how many of the sleeps blocked: the thread's
 * voluntary switches over the loop (getrusage's ru_nvcsw, the kernel's
 * count of switches out in a sleeping state). A sleep need not block: when
 * the thread is preempted between arming its timer and calling schedule()
 * (a loaded machine), the timer may expire first, and nanosleep returns
 * with no switch out in state S; the tests count against this figure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RUSAGE_THREAD */
#endif
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void spin_ms(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ms * 1000000L);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, us = argc > 2 ? atol(argv[2]) : 100;
	struct timespec req = {us / 1000000, us % 1000000 * 1000};
	struct rusage r0, r1;

	if (argc > 3)
		gate_wait(argv[3]);
	syscall(SYS_getpgid, 7771L);
	spin_ms(1);
	getrusage(RUSAGE_THREAD, &r0);
	for (long i = 0; i < n; i++) {
		struct timespec rem = req;
		while (nanosleep(&rem, &rem) != 0)
			;
	}
	getrusage(RUSAGE_THREAD, &r1);
	spin_ms(1);
	syscall(SYS_getpgid, 7772L);
	printf("pid %d sleeps %ld blocked %ld\n", (int)getpid(), n, r1.ru_nvcsw - r0.ru_nvcsw);
	return 0;
}
