/* lazylib.c: see lazylib.h. */
#include "lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ltap_lazylib_load(struct ltap_lazylib *lib)
{
	void *h;

	if (lib->state)
		return lib->state > 0 ? 0 : -1;
	lib->state = -1;
	/* by soname only: the system's library directories, as the dynamic
	 * linker would have searched at start-up */
	if (!(h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(lib->why, sizeof lib->why, "%s", dlerror());
		return -1;
	}
	for (const struct ltap_lazysym *s = lib->syms; s->name; s++) {
		void *fn = dlsym(h, s->name);
		if (!fn) {
			snprintf(lib->why, sizeof lib->why, "%s has no %s", lib->soname, s->name);
			dlclose(h);
			return -1;
		}
		/* POSIX: a dlsym result converts to a function pointer */
		memcpy(s->slot, &fn, sizeof fn);
	}
	lib->state = 1;
	return 0;
}
