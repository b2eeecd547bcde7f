-- policy.sql: apply every policy of the registry to every whole tensor.
--
-- Run with the extension loaded, on a registry made by sql/registry.sql:
--   sqlite3 -bail my.db '.load dist/quant' '.read sql/policy.sql'
-- Plain SQL, no dot commands, so any host can run it (Python's
-- executescript, Tcl's db eval).  It opens and commits its own transaction,
-- BEGIN IMMEDIATE: the write lock is taken before the first read, so another
-- writer makes it wait (as long as the connection's busy timeout, `PRAGMA
-- busy_timeout` or the shell's .timeout, allows) instead of failing.  A
-- deferred BEGIN would read first and ask for the lock at its first write,
-- which SQLite refuses at once, whatever the timeout, when another
-- connection wrote meanwhile ("database is locked": a read transaction
-- cannot wait to become a write one).  docs/REGISTRY.md#several-writers says how
-- long it holds the lock.  Its one-line report is printed after COMMIT
-- succeeded, so a line means a committed run.
--
-- What a policy means is in sql/registry.sql (policies): per policy and
-- whole tensor, the first rule by priority whose conditions hold and whose
-- action fits decides (the view policy_matches).  This script makes that
-- real, in four steps:
--   1. the probe rows the rules' probe conditions read ('int8 tensor
--      affine' ...), made and measured where a tensor has none;
--   2. a refusal when a policy leaves a whole tensor to no rule (the view
--      policy_gaps lists them: end the policy with a catch-all), or when the
--      quantization a rule asks for would collide with a stored row of the
--      same label but another axis or view_shape;
--   3. the quantization rows the decisions need, each made once per tensor
--      (policies that agree share it) and reused when an identical row is
--      already stored (same tensor, dtype, scheme, granularity, view_shape,
--      axis, block size, method, percentile and options; no importance),
--      with its measured error: mse, sqnr_db, max_error, cosine of the
--      dequantized codes against the float tensor (widened to float32), as
--      examples/demo_queries.sql measures; stored rows never measured are
--      measured too;
--   4. policy_choices made to agree with the decisions: rows that differ
--      are deleted, missing ones inserted, the rest left alone.
-- A refusal rolls the whole transaction back: nothing changes.  Any other
-- error (a function refusing a tensor, say) leaves the transaction open in
-- the caller's connection, as any failed statement does: ROLLBACK it (the
-- shell's -bail exits, which does).
-- Running it again changes nothing (every row it would make exists); the
-- rows are made in tensor and label order, so the same registry gets the
-- same quantization_ids on every run.  Quantizations no longer chosen (after
-- a rule changed) stay in the registry, as every other measured row does.
--
-- The functions are those of examples/demo_queries.sql: q_params (scale and
-- zero point from one calibration) with quantize_blob per tensor, q_per_channel_params
-- with quantize_per_channel_blob, q_block_params with quantize_per_block_blob,
-- q_ggml_quantize, and for the log2 scheme the same parameter functions with
-- the log2 quantizers (quantize_log2_blob ...); the calibration options (method=, percentile=) go to the
-- parameter functions, the row's options to both.

BEGIN IMMEDIATE;

-- The row makers: a row inserted into temp.policy_make makes that
-- quantization; a quantization_id into temp.policy_measure measures it.
-- Each computes its intermediate values once into a scratch row
-- (temp.policy_params, temp.policy_xy) and empties it after: plain tables,
-- not MATERIALIZED CTEs or UPDATE ... FROM, so that SQLite 3.31 runs it.
CREATE TEMP TABLE policy_make (role TEXT, tensor_id INTEGER, dtype TEXT, scheme TEXT,
  granularity TEXT, view_shape TEXT, axis INTEGER, block_size INTEGER,
  method TEXT, percentile REAL, options TEXT);
CREATE TEMP TABLE policy_params (x BLOB, vs TEXT, s REAL, z INTEGER, ss BLOB, zs BLOB);
CREATE TEMP TABLE policy_measure (quantization_id INTEGER);
CREATE TEMP TABLE policy_xy (x BLOB, y BLOB);
CREATE TEMP TABLE policy_refusal (why TEXT);

CREATE TEMP TRIGGER policy_make_row AFTER INSERT ON policy_make
BEGIN
  INSERT INTO policy_params (x, vs)
  SELECT q_f32(data, dtype), coalesce(NEW.view_shape, shape)
  FROM tensors WHERE tensor_id = NEW.tensor_id;
  -- The calibration (method=, percentile=), the row's options; q_params: one.
  UPDATE policy_params SET (s, z) = (
    SELECT p.scale, p.zero_point
    FROM q_params(policy_params.x, NEW.dtype, NEW.scheme,
                  trim('method=' || NEW.method || coalesce(' percentile=' || NEW.percentile, '')
                       || ' ' || NEW.options)) AS p)
  WHERE NEW.granularity = 'tensor';
  -- Per channel and per block, one call too, its rows packed in table order by
  -- q_f32_agg / q_int32_agg (a log2 rule's zero points: zeros, as before).
  UPDATE policy_params SET (ss, zs) = (
    SELECT q_f32_agg(p.scale), q_int32_agg(p.zero_point)
    FROM q_per_channel_params(policy_params.x, policy_params.vs, NEW.axis, NEW.dtype,
                              NEW.scheme,
                              trim('method=' || NEW.method
                                   || coalesce(' percentile=' || NEW.percentile, '')
                                   || ' ' || NEW.options)) AS p)
  WHERE NEW.granularity = 'channel';
  UPDATE policy_params SET (ss, zs) = (
    SELECT q_f32_agg(p.scale), q_int32_agg(p.zero_point)
    FROM q_block_params(policy_params.x, policy_params.vs, NEW.axis, NEW.block_size,
                        NEW.dtype, NEW.scheme,
                        trim('method=' || NEW.method
                             || coalesce(' percentile=' || NEW.percentile, '')
                             || ' ' || NEW.options)) AS p)
  WHERE NEW.granularity = 'block';
  INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method,
                             percentile, options, view_shape, axis, block_size,
                             scale, zero_point, scales, zero_points, codes)
  SELECT NEW.tensor_id, NEW.dtype, NEW.scheme, NEW.granularity, NEW.method,
         NEW.percentile, NEW.options, NEW.view_shape, NEW.axis, NEW.block_size,
         s, z, ss, zs,
         CASE WHEN NEW.scheme = 'log2' THEN
           CASE NEW.granularity
             WHEN 'tensor' THEN quantize_log2_blob(x, s, NEW.dtype)
             WHEN 'channel' THEN quantize_per_channel_log2_blob(x, ss, vs, NEW.axis,
                                   NEW.dtype)
             ELSE quantize_per_block_log2_blob(x, ss, vs, NEW.axis, NEW.block_size,
                                               NEW.dtype) END
         ELSE CASE NEW.granularity
           WHEN 'tensor' THEN quantize_blob(x, s, z, NEW.dtype, NEW.options)
           WHEN 'channel' THEN quantize_per_channel_blob(x, ss, zs, vs, NEW.axis,
                                 NEW.dtype, NEW.options)
           WHEN 'block' THEN quantize_per_block_blob(x, ss, zs, vs, NEW.axis,
                                 NEW.block_size, NEW.dtype, NEW.options)
           ELSE q_ggml_quantize(x, NEW.dtype, vs) END END
  FROM policy_params;
  INSERT INTO policy_measure VALUES (last_insert_rowid());
  DELETE FROM policy_params;
END;

CREATE TEMP TRIGGER policy_measure_row AFTER INSERT ON policy_measure
BEGIN
  INSERT INTO policy_xy (x, y)
  SELECT q_f32(t.data, t.dtype), f.x
  FROM quantizations q JOIN tensors t USING (tensor_id)
  JOIN quantization_floats f USING (quantization_id)
  WHERE q.quantization_id = NEW.quantization_id AND q.sqnr_db IS NULL;
  UPDATE quantizations
  SET (mse, sqnr_db, max_error, cosine) =
      (SELECT q_mse(x, y), q_sqnr(x, y), q_max_error(x, y), q_cosine(x, y)
       FROM policy_xy)
  WHERE quantization_id = NEW.quantization_id
    AND EXISTS (SELECT 1 FROM policy_xy);
  DELETE FROM policy_xy;
END;

-- RAISE(ROLLBACK): the whole run is undone, whatever step refused.
CREATE TEMP TRIGGER policy_refuse AFTER INSERT ON policy_refusal
BEGIN
  SELECT RAISE(ROLLBACK, 'policy.sql: a policy leaves whole tensors to no rule (SELECT * FROM policy_gaps lists them); end each policy with a catch-all rule')
  WHERE NEW.why = 'gap';
  SELECT RAISE(ROLLBACK, 'policy.sql: a rule asks for a quantization whose label a tensor already has with another axis or view_shape; delete that row first')
  WHERE NEW.why = 'conflict';
END;

-- 1. Probes: every probe label on every whole tensor its rule's fixed
--    conditions let through and the probe fits.
INSERT INTO temp.policy_refusal
SELECT 'conflict' FROM policy_spec_fits
WHERE role = 'probe' AND fits AND conflict_id IS NOT NULL LIMIT 1;

INSERT INTO temp.policy_make
SELECT DISTINCT 'probe', tensor_id, dtype, scheme, granularity, view_shape, axis,
       block_size, method, percentile, options
FROM policy_spec_fits
WHERE role = 'probe' AND fits AND quantization_id IS NULL
ORDER BY tensor_id, label;

INSERT INTO temp.policy_measure
SELECT DISTINCT f.quantization_id
FROM policy_spec_fits f JOIN quantizations q USING (quantization_id)
WHERE f.role = 'probe' AND f.fits AND q.sqnr_db IS NULL
ORDER BY f.quantization_id;

-- 2. Refusals: a tensor no rule takes, or a label collision.
INSERT INTO temp.policy_refusal
SELECT 'gap' FROM policy_matches WHERE rule_id IS NULL LIMIT 1;
INSERT INTO temp.policy_refusal
SELECT 'conflict' FROM policy_matches WHERE conflict_id IS NOT NULL LIMIT 1;

-- 3. The decisions' quantizations: made where missing, measured where not.
INSERT INTO temp.policy_make
SELECT DISTINCT 'choice', tensor_id, dtype, scheme, granularity, view_shape, axis,
       block_size, method, percentile, options
FROM policy_matches
WHERE dtype <> 'float' AND quantization_id IS NULL
ORDER BY tensor_id, label;

INSERT INTO temp.policy_measure
SELECT DISTINCT m.quantization_id
FROM policy_matches m JOIN quantizations q USING (quantization_id)
WHERE q.sqnr_db IS NULL
ORDER BY m.quantization_id;

-- 4. policy_choices agrees with policy_matches.
CREATE TEMP TABLE policy_decided AS
SELECT policy_id, tensor_id, rule_id, quantization_id FROM policy_matches;

DELETE FROM policy_choices
WHERE NOT EXISTS (SELECT 1 FROM temp.policy_decided d
                  WHERE d.policy_id = policy_choices.policy_id
                    AND d.tensor_id = policy_choices.tensor_id
                    AND d.rule_id = policy_choices.rule_id
                    AND d.quantization_id IS policy_choices.quantization_id);

INSERT INTO policy_choices (policy_id, tensor_id, rule_id, quantization_id)
SELECT d.policy_id, d.tensor_id, d.rule_id, d.quantization_id
FROM temp.policy_decided d
WHERE NOT EXISTS (SELECT 1 FROM policy_choices c
                  WHERE c.policy_id = d.policy_id AND c.tensor_id = d.tensor_id)
ORDER BY d.policy_id, d.tensor_id;

-- One line for the log, counted inside the transaction and printed once
-- COMMIT has succeeded (a host that stopped reading it left the table):
-- what was made, the number of policy_warnings rows, and the policies
-- that quantized nothing by name.
DROP TABLE IF EXISTS temp.policy_log;
CREATE TEMP TABLE policy_log AS
SELECT printf('policy: %d policies over %d whole tensors: %d choices, %d quantizations made (%d of them probes), %d measured; %d warning%s%s%s',
              (SELECT count(*) FROM policies),
              (SELECT count(*) FROM tensors WHERE rows IS NULL),
              (SELECT count(*) FROM policy_choices),
              (SELECT count(*) FROM temp.policy_make),
              (SELECT count(*) FROM temp.policy_make WHERE role = 'probe'),
              (SELECT count(*) FROM temp.policy_measure),
              w.n, CASE w.n WHEN 1 THEN '' ELSE 's' END,
              CASE WHEN w.n > 0 THEN ' (SELECT * FROM policy_warnings)' ELSE '' END,
              coalesce('; quantized nothing: ' || w.idle, '')) AS line
FROM (SELECT count(*) AS n,
             group_concat(CASE kind WHEN 'quantizes nothing' THEN policy END, ', ')
               AS idle
      FROM policy_warnings) AS w;

DROP TABLE temp.policy_decided;
DROP TABLE temp.policy_make;
DROP TABLE temp.policy_params;
DROP TABLE temp.policy_measure;
DROP TABLE temp.policy_xy;
DROP TABLE temp.policy_refusal;

COMMIT;

SELECT line FROM temp.policy_log;
DROP TABLE temp.policy_log;
