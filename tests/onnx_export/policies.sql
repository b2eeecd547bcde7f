-- policies.sql: four fixed policies for Silero VAD, for testing the ONNX
-- export (examples/export_onnx.py) without sql/policy.sql's rule engine.
--
--   sqlite3 build/demo.db '.load dist/quant' '.read tests/onnx_export/policies.sql'
--
-- on a registry that examples/demo_queries.sql filled (it made the int8 and
-- int4 rows chosen here).  Each policy has one catch-all rule per action and
-- its choices are written directly; biases (rank 1) stay float.
--   fx-int8-tensor   every weight int8 per tensor, affine (DequantizeLinear
--                    with a scalar scale and zero point)
--   fx-int8-channel  every weight int8 per channel, affine, along
--                    channel_axis (per-axis DequantizeLinear)
--   fx-int4-block32  every weight int4 in blocks of 32, symmetric
--                    (opset 21 blocked DequantizeLinear; conv kernels on
--                    their [O, I*K] view, then a Reshape)
--   fx-mixed         the LSTM weights q8_0 (ggml: no ONNX operator, stored
--                    as their dequantized floats), the STFT basis float,
--                    the rest int8 per channel, symmetric
--   fx-other         the other code types: the STFT basis int16 per tensor,
--                    the convolutions uint8 per channel, the LSTM uint4 in
--                    blocks of 32, all affine (zero points of every width,
--                    4-bit ones packed)
--   fx-float         every tensor float (only the move to opset 21)
-- Re-running replaces the fixture's policies and the rows it made (the
-- Silero rows labelled 'q8_0 ggml', 'int16 tensor affine', 'uint8 channel
-- affine' and 'uint4 block32 affine').
CREATE TEMP VIEW fx_made AS
SELECT q.quantization_id FROM quantizations q JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
WHERE m.name = 'silero_vad' AND q.label IN ('q8_0 ggml', 'int16 tensor affine',
      'uint8 channel affine', 'uint4 block32 affine');
.bail on
PRAGMA foreign_keys = ON;
DELETE FROM policies WHERE name GLOB 'fx-*';
DELETE FROM quantizations WHERE quantization_id IN (SELECT * FROM temp.fx_made);

BEGIN;
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method,
                           block_size, codes)
SELECT t.tensor_id, 'q8_0', 'symmetric', 'ggml', 'ggml', 32,
       q_ggml_quantize(t.data, 'q8_0', t.shape)
FROM tensors t JOIN models m USING (model_id)
WHERE m.name = 'silero_vad' AND t.name GLOB '*decoder.rnn.weight_*';

-- fx-other's rows: every weight at each of three code types (view2d as in
-- examples/demo_queries.sql: blocks along the last axis of [O, numel/O]).
CREATE TEMP TABLE fx_w AS
SELECT t.tensor_id, t.data AS x, t.shape, t.channel_axis AS axis,
       CASE WHEN json_array_length(t.shape) = 2 THEN NULL
            ELSE json_array(json_extract(t.shape, '$[0]'),
                            t.numel / json_extract(t.shape, '$[0]')) END AS view2d
FROM tensors t JOIN models m USING (model_id)
WHERE m.name = 'silero_vad' AND json_array_length(t.shape) >= 2;
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, scale,
                           zero_point, codes)
SELECT tensor_id, 'int16', 'affine', 'tensor', s, z, quantize_blob(x, s, z, 'int16')
FROM (SELECT tensor_id, x, q_scale(x, 'int16', 'affine') AS s,
             q_zero_point(x, 'int16', 'affine') AS z FROM temp.fx_w);
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, axis,
                           scales, zero_points, codes)
SELECT tensor_id, 'uint8', 'affine', 'channel', axis, s, z,
       quantize_per_channel_blob(x, s, z, shape, axis, 'uint8')
FROM (SELECT *, q_per_channel_scales(x, shape, axis, 'uint8', 'affine') AS s,
             q_per_channel_zero_points(x, shape, axis, 'uint8', 'affine') AS z
      FROM temp.fx_w);
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, view_shape,
                           axis, block_size, scales, zero_points, codes)
SELECT tensor_id, 'uint4', 'affine', 'block', view2d, 1, 32, s, z,
       quantize_per_block_blob(x, s, z, coalesce(view2d, shape), 1, 32, 'uint4')
