-- rounding.sql: a second catalog for `make test-s390x`, run by the same SQL
-- host as tests/host/queries.sql and compared across hosts the same way.
--
-- That catalog reaches every function with short, round numbers; this one
-- feeds the numeric paths values whose every operation rounds: 256 tensors of
-- 16 pseudo-random decimals (a linear congruential generator in SQL, so the
-- data is the same everywhere), one row of results per tensor, and one tensor
-- of 4096 for the vector loops.  A value that one host rounds differently
-- shows up as one differing row.  Only integers go through SQLite's printf:
-- its formatting of REALs is SQLite's own code and is not what is under test.

-- 4096 values m * 10^-e, m in -10^6..10^6; e is per tensor (4..7), so ranges
-- span 1e-1 .. 1e2.
CREATE TABLE w AS
WITH RECURSIVE g(i, s) AS (
  SELECT 0, 1234567
  UNION ALL
  SELECT i + 1, (s * 1103515245 + 12345) % 2147483648 FROM g WHERE i < 4095)
SELECT i / 16 AS id, i % 16 AS k,
       printf('%de-%d', (s / 16) % 2000001 - 1000000, 4 + (i / 16) % 4) AS v
FROM g;
CREATE TABLE t AS
SELECT id, '[' || group_concat(v, ',') || ']' AS x
FROM (SELECT id, v FROM w ORDER BY id, k) GROUP BY id;
CREATE TABLE big AS
SELECT '[' || group_concat(v, ',') || ']' AS x FROM (SELECT v FROM w ORDER BY id, k);
SELECT count(*), sum(length(x)) FROM t;

-- ---------------------------------------------------------------- parameters
SELECT id, q_scale(x), q_zero_point(x), q_scale(x, 'uint8'), q_zero_point(x, 'uint8')
FROM t ORDER BY id;
SELECT id, q_scale(x, 'int8', 'symmetric'), q_zero_point(x, 'uint8', 'symmetric'),
       q_scale(x, 'int4'), q_zero_point(x, 'int4'), q_scale(x, 'uint4', 'symmetric')
FROM t ORDER BY id;
SELECT id, q_scale(x, 'int16'), q_zero_point(x, 'uint16'), q_scale(x, 'int32'),
       q_zero_point(x, 'int32'), q_scale(x, 'uint8', 'affine', 'reduce_range=1'),
       q_zero_point(x, 'uint8', 'affine', 'quant_min=3 quant_max=200')
FROM t ORDER BY id;
SELECT id, q_scale(x, 'int8', 'affine', 'method=mse'), q_zero_point(x, 'int8', 'affine', 'method=mse'),
       q_scale(x, 'int4', 'symmetric', 'method=mse')
FROM t ORDER BY id;
SELECT id, q_scale(x, 'uint8', 'affine', 'method=percentile percentile=93.7'),
       q_zero_point(x, 'uint8', 'affine', 'method=percentile percentile=93.7'),
       q_scale(x, 'int8', 'symmetric', 'method=percentile percentile=99.9')
FROM t ORDER BY id;

-- ---------------------------------------------------------------- per tensor
SELECT id, quantize_blob(x, q_scale(x), q_zero_point(x)),
       quantize_blob(x, q_scale(x, 'uint4'), q_zero_point(x, 'uint4'), 'uint4'),
       quantize_blob(x, q_scale(x, 'int16'), q_zero_point(x, 'int16'), 'int16', 'rounding=onnx')
FROM t ORDER BY id;
SELECT id, quantize_blob(x, 0.0123, -7, 'int32'), quantize_blob(x, 0.7, 3, 'int8', 'rounding=onnx'),
       quantize_blob(x, 1.0 / 3, 0, 'int4')
FROM t ORDER BY id;
SELECT id, dequantize_blob(quantize_blob(x, q_scale(x), q_zero_point(x)), q_scale(x), q_zero_point(x)),
       dequantize_blob(quantize_blob(x, 0.0123, -7, 'int32'), 0.0123, -7, 'int32')
FROM t ORDER BY id;
SELECT id, q_fake_quantize(x, q_scale(x, 'uint8'), q_zero_point(x, 'uint8'), 'uint8'),
       q_fake_quantize(x, 0.031, 2, 'int4', 'rounding=onnx')
FROM t ORDER BY id;

-- ---------------------------------------------------------------- metrics
SELECT id, q_mse(x, q_fake_quantize(x, q_scale(x), q_zero_point(x))),
       q_sqnr(x, q_fake_quantize(x, q_scale(x), q_zero_point(x))),
       q_max_error(x, q_fake_quantize(x, q_scale(x, 'int4'), q_zero_point(x, 'int4'), 'int4')),
       q_cosine(x, q_fake_quantize(x, 0.05, 0))
FROM t ORDER BY id;

