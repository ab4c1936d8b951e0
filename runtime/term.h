/* term.h: the terminal of a full-screen view (ltap top): keys one at a time
 * without echo, the alternate screen, and the terminal given back as it was
 * however ltap ends, but for SIGKILL (no process can act on its own
 * SIGKILL; `reset` or `stty sane` then repairs the terminal). */
#ifndef LTAP_TERM_H
#define LTAP_TERM_H

#include <stddef.h>

/* Takes the terminal of in (keys) and out (the screen): no canonical mode,
 * no echo, ^Z disabled (a stopped ltap would leave the screen raw), the
 * alternate screen, the cursor hidden. Signal keys (^C, ^\) still signal,
 * so ltap's own end runs. While the screen is up, what is written to err
 * (when it is the same terminal) is kept and shown after it, so warnings
 * and errors are not drawn over. Restored by ltap_term_leave (the host
 * calls it as it ends).
 * 0, or -errno (-ENOTTY when in or out is not a terminal). */
int ltap_term_enter(int in, int out, int err);
/* Gives the terminal back; idempotent. */
void ltap_term_leave(void);
/* A descriptor readable five times a second while the screen is up, -1
 * when it is not: then ltap_term_resized says whether the window's size
 * changed since it last looked (1), and empties it. */
int ltap_term_winch_fd(void);
int ltap_term_resized(void);
/* The window of fd: 0, or -errno. */
int ltap_term_size(int fd, int *rows, int *cols);

/* Decodes the first key of buf[0..len) as a name: a printable character
 * (UTF-8 sequences whole) is itself; "up", "down", "left", "right", "home",
 * "end", "pgup", "pgdn", "insert", "delete", "enter", "tab", "backspace",
 * "esc", "^A".."^Z" are the others. A lone ESC at the end of buf is "esc"
 * (keys come in one read each). Returns the bytes used (at least 1 when len
 * > 0); name is "" for a sequence that names no key. */
size_t ltap_term_key(const unsigned char *buf, size_t len, char *name, size_t cap);

#endif
