/* replay_reader.h: the trace.dat reader, run in a process of its own.
 *
 * libtracecmd 1.3 crashes on damaged files (in tracecmd_open's error path,
 * tracecmd_buffer_instance_handle, kbuffer_load_subbuffer, tracecmd_close)
 * and libtraceevent's format parser sees the file's text first: neither
 * runs in ltap itself. A forked process opens the file with libtracecmd
 * and sends what ltap needs as the frames of replay_wire.h; if it dies,
 * ltap says so and exits, never having touched the damage. */
#ifndef LTAP_REPLAY_READER_H
#define LTAP_REPLAY_READER_H

/* Reads the trace.dat open on in_fd (which it takes) and writes its frames
 * to out_fd; with want_last, SETUP says the last event's time too (read
 * from each CPU's last page first). Returns the process's exit code: 0
 * after END, 2 after ERROR. */
int ltap_replay_reader_run(int in_fd, int out_fd, int want_last);

#endif
