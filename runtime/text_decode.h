/* text_decode.h: a line of a text trace turned into the raw record the
 * kernel would have written for it, through the local format of its event.
 * Fields then read, filter (libtraceevent) and type exactly as in a live
 * run: gfp_flags=GFP_KERNEL|__GFP_COMP is the number, through the flag
 * table of the event's print format. */
#ifndef LTAP_TEXT_DECODE_H
#define LTAP_TEXT_DECODE_H

#include <stdint.h>

struct tep_event;
struct ltap_rec;
struct ltap_textdec;

/* NULL with errno. */
struct ltap_textdec *ltap_textdec_new(struct tep_event *ev);
void ltap_textdec_free(struct ltap_textdec *d);
/* Writes the record the text source's record r stands for into buf (cap
 * bytes, zeroed first) and returns its size; bit i of *present is set
 * when own field i (ev->format.fields order) came from the line (a field
 * the line does not print stays 0, unset). */
int ltap_textdec_record(const struct ltap_textdec *d, const struct ltap_rec *r, void *buf, int cap,
			uint64_t *present);

#endif
