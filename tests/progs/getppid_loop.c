/* getppid_loop N [SLEEP_MS | @FILE] [EXIT]: calls getppid() N times, a known
 * event count. With SLEEP_MS, sleeps that long first; with @FILE, waits for
 * FILE first (gate.h: for -p tests to attach). Exits with EXIT. */
#include "gate.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	if (argc > 2 && !gate_wait(argv[2]))
		usleep((useconds_t)atol(argv[2]) * 1000);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return argc > 3 ? atoi(argv[3]) : 0;
}
