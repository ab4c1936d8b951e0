/* offwork.c: threads that block for known times, each measuring its own
 * waits, for off-CPU and wake-up profiles (ltap offcpu, bpftrace).
 *   offwork N [@FILE] [HOLD]
 *     sleeper: N times func_A (sleeps 10 ms), then func_B (30 ms);
 *     writer:  4N times writer_sleep (10 ms), then writes a byte to a pipe;
 *     reader:  4N times reader_wait, blocked in read() on that pipe
 *   (each thread named so: its comm).
 *   After FILE exists (gate.h). At the end it prints, per function, the
 *   nanoseconds it spent in its blocking system calls by CLOCK_MONOTONIC,
 *   and each thread's id ("tid sleeper 1234"); with HOLD (a path) it then
 *   says "holding" on stderr and waits for HOLD to exist before it exits,
 *   so a tool that names user stacks at its end finds the process alive.
 * Each function makes its system call itself (inline syscall, frame
 * pointers): the function is the leaf user frame of the blocked stack, not
 * hidden behind a libc wrapper built without frame pointers. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "gate.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long n_rounds;
static int pipefd[2];
static int64_t spent_A, spent_B, spent_writer, spent_reader;
static int tid_sleeper, tid_writer, tid_reader;

static inline long sys3(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* nanosleep(ms) as a raw system call in the calling function; its time */
#define SLEEP_MS(ms)                                                                          \
	({                                                                                    \
		struct timespec req = {0, (ms) * 1000000L};                                   \
		int64_t t0 = now_ns();                                                        \
		while (sys3(SYS_nanosleep, (long)&req, (long)&req, 0) == -4) /* EINTR: the rest */ \
			;                                                                     \
		now_ns() - t0;                                                                \
	})

__attribute__((noinline)) void func_A(void)
{
	spent_A += SLEEP_MS(10);
}

__attribute__((noinline)) void func_B(void)
{
	spent_B += SLEEP_MS(30);
}

__attribute__((noinline)) void writer_sleep(void)
{
	spent_writer += SLEEP_MS(10);
}

__attribute__((noinline)) void reader_wait(void)
{
	char c;
	int64_t t0 = now_ns();
	if (sys3(SYS_read, pipefd[0], (long)&c, 1) != 1)
		exit(3);
	spent_reader += now_ns() - t0;
}

static void *sleeper(void *arg)
{
	(void)arg;
	tid_sleeper = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "sleeper");
	for (long i = 0; i < n_rounds; i++) {
		func_A();
		func_B();
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	tid_writer = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "writer");
	for (long i = 0; i < 4 * n_rounds; i++) {
		writer_sleep();
		if (write(pipefd[1], "x", 1) != 1)
			exit(3);
	}
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	tid_reader = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), "reader");
	for (long i = 0; i < 4 * n_rounds; i++)
		reader_wait();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	n_rounds = argc > 1 ? atol(argv[1]) : 25;
	if (argc > 2)
		gate_wait(argv[2]);
	if (pipe(pipefd) != 0)
		return 3;
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, reader, NULL);
	pthread_create(&t[2], NULL, writer, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("func_A %lld\nfunc_B %lld\nwriter_sleep %lld\nreader_wait %lld\n", (long long)spent_A,
	       (long long)spent_B, (long long)spent_writer, (long long)spent_reader);
	printf("tid sleeper %d\ntid writer %d\ntid reader %d\n", tid_sleeper, tid_writer, tid_reader);
	fflush(stdout);
	if (argc > 3) {
		fprintf(stderr, "holding\n");
		fflush(stderr);
		while (access(argv[3], F_OK) != 0)
			usleep(1000);
	}
	return 0;
}
