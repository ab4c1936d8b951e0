/* embed_epoll.c: a program with an epoll loop of its own hosting an ltap
 * script beside its own fds (libltap, ltap.h).
 *
 *     embed_epoll [-i MS] SCRIPT.lua [COMMAND [ARGS...]]
 *
 * runs SCRIPT (traced system-wide, or COMMAND with ltap -c's rules) while
 * its own timer prints a line every MS milliseconds (default 100); scripts
 * may call ticks(), a function this program adds to their Lua state.
 * Build:  cc embed_epoll.c $(pkg-config --cflags --libs ltap)
 * As root (tracing needs it). ^C ends the run: finish hooks run. */
#include <ltap.h>

#include <lauxlib.h>
#include <lua.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

static ltap_host *host;
static uint64_t ticks;

/* ticks(): how often this program's own timer fired so far */
static int l_ticks(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)ticks);
	return 1;
}

static void on_signal(int sig)
{
	ltap_host_signal(host, sig); /* async-signal-safe */
}

static void log_line(void *ud, enum ltap_log_level level, const char *msg)
{
	static const char *const names[] = {"error", "warning", "info", "debug"};
	(void)ud;
	fprintf(stderr, "embed_epoll: ltap %s: %s\n", names[level], msg);
}

int main(int argc, char **argv)
{
	LTAP_HOST_OPTS(opts, .output = stdout, .error_output = stderr, .log = log_line);
	struct epoll_event ev = {.events = EPOLLIN}, ready[8];
	struct itimerspec period = {{0, 100 * 1000000L}, {0, 100 * 1000000L}};
	int ep, tfd, arg = 1, running = 1, status;
	char command[4096] = "";

	if (argc > 2 && strcmp(argv[1], "-i") == 0) {
		long ms = atol(argv[2]);
		period.it_interval = period.it_value = (struct timespec){ms / 1000, (ms % 1000) * 1000000L};
		arg = 3;
	}
	if (arg >= argc) {
		fprintf(stderr, "usage: %s [-i MS] SCRIPT.lua [COMMAND [ARGS...]]\n", argv[0]);
		return 2;
	}
	/* the command as one line: ltap splits it as sh would */
	for (int i = arg + 1; i < argc; i++)
		snprintf(command + strlen(command), sizeof command - strlen(command), "%s%s", i > arg + 1 ? " " : "",
			 argv[i]);
	if (command[0])
		opts.command = command;

	if (ltap_host_new(&host, &opts) != 0) {
		fprintf(stderr, "embed_epoll: %s\n", ltap_host_error(host));
		ltap_host_free(host);
		return 1;
	}
	lua_register(ltap_host_lua(host), "ticks", l_ticks);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (ltap_host_load_file(host, argv[arg], 0, NULL) != 0 || ltap_host_start(host) != 0) {
		status = ltap_host_status(host);
		ltap_host_free(host);
		return status > 0 ? status : 1;
	}

	/* one epoll set: the host's fd beside this program's own timer */
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	timerfd_settime(tfd, 0, &period, NULL);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	ev.data.fd = ltap_host_fd(host);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	while (running) {
		int n = epoll_wait(ep, ready, 8, -1);
		for (int i = 0; i < n && running; i++) {
			if (ready[i].data.fd == tfd) {
				uint64_t k;
				if (read(tfd, &k, sizeof k) == sizeof k)
					ticks += k;
				printf("tick %llu\n", (unsigned long long)ticks);
				fflush(stdout);
			} else if (ltap_host_step(host, 0) == 0) {
				running = 0; /* the run ended: finish hooks ran */
			}
		}
	}
	status = ltap_host_status(host);
	printf("ltap status %d after %llu ticks\n", status, (unsigned long long)ticks);
	ltap_host_free(host);
	close(tfd);
	close(ep);
	return status;
}
