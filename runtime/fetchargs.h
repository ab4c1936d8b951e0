/* fetchargs.h: the argument specs ltap writes into uprobe_events and
 * kprobe_events (the kernel's Documentation/trace/uprobetracer.rst), for
 * x86-64: a function's arguments in the ABI's registers, its return value,
 * and the arguments of an SDT (USDT) marker as its note describes them. */
#ifndef LTAP_FETCHARGS_H
#define LTAP_FETCHARGS_H

#include <stddef.h>

/* An entry probe's "arg1=%di:u64 ... arg6=%r9:u64", a return probe's
 * "ret=$retval:s64". mods: " arg2:string" (entry) or " ret:string" (return)
 * reads a C string from user memory instead. 0, or -EINVAL with the
 * modifier at fault in bad. */
int ltap_fetchargs_func(int ret, const char *mods, char *out, size_t len, char *bad, size_t badlen);

/* One SDT argument, SIZE@OPERAND ("-4@%edi", "8@-16(%rbp)", "4@$5"), as
 * fetcharg argN: 0, or -EINVAL for what a fetcharg cannot read (indexed,
 * %rip-relative or symbol addressing, segment registers, no size). */
int ltap_fetchargs_sdt_one(const char *spec, int n, char *out, size_t len);
/* A note's arguments ("-4@%edi 8@%rsi"), one fetcharg each: 0, or the
 * 1-based number of the first one that cannot be read. */
int ltap_fetchargs_sdt(const char *args, char *out, size_t len);

#endif