FROM (SELECT *, q_block_scales(x, coalesce(view2d, shape), 1, 32, 'uint4', 'affine') AS s,
             q_block_zero_points(x, coalesce(view2d, shape), 1, 32, 'uint4', 'affine') AS z
      FROM temp.fx_w);
DROP TABLE temp.fx_w;

INSERT INTO policies (name, description) VALUES
  ('fx-int8-tensor',  'fixture: every weight int8 per tensor'),
  ('fx-int8-channel', 'fixture: every weight int8 per channel'),
  ('fx-int4-block32', 'fixture: every weight int4 blocks of 32'),
  ('fx-mixed',        'fixture: LSTM q8_0, STFT float, rest int8 per channel symmetric'),
  ('fx-other',        'fixture: int16 per tensor, uint8 per channel, uint4 blocks'),
  ('fx-float',        'fixture: every tensor float');

-- rules(policy, priority, name_glob, dtype, scheme, granularity, block_size, label)
CREATE TEMP TABLE fx_rules AS SELECT * FROM (VALUES
  ('fx-int8-tensor',  1, NULL,                   'int8',  'affine',    'tensor',  NULL, 'int8 tensor affine'),
  ('fx-int8-channel', 1, NULL,                   'int8',  'affine',    'channel', NULL, 'int8 channel affine'),
  ('fx-int4-block32', 1, NULL,                   'int4',  'symmetric', 'block',   32,   'int4 block32 symmetric'),
  ('fx-mixed',        1, '*decoder.rnn.weight_*', 'q8_0', 'symmetric', 'ggml',    32,   'q8_0 ggml'),
  ('fx-mixed',        2, '*stft*',               'float', NULL,        NULL,      NULL, NULL),
  ('fx-mixed',        3, NULL,                   'int8',  'symmetric', 'channel', NULL, 'int8 channel symmetric'),
  ('fx-other',        1, '*stft*',               'int16', 'affine',    'tensor',  NULL, 'int16 tensor affine'),
  ('fx-other',        2, '*decoder.rnn.weight_*', 'uint4', 'affine',   'block',   32,   'uint4 block32 affine'),
  ('fx-other',        3, NULL,                   'uint8', 'affine',    'channel', NULL, 'uint8 channel affine'));
INSERT INTO policy_rules (policy_id, priority, name_glob, min_numel, dtype,
                          scheme, granularity, block_size)
SELECT p.policy_id, r.column2, r.column3, 16, r.column4, r.column5, r.column6, r.column7
FROM temp.fx_rules r JOIN policies p ON p.name = r.column1;
-- The float rule for biases, last in every policy.
INSERT INTO policy_rules (policy_id, priority, dtype)
SELECT policy_id, 99, 'float' FROM policies WHERE name GLOB 'fx-*';

-- Each tensor's first matching rule (weights: rank >= 2 and min_numel; a
-- bias matches only the float rule), and that rule's quantization.
INSERT INTO policy_choices (policy_id, tensor_id, rule_id, quantization_id)
SELECT p.policy_id, t.tensor_id,
       (SELECT pr.rule_id FROM policy_rules pr LEFT JOIN temp.fx_rules r
          ON r.column1 = p.name AND r.column2 = pr.priority
        WHERE pr.policy_id = p.policy_id
          AND (pr.priority = 99 OR (json_array_length(t.shape) >= 2
               AND (pr.name_glob IS NULL OR t.name GLOB pr.name_glob)))
        ORDER BY pr.priority LIMIT 1) AS rule_id,
       NULL
FROM policies p, tensors t JOIN models m USING (model_id)
WHERE p.name GLOB 'fx-*' AND m.name = 'silero_vad';
UPDATE policy_choices AS c
SET quantization_id = (SELECT q.quantization_id FROM quantizations q
                       WHERE q.tensor_id = c.tensor_id AND q.label = r.column8)
FROM policy_rules pr JOIN policies p USING (policy_id)
     JOIN temp.fx_rules r ON r.column1 = p.name AND r.column2 = pr.priority
WHERE pr.rule_id = c.rule_id AND r.column8 IS NOT NULL;
DROP TABLE temp.fx_rules;
COMMIT;
DROP VIEW temp.fx_made;

SELECT printf('fixture: %s: %d tensors quantized, %d float', p.name,
              count(c.quantization_id), count(*) - count(c.quantization_id))
FROM policies p JOIN policy_choices c USING (policy_id)
WHERE p.name GLOB 'fx-*' GROUP BY p.policy_id ORDER BY p.policy_id;
