/* luadump.h: a Lua function's compiled form, read from lua_dump's output
 * (luadump.c): the one public way to see what a function does, for
 * lower.c, which compares a handler with templates compiled by the same
 * Lua. Only the outer function is read: its code, constants and upvalue
 * kinds; of its nested functions, their number. */
#ifndef LTAP_B_LUADUMP_H
#define LTAP_B_LUADUMP_H

#include <lua.h>
#include <stddef.h>

#define LTAP_LUAFN_MAXK 16   /* constants read; a function with more is not read */
#define LTAP_LUAFN_MAXUPV 16 /* upvalues read; likewise */

/* a constant's kind, as ldump.c writes its tag: the string kinds (short,
 * long) are one */
enum ltap_luak { LTAP_LUAK_NIL, LTAP_LUAK_BOOL, LTAP_LUAK_INT, LTAP_LUAK_FLOAT, LTAP_LUAK_STRING };

struct ltap_luafn {
	unsigned char *bytes; /* the dump (malloc'd): code and strings point into it */
	int numparams, is_vararg, maxstack;
	int ncode;
	const unsigned char *code; /* ncode instructions of 4 bytes */
	int nk;
	struct {
		enum ltap_luak kind;
		const unsigned char *bytes; /* a string's, or an int's or float's as dumped */
		size_t len;
	} k[LTAP_LUAFN_MAXK];
	int nupv;
	unsigned char upv_kind[LTAP_LUAFN_MAXUPV];
	int nprotos;
};

/* Reads the Lua function at idx into *fn (ltap_luafn_free after): 0, or
 * -1 for a C function, a dump this reader does not know (another Lua's
 * format), one too large (max_bytes) or out of memory. */
int ltap_luafn_read(lua_State *L, int idx, size_t max_bytes, struct ltap_luafn *fn);
void ltap_luafn_free(struct ltap_luafn *fn);

#endif
