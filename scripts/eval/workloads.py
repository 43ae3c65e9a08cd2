#!/usr/bin/env python3
"""Writes the SQL workloads (test patterns) of scripts/eval-abstraction.sh
into the directory given as argument: each exercises a different part of
SQLite, and each stays around a million calls when traced."""
import os
import sys

N = int(os.environ.get("EVAL_ROWS", "300"))

SETUP = f"""CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<{N})
INSERT INTO t SELECT x, 'item' || x, x % 17, x * 0.25 FROM c;
"""

WORKLOADS = {
    "inserts": "CREATE TABLE u(a INTEGER, b TEXT);\n"
    + "".join(f"INSERT INTO u VALUES({i}, 'v{i}');\n" for i in range(N)),
    "indexed": SETUP
    + "CREATE INDEX t_qty ON t(qty);\n"
    + "".join(f"SELECT count(*) FROM t WHERE qty = {i % 17};\n" for i in range(N // 3)),
    "joins": SETUP
    + "CREATE TABLE o(id INTEGER PRIMARY KEY, t_id INTEGER, n INTEGER);\n"
    + f"INSERT INTO o SELECT id, (id * 7) % {N} + 1, id % 5 FROM t;\n"
    + "SELECT t.name, sum(o.n) FROM t JOIN o ON o.t_id = t.id GROUP BY t.name;\n",
    "aggregates": SETUP
    + "SELECT qty, count(*), sum(price), avg(price), min(name), max(name) FROM t GROUP BY qty;\n"
    + "SELECT total(price * qty) FROM t;\n",
    "updates": SETUP
    + "".join(f"UPDATE t SET qty = qty + 1 WHERE id % 9 = {i % 9};\n" for i in range(20))
    + "DELETE FROM t WHERE qty > 12;\n",
    "text": SETUP
    + "SELECT upper(name), substr(name, 2, 3), replace(name, 'item', 'x'), length(name), "
    + "instr(name, '7'), printf('%08d-%s', id, lower(name)) FROM t;\n"
    + "SELECT group_concat(name, ',') FROM t WHERE name LIKE '%3%';\n",
    "sorting": SETUP + "SELECT * FROM t ORDER BY name DESC;\nSELECT DISTINCT qty FROM t ORDER BY 1;\n",
    "transactions": "CREATE TABLE k(a INTEGER PRIMARY KEY, b BLOB);\n"
    + "".join(
        f"BEGIN; INSERT INTO k VALUES({i}, randomblob(32)); COMMIT;\n" for i in range(N // 2)
    ),
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, sql in WORKLOADS.items():
    with open(os.path.join(out, name + ".sql"), "w") as f:
        f.write(sql)
print(" ".join(WORKLOADS))
