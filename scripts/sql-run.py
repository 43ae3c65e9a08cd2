#!/usr/bin/env python3
"""Runs sql/ recipes on a calltrace Parquet dataset with DuckDB or Spark.

A dataset is a directory holding one directory per run, each written by
`calltrace export --to parquet -o DATASET/RUN`. The recipes read the views
runs, functions and contexts (every run's files, columns matched by name)
and, for diff.sql, pair (one row: base_run, new_run). Each recipe's result
is written as CSV to OUT/<recipe name>.csv; list columns (path) are written
as their elements joined by `;`.

  scripts/sql-run.py --engine duckdb --dataset ds --out results sql/*.sql
  scripts/sql-run.py --engine spark --dataset ds --base copy --new fax --out r sql/diff.sql

DuckDB is the PyPI `duckdb` package; Spark runs in local mode from the
PyPI `pyspark` package and needs a Java runtime.
"""

import argparse
import csv
import os
import sys

TABLES = ["runs", "functions", "contexts"]


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
    spark.createDataFrame([(base, new)], "base_run string, new_run string").createOrReplaceTempView("pair")

    def run(sql):
        df = spark.sql(sql)
        return df.columns, [tuple(r) for r in df.collect()]

    return run, spark.stop


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
    os.makedirs(a.out, exist_ok=True)
    try:
        for recipe in a.recipes:
            with open(recipe) as f:
                sql = f.read().strip().rstrip(";")
            columns, rows = run(sql)
            name = os.path.splitext(os.path.basename(recipe))[0]
            write_csv(os.path.join(a.out, name + ".csv"), columns, rows)
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())
