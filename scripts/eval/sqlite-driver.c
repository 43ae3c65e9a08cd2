/* Runs the SQL of one file against an in-memory SQLite database: the
 * program scripts/eval-abstraction.sh traces, one workload per pattern. */
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n + 1);
    if (fread(buf, 1, n, f) != (size_t)n) { perror(path); exit(2); }
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s FILE.sql\n", argv[0]); return 2; }
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
    char *err = NULL;
    char *sql = slurp(argv[1]);
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], err);
        return 1;
    }
    sqlite3_close(db);
    free(sql);
    return 0;
}
