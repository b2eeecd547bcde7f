-- policies.sql: six fixed policies for Silero VAD, for testing the ONNX
-- export (examples/export_onnx.py), as rules of the registry's rule book
-- (sql/registry.sql, "Policies").  Apply them with the engine:
--
--   sqlite3 -bail DB '.load dist/quant' \
--     '.read tests/onnx_export/policies.sql' '.read sql/policy.sql'
--
-- on a registry that examples/demo_queries.sql filled (the engine reuses
-- its int8 and int4 rows where identical and makes the rest).  The rules
-- that quantize name the model (model_glob) and take weights only
-- (min_rank 2); every policy ends with a float catch-all, so biases and
-- every tensor of the other models stay float.
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
-- Re-running replaces these policies (their choices, exports and
-- evaluations go with them) and leaves any other policy alone.
.bail on
BEGIN;

DELETE FROM policies WHERE name IN ('fx-int8-tensor', 'fx-int8-channel',
  'fx-int4-block32', 'fx-mixed', 'fx-other', 'fx-float');

INSERT INTO policies (name, description) VALUES
  ('fx-int8-tensor',  'fixture: every weight int8 per tensor'),
  ('fx-int8-channel', 'fixture: every weight int8 per channel'),
  ('fx-int4-block32', 'fixture: every weight int4 blocks of 32'),
  ('fx-mixed',        'fixture: LSTM q8_0, STFT float, rest int8 per channel symmetric'),
  ('fx-other',        'fixture: int16 per tensor, uint8 per channel, uint4 blocks'),
  ('fx-float',        'fixture: every tensor float');

-- (policy, priority, name_glob, dtype, scheme, granularity, block_size);
-- the rules that quantize take Silero VAD's weights, priority 99 is the
-- float catch-all.
WITH r(policy, priority, name_glob, dtype, scheme, granularity, block_size) AS (VALUES
  ('fx-int8-tensor',  1, NULL,                    'int8',  'affine',    'tensor',  NULL),
  ('fx-int8-channel', 1, NULL,                    'int8',  'affine',    'channel', NULL),
  ('fx-int4-block32', 1, NULL,                    'int4',  'symmetric', 'block',   32),
  ('fx-mixed',        1, '*decoder.rnn.weight_*', 'q8_0',  NULL,        'ggml',    NULL),
  ('fx-mixed',        2, '*stft*',                'float', NULL,        NULL,      NULL),
  ('fx-mixed',        3, NULL,                    'int8',  'symmetric', 'channel', NULL),
  ('fx-other',        1, '*stft*',                'int16', 'affine',    'tensor',  NULL),
  ('fx-other',        2, '*decoder.rnn.weight_*', 'uint4', 'affine',    'block',   32),
  ('fx-other',        3, NULL,                    'uint8', 'affine',    'channel', NULL),
  ('fx-int8-tensor',  99, NULL, 'float', NULL, NULL, NULL),
  ('fx-int8-channel', 99, NULL, 'float', NULL, NULL, NULL),
  ('fx-int4-block32', 99, NULL, 'float', NULL, NULL, NULL),
  ('fx-mixed',        99, NULL, 'float', NULL, NULL, NULL),
  ('fx-other',        99, NULL, 'float', NULL, NULL, NULL),
  ('fx-float',        99, NULL, 'float', NULL, NULL, NULL))
INSERT INTO policy_rules (policy_id, priority, model_glob, name_glob, min_rank,
                          dtype, scheme, granularity, block_size)
SELECT p.policy_id, r.priority,
       CASE WHEN r.priority < 99 THEN 'silero_vad' END, r.name_glob,
       CASE WHEN r.priority < 99 THEN 2 END,
       r.dtype, r.scheme, r.granularity, r.block_size
FROM policies p JOIN r ON r.policy = p.name
ORDER BY p.policy_id, r.priority;

COMMIT;