-- ---------------------------------------------------------------- per channel, per block
SELECT id, q_per_channel_scales(x, '[4,4]', 0), q_per_channel_zero_points(x, '[4,4]', 0),
       q_per_channel_scales(x, '[4,4]', 1, 'uint8'), q_per_channel_zero_points(x, '[4,4]', 1, 'uint8'),
       q_per_channel_scales(x, '[2,8]', -1, 'int8', 'symmetric', 'method=mse')
FROM t ORDER BY id;
SELECT id, quantize_per_channel_blob(x, q_per_channel_scales(x, '[4,4]', 0),
                                     q_per_channel_zero_points(x, '[4,4]', 0), '[4,4]', 0),
       dequantize_per_channel_blob(quantize_per_channel_blob(x, q_per_channel_scales(x, '[4,4]', 1, 'int4'),
                                     q_per_channel_zero_points(x, '[4,4]', 1, 'int4'), '[4,4]', 1, 'int4'),
                                   q_per_channel_scales(x, '[4,4]', 1, 'int4'),
                                   q_per_channel_zero_points(x, '[4,4]', 1, 'int4'), '[4,4]', 1, 'int4'),
       q_fake_quantize_per_channel(x, q_per_channel_scales(x, '[8,2]', 1), q_per_channel_zero_points(x, '[8,2]', 1),
                                   '[8,2]', 1, 'int8', 'rounding=onnx')
FROM t ORDER BY id;
SELECT id, q_block_scales(x, '[16]', 0, 4, 'int4'), q_block_zero_points(x, '[16]', 0, 4, 'int4'),
       q_block_scales(x, '[4,4]', 1, 3, 'uint8', 'affine', 'method=mse'),
       q_fake_quantize_per_block(x, q_block_scales(x, '[16]', 0, 4, 'int4', 'symmetric'),
                                 q_block_zero_points(x, '[16]', 0, 4, 'int4', 'symmetric'), '[16]', 0, 4, 'int4')
FROM t ORDER BY id;
SELECT t.id, c.* FROM t, q_channels(t.x, '[4,4]', 0, 'uint8') AS c ORDER BY t.id, c.channel;

-- ---------------------------------------------------------------- aggregates
SELECT id / 16, q_scale_agg(x), q_zero_point_agg(x, 'uint8'),
       q_scale_agg(x, 'uint8', 'affine', 'observer=moving_average averaging_constant=0.37'),
       q_zero_point_agg(x, 'uint8', 'affine', 'observer=moving_average averaging_constant=0.37'),
       q_per_channel_scales_agg(x, '[4,4]', 0, 'int8', 'symmetric', 'observer=moving_average'),
       q_per_channel_zero_points_agg(x, '[4,4]', 1, 'uint8', 'affine', 'observer=moving_average')
FROM (SELECT id, x FROM t ORDER BY id) GROUP BY id / 16 ORDER BY id / 16;
SELECT id / 64, q_scale_agg(x, 'int8', 'affine', 'method=mse'),
       q_scale_agg(x, 'uint8', 'affine', 'method=percentile percentile=99.5'),
       q_mse_agg(x, q_fake_quantize(x, 0.02, 0)), q_sqnr_agg(x, q_fake_quantize(x, 0.02, 0))
FROM (SELECT id, x FROM t ORDER BY id) GROUP BY id / 64 ORDER BY id / 64;

-- ---------------------------------------------------------------- half formats, text
SELECT id, q_f16(x), q_bf16(x), q_f32(q_f16(x), 'f16'), q_json(x), q_json(q_bf16(x), 'bf16')
FROM t ORDER BY id;

-- ---------------------------------------------------------------- one tensor of 4096
SELECT q_scale(x), q_zero_point(x), q_scale(x, 'int8', 'affine', 'method=mse'),
       q_scale(x, 'uint8', 'affine', 'method=percentile percentile=99.99') FROM big;
SELECT quantize_blob(x, q_scale(x), q_zero_point(x)) FROM big;
SELECT quantize_blob(x, 0.0071, 5, 'int16', 'rounding=onnx') FROM big;
SELECT dequantize_blob(quantize_blob(x, q_scale(x), q_zero_point(x)), q_scale(x), q_zero_point(x)) FROM big;
SELECT q_f16(x), q_bf16(x) FROM big;
SELECT q_per_channel_scales(x, '[64,64]', -1), q_block_scales(x, '[4096]', 0, 32, 'int4', 'symmetric') FROM big;
SELECT q_mse(x, q_fake_quantize(x, 0.01, 0)), q_sqnr(x, q_fake_quantize(x, 0.01, 0)),
       q_max_error(x, q_fake_quantize(x, 0.01, 0)), q_cosine(x, q_fake_quantize(x, 0.01, 0)) FROM big;
SELECT c.* FROM big, q_compare(big.x, '[64,64]', 0, 'dtypes=int8+uint4 blocks=32 methods=minmax+mse') AS c;

