/* symfield.h: the names an event's print format gives a field's values
 * (__print_symbolic, __print_flags), as trace-cmd report prints them.
 *
 * kvm_exit's exit_reason is a number in the record; its name is only in the
 * format's table: "reason %s", (REC->isa == 1) ? __print_symbolic(
 * REC->exit_reason & 0xffff, { 0, "EXCEPTION_NMI" }, ...) : ... The tables
 * come with conditions and masks around them (sched_switch's prev_state is
 * "R" when no flag is set; gfp_flags is "none" at 0). So the unit named is
 * the whole %s conversion that holds a table, named after the field its
 * table reads, and evaluated as libtraceevent evaluates it.
 *
 * The print arguments are compiled once per event into a tree with each
 * field's offset and size resolved: a record is then evaluated without a
 * lookup by name or an allocation. A conversion whose argument holds
 * anything but numbers, fields, operators, casts, conditions and tables is
 * left out (none of this kernel's formats has one), and so is every field
 * of a format libtraceevent failed to parse (trace-cmd prints such an
 * event's fields raw, "[FAILED TO PARSE]"). */
#ifndef LTAP_SYMFIELD_H
#define LTAP_SYMFIELD_H

#include <stddef.h>

struct tep_event;
struct ltap_symfields;

/* The symbolic fields of ev (possibly none); NULL with errno on ENOMEM.
 * It points into ev, which must outlive it. */
struct ltap_symfields *ltap_symfields_new(struct tep_event *ev);
void ltap_symfields_free(struct ltap_symfields *s);

int ltap_symfields_count(const struct ltap_symfields *s);
/* the name of symbolic field i (0-based): the format field its table reads */
const char *ltap_symfields_name(const struct ltap_symfields *s, int i);
/* index of the symbolic field called name, or -1 */
int ltap_symfields_find(const struct ltap_symfields *s, const char *name);

/* Writes what trace-cmd report prints for field i's conversion of the
 * record data (size bytes) into buf, NUL-terminated and cut to len; returns
 * the length of the whole text. Fields beyond size read as 0. */
size_t ltap_symfields_text(const struct ltap_symfields *s, int i, const void *data, int size, char *buf,
			   size_t len);

#endif
