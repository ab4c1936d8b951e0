/* host_cycles CYCLES LIVE MIDRUN TRACE.dat EVENTS: libltap hosts made, run
 * and freed in one process (ltap.h), and what each leaves. Every LIVE-th
 * cycle makes a host whose script counts this process's getpgid() calls
 * on the live kernel, starts it, calls getpgid N times, stops it and steps
 * it to its end, and reads the count back from the script's globals (it
 * must be N exactly); every MIDRUN-th of those is freed mid-run instead,
 * its events still in the rings. The other cycles replay TRACE.dat, whose
 * getppid events must count EVENTS. The last cycle runs two live hosts at
 * once (getpgid and getppid, each its own instance). After all: the same
 * open fds as before, no guardian, and, once the guardians finished
 * removing them (within 2 s), no tracefs instance or uprobe group named
 * after this process. Prints "ok ..." or what went wrong (exit 1).
 * Leaks: LeakSanitizer in the ASan build. */
#include <ltap.h>

#include <dirent.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CALLS 1000

static const char script[] =
	"n = 0\n"
	"probe('syscalls:sys_enter_' .. arg[1], arg[2] ~= '' and 'common_pid == ' .. arg[2] or nil,\n"
	"      function() n = n + 1 end)\n";

static int fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the one opendir holds */
}

/* instances or uprobe groups named after this process */
static int leftovers(void)
{
	char name[64], line[512];
	int n = 0, len;
	DIR *d = opendir("/sys/kernel/tracing/instances");
	struct dirent *de;
	FILE *f;

	len = snprintf(name, sizeof name, "ltap-%d", (int)getpid());
	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, name, (size_t)len) == 0 && (!de->d_name[len] || de->d_name[len] == '-'))
			n++;
	if (d)
		closedir(d);
	len = snprintf(name, sizeof name, "ltap_%d", (int)getpid());
	f = fopen("/sys/kernel/tracing/uprobe_events", "r");
	while (f && fgets(line, sizeof line, f))
		n += strstr(line, name) != NULL;
	if (f)
		fclose(f);
	return n;
}

static ltap_host *host_made(const char *event, const char *input)
{
	char pid[16];
	char *argv[] = {(char *)event, pid};
	ltap_host *h;
	LTAP_HOST_OPTS(o, .ring_kb = 64, .input = input);

	snprintf(pid, sizeof pid, "%d", (int)getpid());
	if (input)
		pid[0] = 0; /* every event of the trace */
	if (ltap_host_new(&h, &o) || ltap_host_load_string(h, script, "cycle", 2, argv) || ltap_host_start(h)) {
		fprintf(stderr, "host_cycles: %s\n", ltap_host_error(h));
		exit(1);
	}
	return h;
}

/* stops h (live: a replay ends at its end), steps it to its end, and
 * returns the script's n */
static long host_count(ltap_host *h, int stop)
{
	lua_State *L = ltap_host_lua(h);
	long n;

	if (stop)
		ltap_host_stop(h);
	while (ltap_host_step(h, -1) > 0)
		;
	if (ltap_host_status(h) != 0) {
		fprintf(stderr, "host_cycles: status %d: %s\n", ltap_host_status(h), ltap_host_error(h));
		exit(1);
	}
	lua_getglobal(L, "n");
	n = (long)lua_tointeger(L, -1);
	lua_pop(L, 1);
	return n;
}

int main(int argc, char **argv)
{
	int fds0 = fds(), freed_midrun = 0, live = 0, replayed = 0, cycles, every, midrun;
	ltap_host *h, *h2;
	long n, n2, events;

	if (argc != 6) {
		fprintf(stderr, "usage: host_cycles CYCLES LIVE MIDRUN TRACE.dat EVENTS\n");
		return 2;
	}
	cycles = atoi(argv[1]);
	every = atoi(argv[2]);
	midrun = atoi(argv[3]);
	events = atol(argv[5]);
	for (int c = 1; c < cycles; c++) {
		if (c % every) {
			h = host_made("getppid", argv[4]);
			if ((n = host_count(h, 0)) != events) {
				fprintf(stderr, "host_cycles: cycle %d replayed %ld getppid, not %ld\n", c, n, events);
				return 1;
			}
			ltap_host_free(h);
			replayed++;
			continue;
		}
		h = host_made("getpgid", NULL);
		live++;
		for (int i = 0; i < CALLS; i++)
			syscall(SYS_getpgid, 0);
		if (c % (every * midrun) == 0) {
			ltap_host_free(h); /* mid-run: the events still in the rings */
			freed_midrun++;
			continue;
		}
		if ((n = host_count(h, 1)) != CALLS) {
			fprintf(stderr, "host_cycles: cycle %d counted %ld getpgid, not %d\n", c, n, CALLS);
			return 1;
		}
		ltap_host_free(h);
	}
	/* two hosts at once, each its own instance */
	h = host_made("getpgid", NULL);
	h2 = host_made("getppid", NULL);
	for (int i = 0; i < CALLS; i++) {
		syscall(SYS_getpgid, 0);
		syscall(SYS_getppid);
		syscall(SYS_getppid);
	}
	if (leftovers() != 2) {
		fprintf(stderr, "host_cycles: two hosts, %d instances of this process\n", leftovers());
		return 1;
	}
	n = host_count(h, 1);
	n2 = host_count(h2, 1);
	ltap_host_free(h);
	ltap_host_free(h2);
	if (n != CALLS || n2 != 2 * CALLS) {
		fprintf(stderr, "host_cycles: two hosts counted %ld getpgid and %ld getppid, not %d and %d\n", n, n2,
			CALLS, 2 * CALLS);
		return 1;
	}
	if (fds() != fds0) {
		fprintf(stderr, "host_cycles: %d fds open before, %d after\n", fds0, fds());
		return 1;
	}
	/* the instances' removal is the guardians', beside the hosts' ends */
	for (int ms = 0; leftovers() && ms < 2000; ms += 10)
		usleep(10000);
	if ((n = leftovers())) {
		fprintf(stderr, "host_cycles: %ld instances or uprobe groups of this process left 2 s after\n", n);
		return 1;
	}
	printf("ok %d cycles: %d replays, %d live (%d freed mid-run), the last with two live hosts at once; "
	       "%d fds before and after\n", cycles, replayed, live + 1, freed_midrun, fds0);
	return 0;
}
