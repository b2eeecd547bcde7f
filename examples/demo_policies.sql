-- demo_policies.sql: the demo's quantization policies, as rows of the
-- registry (sql/registry.sql, "Policies"), for both demo models.
--
-- Run by examples/demo.sh after examples/demo_queries.sql, then
-- sql/policy.sql applies them:
--   sqlite3 -bail build/demo.db '.load dist/quant' \
--     '.read examples/demo_policies.sql' '.read sql/policy.sql'
-- It replaces the policies of these names (their choices and exports go
-- with them) and leaves any other policy alone, in one transaction (BEGIN
-- IMMEDIATE: beside another writer it waits for the busy timeout,
-- docs/REGISTRY.md#several-writers), so a process killed midway leaves the old policies.
--
-- The models' first and last layers, from the tensor names:
--   Silero VAD, in each branch ('16k/', '8k/'): the STFT basis
--   (stft.forward_basis_buffer, the convolution the audio meets first) and
--   the output convolution decoder.decoder.2.weight (128 -> 1);
--   MediaPipe face detection: conv2d/Kernel, the stem on the RGB input, and
--   the four heads, classificator_8/16 and regressor_8/16.
-- Biases (rank 1) stay float in every policy, as int8 deployments keep
-- them; `min_rank 2` picks the weights.

BEGIN IMMEDIATE;

DELETE FROM policies WHERE name IN ('int8-channel', 'q8_0', 'sqnr30',
                                    'edges8-int4', 'q4_K-mix');

INSERT INTO policies (name, description) VALUES
  ('int8-channel', 'int8 per-channel affine everywhere (per-tensor where a weight has no channel axis)'),
  ('q8_0',         'q8_0 wherever the rows are whole 32-weight blocks, else int8 per-channel'),
  ('sqnr30',       'int8 per-tensor, except weights whose int8 per-tensor SQNR is under 30 dB: per-channel'),
  ('edges8-int4',  'first and last layers int8 per-channel, the rest int4 blocks of 32'),
  ('q4_K-mix',     'q4_K; rows under 256 columns q5_0 (llama.cpp''s fallback for q4_K); rows of no whole blocks int8 per-channel');

-- Rules: (policy, priority, conditions..., action).  The last rules of each
-- policy are the catch-alls: a weight with no channel axis goes per tensor,
-- a bias stays float.
INSERT INTO policy_rules (policy_id, priority, name_glob, min_rank,
                          columns_below, probe, probe_sqnr_below,
                          dtype, scheme, granularity, block_size)
WITH r(policy, priority, name_glob, min_rank, columns_below, probe,
       probe_sqnr_below, dtype, scheme, granularity, block_size) AS (VALUES
  ('int8-channel', 10, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('int8-channel', 20, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'tensor', NULL),
  ('int8-channel', 90, NULL, NULL, NULL, NULL, NULL, 'float', NULL, NULL, NULL),

  ('q8_0', 10, NULL, 2, NULL, NULL, NULL, 'q8_0', NULL, 'ggml', NULL),
  ('q8_0', 20, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('q8_0', 30, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'tensor', NULL),
  ('q8_0', 90, NULL, NULL, NULL, NULL, NULL, 'float', NULL, NULL, NULL),

  ('sqnr30', 10, NULL, 2, NULL, 'int8 tensor affine', 30.0, 'int8', 'affine', 'channel', NULL),
  ('sqnr30', 20, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'tensor', NULL),
  ('sqnr30', 90, NULL, NULL, NULL, NULL, NULL, 'float', NULL, NULL, NULL),

  ('edges8-int4', 10, '*/stft.forward_basis_buffer', NULL, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('edges8-int4', 11, '*/decoder.decoder.2.weight',  NULL, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('edges8-int4', 12, 'conv2d/Kernel',               NULL, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('edges8-int4', 13, 'classificator_*/Kernel',      NULL, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('edges8-int4', 14, 'regressor_*/Kernel',          NULL, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('edges8-int4', 20, NULL, 2, NULL, NULL, NULL, 'int4', 'symmetric', 'block', 32),
  ('edges8-int4', 90, NULL, NULL, NULL, NULL, NULL, 'float', NULL, NULL, NULL),

  ('q4_K-mix', 10, NULL, 2, 256, NULL, NULL, 'q5_0', NULL, 'ggml', NULL),
  ('q4_K-mix', 11, NULL, 2, 256, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('q4_K-mix', 20, NULL, 2, NULL, NULL, NULL, 'q4_K', NULL, 'ggml', NULL),
  ('q4_K-mix', 30, NULL, 2, NULL, NULL, NULL, 'int8', 'affine', 'channel', NULL),
  ('q4_K-mix', 90, NULL, NULL, NULL, NULL, NULL, 'float', NULL, NULL, NULL))
SELECT p.policy_id, r.priority, r.name_glob, r.min_rank, r.columns_below,
       r.probe, r.probe_sqnr_below, r.dtype, r.scheme, r.granularity, r.block_size
FROM r JOIN policies p ON p.name = r.policy
ORDER BY p.policy_id, r.priority;

COMMIT;
