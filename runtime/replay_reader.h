/* replay_reader.h: the trace.dat reader, run in a process of its own.
 *
 * libtracecmd 1.3 crashes on damaged files (in tracecmd_open's error path,
 * tracecmd_buffer_instance_handle, kbuffer_load_subbuffer, tracecmd_close)
 * and libtraceevent's format parser sees the file's text first: neither
 * runs in ltap itself. A forked process opens the file with libtracecmd
 * and sends what ltap needs as the frames of replay_wire.h; if it dies,
 * ltap says so and exits, never having touched the damage. Before it reads
 * a byte it is confined (sandbox.h): what a file made to exploit
 * libtracecmd gains is a process that can read that file and write its
 * pipe, as nobody, with no capability, and nothing else. */
#ifndef LTAP_REPLAY_READER_H
#define LTAP_REPLAY_READER_H

#include "sandbox.h"

/* Confines the process as sb says (sb->in_fd the trace.dat, sb->out_fd
 * the pipe to ltap, parent ltap's pid), reads the trace.dat and writes its
 * frames; with want_last, SETUP says the last event's time too (read from
 * each CPU's last page first). Returns the process's exit code: 2 after
 * ERROR (a file it cannot read, or a sandbox it could not enter); after END
 * it does not return but waits for ltap to end it, so that it can be
 * looked at while the run goes on (tests/fuzz/t_reader_sandbox.sh). */
int ltap_replay_reader_run(const struct ltap_sandbox *sb, pid_t parent, int want_last);

#endif
