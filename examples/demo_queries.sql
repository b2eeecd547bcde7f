-- demo_queries.sql: quantize two real networks in SQL and compare schemes.
--
-- Run by examples/demo.sh (`make demo`) as
--   sqlite3 build/demo.db '.load dist/quant' '.read examples/demo_queries.sql'
-- on a database that examples/import_models.sql filled through the registry
-- schema (sql/registry.sql): Silero VAD v5 (float32, ONNX) and MediaPipe
-- face detection short range (float16, TFLite).
--
-- Which tensors: the weights, i.e. tensors of rank >= 2 (convolution, LSTM
-- and detection-head kernels, and Silero's STFT basis, which is a Conv
-- weight too).  Biases (rank 1) stay in float, as int8 deployments keep them
-- (or re-derive them as int32 from the activation scale).
--
-- Schemes, each recorded as a row of `quantizations` with its parameters,
-- codes and measured error:
--   int8 tensor affine            per-tensor, min/max calibration
--   int8 tensor affine p99.99     per-tensor, range clipped to the 99.99th
--                                 percentile (method=percentile)
--   int8 tensor affine mse        per-tensor, clipping range that minimizes
--                                 the round-trip MSE (method=mse)
--   int8 channel affine           per-channel along the output-channel axis
--   int8 channel symmetric        (tensors.channel_axis: 0, or 3 for TFLite
--                                 depthwise kernels [1, H, W, C])
--   int4 block32 symmetric        blocks of 32 along the last axis of the
--                                 weight seen as a matrix [O, numel/O] (for a
--                                 2-D weight that is its own last axis; for a
--                                 conv kernel it is the flattened
--                                 input x kernel axis, as GGUF/GPTQ block conv
--                                 weights; 1x1 TFLite convs [O,1,1,I] block
--                                 along I either way)
-- The error is measured on the stored codes: dequantize(codes) against the
-- float weights (for the float16 model, against the float16 values widened
-- exactly to float32).

.bail on
PRAGMA foreign_keys = ON;

-- One transaction, BEGIN IMMEDIATE: the weights are read and their old rows
-- replaced under the write lock, so another writer makes it wait for the
-- busy timeout (docs/REGISTRY.md#several-writers) and a process killed midway
-- leaves the old rows.
BEGIN IMMEDIATE;

-- The weights, widened to float32 once.  view2d is the matrix view used for
-- blocks (NULL when the weight is already 2-D).
DROP TABLE IF EXISTS temp.w;
CREATE TEMP TABLE w AS
SELECT t.tensor_id, m.name AS model, t.name, t.shape, t.numel,
       t.channel_axis AS axis,
       q_f32(t.data, t.dtype) AS x,
       CASE WHEN json_array_length(t.shape) = 2 THEN NULL
            ELSE json_array(json_extract(t.shape, '$[0]'),
                            t.numel / json_extract(t.shape, '$[0]')) END AS view2d
FROM tensors t JOIN models m USING (model_id)
WHERE json_array_length(t.shape) >= 2;

-- Re-running the demo on the same database replaces its rows.
DELETE FROM quantizations WHERE tensor_id IN (SELECT tensor_id FROM w);

-- Per-tensor int8 affine under three calibration methods.
WITH methods(method, percentile, opts) AS (VALUES
       ('minmax',     NULL,  'method=minmax'),
       ('percentile', 99.99, 'method=percentile percentile=99.99'),
       ('mse',        NULL,  'method=mse')),
     p AS MATERIALIZED (
       SELECT w.tensor_id, w.x, c.method, c.percentile,
              q_scale(w.x, 'int8', 'affine', c.opts)      AS s,
              q_zero_point(w.x, 'int8', 'affine', c.opts) AS z
       FROM w, methods c)
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method,
                           percentile, scale, zero_point, codes)
SELECT tensor_id, 'int8', 'affine', 'tensor', method, percentile, s, z,
       quantize_blob(x, s, z, 'int8')
FROM p;

-- Per-channel int8 along the output-channel axis, affine and symmetric.
WITH schemes(scheme) AS (VALUES ('affine'), ('symmetric')),
     p AS MATERIALIZED (
       SELECT w.tensor_id, w.x, w.shape, w.axis, c.scheme,
              q_per_channel_scales(w.x, w.shape, w.axis, 'int8', c.scheme)      AS s,
              q_per_channel_zero_points(w.x, w.shape, w.axis, 'int8', c.scheme) AS z
       FROM w, schemes c)
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, axis,
                           scales, zero_points, codes)
SELECT tensor_id, 'int8', scheme, 'channel', axis, s, z,
       quantize_per_channel_blob(x, s, z, shape, axis, 'int8')
FROM p;

