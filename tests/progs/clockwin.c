/* clockwin N [INTERVAL_MS [BURST]] [@FILE]: N rounds of BURST (default 1)
 * samples, INTERVAL_MS (default 0) apart: each sample reads
 * CLOCK_MONOTONIC, calls getsid(0), reads it again and prints "T0 T1" (ns),
 * the program's own window around the syscall, in which the
 * sys_enter_getsid event's e.time must fall. Back-to-back samples of a
 * burst are the tight ones (200 ns here); the first after a sleep is wide
 * (a CPU back from idle). With @FILE, waits for FILE first (gate.h).
 * getsid: a syscall no other test counts. */
#include "gate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, ms = 0, burst = 1;
	int a = 2;

	if (argc > a && argv[a][0] != '@')
		ms = atol(argv[a++]);
	if (argc > a && argv[a][0] != '@')
		burst = atol(argv[a++]);
	if (argc > a)
		gate_wait(argv[a]);
	for (long i = 0; i < n; i++) {
		uint64_t t[64][2];
		long b = burst < 1 ? 1 : burst > 64 ? 64 : burst;
		for (long k = 0; k < b; k++) {
			t[k][0] = mono();
			syscall(SYS_getsid, 0);
			t[k][1] = mono();
		}
		for (long k = 0; k < b; k++)
			printf("%llu %llu\n", (unsigned long long)t[k][0], (unsigned long long)t[k][1]);
		if (ms) {
			fflush(stdout);
			usleep((useconds_t)ms * 1000); /* workload: the interval between rounds */
		}
	}
	return 0;
}
