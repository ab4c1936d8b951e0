/* term.c: the terminal of a full-screen view: raw keys, the alternate
 * screen, and the way back on every end of ltap that runs code.
 *
 * termios and a handful of ECMA-48 sequences (cursor home, erase line and
 * below, reverse video, the cursor shown or hidden, xterm's alternate
 * screen 1049) are all a table of lines needs; every terminal in use
 * (xterm and its kin, VTE, tmux, screen, the Linux console) speaks them.
 * docs/top.md says why not ncurses.
 *
 * The state is file-static: there is one terminal per process. A library
 * takes no signal, so no SIGWINCH: a resize is seen by a timer that reads
 * the window's size five times a second (a sixth of the work a redraw does
 * once a second), and no atexit either (a Lua module may be unloaded
 * before exit): the host gives the terminal back as it ends, on every end
 * that runs code (ltap.term's __gc when the host's state closes). */
#include "term.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <termios.h>
#include <unistd.h>

#define ENTER_SCREEN "\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE_SCREEN "\033[?25h\033[?1049l"
#define KEPT_MAX (1 << 20) /* bytes of messages shown after the screen */
#define SIZE_CHECK_NS 200000000L /* how often the window's size is read */

static struct {
	int active;
	int in, out, err;
	struct termios saved;
	int saved_err;      /* the terminal's stderr while err writes to kept */
	int kept;           /* a memfd: what was written to stderr meanwhile */
	int size_timer;     /* a timerfd: the window's size is read when it fires */
	int rows, cols;     /* the size last read */
} term = {.saved_err = -1, .kept = -1, .size_timer = -1};

static void term_write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Messages written while the screen was up go where stderr went before. */
static void term_release_stderr(void)
{
	char buf[4096];
	off_t off = 0;
	ssize_t n;

	if (term.saved_err < 0)
		return;
	dup2(term.saved_err, term.err);
	close(term.saved_err);
	term.saved_err = -1;
	while (off < KEPT_MAX && (n = pread(term.kept, buf, sizeof buf, off)) > 0) {
		term_write_all(term.err, buf, (size_t)n);
		off += n;
	}
	if (off >= KEPT_MAX)
		term_write_all(term.err, "ltap: term: more messages were written than are shown\n", 55);
	close(term.kept);
	term.kept = -1;
}

/* While the screen is up, stderr (when it is the screen's terminal) writes
 * into a memfd instead: a message is shown after the screen, not drawn
 * over by the next refresh or lost with the alternate screen. */
static void term_keep_stderr(int err, int out)
{
	struct stat se, so;

	if (err < 0 || !isatty(err) || fstat(err, &se) || fstat(out, &so) || se.st_rdev != so.st_rdev)
		return;
	term.kept = memfd_create("ltap-stderr", MFD_CLOEXEC);
	if (term.kept < 0)
		return;
	term.saved_err = fcntl(err, F_DUPFD_CLOEXEC, 3);
	if (term.saved_err < 0 || dup2(term.kept, err) < 0) {
		if (term.saved_err >= 0)
			close(term.saved_err);
		close(term.kept);
		term.saved_err = term.kept = -1;
	}
}

int ltap_term_enter(int in, int out, int err)
{
	struct itimerspec every = {{0, SIZE_CHECK_NS}, {0, SIZE_CHECK_NS}};
	struct termios raw;

	if (term.active)
		return 0;
	if (!isatty(in) || !isatty(out))
		return -ENOTTY;
	if (tcgetattr(in, &term.saved))
		return -errno;
	term.size_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (term.size_timer < 0)
		return -errno;
	timerfd_settime(term.size_timer, 0, &every, NULL);
	if (ltap_term_size(out, &term.rows, &term.cols))
		term.rows = term.cols = 0;
	raw = term.saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;
	term.in = in;
	term.out = out;
	term.err = err;
	term.active = 1;
	if (tcsetattr(in, TCSADRAIN, &raw)) {
		int e = errno;
		ltap_term_leave();
		return -e;
	}
	term_write_all(out, ENTER_SCREEN, sizeof ENTER_SCREEN - 1);
	term_keep_stderr(err, out);
	return 0;
}