-- ---------------------------------------------------------------- ggml block formats
-- The same 4096 values as rows of 32 (128 rows, the 32-weight types) and of
-- 256 (16 rows, the K-quants), one row of results per row, so a block that
-- one host writes differently names its row and type.  The importance
-- weights are q_importance_agg of the rows themselves (the mean square per
-- column, summed in double); every type is quantized without them (ggml's
-- reference) and with them (its weighted search), and read back.
CREATE TABLE r32 AS
SELECT id / 2 AS id, '[' || group_concat(v, ',') || ']' AS x
FROM (SELECT id, v FROM w ORDER BY id, k) GROUP BY id / 2;
CREATE TABLE r256 AS
SELECT id / 16 AS id, '[' || group_concat(v, ',') || ']' AS x
FROM (SELECT id, v FROM w ORDER BY id, k) GROUP BY id / 16;
CREATE TABLE imp AS
SELECT (SELECT q_importance_agg(x, 32) FROM r32) AS w32, (SELECT q_importance_agg(x, 256) FROM r256) AS w256;
SELECT count(*), sum(length(x)) FROM r32 UNION ALL SELECT count(*), sum(length(x)) FROM r256;
SELECT w32, w256 FROM imp;
SELECT id, q_ggml_quantize(x, 'q4_0'), q_ggml_quantize(x, 'q4_1'), q_ggml_quantize(x, 'q5_0'),
       q_ggml_quantize(x, 'q5_1'), q_ggml_quantize(x, 'q8_0')
FROM r32 ORDER BY id;
SELECT id, q_ggml_quantize(x, 'q4_0', '[32]', w32), q_ggml_quantize(x, 'q4_1', '[32]', w32),
       q_ggml_quantize(x, 'q5_0', '[32]', w32), q_ggml_quantize(x, 'q5_1', '[32]', w32),
       q_ggml_quantize(x, 'q8_0', '[32]', w32)
FROM r32, imp ORDER BY id;
SELECT id, q_ggml_dequantize(q_ggml_quantize(x, 'q4_0'), 'q4_0'), q_ggml_dequantize(q_ggml_quantize(x, 'q4_1'), 'q4_1'),
       q_ggml_dequantize(q_ggml_quantize(x, 'q5_0', '[32]', w32), 'q5_0'),
       q_ggml_dequantize(q_ggml_quantize(x, 'q5_1', '[32]', w32), 'q5_1'),
       q_ggml_dequantize(q_ggml_quantize(x, 'q8_0'), 'q8_0')
FROM r32, imp ORDER BY id;
SELECT id, q_ggml_quantize(x, 'q2_K'), q_ggml_quantize(x, 'q3_K'), q_ggml_quantize(x, 'q4_K'),
       q_ggml_quantize(x, 'q5_K'), q_ggml_quantize(x, 'q6_K')
FROM r256 ORDER BY id;
SELECT id, q_ggml_quantize(x, 'q2_K', '[256]', w256), q_ggml_quantize(x, 'q3_K', '[256]', w256),
       q_ggml_quantize(x, 'q4_K', '[256]', w256), q_ggml_quantize(x, 'q5_K', '[256]', w256),
       q_ggml_quantize(x, 'q6_K', '[256]', w256)
FROM r256, imp ORDER BY id;
SELECT id, q_ggml_dequantize(q_ggml_quantize(x, 'q2_K'), 'q2_K'), q_ggml_dequantize(q_ggml_quantize(x, 'q3_K', '[256]', w256), 'q3_K'),
       q_ggml_dequantize(q_ggml_quantize(x, 'q4_K', '[256]', w256), 'q4_K'), q_ggml_dequantize(q_ggml_quantize(x, 'q5_K'), 'q5_K'),
       q_ggml_dequantize(q_ggml_quantize(x, 'q6_K', '[256]', w256), 'q6_K')
FROM r256, imp ORDER BY id;
-- the whole tensor as [16,256] / [128,32] in one call, and sliding importance
SELECT t.name, q_ggml_quantize(big.x, t.name, CASE t.block_size WHEN 256 THEN '[16,256]' ELSE '[128,32]' END)
FROM big, q_ggml_types AS t ORDER BY t.type_id;
SELECT id, q_importance_agg(x, 32) OVER (ORDER BY id ROWS 3 PRECEDING),
       q_importance_agg(x, 16) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING)
FROM r32 ORDER BY id;
SELECT c.scheme, c.bytes, c.mse, c.sqnr_db, c.max_error, c.cosine
FROM big, q_compare(big.x, '[16,256]', 0, 'dtypes=int4 blocks=32 ggml=q4_0+q4_1+q5_0+q5_1+q8_0+q2_K+q3_K+q4_K+q5_K+q6_K') AS c;
