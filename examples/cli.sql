-- cli.sql: sqlite-quant from the sqlite3 shell.  From the repo root:
--   sqlite3 :memory: '.load dist/quant' '.read examples/cli.sql'
.mode box
.headers on

-- A tiny weights table: a [2,4] linear layer whose two output rows have very
-- different ranges, stored as float32 BLOBs (q_f32 turns JSON into one).
CREATE TABLE weights(name TEXT PRIMARY KEY, shape TEXT, data BLOB);
INSERT INTO weights VALUES
  ('fc', '[2,4]', q_f32('[[0.12, -0.05, 0.2, -0.1], [2.0, -4.0, 1.0, 3.0]]'));

-- Int8 parameters: per tensor (one scale, zero point, from one calibration:
-- q_params) and per channel (axis 0: one per output row, as float32 / int32
-- BLOBs).
CREATE TABLE q AS
SELECT name, shape, data, p.scale AS scale, p.zero_point AS zp,
       q_per_channel_scales(data, shape, 0)      AS scales,
       q_per_channel_zero_points(data, shape, 0) AS zps
FROM weights, q_params(weights.data) AS p;
SELECT printf('%.6g', scale) AS scale, zp,
       q_json(scales) AS channel_scales, q_json(zps, 'int32') AS channel_zps
FROM q;

-- Quantize both ways, dequantize, and measure each round trip (SQNR, dB).
CREATE TABLE codes AS
SELECT quantize_blob(data, scale, zp) AS qt,
       quantize_per_channel_blob(data, scales, zps, shape, 0) AS qc
FROM q;
SELECT q_json(qt, 'int8') AS tensor_codes, q_json(qc, 'int8') AS channel_codes,
  printf('%.2f', q_sqnr(data, dequantize_blob(qt, scale, zp))) AS tensor_sqnr,
  printf('%.2f', q_sqnr(data, dequantize_per_channel_blob(qc, scales, zps, shape, 0)))
    AS channel_sqnr
FROM q, codes;

-- The small row is where per-tensor quantization hurts: element by element.
SELECT x.i, printf('%.4f', x.value) AS x, printf('%.4f', t.value) AS per_tensor,
       printf('%.4f', c.value) AS per_channel
FROM q, codes,
     q_each(data) AS x,
     q_each(dequantize_blob(qt, scale, zp)) AS t,
     q_each(dequantize_per_channel_blob(qc, scales, zps, shape, 0)) AS c
WHERE t.i = x.i AND c.i = x.i AND x.i < 4;

-- q_channels: each channel's range, parameters and round-trip error.
SELECT c.channel, printf('%g', c.min) AS min, printf('%g', c.max) AS max,
       printf('%.6g', c.scale) AS scale,
       c.zero_point, printf('%.2f', c.sqnr_db) AS sqnr_db
FROM weights AS w, q_channels(w.data, w.shape, 0) AS c;

-- q_compare: int8/int4, affine/symmetric, per tensor/channel; best first
-- (bits per weight count the scales: on 8 weights they cost more than codes).
SELECT c.scheme, c.bits_per_weight AS bpw, printf('%.2f', c.sqnr_db) AS sqnr_db
FROM weights AS w, q_compare(w.data, w.shape, 0, 'blocks=none') AS c
ORDER BY c.sqnr_db DESC;
