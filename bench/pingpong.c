/* pingpong.c: the context-switch workload of bench/offcpu.sh: two threads
 * hand a byte back and forth over two pipes, each blocked in read() until
 * the other writes. Runs until killed; every 50 ms prints the round trips
 * so far and the CLOCK_MONOTONIC time ("TRIPS NS"), so a tracer's cost
 * shows as fewer trips a second over its run. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static volatile unsigned long trips;

static void *other(void *arg)
{
	char c;
	(void)arg;
	while (read(ab[0], &c, 1) == 1)
		if (write(ba[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *report(void *arg)
{
	struct timespec d = {0, 50000000}, now;
	(void)arg;
	for (;;) {
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		printf("%lu %lld\n", trips, (long long)now.tv_sec * 1000000000 + now.tv_nsec);
		fflush(stdout);
	}
	return NULL;
}

int main(void)
{
	pthread_t t, r;
	char c = 'x';

	if (pipe(ab) || pipe(ba))
		return 1;
	pthread_create(&t, NULL, other, NULL);
	pthread_create(&r, NULL, report, NULL);
	for (;;) {
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
		trips++;
	}
}
