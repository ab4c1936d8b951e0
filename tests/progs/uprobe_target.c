/* uprobe_target N M [PHASES]: a program with known functions and SDT markers
 * for uprobe tests.
 *   calls f(i, "hello") N times and hits marker ltap_test:m (args i, 42, -7)
 *   M times; hits ltap_test:guarded (a marker with a semaphore) only while a
 *   tracer has set the semaphore, and prints how often; calls sleep10() once
 *   (10 ms) and prints how long the call took ("clock sleep10 MS"); with
 *   PHASES, runs phase_a .. phase_e of 20, 30, 10, 40, 25 ms and prints for
 *   each the time inside it and the time just before it was called
 *   ("phase NAME IN BEFORE"), on its own CLOCK_MONOTONIC clock from the
 *   start: a probe's time stamp of a call lies between the two, however
 *   loaded the machine. */
#define _SDT_HAS_SEMAPHORES 1 /* every marker gets its <provider>_<name>_semaphore */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

unsigned short ltap_test_m_semaphore __attribute__((section(".probes")));
unsigned short ltap_test_guarded_semaphore __attribute__((section(".probes")));
#define GUARDED_ENABLED() __builtin_expect(ltap_test_guarded_semaphore, 0)

volatile long sink;

__attribute__((noinline)) long f(long i, const char *s)
{
	sink += i + s[0];
	return i * 2;
}

__attribute__((noinline)) int sleep10(void)
{
	usleep(10000);
	return 10;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static double t0, before;

#define PHASE(name, ms)                                                      \
	__attribute__((noinline)) void name(void)                            \
	{                                                                    \
		double in = now_ms() - t0;                                   \
		printf("phase %s %.3f %.3f\n", #name, in, before - t0);      \
		usleep((ms) * 1000);                                         \
	}
#define CALL(fn) (before = now_ms(), fn())
PHASE(phase_a, 20)
PHASE(phase_b, 30)
PHASE(phase_c, 10)
PHASE(phase_d, 40)
PHASE(phase_e, 25)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, m = argc > 2 ? atol(argv[2]) : 10, guarded = 0;

	for (long i = 0; i < n; i++)
		f(i, "hello");
	for (long i = 0; i < m; i++) {
		DTRACE_PROBE3(ltap_test, m, i, 42, -7);
		if (GUARDED_ENABLED()) {
			DTRACE_PROBE1(ltap_test, guarded, i);
			guarded++;
		}
	}
	printf("guarded %ld\n", guarded);
	before = now_ms();
	sleep10();
	printf("clock sleep10 %.3f\n", now_ms() - before);
	if (argc > 3) {
		t0 = now_ms();
		CALL(phase_a);
		CALL(phase_b);
		CALL(phase_c);
		CALL(phase_d);
		CALL(phase_e);
		printf("phase end %.3f\n", now_ms() - t0);
	}
	return 0;
}
