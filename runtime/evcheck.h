/* evcheck.h: checks a saved trace's formats and records before ltap (or
 * libtraceevent, for filters and tostring) reads them.
 *
 * Live, the kernel writes both and they are trusted. A saved trace is any
 * file: a format may put a field past any record, a record may be shorter
 * than its format or have a __data_loc pointing out of it. ltap reads
 * records by their formats' offsets, and libtraceevent reads them without
 * bounds in places (__print_hex / __print_array lengths come from the
 * record), so every record of a saved trace passes here first: then every
 * read that its format describes stays inside it. */
#ifndef LTAP_EVCHECK_H
#define LTAP_EVCHECK_H

#include <stddef.h>

struct tep_handle;
struct ltap_evcheck;

/* NULL with why filled when a format cannot describe any sound record (no
 * common_pid, a field beyond 64 KB, a __data_loc that is not 4 bytes, two
 * formats with one id...), or on ENOMEM. */
struct ltap_evcheck *ltap_evcheck_new(struct tep_handle *tep, char *why, size_t len);
void ltap_evcheck_free(struct ltap_evcheck *c);

/* 0 when every read its format describes stays inside the size bytes at
 * data (which must be followed by a 0 byte, ending any unterminated
 * string); else -1 with why filled. Records of ids without a format pass:
 * nothing reads them but their id. */
int ltap_evcheck_record(const struct ltap_evcheck *c, const void *data, int size, char *why, size_t len);

/* A saved trace's printk formats (text, ended by a 0), as libtraceevent's
 * tep_parse_printk_formats may read them: lines of the kernel's form
 * `ADDR : "FORMAT"`, FORMAT two characters at least, kept; any other line
 * removed in place (libtraceevent 1.7 reads past the buffer on a line
 * without " : ", and before it on a shorter format). A bprint event whose
 * address lost its line prints the address. Returns the text's length. */
size_t ltap_evcheck_printk(char *text);

#endif