void ltap_term_leave(void)
{
	if (!term.active)
		return;
	term.active = 0;
	term_write_all(term.out, LEAVE_SCREEN, sizeof LEAVE_SCREEN - 1);
	tcsetattr(term.in, TCSADRAIN, &term.saved);
	close(term.size_timer);
	term.size_timer = -1;
	term_release_stderr();
}

int ltap_term_winch_fd(void)
{
	return term.active ? term.size_timer : -1;
}

int ltap_term_resized(void)
{
	uint64_t ticks;
	int rows = 0, cols = 0;

	if (term.size_timer < 0 || read(term.size_timer, &ticks, sizeof ticks) != sizeof ticks ||
	    ltap_term_size(term.out, &rows, &cols) || (rows == term.rows && cols == term.cols))
		return 0;
	term.rows = rows;
	term.cols = cols;
	return 1;
}

int ltap_term_size(int fd, int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws))
		return -errno;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return 0;
}

static size_t term_name(char *name, size_t cap, const char *s, size_t used)
{
	if (cap) {
		strncpy(name, s, cap - 1);
		name[cap - 1] = '\0';
	}
	return used;
}

/* CSI and SS3 sequences: ESC [ A, ESC O A, ESC [ 5 ~, ESC [ 1 ; 5 A ... */
static size_t term_escape(const unsigned char *b, size_t len, char *name, size_t cap)
{
	static const char *const tilde[] = {NULL, "home", "insert", "delete", "end", "pgup", "pgdn", "home", "end"};
	size_t i = 2;
	unsigned num = 0;
	int first = 1; /* the first parameter names the key; later ones are modifiers */

	if (len < 3)
		return term_name(name, cap, "esc", 1);
	if (b[1] == 'O') {
		switch (b[2]) {
		case 'A': return term_name(name, cap, "up", 3);
		case 'B': return term_name(name, cap, "down", 3);
		case 'C': return term_name(name, cap, "right", 3);
		case 'D': return term_name(name, cap, "left", 3);
		case 'H': return term_name(name, cap, "home", 3);
		case 'F': return term_name(name, cap, "end", 3);
		default: return term_name(name, cap, "", 3);
		}
	}
	/* parameters, then one final byte in 0x40..0x7e */
	while (i < len && b[i] >= 0x30 && b[i] <= 0x3f) {
		if (first && b[i] >= '0' && b[i] <= '9' && num < 1000)
			num = num * 10 + (unsigned)(b[i] - '0');
		else
			first = 0;
		i++;
	}
	if (i == len)
		return term_name(name, cap, "", len);
	switch (b[i]) {
	case 'A': return term_name(name, cap, "up", i + 1);
	case 'B': return term_name(name, cap, "down", i + 1);
	case 'C': return term_name(name, cap, "right", i + 1);
	case 'D': return term_name(name, cap, "left", i + 1);
	case 'H': return term_name(name, cap, "home", i + 1);
	case 'F': return term_name(name, cap, "end", i + 1);
	case '~':
		return term_name(name, cap, num < sizeof tilde / sizeof *tilde && tilde[num] ? tilde[num] : "", i + 1);
	default:
		return term_name(name, cap, "", i + 1);
	}
}

size_t ltap_term_key(const unsigned char *b, size_t len, char *name, size_t cap)
{
	size_t n = 1;

	if (len == 0)
		return term_name(name, cap, "", 0);
	if (b[0] == 0x1b)
		return len > 1 && (b[1] == '[' || b[1] == 'O') ? term_escape(b, len, name, cap)
							       : term_name(name, cap, "esc", 1);
	if (b[0] == '\r' || b[0] == '\n')
		return term_name(name, cap, "enter", 1);
	if (b[0] == '\t')
		return term_name(name, cap, "tab", 1);
	if (b[0] == 0x7f || b[0] == 0x08)
		return term_name(name, cap, "backspace", 1);
	if (b[0] < 0x20) {
		char c[3] = {'^', (char)('@' + b[0]), '\0'};
		return term_name(name, cap, c, 1);
	}
	/* a UTF-8 sequence whole (its continuation bytes), else one byte */
	if (b[0] >= 0xc0)
		while (n < len && n < 4 && (b[n] & 0xc0) == 0x80)
			n++;
	if (cap) {
		size_t k = n < cap - 1 ? n : cap - 1;
		memcpy(name, b, k);
		name[k] = '\0';
	}
	return n;
}
