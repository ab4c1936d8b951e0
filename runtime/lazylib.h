/* lazylib.h: shared libraries that only some runs use, opened at their
 * first use rather than by the dynamic linker at every start.
 *
 * capstone (annotate) carries 77,000 relocations and libmicrohttpd
 * (--serve) brings GnuTLS and eight more libraries with it: linked as
 * usual they were half of the CPU of every ltap start (LD_DEBUG=statistics),
 * paid by runs that use neither (a flame graph of a small file, a short
 * probe). */
#ifndef LTAP_LAZYLIB_H
#define LTAP_LAZYLIB_H

/* One function: its name and the function pointer dlsym fills. */
struct ltap_lazysym {
	const char *name;
	void *slot; /* the address of a function pointer */
};

struct ltap_lazylib {
	const char *soname;             /* "libcapstone.so.4": the ABI compiled against */
	const struct ltap_lazysym *syms; /* ends with {0} */
	int state;                      /* 0: not tried, 1: loaded, -1: failed */
	char why[256];                  /* dlerror()'s reason when state is -1 */
};

/* Opens lib and fills every slot once; later calls return the first
 * outcome. 0, or -1 with lib->why set. */
int ltap_lazylib_load(struct ltap_lazylib *lib);

#endif
