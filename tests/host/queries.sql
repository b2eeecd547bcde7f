-- queries.sql: the catalog tests/host/sqlhost.c runs.
--
-- One statement per entry, each ending with ';' at the end of a line.  It
-- reaches every registered function at each of its arities, every dtype, the
-- aggregates, window frames and table-valued functions, JSON with fractions
-- and exponents, and a few errors.  The --oom mode runs each entry once per
-- allocation it makes, so the tensors stay small.  Nothing here may depend on
-- the machine (no q_info() kernel names): the transcript is compared byte for
-- byte across architectures and locales.

-- ---------------------------------------------------------------- tensors
SELECT q_f32('[0.5, 1.25, -2.5e-1]');
SELECT q_f32('[[1, 2], [3, 4.75]]'), q_f32('[1e2, 1E-2, 2.5e+1, -0, 0.0, -3.75]');
SELECT q_f32(X'0000803F000000C0', 'f32'), q_f32('[0.1, 0.3, 1.65]', 'f32');
SELECT q_f32(X'003C00C00038FF7B', 'f16'), q_f32(X'803F00C0CD3D', 'bf16');
SELECT q_f32(X'000000000000F03F000000000000E0BF9A9999999999B93F', 'f64');
SELECT q_f16('[1, -2, 0.5, 65520, 6.1035156e-05, 0.1]'), q_f16(X'0000803F000000C0');
SELECT q_bf16('[1, -2, 0.1, 3.0e38]'), q_bf16(X'0000803FCDCCCC3D');
SELECT q_json(q_f32('[0.1, -2.5e-1, 1e-7, 3.4028235e38, 123456789, -0, 1.5e-45]'));
SELECT q_json('[1.50, 2e0, [3.25e-3]]'), q_json(X'0000803F0000C0BF', 'f32');
SELECT q_json(q_f16('[0.1, 1.5, -65504]'), 'f16'), q_json(q_bf16('[0.1, -3.75]'), 'bf16');
SELECT q_json(X'0180FF7F', 'int8'), q_json(X'0180FF7F', 'uint8'), q_json(X'0180FF7F', 'int16');
SELECT q_json(X'0180FF7F', 'uint16'), q_json(X'0180FF7F', 'int32'), q_json(X'0180FF7F', 'qint8');
SELECT q_json(X'E103', 'int4', 3), q_json(X'E103', 'uint4'), q_json(X'F1', 'quint4x2', 1);
SELECT q_length(q_f32('[1,2,3]')), q_length('[[1,2],[3,4.5]]'), q_length(X'0102', 'int8');
SELECT q_length(X'010203', 'uint4'), q_length(q_f16('[1,2,3]'), 'f16'), q_length(X'00000000', 'int32');
-- (not json_valid: SQLite 3.40's json_valid returns 0 instead of raising out of memory)
SELECT q_version(), json_extract(q_info(), '$.version'), json_type(q_info(), '$.kernels');
SELECT q_f32(NULL), q_json(NULL), q_length(NULL), q_f32('[]'), q_json(X'');
SELECT i, value FROM q_each(q_f32('[1.5, -2, 0.1]'));
SELECT i, value FROM q_each('[1, 2.5e-1, -3.125]');
SELECT * FROM q_each(X'0180FF', 'int8');
SELECT * FROM q_each(X'E103', 'int4', 3);
SELECT * FROM q_each(X'0180FF7F', 'uint16');
SELECT * FROM q_each(X'FFFFFFFF00000080', 'int32');
SELECT * FROM q_each(q_f16('[0.5, -1, 65520]'), 'f16');
SELECT * FROM q_each(q_bf16('[0.5, 0.1]'), 'bf16');
SELECT i, value FROM q_each(X'0000807F000080FF');
WITH t(n, x) AS (VALUES (1, '[1, 2]'), (2, '[3.5]'), (3, NULL))
SELECT n, e.i, e.value FROM t, q_each(t.x) AS e ORDER BY n, e.i;

-- ---------------------------------------------------------------- per tensor
SELECT q_scale('[-1, 0.5, 2, 3]'), q_zero_point('[-1, 0.5, 2, 3]');
SELECT q_scale('[-1, 0.5, 2, 3]', 'uint8'), q_zero_point('[-1, 0.5, 2, 3]', 'uint8');
SELECT q_scale('[-1, 0.5, 2, 3]', 'int8', 'symmetric'), q_zero_point('[-1, 0.5, 2, 3]', 'uint8', 'symmetric');
SELECT q_scale('[-1, 0.5, 2, 3]', 'int8', 'symmetric', 'quant_min=-127 quant_max=127'),
       q_zero_point('[-1, 0.5, 2, 3]', 'int8', 'affine', 'quant_min=-127, quant_max=127');
SELECT q_scale(q_f32('[-1.5, 0.25, 7]'), 'int16'), q_zero_point(q_f32('[-1.5, 0.25, 7]'), 'uint16');
SELECT q_scale('[-1.5, 0.25, 7]', 'int32'), q_zero_point('[-1.5, 0.25, 7]', 'qint32', 'symmetric');
SELECT q_scale('[-1.5, 0.25, 7]', 'int4'), q_zero_point('[-1.5, 0.25, 7]', 'uint4');
SELECT q_scale('[-1.5, 0.25, 7]', 'uint8', 'affine', 'reduce_range=1'),
       q_zero_point('[-1.5, 0.25, 7]', 'uint8', 'affine', 'reduce_range=1');
SELECT q_scale('[1,2,3,4,5,6,7,8,9,10]', 'uint8', 'affine', 'method=percentile percentile=99.9'),
       q_zero_point('[-4,-3,-2,-1,0,1,2,3,4,5]', 'int8', 'affine', 'method=percentile percentile=90');
SELECT q_scale('[-10,1,2,3,4,5,6,7,8,9]', 'int8', 'symmetric', 'method=percentile percentile=97.5');
SELECT q_scale('[0.5, -0.25, 3, 0.125, -2, 12]', 'int4', 'symmetric', 'method=mse'),
       q_zero_point('[0.5, -0.25, 3, 0.125, -2, 12]', 'uint4', 'affine', 'method=mse');
SELECT q_scale('[0.5, -0.25, 3]', 'int8', 'affine', 'method=minmax rounding=onnx');
SELECT quantize_blob('[-1, 0.5, 2, 3]', 0.015686275, 64, 'uint8');
SELECT quantize_blob('[1, -2, 0.5]', 0.5, 0), quantize_blob(X'0000803F000000C0', 1, 0);
SELECT quantize_blob('[1, -2, 300]', 0.25, 3, 'int8'), quantize_blob('[1, -2, 3]', 1, 0, 'int4');
SELECT quantize_blob('[1, -2, 3, 70000]', 0.5, -7, 'int16'), quantize_blob('[1, 2, 3e4]', 0.5, 7, 'uint16');
SELECT quantize_blob('[1, -2, 3.5e9]', 0.25, 5, 'int32'), quantize_blob('[1, 2, 3, 14]', 1, 1, 'uint4');
SELECT quantize_blob('[-3.7500002, 2.5, -0.5]', 0.3, 0, 'int8', 'rounding=torch'),
       quantize_blob('[-3.7500002, 2.5, -0.5]', 0.3, 0, 'int8', 'rounding=onnx');
SELECT quantize_blob('[-2, 2, 1.25]', 0.01, 0, 'int8', 'quant_min=-100 quant_max=100'),
       quantize_blob('[-2, 2, 1.25]', 0.01, 0, 'uint8', 'reduce_range=1');
SELECT quantize_blob('[]', 1, 0), quantize_blob(NULL, 1, 0), quantize_blob('[1]', 1, NULL);
SELECT dequantize_blob(X'0060BFFF', 0.015686275, 64, 'uint8'), dequantize_blob(X'01FE', 1, 0);
SELECT dequantize_blob(X'E103', 0.5, 0, 'int4', 3), dequantize_blob(X'E1', 2, 1, 'uint4');
SELECT dequantize_blob(X'0100FFFF', 0.125, 1, 'int16'), dequantize_blob(X'0100FFFF', 0.125, 1, 'uint16');
SELECT dequantize_blob(X'01000000FFFFFF7F', 0.5, -3, 'int32'), dequantize_blob(X'0180', 1.5, 0, 'int8');
SELECT q_json(dequantize_blob(X'0060BFFF', 0.015686275, 64, 'uint8'));
SELECT q_fake_quantize('[1.25, -0.3, 7]', 0.5, 0), q_fake_quantize('[1.25, -0.3, 7]', 0.5, 3, 'uint8');
SELECT q_fake_quantize('[1.25, -0.3, 7]', 0.5, 0, 'int4', 'rounding=onnx'),
       q_fake_quantize(q_f32('[1.25, -0.3, 7]'), 0.1, 0, 'int16', 'quant_min=-20 quant_max=20');
SELECT q_json(q_fake_quantize('[0.1, 0.2, 0.3, -1.7]', 0.05, 0));

-- ---------------------------------------------------------------- per channel
SELECT q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0),
       q_per_channel_zero_points('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0);
SELECT q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', -1, 'uint8'),
       q_per_channel_zero_points('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 1, 'uint8');
SELECT q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0, 'int8', 'symmetric'),
       q_per_channel_zero_points('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', -2, 'uint8', 'symmetric');
SELECT q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 1, 'int4', 'affine', 'reduce_range=1'),
       q_per_channel_zero_points('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 1, 'uint4', 'affine', 'quant_min=1 quant_max=14');
SELECT q_per_channel_scales('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 0, 'int8', 'affine', 'method=percentile percentile=90'),
       q_per_channel_zero_points('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 0, 'int8', 'affine', 'method=mse');
SELECT q_per_channel_scales(q_f32('[1,2,3,4,5,6,7,8]'), '[2,2,2]', 1, 'int16'),
       q_per_channel_zero_points(q_f32('[1,2,3,4,5,6,7,8]'), '[2,2,2]', 2, 'int32', 'symmetric');
SELECT q_json(q_per_channel_scales('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0)),
       q_json(q_per_channel_zero_points('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0), 'int32');
SELECT quantize_per_channel_blob('[[0.1,-0.2,0.3],[4,-8,2]]', '[0.0019607844,0.047058824]', '[-26,42]', '[2,3]', 0);
SELECT quantize_per_channel_blob('[[0,1,2],[3,4,5],[6,7,8]]', '[1,1,1]', '[0,1,2]', '[3,3]', 1, 'uint4'),
       quantize_per_channel_blob('[1,2,3]', '[1,1,1]', '[0,0,0]', '[3,1]', 0, 'int4');
SELECT quantize_per_channel_blob('[[1.5,-2],[3,4]]', q_f32('[0.5,0.25]'), X'0000000001000000', '[2,2]', -1, 'int16', 'rounding=onnx');
SELECT quantize_per_channel_blob('[[1.5,-2],[3,4]]', '[0.5,0.25]', '[0,1]', '[2,2]', 0, 'uint8', 'quant_min=0 quant_max=15');
SELECT dequantize_per_channel_blob(X'19807F7F8054', '[0.0019607844,0.047058824]', '[-26,42]', '[2,3]', 0);
SELECT dequantize_per_channel_blob(X'2103', '[1,1,1]', '[0,0,0]', '[3,1]', 0, 'int4'),
       dequantize_per_channel_blob(X'0300FBFF0C001000', '[0.5,0.25]', '[0,1]', '[2,2]', 1, 'int16');
SELECT q_json(dequantize_per_channel_blob(X'0102FF7F', '[0.5,1.5]', '[0,0]', '[2,2]', 1, 'uint8'));
SELECT q_fake_quantize_per_channel('[[0.1,-0.2,0.3],[4,-8,2]]', '[0.0019607844,0.047058824]', '[-26,42]', '[2,3]', 0),
       q_fake_quantize_per_channel('[[0.1,-0.2,0.3],[4,-8,2]]', '[0.01,0.1,1]', '[0,0,0]', '[2,3]', 1, 'int4');
SELECT q_fake_quantize_per_channel('[[0.1,-0.2,0.3],[4,-8,2]]', '[0.01,0.1,1]', '[0,0,0]', '[2,3]', -1, 'int8', 'rounding=onnx reduce_range=1');
SELECT channel, min, max, scale, zero_point, mse, sqnr_db FROM q_channels('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0);
SELECT * FROM q_channels('[[0,1,255],[0,2,255]]', '[2,3]', 0, 'uint8');
SELECT * FROM q_channels(q_f32('[[0.1,-0.2,0.3],[4,-8,2]]'), '[2,3]', -1, 'int8', 'symmetric');
SELECT * FROM q_channels('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 0, 'int4', 'affine', 'method=mse');
SELECT * FROM q_channels('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 1, 'uint8', 'affine', 'method=percentile percentile=99.9');

-- ---------------------------------------------------------------- per block
SELECT q_block_scales('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 1, 2),
       q_block_zero_points('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 1, 2);
SELECT q_block_scales('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 0, 2, 'uint8'),
       q_block_zero_points('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', -1, 3, 'uint8');
SELECT q_block_scales('[0.5,-0.25,3,0.125,-2]', '[5]', 0, 2, 'int4', 'symmetric'),
       q_block_zero_points('[0.5,-0.25,3,0.125,-2]', '[5]', 0, 2, 'uint4', 'symmetric');
SELECT q_block_scales('[0.5,-0.25,3,0.125,-2,9]', '[2,3]', -1, 2, 'int8', 'affine', 'method=mse'),
       q_block_zero_points('[0.5,-0.25,3,0.125,-2,9]', '[2,3]', 1, 4, 'int16', 'affine', 'reduce_range=1');
SELECT q_block_scales('[1,2,3,4,5,6,7,8,9,10,11,100]', '[12]', 0, 6, 'uint8', 'affine', 'method=percentile percentile=90');
SELECT q_json(q_block_scales('[0.5,-0.25,3,0.125,-2]', '[5]', 0, 2, 'int4', 'symmetric'));
SELECT quantize_per_block_blob('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[[1.5,2.5],[3,4.9],[5.1,6.9]]', '[[0,1],[1,0],[2,3]]', '[3,4]', 1, 2);
SELECT quantize_per_block_blob('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[[1.5,2.5],[3,4.9],[5.1,6.9]]', '[[0,1],[1,0],[2,3]]', '[3,4]', 1, 2, 'uint8'),
       quantize_per_block_blob('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[[1.5,2.5],[3,4.9],[5.1,6.9]]', '[[0,1],[1,0],[2,3]]', '[3,4]', 1, 2, 'uint8', 'rounding=onnx');
SELECT q_json(quantize_per_block_blob('[0.5,-0.25,3,0.125,-2]', '[0.25,0.5,1]', '[0,0,0]', '[5]', 0, 2, 'int4'), 'int4', 5),
       quantize_per_block_blob('[0.5,-0.25,3,0.125,-2]', '[0.25,0.5,1]', '[0,0,0]', '[5]', 0, 2, 'int16', 'quant_min=-4 quant_max=4');
SELECT dequantize_per_block_blob(X'040815030104010102060404', '[[1.5,2.5],[3,4.9],[5.1,6.9]]', '[[0,1],[1,0],[2,3]]', '[3,4]', 1, 2, 'uint8');
SELECT dequantize_per_block_blob(X'812707', '[1,2,0.6666667]', '[0,0,0]', '[5]', 0, 2, 'int4'),
       dequantize_per_block_blob(X'0102FEFF', '[0.5,0.25]', '[0,1]', '[2,2]', 0, 2);
SELECT q_fake_quantize_per_block('[0.5,-0.25,3,0.125,-2]', '[0.25,0.5,1]', '[0,0,0]', '[5]', 0, 2),
       q_fake_quantize_per_block('[0.5,-0.25,3,0.125,-2]', '[0.25,0.5,1]', '[0,0,0]', '[5]', 0, 2, 'int4');
SELECT q_fake_quantize_per_block('[0.5,-0.25,3,0.125,-2]', q_f32('[0.25,0.5,1]'), X'000000000100000002000000', '[5]', -1, 2, 'uint8', 'rounding=onnx');

-- ---------------------------------------------------------------- aggregates
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, NULL), (4, '[-0.75, 1e-1]'))
SELECT q_scale_agg(x), q_zero_point_agg(x) FROM t;
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'))
SELECT q_scale_agg(x, 'uint8'), q_zero_point_agg(x, 'int4'), q_scale_agg(x, 'int16', 'symmetric') FROM t;
WITH t(i, x) AS (VALUES (1, 0.5), (2, -1.25), (3, 2), (4, NULL), (5, 3.75))
SELECT q_scale_agg(x, 'int8', 'affine', 'quant_min=-100 quant_max=100'),
       q_zero_point_agg(x, 'uint8', 'affine', 'reduce_range=1') FROM t;
WITH t(g, x) AS (VALUES ('a', '[1,2]'), ('b', '[-3,0.5]'), ('a', '[0.25,-1]'), ('b', X'0000803F0000A040'))
SELECT g, q_scale_agg(x, 'int8', 'symmetric'), q_zero_point_agg(x, 'uint8', 'symmetric') FROM t GROUP BY g ORDER BY g;
WITH t(i, x) AS (VALUES (1, '[1,2,3,4,5]'), (2, '[6,7,8,9,100]'))
SELECT q_scale_agg(x, 'uint8', 'affine', 'method=percentile percentile=90'),
       q_zero_point_agg(x, 'int8', 'affine', 'method=mse') FROM t;
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'))
SELECT q_scale_agg(x, 'uint8', 'affine', 'observer=moving_average averaging_constant=0.3'),
       q_zero_point_agg(x, 'uint8', 'affine', 'observer=moving_average') FROM (SELECT x FROM t ORDER BY i);
WITH t(i, x) AS (VALUES (1, '[[1,2,3],[4,5,6]]'), (2, '[[-1,0.5,2],[0,-8,1]]'))
SELECT q_per_channel_scales_agg(x, '[2,3]', 0), q_per_channel_zero_points_agg(x, '[2,3]', 0) FROM t;
WITH t(i, x) AS (VALUES (1, '[[1,2,3],[4,5,6]]'), (2, '[[-1,0.5,2],[0,-8,1]]'), (3, NULL))
SELECT q_per_channel_scales_agg(x, '[2,3]', -1, 'uint8'),
       q_per_channel_zero_points_agg(x, '[2,3]', 1, 'int4', 'symmetric') FROM t;
WITH t(i, x) AS (VALUES (1, '[[1,2,3],[4,5,6]]'), (2, '[[-1,0.5,2],[0,-8,1]]'))
SELECT q_per_channel_scales_agg(x, '[2,3]', 1, 'int8', 'affine', 'method=percentile percentile=99.9'),
       q_per_channel_zero_points_agg(x, '[2,3]', 0, 'uint8', 'affine', 'method=mse') FROM t;
WITH t(i, x) AS (VALUES (1, '[[1,2,3],[4,5,6]]'), (2, '[[-1,0.5,2],[0,-8,1]]'))
SELECT q_per_channel_scales_agg(x, '[2,3]', 0, 'int8', 'symmetric', 'observer=moving_average averaging_constant=0.5'),
       q_per_channel_zero_points_agg(x, '[2,3]', 0, 'uint8', 'affine', 'observer=moving_average quant_min=0 quant_max=127')
FROM (SELECT x FROM t ORDER BY i);
SELECT hex(q_per_channel_scales_agg('[1,2]','[2]',0));
SELECT q_scale_agg('[1,2]');
SELECT q_scale_agg(x), q_per_channel_scales_agg(x, '[2]', 0) FROM (SELECT '[1,2]' AS x WHERE 0);
WITH t(a, b) AS (VALUES ('[1,2,3]', '[1,2,4]'), ('[0.5,-1.5]', '[0,0]'), (X'0000803F', '[1.25]'))
SELECT q_mse_agg(a, b), q_sqnr_agg(a, b) FROM t;
WITH t(g, a, b) AS (VALUES (1, '[1,2,3]', '[1,2,3]'), (2, '[6,8]', '[6,7]'), (2, '[0.1]', '[0.2]'))
SELECT g, q_mse_agg(a, b), q_sqnr_agg(a, b) FROM t GROUP BY g ORDER BY g;

-- ---------------------------------------------------------------- window functions
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'), (4, '[5, 0]'))
SELECT i, q_scale_agg(x) OVER w, q_zero_point_agg(x) OVER w FROM t
WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i;
WITH t(i, x) AS (VALUES (1, 0.5), (2, -1.25), (3, 2), (4, NULL), (5, 3.75), (6, -0.125))
SELECT i, q_scale_agg(x, 'uint8') OVER w, q_zero_point_agg(x, 'int8', 'symmetric', 'quant_min=-127 quant_max=127') OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY i;
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'), (3, '[[0,0.25],[7,1]]'))
SELECT i, q_per_channel_scales_agg(x, '[2,2]', 0) OVER w, q_per_channel_zero_points_agg(x, '[2,2]', -1, 'uint8') OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY i;
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'), (3, '[[0,0.25],[7,1]]'))
SELECT i, q_per_channel_scales_agg(x, '[2,2]', 1, 'int4', 'symmetric') OVER w
FROM t WINDOW w AS (ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) ORDER BY i;
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'))
SELECT i, q_scale_agg(x, 'uint8', 'affine', 'observer=moving_average averaging_constant=0.3') OVER (ORDER BY i),
       q_zero_point_agg(x, 'uint8', 'affine', 'observer=moving_average') OVER (ORDER BY i ROWS UNBOUNDED PRECEDING) FROM t ORDER BY i;
WITH t(i, x) AS (VALUES (1, '[1,2,3,4,5]'), (2, '[6,7,8,9,100]'), (3, '[-1,-2]'))
SELECT i, q_scale_agg(x, 'int8', 'affine', 'method=percentile percentile=99.9') OVER (ORDER BY i),
       q_zero_point_agg(x, 'int8', 'affine', 'method=mse') OVER (ORDER BY i) FROM t ORDER BY i;
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'))
SELECT i, q_per_channel_scales_agg(x, '[2,2]', 0, 'int8', 'affine', 'observer=moving_average averaging_constant=0.25') OVER (ORDER BY i),
       q_per_channel_zero_points_agg(x, '[2,2]', 1, 'int8', 'affine', 'method=percentile percentile=95') OVER (ORDER BY i)
FROM t ORDER BY i;
WITH t(g, i, x) AS (VALUES ('a', 1, 0.5), ('a', 2, -1.25), ('b', 1, 2), ('b', 2, 3.75), ('a', 3, 0.125))
SELECT g, i, q_scale_agg(x, 'int8', 'affine', 'observer=moving_average averaging_constant=0.5') OVER (PARTITION BY g ORDER BY i),
       q_zero_point_agg(x) OVER (PARTITION BY g) FROM t ORDER BY g, i;
-- a row that does not fit the shape, met while the window slides
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'), (3, '[1,2,3]'))
SELECT i, q_per_channel_scales_agg(x, '[2,2]', 0) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
-- sliding frames that cannot drop rows are errors
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'))
SELECT q_scale_agg(x, 'uint8', 'affine', 'observer=moving_average') OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
WITH t(i, x) AS (VALUES (1, '[1, -2.5]'), (2, '[0.25, 3]'), (3, '[-0.75, 1e-1]'))
SELECT q_zero_point_agg(x, 'int8', 'affine', 'method=percentile percentile=99.9') OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'), (3, '[[0,0.25],[7,1]]'))
SELECT q_per_channel_scales_agg(x, '[2,2]', 0, 'int8', 'affine', 'method=mse') OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;
WITH t(i, x) AS (VALUES (1, '[[1,2],[3,4]]'), (2, '[[-1,0.5],[2,-8]]'), (3, '[[0,0.25],[7,1]]'))
SELECT q_per_channel_zero_points_agg(x, '[2,2]', 1, 'uint8', 'affine', 'observer=moving_average') OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t;

-- ---------------------------------------------------------------- metrics
SELECT q_mse('[1,2,3]', '[1,2,4]'), q_sqnr('[1,2,3]', '[1,2,4]'), q_max_error('[1,2,3]', '[1,2,4]'), q_cosine('[1,2,3]', '[1,2,4]');
SELECT q_mse(q_f32('[0.5,-1.5]'), X'0000000000000000'), q_sqnr('[1,2,3]', '[1,2,3]'), q_sqnr('[0,0]', '[1,0]');
SELECT q_max_error('[0.25]', '[-0.5]'), q_cosine('[0,0]', '[1,2.5e-1]'), q_cosine(q_f32('[1,0]'), '[0,1]');

-- ---------------------------------------------------------------- q_compare
SELECT scheme, dtype, qscheme, granularity, block_size, method, bits_per_weight, bytes, mse, sqnr_db, max_error, cosine
FROM q_compare('[[0.5,-1.25,2,3.75],[-0.1,0.2,8,-4]]', '[2,4]');
SELECT * FROM q_compare(q_f32('[0.5,-1.25,2,3.75,-0.1,0.2]'), '[6]', 0, 'dtypes=int8+uint8+int4 schemes=symmetric blocks=none');
SELECT scheme, granularity, bytes, sqnr_db FROM q_compare(X'0000003F0000A0BF000000400000704000000000CDCC4C3E', '[3,2]', 1) WHERE dtype = 'int4';
SELECT scheme, mse FROM q_compare('[[0.5,-1.25,2,3.75],[-0.1,0.2,8,-4]]', '[2,4]', 1, 'dtypes=int4 blocks=2 methods=minmax+mse+percentile percentile=99.9');
SELECT scheme, bits_per_weight, bytes, max_error FROM q_compare('[[0.5,-1.25,2],[3.75,-0.1,0.2]]', '[2,3]', -1, 'dtypes=uint8 schemes=affine blocks=2 rounding=onnx reduce_range=1');

-- ---------------------------------------------------------------- wider tensors
-- 70 elements (from a recursive CTE; SQLite formats the numbers itself): long
-- enough for every vector loop and its tail.
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT q_scale(v), q_zero_point(v, 'uint8'), quantize_blob(v, 0.02, 3), q_json(q_fake_quantize(v, 0.1, 0, 'int4')) FROM x;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT q_per_channel_scales(v, '[7,10]', -1), q_per_channel_zero_points(v, '[7,10]', 0, 'uint8'),
       quantize_per_channel_blob(v, q_per_channel_scales(v, '[7,10]', 1, 'int16'), q_per_channel_zero_points(v, '[7,10]', 1, 'int16'), '[7,10]', 1, 'int16') FROM x;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT q_block_scales(v, '[70]', 0, 32, 'int4', 'symmetric'), q_block_zero_points(v, '[2,35]', 1, 16, 'uint4'),
       q_fake_quantize_per_block(v, q_block_scales(v, '[70]', 0, 32), q_block_zero_points(v, '[70]', 0, 32), '[70]', 0, 32) FROM x;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT q_f16(v), q_bf16(v), dequantize_blob(quantize_blob(v, 0.05, 0, 'uint4'), 0.05, 0, 'uint4', 70) FROM x;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT q_mse(v, q_fake_quantize(v, 0.1, 0)), q_sqnr(v, q_fake_quantize(v, 0.1, 0)), q_max_error(v, q_fake_quantize(v, 0.1, 0)),
       q_cosine(v, q_fake_quantize(v, 0.1, 0)), q_scale(v, 'int8', 'affine', 'method=mse'), q_scale(v, 'uint8', 'affine', 'method=percentile percentile=99.9') FROM x;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT c.* FROM x, q_channels(x.v, '[7,10]', 1, 'int8', 'affine', 'method=mse') AS c WHERE c.channel IN (0, 9);
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 69),
x(v) AS (SELECT json_group_array((i % 13) * 0.37 - 2.5 + i * 1e-3) FROM s)
SELECT c.scheme, c.bytes, c.mse, c.sqnr_db FROM x, q_compare(x.v, '[2,35]', 0, 'blocks=32 methods=minmax+mse') AS c;

-- ---------------------------------------------------------------- errors
SELECT quantize_blob('[1, 2]', 1, 0, 'int3');
SELECT dequantize_blob(X'0102', 1, 0, 'f16');
SELECT q_f32(X'000000');
SELECT q_f32('[1, 2');
SELECT q_scale('[1, 2]', 'int8', 'affine', 'observer=minmax');
SELECT q_scale(X'0000803F0000C07F');
SELECT quantize_blob('[1, 2]', 1, 300, 'uint8');
SELECT quantize_per_channel_blob('[[0.1,-0.2,0.3],[4,-8,2]]', '[0.5]', '[0,0]', '[2,3]', 0);
SELECT q_per_channel_scales('[1,2,3,4,5]', '[2,3]', 0);
SELECT q_block_scales('[1,2,3,4]', '[2,2]', 2, 2);
SELECT * FROM q_each(X'00', 'int4', 5);
SELECT * FROM q_channels('[1,2]', '[3]', 0);
SELECT * FROM q_compare('[1,2,3,4]', '[4]', 0, 'dtypes=int8+int3');
WITH t(x) AS (VALUES ('[1,2,3,4]'), ('[1,2,3]'))
SELECT q_per_channel_scales_agg(x, '[2,2]', 0) FROM t;
SELECT q_mse('[1,2,3]', '[1,2]');
SELECT q_f32('[1]', 'f99');
SELECT q_f32(X'000000', 'f64');
SELECT q_json(X'0000C07F');
SELECT q_json(X'0102', 'int4', 9);
SELECT q_f32('[1, "a"]');
SELECT q_f32('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]');
SELECT q_f32('[1e39]');
SELECT q_scale('[]');
SELECT q_scale('[1, 2]', 'int8', 'affine', 'method=percentile percentile=abc');
SELECT q_scale('[1, 2]', 'int8', 'affine', 'quant_min=5 quant_max=2');
SELECT q_scale('[1, 2]', 'int8', 'skewed');
SELECT quantize_blob('[1, 2]', 0, 0);
SELECT quantize_blob('[1, 2]', 1, 0, 'int8', 'rounding=up');
SELECT quantize_blob(X'0000C07F', 1, 0);
SELECT dequantize_blob(X'00', 1, 0, 'int4', 5);
SELECT dequantize_per_block_blob(X'0102', '[1]', '[0]', '[2]', 0, 0);
SELECT q_fake_quantize_per_channel('[1,2]', '[1,1]', '[0,0]', '[2]', 1);
SELECT * FROM q_each;
SELECT * FROM q_each(5);
SELECT * FROM q_channels('[1,2]', '[2]');
SELECT * FROM q_channels('[1,2,3,4]', '[2,2]', 0, 'int8', 'affine', 'observer=minmax');
SELECT * FROM q_compare('[1,2,3,4]');
SELECT * FROM q_compare('[1,2,3,4]', '[4]', 0, 'methods=minmax+kl');
SELECT * FROM q_compare(X'0000803F0000C07F', '[2]');
SELECT count(*) FROM q_each(NULL), q_channels(NULL, '[2]', 0);
WITH t(a, b) AS (VALUES ('[1,2]', '[1,2]'), ('[1,2]', '[1]'))
SELECT q_mse_agg(a, b) FROM t;
WITH t(a, b) AS (VALUES ('[1,2]', '[1,3]'), (NULL, '[1]'))
SELECT q_sqnr_agg(a, b), q_mse_agg(b, a) FROM t;
SELECT q_scale_agg(x, 'int8', 'affine', 'observer=ema') FROM (SELECT '[1,2]' AS x);