-- Per-block int4, symmetric, blocks of 32 along the last axis of the matrix view.
WITH p AS MATERIALIZED (
       SELECT w.tensor_id, w.x, w.view2d, coalesce(w.view2d, w.shape) AS vs,
              q_block_scales(w.x, coalesce(w.view2d, w.shape), 1, 32, 'int4', 'symmetric')      AS s,
              q_block_zero_points(w.x, coalesce(w.view2d, w.shape), 1, 32, 'int4', 'symmetric') AS z
       FROM w)
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, view_shape,
                           axis, block_size, scales, zero_points, codes)
SELECT tensor_id, 'int4', 'symmetric', 'block', view2d, 1, 32, s, z,
       quantize_per_block_blob(x, s, z, vs, 1, 32, 'int4')
FROM p;

-- Measure every row from its stored codes.
WITH d AS MATERIALIZED (
  SELECT q.quantization_id, w.x, f.x AS y
  FROM quantizations q JOIN w USING (tensor_id)
  JOIN quantization_floats f USING (quantization_id))
UPDATE quantizations
SET mse = q_mse(d.x, d.y), sqnr_db = q_sqnr(d.x, d.y),
    max_error = q_max_error(d.x, d.y), cosine = q_cosine(d.x, d.y)
FROM d
WHERE d.quantization_id = quantizations.quantization_id;

COMMIT;

-- ---------------------------------------------------------------------------
.mode list
.headers off
SELECT printf('Recorded %d quantizations of %d weight tensors (%d weights) from %d models in build/demo.db.',
              (SELECT count(*) FROM quantizations), count(*), sum(numel),
              count(DISTINCT model))
FROM w;
.mode box
.headers on

.print
.print '(1) SQNR (dB) of every weight tensor under each scheme: higher is better; +6 dB is about one bit,'
.print '    +20 dB a 10x smaller RMS error.  int8 per-tensor affine calibrated by min/max, the 99.99th'
.print '    percentile, or the MSE-optimal range; int8 per-channel affine and symmetric; int4 blocks of 32'
SELECT CASE w.model WHEN 'silero_vad' THEN 'silero' ELSE 'facedet' END AS model,
       w.name                                                   AS layer,
       w.shape                                                  AS shape,
       printf('%.1f', max(CASE q.label WHEN 'int8 tensor affine'        THEN q.sqnr_db END)) AS "t minmax",
       printf('%.1f', max(CASE q.label WHEN 'int8 tensor affine p99.99' THEN q.sqnr_db END)) AS "t p99.99",
       printf('%.1f', max(CASE q.label WHEN 'int8 tensor affine mse'    THEN q.sqnr_db END)) AS "t mse",
       printf('%.1f', max(CASE q.label WHEN 'int8 channel affine'       THEN q.sqnr_db END)) AS "ch affine",
       printf('%.1f', max(CASE q.label WHEN 'int8 channel symmetric'    THEN q.sqnr_db END)) AS "ch sym",
       printf('%.1f', max(CASE q.label WHEN 'int4 block32 symmetric'    THEN q.sqnr_db END)) AS "int4 b32"
FROM w JOIN quantizations q USING (tensor_id)
GROUP BY w.tensor_id
ORDER BY w.tensor_id;

.print
.print '(2) Per model and scheme: bytes before (as stored; the face detector is float16) and after, worst layer'
SELECT CASE model WHEN 'silero_vad' THEN 'silero' ELSE 'facedet' END AS model,
       label                                     AS scheme,
       tensors,
       bytes_before,
       bytes_after,
       printf('%.2f', bits_per_weight)           AS "bits/w",
       printf('%.1f', mean_sqnr_db)              AS "mean dB",
       printf('%.1f', worst_sqnr_db)             AS "worst dB",
       worst_tensor                              AS "worst layer"
FROM model_summary
ORDER BY model DESC, bits_per_weight DESC, label;

.print
.print '(3) The 10 channels with the widest ranges (q_channels, int8 affine, along the output-channel axis)'
SELECT CASE w.model WHEN 'silero_vad' THEN 'silero' ELSE 'facedet' END AS model,
       w.name                                    AS layer,
       c.channel                                 AS channel,
       printf('%.4f', c.min)                     AS min,
       printf('%.4f', c.max)                     AS max,
       printf('%.3f', c.max - c.min)             AS range,
       printf('%.1fx', (c.max - c.min)
                       / avg(c.max - c.min) OVER (PARTITION BY w.tensor_id)) AS "vs layer mean",
       printf('%.3g', c.scale)                   AS scale,
       printf('%.1f', c.sqnr_db)                 AS "chan dB"
FROM w, q_channels(w.x, w.shape, w.axis, 'int8', 'affine') c
ORDER BY c.max - c.min DESC
LIMIT 10;
