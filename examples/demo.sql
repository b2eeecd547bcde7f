-- demo.sql: sqlite-quant on a few small tensors (run with `make demo`).
-- For each tensor: parameters under the affine and symmetric schemes, the
-- int8 codes, and the round-trip error of dequantize(quantize(x)).
.mode box
.headers on

CREATE TEMP TABLE tensors(name TEXT PRIMARY KEY, shape TEXT, w BLOB);
INSERT INTO tensors VALUES
  ('centred',      '[8]', q_f32('[-1.5, -0.75, -0.1, 0, 0.2, 0.6, 1.1, 1.49]')),
  ('all positive', '[6]', q_f32('[0.5, 1.0, 1.5, 2.0, 2.5, 3.0]')),
  ('skewed',       '[6]', q_f32('[-0.2, 0.0, 0.4, 1.3, 2.9, 7.5]')),
  ('conv 2x3',     '[2,3]', q_f32('[[0.01, -0.02, 0.015], [2.0, -3.5, 1.25]]'));

.print
.print 'Quantization parameters (int8) under both schemes'
SELECT name,
       printf('%.6g', q_scale(w, 'int8', 'affine'))    AS affine_scale,
       q_zero_point(w, 'int8', 'affine')                AS affine_zp,
       printf('%.6g', q_scale(w, 'int8', 'symmetric')) AS symmetric_scale,
       q_zero_point(w, 'int8', 'symmetric')             AS symmetric_zp
FROM tensors;

CREATE TEMP TABLE trips AS
SELECT name, scheme, w,
       quantize_blob(w, q_scale(w, 'int8', scheme), q_zero_point(w, 'int8', scheme)) AS q,
       q_fake_quantize(w, q_scale(w, 'int8', scheme), q_zero_point(w, 'int8', scheme)) AS back
FROM tensors, (SELECT 'affine' AS scheme UNION ALL SELECT 'symmetric');

.print
.print 'Codes and round trip'
SELECT name, scheme, q_json(q, 'int8') AS codes, q_json(back) AS dequantized
FROM trips ORDER BY name, scheme;

.print
.print 'Round-trip error per tensor and scheme'
SELECT t.name, t.scheme,
       printf('%.3g', avg((a.value - b.value) * (a.value - b.value))) AS mse,
       printf('%.3g', max(abs(a.value - b.value)))                   AS max_error
FROM trips t, q_each(t.w) a, q_each(t.back) b
WHERE a.i = b.i
GROUP BY t.name, t.scheme ORDER BY t.name, t.scheme;

.print
.print 'Per-channel (rows of the 2x3 conv weight): one scale per row'
SELECT channel, printf('%.6g', min) AS min, printf('%.6g', max) AS max,
       printf('%.6g', scale) AS scale, zero_point,
       printf('%.3g', mse) AS mse, printf('%.1f', sqnr_db) AS sqnr_db
FROM q_channels((SELECT w FROM tensors WHERE name = 'conv 2x3'), '[2,3]', 0);
