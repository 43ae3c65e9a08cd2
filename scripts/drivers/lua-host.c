/* Runs a Lua script (argv[1]) with the global REPS set to argv[2]. */
#include <stdio.h>
#include <stdlib.h>
#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
int main(int argc, char **argv) {
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    lua_pushinteger(L, argc > 2 ? atoll(argv[2]) : 1);
    lua_setglobal(L, "REPS");
    if (argc < 2 || luaL_dofile(L, argv[1])) {
        fprintf(stderr, "%s\n", lua_tostring(L, -1));
        return 1;
    }
    lua_close(L);
    return 0;
}
