-- The functions that distinguish one run from the others: called in
-- exactly one run of the dataset (compare's features.csv, stage
-- `before`). Reads the views functions and contexts (docs/scale.md).
SELECT MIN(c.run_id) AS run_id,
       f.name
FROM contexts c
JOIN (SELECT DISTINCT function_id, name FROM functions) f
  ON f.function_id = c.function_id
GROUP BY f.name
HAVING COUNT(DISTINCT c.run_id) = 1
ORDER BY run_id, f.name
