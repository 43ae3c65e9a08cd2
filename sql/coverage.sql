-- The coverage matrix: which runs call each function, and how often
-- (one row per function and run that calls it; a missing pair means the
-- run never called the function). Pivot it in the engine or in a
-- spreadsheet. Reads the views functions and contexts (docs/scale.md).
SELECT f.name,
       c.run_id,
       SUM(c.calls) AS calls
FROM contexts c
JOIN (SELECT DISTINCT function_id, name FROM functions) f
  ON f.function_id = c.function_id
GROUP BY f.name, c.run_id
ORDER BY f.name, c.run_id
