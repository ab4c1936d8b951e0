/* floor.c: the floor of bench/run.sh. The least a reader of a tracefs
 * instance's rings does for "count this tracepoint per process name", as
 * ltap reads them: its own instance with a ring of RING_KB per CPU that
 * wakes the reader at a tenth full, its own events left out by the same
 * kernel filter (common_pid != its pid), every CPU's trace_pipe_raw read a
 * page at a time and walked in place (runtime/ringpage.h, ltap's walk), the
 * process name of a pid from a cache filled from /proc on a miss, and a
 * count per name in a hash table of names (looked up by the name's bytes
 * per event, as any per-key count must). Like ltap (since 2026-12-05), a
 * ring is read until the page the kernel was still writing, not on in
 * reads of the few events the writer adds meanwhile (the final drain
 * reads all). No Lua, no merge of the CPUs in time order, no event
 * object, no task events: what is left is the ring's own cost and the
 * count's.
 *
 *     floor SYSTEM:EVENT [RING_KB]
 *
 * says "attached" on stderr once tracing; on SIGINT or SIGTERM turns
 * tracing off, reads what the rings still hold, prints "COMM COUNT" lines
 * and "lost N" (the kernel's count of overwritten events), and removes its
 * instance. Built by bench/run.sh (gcc -O2 -I runtime); never part of
 * ltap. */
#include "ringpage.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define MAX_CPUS 256
#define PID_SLOTS 65536 /* pid cache, direct-mapped */
#define COMMS 4096      /* distinct names */

struct comm {
	char name[16];      /* 0-padded: compared as two words */
	uint64_t count;
};

static struct {
	int32_t pid;        /* -1: empty */
	char name[16];      /* its name, 0-padded */
} pids[PID_SLOTS];
static struct comm comms[COMMS];    /* open addressing by the name's hash */
static int ncomms;
static char inst[256];
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int write_file(const char *rel, const char *val)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof path, "%s/%s", inst, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* the name a pid has now: /proc on a miss, kept until the slot is taken */
static const char *name_of(int32_t pid)
{
	unsigned slot = (unsigned)pid % PID_SLOTS;
	char path[64], name[17] = "";
	ssize_t n;
	int fd;

	if (pids[slot].pid == pid)
		return pids[slot].name;
	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, name, 16);
		close(fd);
		name[n > 0 ? n : 0] = 0;
		name[strcspn(name, "\n")] = 0;
	}
	if (!name[0])
		snprintf(name, sizeof name, "<%d>", (int)pid);
	pids[slot].pid = pid;
	memset(pids[slot].name, 0, 16);
	memcpy(pids[slot].name, name, strnlen(name, 15));
	return pids[slot].name;
}

/* the count of a name (16 bytes, 0-padded): hashed and compared per event */
static struct comm *comm_of(const char *name)
{
	uint64_t a, b, h;
	unsigned i;

	memcpy(&a, name, 8);
	memcpy(&b, name + 8, 8);
	h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	for (i = (unsigned)(h >> 52) % COMMS;; i = (i + 1) % COMMS) {
		struct comm *c = &comms[i];
		uint64_t ca, cb;
		memcpy(&ca, c->name, 8);
		memcpy(&cb, c->name + 8, 8);
		if (ca == a && cb == b && c->name[0])
			return c;
		if (!c->name[0]) {
			if (ncomms == COMMS - 1)
				return &comms[(i + 1) % COMMS]; /* full: the rest anywhere */
			memcpy(c->name, name, 16);
			ncomms++;
			return c;
		}
	}
}

/* reads what a CPU's ring holds now, page by page, up to the page the
 * writer was on while live (room for more in it, as runtime/
 * src_tracepoint.c judges); the pages' lost count */
static long drain(int fd, char *page, size_t psize, int live)
{
	long lost = 0;
	ssize_t n;
	int open = 0;

	while (!open && (n = read(fd, page, psize)) > 0) {
		struct ringpage rp;
		const char *ev;
		int size;

		ringpage_load(&rp, page, 8, (unsigned)n);
		open = live && rp.size + 256 < psize - 16;
		if (rp.missed > 0)
			lost += rp.missed;
		while ((ev = ringpage_next(&rp, &size)) != NULL) {
			int32_t pid;
			if (size < 8)
				continue;
			memcpy(&pid, ev + 4, sizeof pid);
			comm_of(name_of(pid))->count++;
		}
	}
	return lost;
}

int main(int argc, char **argv)
{
	char sys[128], path[512], val[64];
	const char *colon, *ring_kb = argc > 2 ? argv[2] : "8192";
	int fds[MAX_CPUS], ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), ep;
	size_t psize = (size_t)getpagesize();
	char *page = malloc(psize);
	struct sigaction sa = {.sa_handler = on_signal};
	long lost = 0;

	if (argc < 2 || !(colon = strchr(argv[1], ':')) || ncpu > MAX_CPUS || !page) {
		fprintf(stderr, "usage: floor SYSTEM:EVENT [RING_KB]\n");
		return 2;
	}
	snprintf(sys, sizeof sys, "%.*s/%s", (int)(colon - argv[1]), argv[1], colon + 1);
	for (int i = 0; i < PID_SLOTS; i++)
		pids[i].pid = -1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(inst, sizeof inst, TRACEFS "/instances/floor-%d", (int)getpid());
	if (mkdir(inst, 0750) < 0) {
		perror(inst);
		return 1;
	}
	snprintf(path, sizeof path, "events/%s/filter", sys);
	snprintf(val, sizeof val, "common_pid != %d", (int)getpid());
	if (write_file("buffer_size_kb", ring_kb) || write_file("buffer_percent", "10") || write_file(path, val)) {
		perror("floor: cannot set up the instance");
		rmdir(inst);
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct epoll_event e = {.events = EPOLLIN, .data.u32 = (uint32_t)cpu};
		snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace_pipe_raw", inst, cpu);
		fds[cpu] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fds[cpu] >= 0)
			epoll_ctl(ep, EPOLL_CTL_ADD, fds[cpu], &e);
	}
	snprintf(path, sizeof path, "events/%s/enable", sys);
	if (write_file(path, "1")) {
		perror("floor: cannot enable the event");
		rmdir(inst);
		return 1;
	}
	fprintf(stderr, "attached\n");
	while (!stop) {
		struct epoll_event evs[MAX_CPUS];
		/* a ring that fills slowly is read every 100 ms, as ltap's */
		int n = epoll_wait(ep, evs, MAX_CPUS, 100);
		if (n <= 0) {
			for (int cpu = 0; cpu < ncpu; cpu++)
				if (fds[cpu] >= 0)
					lost += drain(fds[cpu], page, psize, 1);
			continue;
		}
		for (int i = 0; i < n; i++)
			lost += drain(fds[evs[i].data.u32], page, psize, 1);
	}
	write_file("tracing_on", "0");
	for (int cpu = 0; cpu < ncpu; cpu++)
		if (fds[cpu] >= 0) {
			lost += drain(fds[cpu], page, psize, 0);
			close(fds[cpu]);
		}
	close(ep);
	for (int i = 0; i < COMMS; i++)
		if (comms[i].name[0])
			printf("%.16s %llu\n", comms[i].name, (unsigned long long)comms[i].count);
	printf("lost %ld\n", lost);
	snprintf(path, sizeof path, "events/%s/enable", sys);
	write_file(path, "0");
	if (rmdir(inst) < 0)
		perror(inst);
	free(page);
	return 0;
}
