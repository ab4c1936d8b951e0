/* pidnote ARGS...: the ltap of a live test (tests/live/engine.py). Appends
 * its pid to the file $LTAP_PID_LOG, then execs $LTAP_BIN with ARGS: the
 * same process (exec keeps the pid), so the engine knows which ltaps a test
 * ran, and the environment exactly as given (a shell in between would add
 * PWD and reorder it, and a command's page count with it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *log = getenv("LTAP_PID_LOG"), *bin = getenv("LTAP_BIN");
	char line[32];
	int fd, n;

	(void)argc;
	if (!bin) {
		fprintf(stderr, "pidnote: LTAP_BIN is not set\n");
		return 127;
	}
	/* a user who may not write the log (setpriv tests) runs ltap all the same */
	if (log && (fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC)) >= 0) {
		n = snprintf(line, sizeof line, "%d\n", (int)getpid());
		if (write(fd, line, (size_t)n) != n)
			fprintf(stderr, "pidnote: cannot write %s: %s\n", log, strerror(errno));
		close(fd);
	}
	argv[0] = (char *)bin;
	execv(bin, argv);
	fprintf(stderr, "pidnote: cannot run %s: %s\n", bin, strerror(errno));
	return 127;
}
