#!/usr/bin/env python3
"""Runs sql/ recipes on a calltrace Parquet dataset with DuckDB or Spark.

A dataset is a directory holding one directory per run, each written by
`calltrace export --to parquet -o DATASET/RUN` (run id RUN). The recipes
read the views runs, functions and contexts (every run's files, columns
matched by name), context_paths (each context's path as function names
joined by `;`, root to leaf) and, for diff.sql, pair (one row: base_run,
new_run). Each recipe's result is written as CSV to OUT/<recipe name>.csv;
list columns are written as their elements joined by `;`.

A --base or --new that names no run of the dataset is refused (exit 2), as
is a recipe reading pair without them: diff.sql would otherwise answer with
its header only. Runs that share an id (their rows mix) get a warning.

  scripts/sql-run.py --engine duckdb --dataset ds --out results sql/*.sql
  scripts/sql-run.py --engine spark --dataset ds --base copy --new fax --out r sql/diff.sql

DuckDB is the PyPI `duckdb` package; Spark runs in local mode from the
PyPI `pyspark` package and needs a Java runtime.
"""

import argparse
import csv
import os
import re
import sys

TABLES = ["runs", "functions", "contexts"]

# One name per function id (runs exported with another --demangle may
# show another), for context_paths.
NAMES = "SELECT function_id, MIN(name) AS name FROM functions GROUP BY function_id"


def cell(v):
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return ";".join(str(x) for x in v)
    return str(v)


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([cell(v) for v in r])


def duckdb_engine(dataset, base, new):
    import duckdb

    con = duckdb.connect()
    for t in TABLES:
        glob = os.path.join(dataset, "*", t + ".parquet").replace("'", "''")
        con.execute(
            f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{glob}', union_by_name = true)"
        )
    con.execute(
        f"""CREATE VIEW context_paths AS
        SELECT p.context_id, string_agg(f.name, ';' ORDER BY p.pos) AS names
        FROM (SELECT DISTINCT c.context_id, u.fid, u.pos
              FROM contexts c, unnest(c.path) WITH ORDINALITY AS u(fid, pos)) p
        JOIN ({NAMES}) f ON f.function_id = p.fid
        GROUP BY p.context_id"""
    )
    con.execute("CREATE TABLE pair (base_run VARCHAR, new_run VARCHAR)")
    con.execute("INSERT INTO pair VALUES (?, ?)", [base, new])

    def run(sql):
        rel = con.sql(sql)
        return rel.columns, rel.fetchall()

    return run, lambda: None


def spark_engine(dataset, base, new):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("calltrace-sql")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    for t in TABLES:
        glob = os.path.join(os.path.abspath(dataset), "*", t + ".parquet")
        spark.read.option("mergeSchema", "true").parquet(glob).createOrReplaceTempView(t)
    spark.sql(
        f"""SELECT p.context_id,
               concat_ws(';', transform(array_sort(collect_list(struct(p.pos, f.name))), s -> s.name)) AS names
        FROM (SELECT DISTINCT c.context_id, e.pos, e.fid
              FROM contexts c LATERAL VIEW posexplode(c.path) e AS pos, fid) p
        JOIN ({NAMES}) f ON f.function_id = p.fid
        GROUP BY p.context_id"""
    ).createOrReplaceTempView("context_paths")
    spark.createDataFrame([(base, new)], "base_run string, new_run string").createOrReplaceTempView("pair")

    def run(sql):
        df = spark.sql(sql)
        return df.columns, [tuple(r) for r in df.collect()]

    return run, spark.stop


def check_runs(run, a, sqls):
    """Refuses a --base/--new that names no run (or a recipe reading pair
    without them); warns about runs that share an id."""
    _, rows = run("SELECT run_id, COUNT(*) FROM runs GROUP BY run_id ORDER BY run_id")
    ids = [r[0] for r in rows]
    for run_id, n in rows:
        if n > 1:
            print(
                f"sql-run.py: warning: {n} runs of {a.dataset} share the run id {run_id!r}: "
                "their rows mix (export each with its own -o directory or --run-id)",
                file=sys.stderr,
            )
    code = ["\n".join(l.split("--")[0] for l in sql.splitlines()) for sql in sqls]
    needs_pair = any(re.search(r"\bpair\b", c) for c in code)
    for flag, value in (("--base", a.base), ("--new", a.new)):
        if value == "" and not needs_pair:
            continue
        if value not in ids:
            what = f"{flag} {value!r} names no run" if value else f"a recipe reads pair: give {flag}"
            print(
                f"sql-run.py: {what} of {a.dataset}; its runs are: {', '.join(map(str, ids))}",
                file=sys.stderr,
            )
            sys.exit(2)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=["duckdb", "spark"], required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--base", default="", help="diff.sql's base run")
    p.add_argument("--new", default="", help="diff.sql's new run")
    p.add_argument("--out", required=True, help="directory for the CSV results")
    p.add_argument("recipes", nargs="+")
    a = p.parse_args()
    make = duckdb_engine if a.engine == "duckdb" else spark_engine
    run, stop = make(a.dataset, a.base, a.new)
    sqls = []
    for recipe in a.recipes:
        with open(recipe) as f:
            sqls.append(f.read().strip().rstrip(";"))
    try:
        check_runs(run, a, sqls)
        os.makedirs(a.out, exist_ok=True)
        for recipe, sql in zip(a.recipes, sqls):
            columns, rows = run(sql)
            name = os.path.splitext(os.path.basename(recipe))[0]
            write_csv(os.path.join(a.out, name + ".csv"), columns, rows)
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())
