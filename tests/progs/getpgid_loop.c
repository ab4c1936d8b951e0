/* getpgid_loop N: calls getpgid(i % 10) N times, so a filter on the pid
 * argument selects an exactly known tenth of the events. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getpgid, (long)(i % 10));
	return 0;
}
