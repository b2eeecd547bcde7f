-- policies.sql: three fixed policies over the demo registry, for the GGUF
-- export's own check (make test-gguf-export), as rules of the registry's
-- rule book (sql/registry.sql, "Policies").  Apply them with the engine:
--   sqlite3 -bail DB '.load dist/quant' \
--     '.read tests/gguf_export/policies.sql' '.read sql/policy.sql'
-- Between them they make every kind of choice the exporter must write: two
-- ggml types, int8 per tensor, per channel and in blocks on the matrix
-- view of conv kernels, and tensors kept float.
--
--   q8_0          q8_0 where a weight's rows (last dimension) are whole
--                 32-element blocks (a ggml rule fits only then), any other
--                 weight int8 per channel (per tensor where it has no
--                 channel axis); biases and other 1-D tensors stay float
--   q4_K          q4_K where a weight's rows are whole 256-element
--                 super-blocks; everything else stays float
--   int4-block32  the first and last layers of Silero VAD (encoder.0 and
--                 decoder.decoder.2, both sample rates) int8 per tensor;
--                 every other weight int4 in symmetric blocks of 32;
--                 biases float
--
-- Run after examples/import_models.sql and examples/demo_queries.sql; the
-- engine reuses their rows where identical and makes the rest.  Re-running
-- it replaces these three policies (their choices and exports go with them).

.bail on
BEGIN;

DELETE FROM policies WHERE name IN ('q8_0', 'q4_K', 'int4-block32');

INSERT INTO policies (name, description) VALUES
  ('q8_0', 'q8_0 where rows are whole blocks, else int8 per channel; biases float'),
  ('q4_K', 'q4_K where rows are whole super-blocks, else float'),
  ('int4-block32', 'first and last layers int8 per tensor, other weights int4 blocks of 32');

WITH r(policy, priority, name_glob, min_rank, dtype, scheme, granularity,
       block_size) AS (VALUES
  ('q8_0', 1, '*[Bb]ias*', NULL, 'float', NULL, NULL, NULL),
  ('q8_0', 2, NULL, 2, 'q8_0', NULL, 'ggml', NULL),
  ('q8_0', 3, NULL, 2, 'int8', 'affine', 'channel', NULL),
  ('q8_0', 4, NULL, 2, 'int8', 'affine', 'tensor', NULL),
  ('q8_0', 5, NULL, NULL, 'float', NULL, NULL, NULL),
  ('q4_K', 1, NULL, 2, 'q4_K', NULL, 'ggml', NULL),
  ('q4_K', 2, NULL, NULL, 'float', NULL, NULL, NULL),
  ('int4-block32', 1, '*[Bb]ias*', NULL, 'float', NULL, NULL, NULL),
  ('int4-block32', 2, '*encoder.0.*', 2, 'int8', 'affine', 'tensor', NULL),
  ('int4-block32', 3, '*decoder.decoder.2.*', 2, 'int8', 'affine', 'tensor', NULL),
  ('int4-block32', 4, NULL, 2, 'int4', 'symmetric', 'block', 32),
  ('int4-block32', 5, NULL, NULL, 'float', NULL, NULL, NULL))
INSERT INTO policy_rules (policy_id, priority, name_glob, min_rank, dtype,
                          scheme, granularity, block_size)
SELECT p.policy_id, r.priority, r.name_glob, r.min_rank, r.dtype, r.scheme,
       r.granularity, r.block_size
FROM policies p JOIN r ON r.policy = p.name
ORDER BY p.policy_id, r.priority;

COMMIT;
