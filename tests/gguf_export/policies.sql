-- policies.sql: three fixed policies over the demo registry, for the GGUF
-- export's own check (make test-gguf-export) and for development while the
-- rule engine is elsewhere.  It fills policies, policy_rules and
-- policy_choices (sql/registry.sql) directly, rule by rule, instead of
-- evaluating the rules: what matters here is that every kind of choice the
-- exporter must write occurs.
--
-- Run after examples/import_models.sql and examples/demo_queries.sql, which
-- recorded, for every tensor of rank >= 2, the rows labelled
-- 'int8 tensor affine', 'int8 channel affine' and 'int4 block32 symmetric'
-- (the last one on a matrix view of conv kernels); this script adds the
-- q8_0 and q4_K rows it needs.
--
--   q8_0          a weight whose rows (last dimension) are whole 32-element
--                 blocks as q8_0; any other weight int8 per channel; biases
--                 stay float
--   q4_K          a weight whose rows are whole 256-element super-blocks as
--                 q4_K; everything else stays float
--   int4-block32  the first and last layers of Silero VAD (encoder.0 and
--                 decoder.decoder.2, both sample rates) int8 per tensor; every
--                 other weight int4 in symmetric blocks of 32; biases float
--
-- Re-running it replaces these three policies and their choices.

.bail on
PRAGMA foreign_keys = ON;
BEGIN;

DELETE FROM policies WHERE name IN ('q8_0', 'q4_K', 'int4-block32');
-- Cascades by hand, whatever PRAGMA foreign_keys said when the rows came in.
DELETE FROM policy_rules WHERE policy_id NOT IN (SELECT policy_id FROM policies);
DELETE FROM policy_choices WHERE policy_id NOT IN (SELECT policy_id FROM policies);

INSERT INTO policies (name, description) VALUES
  ('q8_0', 'q8_0 where rows are whole blocks, else int8 per channel; biases float'),
  ('q4_K', 'q4_K where rows are whole super-blocks, else float'),
  ('int4-block32', 'first and last layers int8 per tensor, other weights int4 blocks of 32');

-- The rules as the rule book would state them.  "Rows are whole blocks" is
-- not one of its conditions, so the choices below are made here, by the
-- same tests the rules describe, not by evaluating the rules.
WITH r(policy, priority, name_glob, min_numel, dtype, scheme, granularity,
       block_size, method) AS (VALUES
  ('q8_0', 1, '*[Bb]ias*', NULL, 'float', NULL, NULL, NULL, NULL),
  ('q8_0', 2, NULL, 2, 'q8_0', 'symmetric', 'ggml', 32, 'ggml'),
  ('q8_0', 3, NULL, 2, 'int8', 'affine', 'channel', NULL, 'minmax'),
  ('q4_K', 1, NULL, 2, 'q4_K', 'affine', 'ggml', 256, 'ggml'),
  ('q4_K', 2, NULL, NULL, 'float', NULL, NULL, NULL, NULL),
  ('int4-block32', 1, '*[Bb]ias*', NULL, 'float', NULL, NULL, NULL, NULL),
  ('int4-block32', 2, '*encoder.0.*', NULL, 'int8', 'affine', 'tensor', NULL, 'minmax'),
  ('int4-block32', 3, '*decoder.decoder.2.*', NULL, 'int8', 'affine', 'tensor', NULL, 'minmax'),
  ('int4-block32', 4, NULL, 2, 'int4', 'symmetric', 'block', 32, 'minmax'))
INSERT INTO policy_rules (policy_id, priority, name_glob, min_numel, dtype,
                          scheme, granularity, block_size, method)
SELECT p.policy_id, r.priority, r.name_glob, r.min_numel, r.dtype, r.scheme,
       r.granularity, r.block_size, r.method
FROM policies p JOIN r ON r.policy = p.name;

-- The weights (rank >= 2) with their rows' length, and the ggml rows they need.
CREATE TEMP TABLE fw AS
SELECT t.tensor_id, t.shape, q_f32(t.data, t.dtype) AS x,
       json_extract(t.shape, '$[#-1]') AS cols
FROM tensors t WHERE json_array_length(t.shape) >= 2;

DELETE FROM quantizations
WHERE granularity = 'ggml' AND dtype IN ('q8_0', 'q4_K') AND importance IS NULL
  AND tensor_id IN (SELECT tensor_id FROM fw);
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method, block_size, codes)
SELECT fw.tensor_id, g.dtype, g.scheme, 'ggml', 'ggml', g.block,
       q_ggml_quantize(fw.x, g.dtype, fw.shape)
FROM fw JOIN (SELECT 'q8_0' AS dtype, 'symmetric' AS scheme, 32 AS block
              UNION ALL SELECT 'q4_K', 'affine', 256) AS g
  ON fw.cols % g.block = 0;

-- One choice per policy and tensor: the priority of the rule that decides
-- and the label of the quantization it picks (NULL: the tensor stays float).
WITH t AS (
  SELECT t.tensor_id, fw.cols,
         (t.name GLOB '*encoder.0.*' OR t.name GLOB '*decoder.decoder.2.*') AS edge
  FROM tensors t LEFT JOIN fw USING (tensor_id)),
d(policy, tensor_id, priority, label) AS (
  SELECT 'q8_0', tensor_id,
         CASE WHEN cols IS NULL THEN 1 WHEN cols % 32 = 0 THEN 2 ELSE 3 END,
         CASE WHEN cols IS NULL THEN NULL WHEN cols % 32 = 0 THEN 'q8_0 ggml'
              ELSE 'int8 channel affine' END
  FROM t
  UNION ALL
  SELECT 'q4_K', tensor_id,
         CASE WHEN cols % 256 = 0 THEN 1 ELSE 2 END,
         CASE WHEN cols % 256 = 0 THEN 'q4_K ggml' END
  FROM t
  UNION ALL
  SELECT 'int4-block32', tensor_id,
         CASE WHEN cols IS NULL THEN 1 WHEN edge THEN 2 ELSE 4 END,
         CASE WHEN cols IS NULL THEN NULL WHEN edge THEN 'int8 tensor affine'
              ELSE 'int4 block32 symmetric' END
  FROM t)
INSERT INTO policy_choices (policy_id, tensor_id, rule_id, quantization_id)
SELECT p.policy_id, d.tensor_id, r.rule_id,
       (SELECT q.quantization_id FROM quantizations q
        WHERE q.tensor_id = d.tensor_id AND q.label = d.label)
FROM d JOIN policies p ON p.name = d.policy
JOIN policy_rules r ON r.policy_id = p.policy_id AND r.priority = d.priority;

-- Every choice that names a label found its row.
SELECT 'policies.sql: ' || count(*) || ' choices, ' || count(quantization_id)
       || ' quantized' FROM policy_choices
WHERE policy_id IN (SELECT policy_id FROM policies
                    WHERE name IN ('q8_0', 'q4_K', 'int4-block32'));
COMMIT;
