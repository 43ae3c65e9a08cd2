-- Top functions by self time over every run of the dataset.
-- Reads the views runs, functions, contexts (docs/scale.md makes them in
-- DuckDB and in Spark). Times are in each run's unit (runs.unit); do not
-- mix runs of different units. Runs unchanged in DuckDB and Spark SQL.
SELECT f.name,
       SUM(c.self) AS self_total,
       SUM(c.calls) AS calls,
       COUNT(DISTINCT c.run_id) AS runs
FROM contexts c
JOIN (SELECT DISTINCT function_id, name FROM functions) f
  ON f.function_id = c.function_id
GROUP BY f.name
ORDER BY self_total DESC, f.name
LIMIT 50
