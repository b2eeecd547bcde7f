-- record_evaluations.sql: examples/evaluate_vad.mjs's results into the
-- registry's evaluations table.
--
--   sqlite3 build/demo.db '.parameter set @results build/demo/evaluations.json' \
--     '.read examples/record_evaluations.sql'
--
-- Each result names the file it measured; the file must be an ONNX export
-- of the registry (exports.path, as examples/export_onnx.py recorded it).
-- One row per export, input set and sample rate: a re-run replaces the
-- measurement in place (same evaluation_id).  Needs only the sqlite3 shell
-- (readfile) and SQLite's JSON functions, not the extension.
.bail on
PRAGMA foreign_keys = ON;

-- The check and the insert in one transaction, so no other writer can
-- delete an export between them; BEGIN IMMEDIATE waits for the busy
-- timeout beside another writer (docs/REGISTRY.md#several-writers).
BEGIN IMMEDIATE;

CREATE TEMP TABLE results AS
SELECT json_extract(f.value, '$.path')              AS path,
       json_extract(f.value, '$.sample_rate')       AS sample_rate,
       json_extract(f.value, '$.frames')            AS frames,
       json_extract(f.value, '$.mean_abs_diff')     AS mean_abs_diff,
       json_extract(f.value, '$.max_abs_diff')      AS max_abs_diff,
       json_extract(f.value, '$.decisions_changed') AS decisions_changed,
       json_extract(doc, '$.runtime')               AS runtime,
       json_extract(doc, '$.input_set')             AS input_set,
       json_extract(doc, '$.threshold')             AS threshold
FROM (SELECT CAST(readfile(@results) AS TEXT) AS doc),
     json_each(doc, '$.evaluations') AS f;

-- A result whose file is not an export is an error, after saying which.
SELECT 'record_evaluations: ' || path || ' is not an ONNX export in this registry'
FROM temp.results WHERE path NOT IN (SELECT path FROM exports WHERE format = 'onnx');
CREATE TEMP TABLE check_results (
  ok INTEGER CONSTRAINT every_result_is_an_onnx_export CHECK (ok));
INSERT INTO temp.check_results
SELECT NOT EXISTS (SELECT 1 FROM temp.results WHERE path NOT IN
                   (SELECT path FROM exports WHERE format = 'onnx'));

INSERT INTO evaluations (export_id, runtime, input_set, sample_rate, frames,
                         threshold, mean_abs_diff, max_abs_diff, decisions_changed)
SELECT e.export_id, r.runtime, r.input_set, r.sample_rate, r.frames,
       r.threshold, r.mean_abs_diff, r.max_abs_diff, r.decisions_changed
FROM temp.results AS r JOIN exports AS e ON e.path = r.path AND e.format = 'onnx'
WHERE true ORDER BY r.path, r.sample_rate DESC
ON CONFLICT (export_id, input_set, sample_rate) DO UPDATE
SET runtime = excluded.runtime, frames = excluded.frames,
    threshold = excluded.threshold, mean_abs_diff = excluded.mean_abs_diff,
    max_abs_diff = excluded.max_abs_diff,
    decisions_changed = excluded.decisions_changed;

CREATE TEMP TABLE recorded AS
SELECT printf('record_evaluations: %d evaluations recorded (%s, %s)', count(*),
              max(runtime), max(input_set)) AS line
FROM temp.results;
DROP TABLE temp.results;
DROP TABLE temp.check_results;
COMMIT;

SELECT line FROM temp.recorded;
DROP TABLE temp.recorded;
