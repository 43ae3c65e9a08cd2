-- The diff of two runs by calling context: contexts only the new run has
-- (added), only the base run has (removed), and those in both whose calls
-- or self time changed (changed), with both sides' figures. Context ids
-- are stable hashes of the path, so a path has the same id in both runs.
-- Reads the views contexts, context_paths and pair (one row: base_run,
-- new_run; see docs/scale.md). `path` is the context's function names,
-- root to leaf, joined by `;`.
WITH base AS (
  SELECT context_id, SUM(calls) AS calls, SUM(self) AS self_time, SUM(total) AS total
  FROM contexts WHERE run_id = (SELECT base_run FROM pair) GROUP BY context_id
), new AS (
  SELECT context_id, SUM(calls) AS calls, SUM(self) AS self_time, SUM(total) AS total
  FROM contexts WHERE run_id = (SELECT new_run FROM pair) GROUP BY context_id
)
SELECT CASE WHEN b.context_id IS NULL THEN 'added'
            WHEN n.context_id IS NULL THEN 'removed'
            ELSE 'changed' END AS change,
       COALESCE(n.context_id, b.context_id) AS context_id,
       p.names AS path,
       b.calls AS calls_base, n.calls AS calls_new,
       b.self_time AS self_base, n.self_time AS self_new,
       b.total AS total_base, n.total AS total_new
FROM base b
FULL OUTER JOIN new n ON b.context_id = n.context_id
JOIN context_paths p ON p.context_id = COALESCE(n.context_id, b.context_id)
WHERE b.context_id IS NULL OR n.context_id IS NULL
   OR b.calls <> n.calls OR b.self_time <> n.self_time
ORDER BY change, context_id
