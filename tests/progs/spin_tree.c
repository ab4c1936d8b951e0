/* spin_tree PIDFILE: a command tree that outlives its first process: forks
 * a child that forks a grandchild and exits at once (the grandchild is
 * re-parented, out of reach of whoever kills only the command), then spins.
 * The grandchild spins too. When both run, writes "PID\nGRANDCHILD\n" to
 * PIDFILE (atomically: PIDFILE.tmp renamed), so a test knows what to check. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void spin(void)
{
	for (volatile unsigned long i = 0;; i++)
		;
}

int main(int argc, char **argv)
{
	char tmp[4096];
	int p[2];
	pid_t child, grandchild = 0;
	FILE *f;

	if (argc < 2 || pipe(p) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		if (fork() == 0) {
			pid_t me = getpid();
			if (write(p[1], &me, sizeof me) != sizeof me)
				_exit(1);
			spin();
		}
		_exit(0);
	}
	if (child < 0 || waitpid(child, NULL, 0) < 0 || read(p[0], &grandchild, sizeof grandchild) != sizeof grandchild)
		return 1;
	snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n%d\n", (int)getpid(), (int)grandchild);
	if (fclose(f) != 0 || rename(tmp, argv[1]) != 0)
		return 1;
	spin();
}
