/* lcommand.h: a command from a string or an argument vector (command.c) */
#ifndef LTAP_B_LCOMMAND_H
#define LTAP_B_LCOMMAND_H

#include <lua.h>

struct ltap_cmd;

void ltap_check_command(lua_State *L, int idx, struct ltap_cmd *c, const char *fname);

#endif
