/* comms N [@FILE] HEX...: one child per HEX, named with those bytes
 * (prctl(PR_SET_NAME), which any user may call with any bytes: invalid
 * UTF-8, backslashes, quotes, newlines), the i-th (from 1) calling
 * getppid() N * i times, one after another; exits when all have. With
 * @FILE, waits for FILE first (gate.h). The names that must stay apart in
 * what ltap exports, each with its own exact count. */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int a = 2;

	if (argc > a && gate_wait(argv[a]))
		a++;
	for (int i = a; i < argc; i++) {
		char name[16] = {0};
		size_t len = strlen(argv[i]) / 2;
		pid_t pid;

		if (len > 15)
			len = 15;
		for (size_t k = 0; k < len; k++) {
			unsigned v;
			if (sscanf(argv[i] + 2 * k, "%2x", &v) != 1)
				return 2;
			name[k] = (char)v;
		}
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			prctl(PR_SET_NAME, name);
			for (long k = 0; k < n * (i - a + 1); k++)
				syscall(SYS_getppid);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	return 0;
}
