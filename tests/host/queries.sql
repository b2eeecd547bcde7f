-- queries.sql: the catalog tests/host/sqlhost.c runs.
--
-- One statement per entry, each ending with ';' at the end of a line.  It
-- reaches every registered function at each of its arities, every dtype and
-- ggml block type, the aggregates, window frames and table-valued functions,
-- JSON with fractions and exponents, and errors.  The --oom mode runs each entry once per
-- allocation it makes, so the tensors stay small.  Nothing here may depend on
-- the machine (no q_info() kernel names): the transcript is compared byte for
-- byte across architectures and locales.

-- ---------------------------------------------------------------- tensors
SELECT q_f32('[0.5, 1.25, -2.5e-1]');
SELECT q_f32('[[1, 2], [3, 4.75]]'), q_f32('[1e2, 1E-2, 2.5e+1, -0, 0.0, -3.75]');
SELECT q_f32(X'0000803F000000C0', 'f32'), q_f32('[0.1, 0.3, 1.65]', 'f32');
SELECT q_f32(X'003C00C00038FF7B', 'f16'), q_f32(X'803F00C0CD3D', 'bf16');
-- stored dtypes of model files (docs/FORMATS.md#converting-to-float32)
SELECT hex(q_f32(X'7FFF0080', 'int8')), hex(q_f32(X'0102FFFE', 'int16be')), hex(q_f32(X'01000000000000FF', 'uint64'));
SELECT hex(q_f32(X'387E7F80', 'f8_e4m3fn')), hex(q_f32(X'3C7C7DFC', 'f8_e5m2')), hex(q_f32(X'00010280', 'bool'));
SELECT hex(q_f32(X'3FF000000000000047EFFFFFE0000000', 'f64be')), hex(q_f32(X'3F800000', 'f32be'));
SELECT hex(q_f32(q_ggml_quantize(q_f32('[0.5, -1, 2, 0.25, 3, -4, 1, 0, 0.5, -1, 2, 0.25, 3, -4, 1, 0, 0.5, -1, 2, 0.25, 3, -4, 1, 0, 0.5, -1, 2, 0.25, 3, -4, 1, 0]'), 'q4_0'), 'q4_0'));
SELECT q_f32(X'000102', 'int16');
SELECT q_f32(X'3FF000000000000047EFFFFFF0000000', 'f64be');
SELECT q_f32(X'00', 'int8be');
SELECT q_f32('[1]', 'uint8');
SELECT q_f32(X'000000000000F03F000000000000E0BF9A9999999999B93F', 'f64');
-- .npy BLOBs as float tensors (docs/NUMERICS.md#float-tensors)
SELECT hex(q_f32(X'934E554D5059010076007B276465736372273A20273C6638272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028332C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A000000000000F03F00000000000000C0000000000000E03F')), q_scale(X'934E554D5059010076007B276465736372273A20273C6632272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A003C00C0');
SELECT hex(quantize_blob(X'934E554D5059010076007B276465736372273A20273E6932272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028332C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0001FFFE0000', 0.5, 0)), q_json(X'934E554D5059010076007B276465736372273A20277C6231272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0100');
SELECT q_f32(X'934E554D5059010076007B276465736372273A20273C6638272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028312C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A1D4A9CF487820748');
SELECT q_f32(X'934E554D5059');
SELECT q_f32(X'547F537E10EDD33FAFE6B9D63B88D53F728360A2D8BBAA3F4DB0EF19CCEBD1BF4AC3E85E13B5D6BF6EB3E63D5B77BABF1619C01F691DCF3F185C7A9F916DD73F0AC7FE279784C33FC104BA8ACCC3C9BF423A184805AED7BF1DDEECF37E69C9BF5BD42C212CE6C33FAE971E1B2475D73FBE01329E31CCCE3F5AF3E8F72B45BBBF');
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
SELECT * FROM q_each_group(q_f32('[0.5, 2, 0.25]'), X'0100000080FFFFFF00000000');
-- rows packed into BLOBs, q_each's inverse (the buffer grows past 16 elements)
SELECT hex(q_f32_agg(value)) FROM (SELECT value FROM q_each(q_f32('[1.5, -2, 0.1, 1e-45, 3.4028235e38]')) ORDER BY i);
SELECT hex(q_f32_agg(v)), hex(q_int32_agg(v)) FROM (WITH RECURSIVE c(v) AS (SELECT -20 UNION ALL SELECT v + 1 FROM c WHERE v < 20) SELECT v FROM c);
SELECT hex(q_int32_agg(value)) FROM (SELECT value FROM q_each(X'FFFFFFFF00000080FFFFFF7F', 'int32') ORDER BY i);
SELECT q_f32_agg(v) IS NULL, q_int32_agg(v) IS NULL FROM (SELECT 1 AS v WHERE 0);
SELECT hex(q_f32_agg(v)) FROM (SELECT 1e999 AS v UNION ALL SELECT 16777217);
SELECT q_f32_agg(v) FROM (SELECT 1 AS v UNION ALL SELECT NULL UNION ALL SELECT 2);
SELECT q_f32_agg('1');
SELECT q_f32_agg(X'00');
SELECT q_f32_agg(1e39);
SELECT q_int32_agg(v) FROM (SELECT 1 AS v UNION ALL SELECT 2147483648);
SELECT q_int32_agg(2.0);
SELECT q_int32_agg(NULL);
SELECT * FROM q_each_group('[1]', X'0100000002000000');
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
SELECT quantize_blob('[1, -2, 500, 1e-3]', 0.5, 0, 'f8_e4m3fn'),
       quantize_blob('[1, -2, 500, 1e-3]', 0.5, 0, 'f8_e5m2', 'saturate=0'),
       q_fake_quantize('[1, -2, 500, 1e-3]', 2, 0, 'f8_e4m3fnuz', 'saturate=1 rounding=onnx');
SELECT quantize_blob('[1]', 1, 1, 'f8_e5m2fnuz'), quantize_blob('[1]', 1, 0, 'int8', 'saturate=0'),
       quantize_blob('[1]', 1, 0, 'f8_e5m2', 'quant_min=0');
SELECT dequantize_blob(X'387E7F81FF', 2, 0, 'f8_e4m3fn'), dequantize_blob(quantize_blob('[3, -1]', 0.5, 0, 'f8_e5m2'), 0.5, 0);
SELECT quantize_per_channel_blob('[1,2,3,4,5,6]', '[0.5,2]', '[0,0]', '[3,2]', 1, 'f8_e4m3fn', 'saturate=0'),
       dequantize_per_channel_blob(X'38404858', '[0.5,2]', '[0,0]', '[2,2]', 0, 'f8_e5m2'),
       q_fake_quantize_per_block('[1,2,3,4,5,6]', '[1,3]', '[0,0]', '[6]', 0, 4, 'f8_e4m3fn');
SELECT quantize_blob('[-3, -1.5, -0.5, 0.5, 1.5, 7]', 1, 0, 'int2', 'rounding=onnx'),
       quantize_blob('[-3, -1.5, -0.5, 0.5, 1.5, 7]', 1, 1, 'uint2'),
       dequantize_blob(X'E41B', 1, 0, 'uint2', 5), dequantize_blob(X'E41B', 1, 0, 'int2', 8);
SELECT quantize_per_block_blob('[1,2,3,4,5,6,7]', '[1,2]', '[0,-1]', '[7]', 0, 4, 'int2'),
       dequantize_per_block_blob(X'E41B', '[1,2,3,4]', '[0,1,2,3]', '[2,4]', 1, 2, 'uint2'),
       q_scale('[-1, 2, 0.5]', 'int2'), q_zero_point('[-1, 2, 0.5]', 'uint2', 'affine');
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
-- q_params, q_per_channel_params, q_block_params: q_scale and q_zero_point
-- (per channel, per block) from one calibration, at each arity.
SELECT * FROM q_params('[-1, 0.5, 2, 3]');
SELECT * FROM q_params('[-1, 0.5, 2, 3]', 'uint8');
SELECT * FROM q_params(q_f32('[-1, 0.5, 2, 3]'), 'int4', 'symmetric');
SELECT * FROM q_params('[1,2,3,4,5,6,7,8,9,100]', 'uint8', 'affine', 'method=histogram');
SELECT p.*, (SELECT count(*) FROM q_params(NULL)) FROM q_params('[-1, 0.5, 2, 3]', 'int8', 'log2') AS p;
SELECT * FROM q_params('[-1, 0.5, 2, 3]', 'uint8', 'log2');
SELECT * FROM q_params('[]');
SELECT * FROM q_per_channel_params('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 0);
SELECT * FROM q_per_channel_params('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', 1, 'uint8');
SELECT * FROM q_per_channel_params('[[0.1,-0.2,0.3],[4,-8,2]]', '[2,3]', -1, 'int16', 'symmetric');
SELECT * FROM q_per_channel_params('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 0, 'int4', 'affine', 'method=mse');
SELECT * FROM q_per_channel_params('[1,2,3]', '[2]', 0);
SELECT * FROM q_block_params('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 1, 2);
SELECT * FROM q_block_params('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 0, 2, 'uint8');
SELECT * FROM q_block_params('[0.5,-0.25,3,0.125,-2]', '[5]', 0, 2, 'int4', 'symmetric');
SELECT * FROM q_block_params('[[6,12,50,5],[1,8,4,5],[0,20,10,4]]', '[3,4]', 1, 2, 'int8', 'affine', 'method=entropy');
SELECT * FROM q_block_params('[1,2]', '[2]', 0, 0);

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

-- ---------------------------------------------------------------- ggml block formats
-- Each type: q_ggml_quantize at 2, 3 and 4 arguments (one row without a
-- shape, [2,cols] rows with it, importance weights as JSON or as a float32
-- BLOB) and q_ggml_dequantize at 2 and 3 arguments of the blocks (q4_0: the
-- third as a count and as a shape).  x is two
-- rows of Gaussian values stored as float16 (as model weights are; their
-- scale changes every 16 values, a few are outliers); the weights are
-- multiples of 1/8, some 0.  A BLOB literal costs one allocation where
-- generating the values in SQL costs hundreds, and --oom repeats each entry
-- once per allocation.  BLOBs print as hex, so a byte that differs between
-- hosts shows.
WITH d(v, u) AS (SELECT q_f32(X'2922A4219F1C2CA51121B4A2101D14249B9C6F1C2D28429DC7202FB1569C2C1FD33736B7D03AF13A56382BB6BCBB7EB560B452B69C3EDB370EB542B0243BAE340D9367218694AE214020F5A1BB23F49D6C207C96E798F72188990E15181C86233DB93936A1309D36F739EBBA9B2EE9393631BAB9DE2EB6B788BA0E37F03053B4B025F62003270FA241A82E251A9E9820A6A0F61FE59E1CA333A7AAA0761E5DA591B7BA27D4BB00B60B35703B9EAC48388FB3BF2A283507BA06AA3534F6372C35E5A4BC1D68219496259FB6A23FA3B69932A8BE9E8CA69BA7009F2D9B20B06C19A9983CAD38B477384DA543B50B314DB0AF288834ADB796BA12B0D7360638E535', 'f16'),
  '[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25]')
SELECT q_ggml_quantize(v, 'Q4_0'), q_ggml_quantize(v, 'q4_0', '[2,64]'), q_ggml_quantize(v, 'q4_0', '[2,64]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_0', '[2,64]'), 'Q4_0'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_0', '[2,64]', u), 'q4_0', 128),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_0', '[2,64]', u), 'q4_0', '[2,64]') FROM d;
WITH d(v, u) AS (SELECT q_f32(X'969BB3A6A9A10EA06D200997C12251260C2538230417B220859C2CADECA4E09FCAB952BAD23505B5D4B6782F9D3D0F3424357A385C3011B8E3360FB42EACE7390AA02B25D121011E83A1B5221C24FD9729A09B25ED1A4424339A6024321A49A5E63816B57636AE3869383A3B3DB846B50D39ED3509B201B87FB0B4BBAAB1AFBCB226A4A5BF16D9A4E315F8194524D71DB5253AA008A22F28C29A2EAAB427A3244A372CB666362ABB252E52B0B8B5223D812A02B7792749B3D435442A4738BC32AC8EEC19D2195EA44022B522FB9A63A58E9E5E1CB8A8B0A2FAA3C2A005B086A48C381C3C933617A4F1B4AB319528B6387BB92B3DA135DCB77BB947B789B4B335', 'f16'),
  q_f32('[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25]'))
SELECT q_ggml_quantize(v, 'q4_1'), q_ggml_quantize(v, 'q4_1', '[2,64]'), q_ggml_quantize(v, 'q4_1', '[2,64]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_1', '[2,64]'), 'q4_1'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_1', '[2,64]', u), 'q4_1', 128) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'FB1AE3A131993822A4191595D92297A5A9271C20EB2212A309A3022C1C236FA48835283901321FB65CA29EB475B5822B75292B3750372F3C75BA2E34DA3713AE499E739CD8254B9D7327B0A446281AA4B320602097A013258228CE20B192E22830321D3B753A0BB5DE36193BD7B484346BB02132CBBACAAC13B86EAB9C344C33F69F9C9C071FC3A0460FB81DA12345A1601AC5A4131F04A4E11CE21EEE9D46225ABC60BCC3B692B27028F33650385EAE5E34FEB41033A22B8FB34A380CB9D134D9215325EE9CF729EA0516A53F23CE9E96A3A821BF243BA253A23928B5AD0CA0A6B9462E523A82382122642F03B2BD361FAD7A3101B43F37133745337F3400BC', 'f16'),
  '[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25]')
SELECT q_ggml_quantize(v, 'Q5_0'), q_ggml_quantize(v, 'q5_0', '[2,64]'), q_ggml_quantize(v, 'q5_0', '[2,64]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_0', '[2,64]'), 'Q5_0'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_0', '[2,64]', u), 'q5_0', 128) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'239AB71C4C9896A5349D2AA48F29571DDF995FA4331BEC20BF2889331A22DBA0B83602BAD3BBE4AD4AB76736132A73B5893746A9F4B5723992BA073762B110325C9C759B582417218F223C1FE02425A4CB981D209AA7652164A5DDA4598AFCA2DB3462B0263DBBAE35B9CF3696B8D5B95D36FAB381BE93BCB3B3D929483487AA0B1492A4569E06A222A2579D101A3426B618801A1BA06D974C95CF196AA1F31F88BC41B32C3AC5322FB672B850B025B7C8391B3504ACCD2C76BA8A33CD3981350F288EA0CF991EA8C9251B1549A07528AB98E8A19B27A51AD91335A57FAA2A281DBD41BA3F34163877B1CE2CC635F1376C394D3818A646BB852F3AB4DC3B8E32', 'f16'),
  q_f32('[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25]'))
SELECT q_ggml_quantize(v, 'q5_1'), q_ggml_quantize(v, 'q5_1', '[2,64]'), q_ggml_quantize(v, 'q5_1', '[2,64]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_1', '[2,64]'), 'q5_1'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_1', '[2,64]', u), 'q5_1', 128) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'4814C7A56025032260A6D1A502A317A08DA05D00BD24F9211B1F34A923A4A5A05AB92A39EFB4B53465BA933C351E90BA2CB8E7B90A34773D5B3C0BB50CA31DB090A453232CA087139AA0BC244322859F2BA7631E629DD61EC5A03E2271A5349E3E2616A6CF2566B17738FDB2AFB5EEA6079AF5B6B838B63109362DB7A7B0CEB3AB1987A00624BE9904A5BB20B8A45FA7101D37A0262510A0A0A59924EA210CA0263A5336D7B43734FFB71C3296B20EB803B168B9E6365AB8B9B71B3606363D3AA4A0E7A4419DF30D19A1EBA4B19C731E1C2314A41524CE20C594E39D65290D9C59374E3A64B0A5B7D9B13033CEB614393E35593632B514B586B87CB24B2F17A1', 'f16'),
  '[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25]')
SELECT q_ggml_quantize(v, 'Q8_0'), q_ggml_quantize(v, 'q8_0', '[2,64]'), q_ggml_quantize(v, 'q8_0', '[2,64]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q8_0', '[2,64]'), 'Q8_0'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q8_0', '[2,64]', u), 'q8_0', 128) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'981F0C9E1926029FD21C28A8B423FC2366A1FA24A3232B248E27692BECA542246829FFB8283B7AB730A1162CE03404360832A3BABC39CDA6C931ED335EB6CB3560A41A280215B29630209A287AA3E69CB89835A0B4A4A220929E001D3123D32703B59E3E43BCD12889B804391DACAA3158B27D2D3D38D1392237D13937299A3C441BF412FAA456A1D69E4C23FC9D1A223528DC9AAEA38221B797B921D421152436384C35DA2E30B9D636572443BA48B049B0D4B52F3546BC8C2846B6AA333F979A2685242F9ECCA26D27539A4698F120DFA02EA2B0A57E1CD11C201FF4329C219FB69FB84239A232DCB594A97E330330672DBA340DB8CE2EDEB5333B1E393EB57D1D5F25922032A280A5D5A4A1A1A627E8A6CE9F8C9F3C22711F4024DD9F1BA0B32C5A2EDF37CCB77E28043628360EB065389F383F312E3DF4382F2C81BB38ABAB9BD724CB20F3A00CA9A22379260D1BC19C581C39245422CF24DAA1DE1F748E60BBF737A0B9CFBCF4B4302CD528163057BB4CB32139599BD7B239B177B4F7AC311C59261919002091251CA56515CBA4E1A5B6187EA3D6A5E91BCE1B5D12D82F4A3A2A2582B997BB753E78B72B2FC73543AD6838E7354B34463097B334357C3ADD9DAB26AEA85DA3B923AB1F58A4BE1DB8A9271B5324A29ACBA682A8EC25992457B69FB46F2F643599311BB1B429F523DC3B81B57834B5BA5C35D2B5562A4538A690241CAA9C6A246F9D4F2425A02D9D0AA5A0209922DA2085A20F15550ED714F53977BC9035A833B9B43FB865B602B4DCB7633A2D394627DAB8D8B7293D1837D31BB024999D9DA28AA2B524B0128AA34A9D8423A119D7A46528C3A0789E329CBFC30139C5378FB1F930E1379E351A3A02B92E3A0D3A9634B734E5B6D0B9DD370BA5C21CFB1F96A40B8FB2A31A276B9B90A4E22583A85025E49ECB1F5F9B7226E43B2B31353901B721BAD531F72CCDB137B12EB163B502B59331CCB7FF2CBDB6861B230BEA24732343A78AA05E9579183F255B8B4C987A23FA262B1D76A1C618923295389B2FD5329F2A44BDAEB443B826B58CB7BD3BF5B850B889AAE6310038159DA7A65B21ACA7C32714A4E520669A9728511A4E22C315BEA638202324749FD4B82C3511B44438BF2B1A27BEB4C133FAB6D63A613240B9412D39B046318C3089196BA5879F07A2BBA09921D52649991F9F03A4AB22911C6194F7A119A40023732B5534E7B46B286A3461B8BB36A3A9242EE6349FB63139BC3346BCCAB0333484A6369E1CA4321E6F25641E5D0D9326F21C33A1019BE1962824652162A415A971373BBDC3B851B929B7FE326A347F36EF378629DBB812AC302C1EAD60232634529233A037A4529BE9A427A4A71DBA25A71DB226A4A40EA44CA960A610A8360170B4ED355BC151B4B3B15A3A4336CB383F38993496B90732DA2E3AB7B637D331', 'f16'),
  '[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1]')
SELECT q_ggml_quantize(v, 'q2_k'), q_ggml_quantize(v, 'q2_K', '[2,256]'), q_ggml_quantize(v, 'q2_K', '[2,256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q2_K', '[2,256]'), 'q2_k'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q2_K', '[2,256]', u), 'q2_K', 512) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'4824EB25A19D6324BB190B1AC71EF09A55A5071AF91D1224AC234CB67A226EA3B9B3A2BA12AED3B17C3A3EB99DB92D3905BB9FB62428EFB2393029B384336C3011A117251214452328A4019667A8CEA0ECA49AA3DF9FD22484A4F61FD321AC9D3DB3B539A8B062AF9234D0309C35F8342CB974B869B38D342BB494B7C6BBEDA6A920BD241E2656A31C25D11C5817DEA26820A6A533A405A0238E5EA0D29FDE1DB0342131C1B3893AABB89C3654B7403C343CB5AC7BB832BAEEAD18B03BB7F5B29CA8E2A0E69C0CA2EC1CE1A25B26E999BC232C13EE9DEB227FA2722008B0B71C583717B412B3563946B75035DEB869B97833F5AF22B1A434193C8639292FE5AC8123C8998E23611803277A24A82305209020F7200DA2202198949113BD9CD5A58F2AEC9D5DB5DA33083BE32DB2BA78B947366AB78D303FAF3937753A3338CC383C9D7320C19DC31C8EA6951D7918A01B2820E0A495A2F79B2197C81D83A3951FBD3555B8B03A1538F32C993790B6483C18B8582EB13876914CBB413AEA388437F1A1A820AA204CA0511675AA3725649C531D5C21F325B7A82D19071FF6A45E3184BC59B795391E34D92E82B2073C44BAEA311BB5E831C932A838E32F173710A96AA77B85F926B322DD1E1A9EB89FA5A013A1F3A5391D8484F4A1EF9E281E5CA0E7B7D4B723B557B48E3A74AD7A331FB900365AAA67241F2E31B2F6B56B200EBADF2003A42F9962A18D25762120114E9DD7A51D263B8D791F2AA48B1DD89CF69D0E3B1F31E33699B011BDB1B2C4B750BAEA37A3B4EBB4BD3720B80F38BCB1593A6D8CE424DDA0439D361620A002A26F200F270B885EA4C7244D20959F382023223945862ECC330FB77F34A6AF6DB9CD2B5731AE38AF2D02B532BA703469B85FB72A23B32484A1FDA4F49924A4A719C1204C25CEA1B897E524FC16680C3CA51198073392BAA1B257376FB5D9B847A266B54AB1ADAF9B39802C4D367ABB583B47B60922E19C3C20849C70A5309D79228DA3189789A05E9BBC2A5721D8A716A60821C92F6131913444359EB4F2B01FBB32B42B36A12DC383C9361B3D933675AE173B79221F91D7A5DFA34207179783A5B3A405257F2661A752A194208D1CE5A0DA18DB37774096B2322F9F33A5384833733BEFB19337D42DBCB6FA2BA9368EACD1312AA48913C59534A521A6C898C425F527FD1B60A200215C2092292DA1F7A0841CB0B8F035233484A95B346BB79BB36B32B2345E3439B430311C2F49B200371A34C311119CFD99E9A20A9A871BF024152481A17324329DAD9CB5A0791F0AA66E23223996B9F8B3BDB98E365EB2A9A3C53A6B3BACB54FAE0CB59A3916332739F0BCFB23D29BB01E89287E24BE1A8C96D515F6A4C29E9428EB20B32266A39C1F9BA55DBDCFB1A0C76433B8B7CA2F5C34F1AE3A355D360B35001E3636A0B155321131', 'f16'),
  q_f32('[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1]'))
SELECT q_ggml_quantize(v, 'Q3_K'), q_ggml_quantize(v, 'q3_K', '[2,256]'), q_ggml_quantize(v, 'q3_K', '[2,256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q3_K', '[2,256]'), 'Q3_K'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q3_K', '[2,256]', u), 'q3_K', 512) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'F61A2926E91B57A2D4963891C997C8A479A53BA089970B9A2C1DCB29F4178E2650AA2934A53B1C32EABAEF309B2764B12C357AB4AF3BDD3995226BB1A9390BB5E425659F3DA0E8955F251CA051223EA4FAA6BC9F01225F2265A842A1C7A1229465B797287AB05CAEF5AC55B5D52EB0BA3AB27B3232B8019E19BB903079B733B4E923E62351A0701BF02112A5761AC725A724AEA27FA0BF22D11EB421C725A8A26636DBB034BBD23390B3FF38B2B9423173BB46B98AB2993446BB2938ED29D42428A4102148A1B21CFBA49D29CEA571A426269621E421E22214243824692D8016A93A45B507BA6A332734A7B4DDB63C3CB535DDAA81306EB503BBFC2F42B537B4C125999FA117F194DCA3492413A2D99FF69C2EA35E247520F01BAB1FFA9EB399B1B46BABA8335BA69BBC5FB54DAD581A7B994C375937E235EC35852F44AF0E3855A6B8986089D31A5412EA207111001876274724D7A0F096362399A17A205F1F883333B14A369FB15C3770A7513C453904B8A9379D340D28533B93352B3D11B2400D7B24B21BB71E88A5D99DFE1450A217239F23C9021428BCA0F19C42A774302CB97034AE3B04A82A36F93822AE73B76632EBB2E1B92FB93D3C22B31534633938A3BBA44B2501A11B200AA62AA4BEA37127019A9C9C82A270252BA3C213CA109139D9BAFBB1903AC6B5B733C727A13426B4A4B9F5347130A6B7D731F9AB5FA6D423F422BB17B617539125257B164B97D49E3F25FB27628E6C22A3A469261721623B63A97B3315385537DD2E6338CFB0FD338A3B27B190B909B9C63693B884B5DDA56D9B2EA3DE21D22677227DA9C2260BA24520769DE124D523C39CC520B4986DB8472F8135F6B41DB6F7B436B99330883ABCB68AB5C7A8883230326132ECB8EFA3DFA21AA49A1B4DA0A9A2DDA2A6A081A02E98D51FAC9E4D283EA9FDA652A55BB844B805B6BE3554B1092CD3B11B33BCAFD330ACB6E3B874B153A422BCA534601EF41A781D28258DA31F1465206E9AB19D8DA274A0F52481A93B252F20E0A638B583B437B7212B4DB3563DD3B606AEC7B090A0AAB326B00DBC6CB04531CF392095AC2107A024A46B248015A724BEA7132B51244CA2C1A649A5139B52A5E49EDA32D54483AA88B8AD3A27B6FA2C31B7EF3793B97C2B462F24AA53B68D32173594A572A551A8819A6AA29F21F120C194D0196524CD9FDB9F8B9D31A4F9142320ED3144B0C435CC346C3D9C2C4238D4BC3CBA2C378EACAE38BA9D10352BB397B1B4A01521EE21349946A2DAA008A2E02580A0F49E95A67299509EC5A13BA9A920B334A23423B017B4FB347E364DB83DBCD6343DB5B2B42CBCA51C0F35742888B0CBA61B014825F724FA213022FE9582A8431B571EFE1DA326F816AD24699AE0A02636C23451C3CFB231321036669FE7B8E8B5BDBAF1B96B213530C33776B1C8BA', 'f16'),
  '[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1]')
SELECT q_ggml_quantize(v, 'q4_k'), q_ggml_quantize(v, 'q4_K', '[2,256]'), q_ggml_quantize(v, 'q4_K', '[2,256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_K', '[2,256]'), 'q4_k'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_K', '[2,256]', u), 'q4_K', 512) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'55A26AA855A0E0234EA6CB98B3A2441C0822C4A089A14698302270AC3F1C0D9FEFB47E368EB188B2B6B2BE3BA0B88436CEBAE5B4D7B84B32E23A32B6A13927B949A4A724061738A69F9C10291324AE9C2F24BFA2B825BF999EA3302659208123B7B67B3BC92CCF3BAA34F938653522BB5E3A11B818A5A134C8B04E3564B46237E6A3542856229BA42B22CC0D3A2750A0939E341903253AA7EAA44C9CD2A874977DBD4C2EC13661AAF7285BB66D302438AB358F396C30923B973985BA98BB7AB2ADA0E1A4CD2123A4CBA81DA6B5A07C2069202C9F0D9C1F9376A6FFA5BFA75C235BB81039F4353DB6B93416BAA4B5D2B24433A4B7D1B9D03299B0E12BB33820301C247D274D17019C0D17F4221B2526A0FF9856A1E224EF25512863A476A562A489ABC8337A35C5B7B32D75AB0AB6342F262B54B9E433913A9038BC340EA88834C6A352A2FB9F2D9CEF2625A789248BA28719C8A5F5A3EC9F30A2909EA62680A28E2CF2AD2DAD94B49C3315B876BC3A316BA81E35DFB58239EE3838380B355FB50824CC1FF5A4B01EB8A6A19A6BA5C226EE20BA1E0DA51D2529A24DA5EB21D2AB5DB02F318EB1AA2AED3BECABA4B52A3C60338D3A05B4F136E82F23B54D35763619210427A021BD220D1EF2244623D0A4339EDF16342236233E20C621AE2489A9F3AECEB4062EEAB75CBA8526A538C5AEBE3B6F9E1DBBC5B2F3B605AF0BBA20378022CA236CA8E1A46B25A99B20A409A51AA3E3A4F1A812A1EA26589FF01C28A565B52AB0FBBC2B356A30342AFC31B72D45AFF3BAE0B8CF37123A6BB86A368C26CC1E169735267EA253A15425BCA270257027EFA43C1809A57EA4778FADA6EFA2E346F230A4399536E52A4E2823B528B567B706329738982712B1483CE937B135702159A333229E163E267F2169238C2478A052259EA6F1A11D22CEA460A9B9A4C134FC34B53540B442BA7735AB3A7FB80723C63489ADE1B575301A3A8E3C03B4A0A5C9A314A46D242422F59DC925A4A8699DF424BC244922929B1925871C34A92134A3B86D34A3AC202AF836E939EB31BFB373BADF223EA7D2BDB2B499B471B99EA4121C2E94881B0D2708A18921A7A4AF25CA27AD219B1D0E192BA6A296B6224F3C263D5CB171BD40AC9436BD3010B5903A7832D7214EBC23BC0BAA85352B34A79D9499D79E6727BCA6E41A6D1C8D20901E7B22CF158A22DA22872718A27021DAAB92B168B5C5B6C4303436E1B7703B7434F6B4653832299D3AABAD46344FBC49A99D1F30185A92A4A14922E01A27A373A404956315F7A103A6E5212A2186162BB8803578BA0ABA0136C0360C2CFEB14D307F39C1B3CCB6A4393ABCB334D9AD4525A898F91C86A920A4A820C123221CD49D0124901BA220B5181120E70D14230BB75D3922BED534BAAFF3340AB2C83918B156B9873C2FB40F3B0138B3B785B1', 'f16'),
  q_f32('[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1]'))
SELECT q_ggml_quantize(v, 'Q5_k'), q_ggml_quantize(v, 'q5_K', '[2,256]'), q_ggml_quantize(v, 'q5_K', '[2,256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_K', '[2,256]'), 'Q5_k'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_K', '[2,256]', u), 'q5_K', 512) FROM d;
WITH d(v, u) AS (SELECT q_f32(X'9FA0EB1DA51C92A44A23892417A4EE13D6200AA556202E9A529BDEB16D268F1B7C364FBA24B435B91FB96D30C83CB839A0B419B9FFB97BB6C7333F3C8FAADE33EC284824B116BD9EBAA8FA1ACE1159A4572066A14219012793271EA7CFA03025A93DACBAA433C8B16AB403B90FB42BB502BC7A34ADB109BBDA38EEB6D42D3F3095224824E9A4FE993216339B83A5051CD6A62AA809892E1F459F9C25812041A42129563962B7433BCF2A77AF043B4AB6D234033A9138B136D330D8B4F6B474B829A6AD1B5F1393279E257CA2F527649E27A020A23694E5A4D52022220A1DD1A29A3AEB9D94334233053A0E39882ED6B602321A20E9B2CD382FBC7CB91F2A58B47B1BD914EE25CE20D6A1C3A7731D0C1FD2A16C983D25CBA461228E2979206E20C53CA5333D3BD9329D387F395CB4BC332EB6B7B594B405300E3501BCF2AF85331E2413A3A19F30A2DE21AAA1191E782341A82C1EFBA19A9D6C18169AB0A0AC224D3558381AB31FB76E368DBAA53685BC25B9D1B8582FC22B60B5263458B8C337F226409C1AA6C522EE22ED211F907D22DFA1E09405A8EFA0FBA8B5908EA434AE30B480378CB3C0BAF9B67DB45B360F35BFAFF3B832B6003424305D32F3360E31C320202530A4DAA6EA26E0A172A3651C20207E1F9AA1E5A02120ECA275A7B2A32335E2B91335C2B931B4B4B7D0B1593A043C12B02936CA3843B352AC2BAF6AB99B12A39D9195A71DCCA05A20601AF49AC491C8110CA039A5D29B6B9E662160A4DE3AD8362433DB30F33762B92AB0FAACD9B7DABD74B436320CAFEF3152ACF130ADA2E991A716FD9C001F97A1E8A3BA21561E9995D62170261D1A9D9DC8A3CF1D1046BB3076B08D37A1B4D63476B0B6B19A3443BA5C323835ACB89DA2B0AC5DB9DA18E1949B1A0A240DA4739F4E2601A3742797A67499AE21D59DC02418A0D895A19E8AA9333357B601BA65AD1FA947BA05289B3AE13889B83BB79F38CCB6A2B1E49B309FAA9E55205C1FB0A4BB9458A051A089A07F264B894F270A1E85A74926222C85301E2A4634D8B59FAED1ADB434EC38D438A5BCB3393B3B86379BBA0EB0CA150E1AE9A59A9985A3DC2116A363163AA05D9EDA94F3A507A2D6238DA278267F31444071B4CE3B94367FB18BBBB5B807AAB1384036CD31CF312FB408B574B68909DB994BA661A370188314E99EC11B06A0E0A3ECA42C9D7B22FD9C1523E61C6CB604B8D9B4EFB2E6308333B1352A30D9B5B4355228BBBBAB3AD9373AB83FBAA69D8F9D39992FA66A16CEA15B14D699A49D2EA56522DB192C24DAA351901520B1BA35BC1D3CAAB2273721B2D333E830C0BDE32CDFB6A89864B1BB29363B2B3089086D264A2749A50326E7A4781BE4156F201F9EE79050A44A1EE4A24D1A8A279F32FA371DC4A6ADB0A516305535A8392AB38737A6BBC5B715B413BA84B87EB4', 'f16'),
  q_f32('[0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1,0.125,0.625,1.125,0.25,0.75,1.25,0.375,0.875,0,0.5,1]'))
SELECT q_ggml_quantize(v, 'q6_K'), q_ggml_quantize(v, 'q6_K', '[2,256]'), q_ggml_quantize(v, 'q6_K', '[2,256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q6_K', '[2,256]'), 'q6_K'),
       q_ggml_dequantize(q_ggml_quantize(v, 'q6_K', '[2,256]', u), 'q6_K', 512) FROM d;
-- The iq types: two rows of 256 (iq4_nl: rows of 32 too), without
-- importance, with it, with all-zero importance and with 'none' (ggml's
-- quantize_<type>(x, .., NULL)); the iq3 quantizers build their lattice on
-- first use (an allocation outside SQLite's, once per process).
WITH d(v, u) AS (SELECT json_group_array((key * 37 % 101 - 50) / 17.0), q_f32(json_group_array(1 + key % 5)) FROM json_each('[' || replace(hex(zeroblob(511)), '00', '0,') || '0]'))
SELECT hex(q_ggml_quantize(v, 'iq3_xxs', '[2,256]')), hex(q_ggml_quantize(v, 'IQ3_S', '[2,256]', substr(u, 1, 1024))),
       hex(q_ggml_quantize(v, 'iq4_xs', '[2,256]', 'none')), hex(q_ggml_quantize(v, 'iq4_nl', '[16,32]')),
       hex(q_ggml_quantize(v, 'iq4_nl', '[16,32]', 'none')), hex(q_ggml_quantize(v, 'iq4_nl', '[2,256]', zeroblob(1024))),
       hex(q_ggml_dequantize(q_ggml_quantize(v, 'iq3_s'), 'iq3_s')), hex(q_ggml_dequantize(q_ggml_quantize(v, 'iq3_xxs'), 'iq3_xxs', 512)),
       hex(q_ggml_dequantize(q_ggml_quantize(v, 'iq4_xs'), 'iq4_xs', '[2,256]')), hex(q_ggml_dequantize(q_ggml_quantize(v, 'iq4_nl'), 'iq4_nl')) FROM d;
SELECT q_ggml_quantize(zeroblob(1024), 'iq3_xxs', '[256]', 'nothing');
SELECT q_ggml_dequantize(zeroblob(97), 'iq3_xxs');
-- The lattice types (iq2_xxs, iq2_xs, iq1_s only with importance; iq2_s
-- both ways): one super-block of 256 values and its importance, quantized and
-- read back; the first call of each builds its grid's search index (static
-- storage, no allocation).
WITH d(v, u) AS (SELECT q_f32(json_group_array(((key * 37) % 101 - 50) * 0.02 * (1 + key % 5))),
                        q_f32(json_group_array(0.25 * (key % 7))) FROM json_each('[' || replace(hex(zeroblob(255)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'iq2_xxs', '[256]', u), q_ggml_quantize(v, 'IQ2_XS', '[256]', u),
       q_ggml_quantize(v, 'iq1_s', '[1,256]', u), q_ggml_quantize(v, 'iq2_s'), q_ggml_quantize(v, 'iq2_s', '[256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'iq2_xxs', '[256]', u), 'iq2_xxs'),
       q_ggml_dequantize(q_ggml_quantize(v, 'iq1_s', '[256]', u), 'iq1_s', 256),
       q_ggml_dequantize(q_ggml_quantize(v, 'iq2_s'), 'iq2_s', '[1,256]') FROM d;
-- iq1_m, with importance or without (iq1_s's grid and index).
WITH d(v, u) AS (SELECT q_f32(json_group_array(((key * 37) % 101 - 50) * 0.02 * (1 + key % 5))),
                        q_f32(json_group_array(0.25 * (key % 7))) FROM json_each('[' || replace(hex(zeroblob(255)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'iq1_m'), q_ggml_quantize(v, 'IQ1_M', '[256]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'iq1_m', '[1,256]', u), 'iq1_m', 256) FROM d;
-- Hard blocks: one row of seven blocks, through every type of the family:
-- all zero, subnormal (1/d is infinite), tiny (the fp16 scale rounds to 0),
-- near FLT_MAX of both signs (sums of squares overflow), constant, one spike
-- among small values, ties (halves); quantized without weights, with weights
-- (every fourth 0) and with all-zero weights, and the reference blocks read
-- back.
WITH d(v, u) AS (SELECT json_group_array(CASE key / 32 WHEN 0 THEN 0 WHEN 1 THEN (key % 7 - 3) * 1e-42 WHEN 2 THEN (key % 9 - 4) * 1e-9
  WHEN 3 THEN (key % 5 - 2) * 1.7e38 WHEN 4 THEN 1.5 WHEN 5 THEN CASE key % 32 WHEN 5 THEN 1000 ELSE (key % 3 - 1) * 1e-3 END
  ELSE (key % 8 - 4) * 0.5 END),
                        json_group_array(CASE WHEN key % 4 = 0 THEN 0 ELSE 1 + key % 3 END) FROM json_each('[' || replace(hex(zeroblob(223)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'q4_0'), q_ggml_quantize(v, 'q4_0', '[224]', u), q_ggml_quantize(v, 'q4_0', '[224]', zeroblob(896)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_0'), 'q4_0'),
       q_ggml_quantize(v, 'q4_1'), q_ggml_quantize(v, 'q4_1', '[224]', u), q_ggml_quantize(v, 'q4_1', '[224]', zeroblob(896)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_1'), 'q4_1'),
       q_ggml_quantize(v, 'q5_0'), q_ggml_quantize(v, 'q5_0', '[224]', u), q_ggml_quantize(v, 'q5_0', '[224]', zeroblob(896)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_0'), 'q5_0'),
       q_ggml_quantize(v, 'q5_1'), q_ggml_quantize(v, 'q5_1', '[224]', u), q_ggml_quantize(v, 'q5_1', '[224]', zeroblob(896)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_1'), 'q5_1'),
       q_ggml_quantize(v, 'q8_0'), q_ggml_quantize(v, 'q8_0', '[224]', u), q_ggml_quantize(v, 'q8_0', '[224]', zeroblob(896)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q8_0'), 'q8_0') FROM d;
WITH d(v, u) AS (SELECT json_group_array(CASE key / 256 WHEN 0 THEN 0 WHEN 1 THEN (key % 7 - 3) * 1e-42 WHEN 2 THEN (key % 9 - 4) * 1e-9
  WHEN 3 THEN (key % 5 - 2) * 1.7e38 WHEN 4 THEN 1.5 WHEN 5 THEN CASE key % 256 WHEN 5 THEN 1000 ELSE (key % 3 - 1) * 1e-3 END
  ELSE (key % 8 - 4) * 0.5 END),
                        json_group_array(CASE WHEN key % 4 = 0 THEN 0 ELSE 1 + key % 3 END) FROM json_each('[' || replace(hex(zeroblob(1791)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'q2_K'), q_ggml_quantize(v, 'q2_K', '[1792]', u), q_ggml_quantize(v, 'q2_K', '[1792]', zeroblob(7168)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q2_K'), 'q2_K'),
       q_ggml_quantize(v, 'q3_K'), q_ggml_quantize(v, 'q3_K', '[1792]', u), q_ggml_quantize(v, 'q3_K', '[1792]', zeroblob(7168)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q3_K'), 'q3_K'),
       q_ggml_quantize(v, 'q4_K'), q_ggml_quantize(v, 'q4_K', '[1792]', u), q_ggml_quantize(v, 'q4_K', '[1792]', zeroblob(7168)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q4_K'), 'q4_K'),
       q_ggml_quantize(v, 'q5_K'), q_ggml_quantize(v, 'q5_K', '[1792]', u), q_ggml_quantize(v, 'q5_K', '[1792]', zeroblob(7168)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q5_K'), 'q5_K'),
       q_ggml_quantize(v, 'q6_K'), q_ggml_quantize(v, 'q6_K', '[1792]', u), q_ggml_quantize(v, 'q6_K', '[1792]', zeroblob(7168)),
       q_ggml_dequantize(q_ggml_quantize(v, 'q6_K'), 'q6_K') FROM d;
-- The same hard blocks through the sign, ternary and FP4 types (ggml
-- ignores the weights of these; they are checked all the same) and the MX
-- shared-exponent rules.
WITH d(v, u) AS (SELECT json_group_array(CASE key / 256 WHEN 0 THEN 0 WHEN 1 THEN (key % 7 - 3) * 1e-42 WHEN 2 THEN (key % 9 - 4) * 1e-9
  WHEN 3 THEN (key % 5 - 2) * 1.7e38 WHEN 4 THEN 1.5 WHEN 5 THEN CASE key % 256 WHEN 5 THEN 1000 ELSE (key % 3 - 1) * 1e-3 END
  ELSE (key % 8 - 4) * 0.5 END),
                        json_group_array(CASE WHEN key % 4 = 0 THEN 0 ELSE 1 + key % 3 END) FROM json_each('[' || replace(hex(zeroblob(1791)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'tq1_0'), q_ggml_quantize(v, 'tq1_0', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'tq1_0'), 'tq1_0'),
       q_ggml_quantize(v, 'tq2_0'), q_ggml_quantize(v, 'tq2_0', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'tq2_0'), 'tq2_0'),
       q_ggml_quantize(v, 'mxfp4'), q_ggml_quantize(v, 'mxfp4', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'mxfp4'), 'mxfp4'),
       q_ggml_quantize(v, 'nvfp4'), q_ggml_quantize(v, 'nvfp4', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'nvfp4'), 'nvfp4'),
       q_ggml_quantize(v, 'q1_0'), q_ggml_quantize(v, 'q1_0', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q1_0'), 'q1_0'),
       q_ggml_quantize(v, 'q2_0'), q_ggml_quantize(v, 'q2_0', '[1792]', u),
       q_ggml_dequantize(q_ggml_quantize(v, 'q2_0'), 'q2_0') FROM d;
WITH d(v, u) AS (SELECT json_group_array(CASE key / 256 WHEN 0 THEN 0 WHEN 1 THEN (key % 7 - 3) * 1e-42 WHEN 2 THEN (key % 9 - 4) * 1e-9
  WHEN 3 THEN (key % 5 - 2) * 1.7e38 WHEN 4 THEN 1.5 WHEN 5 THEN CASE key % 256 WHEN 5 THEN 1000 ELSE (key % 3 - 1) * 1e-3 END
  ELSE (key % 8 - 4) * 0.5 END),
                        json_group_array(CASE WHEN key % 4 = 0 THEN 0 ELSE 1 + key % 3 END) FROM json_each('[' || replace(hex(zeroblob(1791)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'mxfp4', 'mx_exponent=ocp'), q_ggml_quantize(v, 'mxfp4', '[1792]', 'mx_exponent=torchao-rceil'),
       q_ggml_quantize(v, 'mxfp4', '[1792]', u, 'mx_exponent=torchao-ceil'), q_ggml_quantize(v, 'mxfp4', 'mx_exponent=torchao-even'),
       q_ggml_quantize(v, 'mxfp4', 'mx_exponent=mlx'), q_ggml_quantize(v, 'mxfp4', 'mx_exponent=ggml') FROM d;
SELECT q_ggml_quantize(zeroblob(128), 'mxfp4', 'mx_exponent=floor');
SELECT q_ggml_quantize(zeroblob(128), 'q8_0', 'mx_exponent=ocp');
SELECT q_ggml_quantize(zeroblob(100), 'q1_0');
-- Subtypes: blocks of another type of the same size are refused (q_f32,
-- a GGUF file's data too); importance=none, and given twice
SELECT q_ggml_dequantize(q_ggml_quantize(zeroblob(1024), 'iq3_s'), 'q3_K');
SELECT q_f32(q_ggml_quantize(zeroblob(128), 'q4_0'), 'iq4_nl');
SELECT q_ggml_dequantize(data, 'q2_0') FROM q_tensors((SELECT q_gguf_agg('w', q_ggml_quantize(zeroblob(512), 'q1_0'), 'q1_0', '[128]')));
SELECT hex(q_ggml_quantize(v, 'iq4_nl', 'importance=none')), hex(q_ggml_quantize(v, 'iq4_nl', '[64]', 'importance=none')) FROM (SELECT q_f32('[' || replace(hex(zeroblob(63)), '00', '0.37,') || '-2]') AS v);
SELECT q_ggml_quantize(zeroblob(128), 'iq4_nl', '[32]', 'none', 'importance=none');
SELECT q_ggml_quantize(zeroblob(128), 'iq4_nl', 'importance=all');
-- Several rows and dimensions; every type through the table of types, on
-- zeros (q4_0's all-zero block stores the scale -0.0) and in upper case.
WITH d(v, u) AS (SELECT json_group_array(((key * 2654435761 % 4294967296) / 65536 % 2001 - 1000) * (1 << (key / 16 % 7)) / 4096.0),
                        json_group_array(key % 5 * 0.5) FILTER (WHERE key < 32) FROM json_each('[' || replace(hex(zeroblob(127)), '00', '0,') || '0]'))
SELECT q_ggml_quantize(v, 'q5_1', '[2,2,32]', u), q_ggml_quantize(v, 'q8_0', '[4,32]'), q_ggml_quantize(v, 'q4_1', '[1,1,4,32]', u) FROM d;
SELECT t.name, t.type_id, length(q_ggml_quantize(zeroblob(1024), t.name)), q_ggml_quantize(zeroblob(1024), upper(t.name)),
       q_ggml_dequantize(q_ggml_quantize(zeroblob(1024), t.name, '[256]', zeroblob(1024)), lower(t.name), 256) = zeroblob(1024)
FROM q_ggml_types AS t ORDER BY t.type_id;
SELECT * FROM q_ggml_types;
SELECT name, bits_per_weight FROM q_ggml_types WHERE block_size = 256 AND name >= 'q4' ORDER BY name DESC;
-- Blocks that quantize does not write: every byte 0x3C ('<': each fp16 scale
-- 1.06), every byte 0x7E ('~': each fp16 scale NaN, read by x86-64's rules on
-- every host), all zero, and two blocks of pseudo-random bytes per type.
SELECT q_ggml_dequantize(CAST(replace(hex(zeroblob(18)), '00', '<') AS BLOB), 'q4_0'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(20)), '00', '<') AS BLOB), 'q4_1'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(22)), '00', '<') AS BLOB), 'q5_0'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(24)), '00', '<') AS BLOB), 'q5_1'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(34)), '00', '<') AS BLOB), 'q8_0');
SELECT q_ggml_dequantize(CAST(replace(hex(zeroblob(84)), '00', '<') AS BLOB), 'q2_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(110)), '00', '<') AS BLOB), 'q3_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(144)), '00', '<') AS BLOB), 'q4_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(176)), '00', '<') AS BLOB), 'q5_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(210)), '00', '<') AS BLOB), 'q6_K');
SELECT q_ggml_dequantize(CAST(replace(hex(zeroblob(18)), '00', '~') AS BLOB), 'q4_0'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(20)), '00', '~') AS BLOB), 'q4_1'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(22)), '00', '~') AS BLOB), 'q5_0'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(24)), '00', '~') AS BLOB), 'q5_1'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(34)), '00', '~') AS BLOB), 'q8_0');
SELECT q_ggml_dequantize(CAST(replace(hex(zeroblob(84)), '00', '~') AS BLOB), 'q2_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(110)), '00', '~') AS BLOB), 'q3_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(144)), '00', '~') AS BLOB), 'q4_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(176)), '00', '~') AS BLOB), 'q5_K'),
       q_ggml_dequantize(CAST(replace(hex(zeroblob(210)), '00', '~') AS BLOB), 'q6_K');
SELECT q_ggml_dequantize(zeroblob(18), 'q4_0'),
       q_ggml_dequantize(zeroblob(20), 'q4_1'),
       q_ggml_dequantize(zeroblob(22), 'q5_0'),
       q_ggml_dequantize(zeroblob(24), 'q5_1'),
       q_ggml_dequantize(zeroblob(34), 'q8_0'),
       q_ggml_dequantize(zeroblob(84), 'q2_K'),
       q_ggml_dequantize(zeroblob(110), 'q3_K'),
       q_ggml_dequantize(zeroblob(144), 'q4_K'),
       q_ggml_dequantize(zeroblob(176), 'q5_K'),
       q_ggml_dequantize(zeroblob(210), 'q6_K');
SELECT q_ggml_dequantize(X'684D9591B8B3F027A87ED7ADAB1A7CF0D033DF90D0CFB37ED7281136134BDEBBFD71FD57', 'q4_0', 64),
       q_ggml_dequantize(X'6A20350F5001E1E859805ADD2A26259B70B6DB02AF09DC5CC9A9B35B513047D48D5FC73E4DFD53E9', 'q4_1', 64),
       q_ggml_dequantize(X'6F756BFE2D2F183A2DAADC69465E5BA51353C64C3A810BC27AE6BDEC766AC5674372C68CB34651255F23CEEC', 'q5_0', 64),
       q_ggml_dequantize(X'761F25C749C12FC5925CE0D887303150A33ECE1C2FEF84BF936368135E9AC8C11645D37CC16A080030BA5FCE0EB238A4', 'q5_1', 64),
       q_ggml_dequantize(X'AC7407BE8A62BDCFA580F5BE8387E321FFC8FD7AD4C76734EC931F5B66E6ED1E69010806AC4688F4C19290DD24603744079F3B7ADB4E64989EDDB939E74466F8B3E068AD', 'q8_0', 64);
SELECT q_ggml_dequantize(X'ED10FE66BF93D0279BA0DC6208C224352D7A19661F93C51EEA43BC686106C069A63A375D787B4D563FBCE9B3D92A516122C19CD445AADBC4C65B06A84B6DA8F32D3C4A11C241A120682E776F52CE59B7129B051BEA1C92E1D2055DEE490DB703DC8D50BA77DD623E6F6E9DCD4BA7D6EF56816E73E5E1832E68B8D97333DD87510AA5618F6E482969AAF374079CAC5EC144EAED150EF04664DFED926FE2D5AD950FFD95CA80798D57', 'q2_K', 512),
       q_ggml_dequantize(X'733514541ED689E5364E9B373E417239901B9F1B2CEEC487440C03A2836827C121AD95EBA81CF11383268F124BCDA066D1BB19ADEB1F62DFFF4BC44E510F8F5F0CD30E0612762C0383EAE2DE0F8B68A3FC44175EF66020559A31EF08C1635DE98C1D98DB34DDD26C8F10ACD3617461A8682EB36525AB96A16C379D06AB5E2817FA064BA4E6487D08FD130529197F242D6DF203FC51F55B7ACDD4E681E7F789A1AD033E9701B0C38E276804170FA549EA63081F5A5138089A1580E2B24D27173FFC8E8AED5B0C3DB5648AC2D71CDD6797A3E621B7FC6B34B79DB4A8CF', 'q3_K', 512),
       q_ggml_dequantize(X'B6E56CA8421F47DECE5582370CEE57A0171F18EB84071F4B2C87798BBCE75111F92A1E96D42D8CA231822BCA770EDAAAD864F1A05DE0314DB9846DCCCA92F5B0EEEDC5C00B3072725D8BD028FE62642C37A48D6D88EB71F77958A8341F2CABE46D27FBDD40A1118428690907F7610D600CD682095DA0F57F46FDC479132E8CE54ECF56A7CAF780106C146D20BC83EC7C2FF2692E3276D61FF66B5754FE0FB0EB6ADD6FD401ABD8500082952BA4411AB979F0DA9261E52B0D6399FA7D39482E2E984ADD1E3D34317BBCAE18E10812AF50C1CA6CEE41660D82647F44AC1B501FE6B00D393BD60AA3C9788D90F83E6FC277DF75B8FB297094B6D216CE99FC9F9B4A8A1F1BE425A645720C199329A0CF6C67ABEB556F747CD8E2835630FC34AEB994', 'q4_K', 512),
       q_ggml_dequantize(X'FE771AD2818030AD514AB92C85AAC558FD23DD037701F03C5135018D1CF493FBE50ED0BB420F7BB41E179CB84579E582AE16E66F8C78F5FD13AEDB040AEA3EB615DBD258C0CB40BD4B78D28738B4E31D95BC086B0958FE5DA1B653195807D5FF68D7BB61532D9502B066F350B6D2D8618A0BDDAF48192594D34704845DC36E0CB5F9218E54AC92B925D999CB184BDB8665FDFBF3A03480DA825984FC71972216D4399D9719C1501C83C75AAFB49805C4FE8AFBEF6A21276684E36C3BECFB09569E90C733FCE3E861A12BCFB6E4306E532EA9745BFC563472B3DD54F727663A02E9F5361C548A6FC156FA8F96FF8C2E6ACC53FFEFB04EBD35E640D3EA7950CE538F6183097A2F00747D2E33095E235C43AF7E3462DD7EDBE6F50382CA3A32DD8167CB46B2C44AB1B2EBBF53C5576D1114B125AB6EDB60A5BFB91FF951C2837EC4492B16CE8C519AB379A4878344E36517AA3EFBC9026C34F6088BCF3569BCCA54', 'q5_K', 512),
       q_ggml_dequantize(X'0E7A8C1728BFD5AF00D566FC7CFC6F8270C1BD2DAA19A0C5BC409D2F8754D9698CB04043F20978DE574B89E65731488FDDA788502CDF0062AC35FBF775C3C23B9DC4C90C42A99C7856FD87FA2DF90874C8E7F6ECDF376D06B06281458A829E0218AEC0286E1758B5D5E4FAF057CDC76A09799DB71B98FFEAA0C0C6D11E0985F5D567BD50D0CAC6CCACF778802B249CAA7856156A387BCE445547625389CE8E4EACE6583CBE3AFBF7B42E99620377A06AED76F8BD8E57F14DA5EDEF83244CD244762428A492E0126DC482F74E363DEAE341CFDC6976A5813D6AAD031945F8690E0A18C641A3342165B4EB28FC1CEE934D4B5C592447DC964C7B7C37CD464D6BE63FBAC9C94AAC41195C60C4240E03B3E0E31209A7587447B2B15423577EC0EF02EF03CAF5DDC38ABF94D9657D62F362D4E1EC82AA04E6ADA7E22D5E6E45CB0E9BF2EB617CB6EE1390354FA1C17237B7601DDF5DE4A0AAE062E8FE81CCF3E6E0EA1E6826182CA7F5C416B911A69546CBBE70E5310F8536F71D9ABF2327E1887C254D75B080976648940F104CE62399B525B0F697E20C050B0FD069DE396629FB855607986C', 'q6_K', 512);
-- q_importance_agg: llama.cpp's imatrix (the mean square per column) as an
-- aggregate, per group, over nothing, and as a window: running, sliding one
-- batch back (the leaving batch is subtracted: a batch of 1e20 leaves
-- cancellation behind), centred, partitioned, and with NULL batches.
WITH t(g, a) AS (VALUES ('l0', q_f32('[[1,2],[3,4]]')), ('l0', '[1,0]'), ('l0', NULL), ('l1', q_f32('[2,2,2,2]')), ('l1', '[0.5,-1.5e-1]'))
SELECT g, q_importance_agg(a, 2), q_json(q_importance_agg(a, 2)) FROM t GROUP BY g ORDER BY g;
SELECT q_importance_agg(a, 3) FROM (SELECT '[1,2,3]' AS a WHERE 0);
SELECT q_importance_agg(NULL, 2), q_importance_agg(x'', 2), q_importance_agg('[1e30,1e-30,-3.5,0]', 4), q_importance_agg('[1e-45,3.4e38]', 1);
WITH t(i, a) AS (VALUES (1, q_f32('[[1,2],[3,4]]')), (2, '[1,0]'), (3, NULL), (4, q_f32('[2,2,2,2]')), (5, '[1e20,1]'), (6, '[1,3]'), (7, '[0.25,2]'))
SELECT i, q_importance_agg(a, 2) OVER (ORDER BY i), q_importance_agg(a, 2) OVER (ORDER BY i ROWS 1 PRECEDING) FROM t ORDER BY i;
WITH t(i, a) AS (VALUES (1, '[1,2,3]'), (2, '[-1,0.5,2]'), (3, '[[0,-8,1],[4,4,4]]'), (4, '[0.1,0.2,0.3]'), (5, '[9,9,9]'))
SELECT i, q_importance_agg(a, 3) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
       q_importance_agg(a, 3) OVER (PARTITION BY i % 2 ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
       q_importance_agg(a, 1) OVER (ORDER BY i DESC ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t ORDER BY i;
-- the weights go straight into q_ggml_quantize: two batches of 1 x 256
WITH a(b) AS (VALUES (q_f32(X'C71D061FD0A68BA49B2483A624A767A52B251F25D31ABB240A2521A78B158C9FDAB333AEE639D2B59DAE3D21E739AAAE7F2BC5356538CC29D7B74A387035A53999002020DA258A21689D92A14B1B5D1E931C1FA57D28B02114A2E12523A54AA005BA29AA0BB285BDE7B7FCB90AB674399E2F62BC07B2E93109B5D2B8FEACAB39BD9BAE97BD188612FC1D8D98FA9B96A18E24AA9E0F95FDA6E2A1999B42A35495293858318E33D3336D35F9B550B528B791377BA70D362E39FC34DD2438242B384919322178A4C8A56226F91FC6A0940CB2218783199F3022FFA48021691D21A0063AFDBCDD3079B2F236F7B425AE5B3CE330F4BA803924BDA13B5B36DD31F2B75C20FE191E2047A1ACA64D18121C7095CD23E6A144184325B5225B1CF6A12F1FE73992292131A9B647B208379B3C1AB1B1BADD3622B9363C72B06DB068331433B4247D9EAEA5CDA4EBA0F11BC7A1739CDB9C1A19CBA08F26D9186328FB2403A0D5B666B9C1348CB410335537CA33C8B253242C30B2A9FCB45634E3B87B3A4CA997188A18A79BDB190823159DFD1D6F9279209C1E5FA2D8A8F1A8AE1EB71F1733633939A8993A1C320B390AB37138A9B41B28B7AE3B2C04B1453B503009B8C2338D1C45A334A3721223A763A01129CAA0DE9C1428E5992C9C29A2B72010A3BBA13EBAADB808333C2C549AA53390B938B73EA882B9DB37A7392DB5B836EEB98A39', 'f16')), (q_f32(X'072230138E261B95711C69A39DA72F241BA54319C8A4E3974DA076B3E9A345A30DA5F2B1CFA921293FB0463C51B1063B2EB188BA61BA2B312B34283444B460B90BA222A8E0294196AE227817991EA8A2671C22A13B25E125C19D999C422495A005BBA03088A3173C0EB07AAB002E5AB031B644A616B71833DD2C62B152B57229652599A27CA4B1229AA07B1EB4A32C1C7E9DC818502107A072229B2560A5319EEFBC07B64D32ABB558B80335D034E9B023B74DB87EB982B52838C6AC6AB7CBA2F715AC9D8899D29B0EA2D79E68A054A624A4C8A606A00E23609792A29DB3D720BD3617B914B1593A8AB5B834C9B11639E935463718A98038D0377537DBB07FBA3F1490A41C1B33A5D724688B87A1E2249D22AE1E572531A47F201BA2C0239B2555389DA97B344A3902343DB7AFB1BAB0F63848BA9C2C25B6193420B9E131CDA3EAA14D201322AA1EBC1D4727A29B3719F2A590256C90BB23E49EF41E77206499F3B8383321338AA83CBB123A2BB7E335E33B5F2AC4BA3E28EAB86A3CC72F15B54BA640256DA6031AE09E2D997B1E9B284A26671DCCA2F7A3CBA46EA11A16FFB1CC30F6BDF233E03985B44C3B38B83F2AFE3C7F2AC13C52B4DD3816B4C3B1CE2CF62469A374A72828C7235EA897207321541DD92026954E25FEA1679E63261FA7C73701B6403A193789B9E5AC67B944AFF1AE38BB62B45C2CAAACB8B852B4A0B1', 'f16')))
SELECT q_ggml_quantize(v, 'q4_K', '[2,256]', (SELECT q_importance_agg(b, 256) FROM a)),
       q_ggml_quantize(v, 'q3_K', '[2,256]', (SELECT q_importance_agg(b, 256) FROM a)) FROM (SELECT q_f32(X'6C22D8A1C220E3A2869D0C185E20C1A0FB99C5A717A941A74B24863466203E252B361F2D7D34893AC3371FB1D639669B2628D5322F35C53429AE8EB9A6B8DD323F9E4127A81E229E399A6EA06524F027B79F08A2369C54A58F9CF51D8019D390EA3419B5A63603386B3CFBB82BB6DC9E0ABB1B392CB83EB85DA708B897AE15B91E9EAC98FB24E21A48210AA48A9F402715A18F2121A51E228B25452457A3E6A666B6F33847356DB60CB9C9379CB883335EB43136FFA49E369AB93F32B6382A30082486A22C16B8A3F8A019184CA704A607A4CFA6349EF299F617E7231327B32847B819B93D24693861B602B1A71CDC381BBD5D38A3B689B64EA8DDB9F1A8D92F7E254420C19A45A27E993AA5BEA2A72756A6C99F04A64C1EBD25389611A4FFA221341129E33CD63A1C3757B0543C1BAD2FB9521D9E37823C20B4D3B7DFB840396298A62863295BA28F210A164C9C5627E8A5A5207E9A64A4A622EA9E1C1C9C22CEB563B868397A38D239CEBB643037ABD72920B3ADB881344DB81EBCD8BC74B4B6A51528152182A7BE211EA5FBA2A2A4FDA3EDA049A303A18B98C89B389C20B15138EAB5C7B5E8B725AE7F3C4FB5D535D636072F32A8623DCE3CE035B734E7B889A57DA4DC21ABA35DA76FA505A5C4A01E9F08A301A50B250DA511A0FAA0B7A2A2353F35B4B14E3AFE367CBC803957B7F7A8CFACB83897AE44321BB2E2B235349A9C14A25A25EAA6D625D41DA4A0B2261B186622BC22969DA422D41E14A3991FE6B6E9BAB3BCC027A03183BA1A344CADEDA07B384D1CD13303B117334BB15033351C80A3F3A4EF1CF19E731C271D8419BCA4D59CC3A6DD943C20E5A51C1D4E21853F3C34493C4234872F4F3226B8CBB640B071B9189DEBA857346CBB0DB4A7316E20F2A5B21AC5239A227D24772006A19A26F5252799B61E0616272535A3D1A23BB6F6B9EBAEA5297FB0F7B42834DF3B342E7722FBB99CB79FA4C73682B9B7359D20C79B38A0739F73896F19DAA0D91F3321059E6E2122A6A59C172611A18AA52CAF0733C0301230F3389FB3643D4AB3972F44AC9C34E0A30B2E483CF1B069B410A3E32437A272275925DDA4A624DA9C321C889AC68F95257383B624149CB626F5B52A39C03CB0306AAB84B925B4E9370839B83A812B523BDA376537CA38FEB18723DDA3B29CDFA356210CA4101B620D7F9D2AA4B6A0F79EF2229F201E2335A2092D8C34F9BBB1BAEA37B625012F04B89A39F12D33B533BB6F323B3075349033D99C0F166623592068204E24A99D6B27F61E13A2E6A21EA7481F5C97429EA5A84B3A0CB19A360E3035B48A2E983A16B9CC344233C6A113B2EEB80E3A24B3913AD02AE120622767A7F4241998B29A1B1B70A567251A9C31248A22FC192892B79DA932DCBA933C472E9AB3F3B4D2B5CEA8CA342FB5A32ED03448B56838913997B5', 'f16') AS v);
-- errors, and one met while the frame slides
SELECT q_importance_agg(q_f32('[1,2,3]'), 2);
SELECT q_importance_agg('[1,2]', 0);
SELECT q_importance_agg(q_f32('[1,2]'), -3);
SELECT q_importance_agg(a, c) FROM (SELECT q_f32('[1,2]') AS a, 2 AS c UNION ALL SELECT q_f32('[1,2]'), 1);
SELECT q_importance_agg(x'0000C07F00000000', 2);
SELECT q_importance_agg('[1,2]', 'two');
SELECT q_importance_agg('[1,2', 2);
WITH t(i, a) AS (VALUES (1, '[1,2]'), (2, '[3,4]'), (3, '[5,6,7]'), (4, '[8,9]'))
SELECT i, q_importance_agg(a, 2) OVER (ORDER BY i ROWS 1 PRECEDING) FROM t;
WITH t(i, a, c) AS (VALUES (1, '[1,2]', 2), (2, '[3,4]', 2), (3, '[5,6]', 1))
SELECT i, q_importance_agg(a, c) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;

-- q_compare ranks ggml types beside the integer schemes (ggml=), or alone
-- (dtypes=none); x is two rows of 256 float16 values as above
WITH x(v) AS (SELECT q_f32(X'1A98809E14193A1BC8250CA196A43124B49CAA277A8E6BA07BA540AA7C265F9F18B510A826B659333235D1380FBA1FB53DB9F6B439B5B4B4C33728B9352C15B99795FE1A9F258724C6217D240E986D237721A0214024BA25FC1C639F299D8115C4B8D5B7D13BBDB8C235CAB8C7B2AAA97BABC0BA90AF73B341B163BCFBA7D0366C1E99A85322E7A175A47129201E9F99EF181027C69DF725291D871A7C24681573BCD9328931E93050ACB139B833D5A827B963B407B63637D5395EBC3BB966BBFCA46FA054A4C21E63A4D527AA9F8BA41FA88A1B9826972763223E1F9D296EA0CFB49E357535A1327D291434D3374AB6ACB43FB7AEB883AD7C3738915D35782CC314DA1E2A9D729C2AA12C269BA152A45E8A481988989A026B0FACA4D4A28DA107B5AFB4FFB90EB96C39B0BA9C2489B979BBB03B3C34D3286BB50A348EB1A9343423FC996D1EB49C28A5E5259C256B22BB9596113D20D9235720FDA208A86FA035B63138CE3805374435E3B6A5B31F31A8B3FDAFC7B511B4BAB1FDAF19397DB722A0932135A1B71C2D185FA5629CF81FFB22149FE49D07A17BA523181E80A2B4D8BAC8344739C7B460B138B57BB532B12C2DAE31AC2CA0B163BABC38DBAFB4B810A16D1B449DF620F62291A453A456A047A8B394C2A5219E23A301A242A30D237D32A9B780387E3CDFAEBE3C94B742341C363CB5CFB79336763CE73484398CBC2622F7A579A8F91F4C96649FF89EC326B424121FBC1BDE9B4DA1DF217124A3A546A907A860A8D6B639B8A6B3FE347A36B5B5FCA410BA2A36BE38D02D0AB6F8B4951B64A17528D5226CA17A28569DC81952215221461390A784265C20B19EBCA00E4136B3A1B876B86DB8BFB6E73C90327328BA378432473978B1133921B81825B5A004234B98A92030A1EA245EA17524A49C0981C9268325F31DA51B20A4A021D5AE22B7942DF8322BAED22C37B866B3F9B0E5B86BB1B631D83A473060AC8B2859A976A21A20FF22CE9D0A94521BAC9971A538280CA469A3139EBC9F1B28AB997EB305236BA0F8365334F5368EAE31B4882A1BBA4FADB335C2B6C2BA4B3598B2B126FE9D6799EF21CB9A90A423A8C02559A2C81D441E75A15A9E5221F3991D167C2E59BBA13BE3ADD234E735A135B3B635B9EE3394B7BF33CE387EB8983490B365222C8C069DED9B6C1ADA21D1995D9CABA32BA4B32067A2B5275AA130A33E1D70A02539F9B22C3523B6FE37C0329F378C380DB5C7BA22B29F3C4EB8E0B43EB054A3E99FC8A40A16AB08F2A0361947202B907D1520A35027BE22B1A285240519D5B1213A1B320B31DC324034752C0B2DCDB8F533561C22B8082CCA26EE3884B605A0BD1A26A4D32521A0071A8D27BD9EB3256020CD1E7AA52B9D222895A51EA80CB44E9256BE373867A6FBB6D1B9B9320CB5EDACC02985B2732D24AD4BB81139', 'f16'))
SELECT c.scheme, c.dtype, c.qscheme, c.granularity, c.block_size, c.method, c.bits_per_weight, c.bytes, c.mse, c.sqnr_db, c.max_error, c.cosine
FROM x, q_compare(x.v, '[2,256]', 0, 'dtypes=int8 schemes=symmetric blocks=none ggml=q4_K+q8_0') AS c;
WITH x(v) AS (SELECT q_f32(X'1A98809E14193A1BC8250CA196A43124B49CAA277A8E6BA07BA540AA7C265F9F18B510A826B659333235D1380FBA1FB53DB9F6B439B5B4B4C33728B9352C15B99795FE1A9F258724C6217D240E986D237721A0214024BA25FC1C639F299D8115C4B8D5B7D13BBDB8C235CAB8C7B2AAA97BABC0BA90AF73B341B163BCFBA7D0366C1E99A85322E7A175A47129201E9F99EF181027C69DF725291D871A7C24681573BCD9328931E93050ACB139B833D5A827B963B407B63637D5395EBC3BB966BBFCA46FA054A4C21E63A4D527AA9F8BA41FA88A1B9826972763223E1F9D296EA0CFB49E357535A1327D291434D3374AB6ACB43FB7AEB883AD7C3738915D35782CC314DA1E2A9D729C2AA12C269BA152A45E8A481988989A026B0FACA4D4A28DA107B5AFB4FFB90EB96C39B0BA9C2489B979BBB03B3C34D3286BB50A348EB1A9343423FC996D1EB49C28A5E5259C256B22BB9596113D20D9235720FDA208A86FA035B63138CE3805374435E3B6A5B31F31A8B3FDAFC7B511B4BAB1FDAF19397DB722A0932135A1B71C2D185FA5629CF81FFB22149FE49D07A17BA523181E80A2B4D8BAC8344739C7B460B138B57BB532B12C2DAE31AC2CA0B163BABC38DBAFB4B810A16D1B449DF620F62291A453A456A047A8B394C2A5219E23A301A242A30D237D32A9B780387E3CDFAEBE3C94B742341C363CB5CFB79336763CE73484398CBC2622F7A579A8F91F4C96649FF89EC326B424121FBC1BDE9B4DA1DF217124A3A546A907A860A8D6B639B8A6B3FE347A36B5B5FCA410BA2A36BE38D02D0AB6F8B4951B64A17528D5226CA17A28569DC81952215221461390A784265C20B19EBCA00E4136B3A1B876B86DB8BFB6E73C90327328BA378432473978B1133921B81825B5A004234B98A92030A1EA245EA17524A49C0981C9268325F31DA51B20A4A021D5AE22B7942DF8322BAED22C37B866B3F9B0E5B86BB1B631D83A473060AC8B2859A976A21A20FF22CE9D0A94521BAC9971A538280CA469A3139EBC9F1B28AB997EB305236BA0F8365334F5368EAE31B4882A1BBA4FADB335C2B6C2BA4B3598B2B126FE9D6799EF21CB9A90A423A8C02559A2C81D441E75A15A9E5221F3991D167C2E59BBA13BE3ADD234E735A135B3B635B9EE3394B7BF33CE387EB8983490B365222C8C069DED9B6C1ADA21D1995D9CABA32BA4B32067A2B5275AA130A33E1D70A02539F9B22C3523B6FE37C0329F378C380DB5C7BA22B29F3C4EB8E0B43EB054A3E99FC8A40A16AB08F2A0361947202B907D1520A35027BE22B1A285240519D5B1213A1B320B31DC324034752C0B2DCDB8F533561C22B8082CCA26EE3884B605A0BD1A26A4D32521A0071A8D27BD9EB3256020CD1E7AA52B9D222895A51EA80CB44E9256BE373867A6FBB6D1B9B9320CB5EDACC02985B2732D24AD4BB81139', 'f16'))
SELECT c.scheme, c.bytes, c.mse, c.sqnr_db, c.max_error, c.cosine
FROM x, q_compare(x.v, '[2,256]', 1, 'dtypes=none ggml=q4_0+Q4_1+q5_0+q5_1+q8_0+q2_K+q3_k+q4_K+q5_K+q6_K') AS c;
SELECT scheme, bytes, mse FROM q_compare(zeroblob(1024), '[8,32]', -1, 'dtypes=uint8 blocks=32 methods=mse ggml=q4_0|q5_1');
SELECT * FROM q_compare(zeroblob(1024), '[2,128]', 0, 'ggml=q4_K');
SELECT * FROM q_compare(zeroblob(1024), '[256]', 0, 'ggml=q4_K+Q4_k');
SELECT * FROM q_compare(zeroblob(1024), '[256]', 0, 'ggml=q4_z');
SELECT * FROM q_compare(zeroblob(1024), '[256]', 0, 'dtypes=none');
SELECT * FROM q_compare(zeroblob(1024), '[256]', 0, 'ggml=');

-- q_ggml_types takes no arguments
SELECT * FROM q_ggml_types(1);

-- ggml: NULLs and empty tensors
SELECT q_ggml_quantize(NULL, 'q4_0'), q_ggml_quantize(zeroblob(128), NULL), q_ggml_quantize(zeroblob(128), 'q4_0', NULL),
       q_ggml_quantize(zeroblob(128), 'q4_0', '[32]', NULL), q_ggml_dequantize(NULL, 'q4_0'), q_ggml_dequantize(zeroblob(18), NULL),
       q_ggml_dequantize(zeroblob(18), 'q4_0', NULL);
SELECT q_ggml_quantize(x'', 'q4_K'), q_ggml_quantize('[]', 'q8_0'), q_ggml_dequantize(x'', 'q6_K'), q_ggml_dequantize(x'', 'q4_1', 0);

-- ggml errors, each in its own entry (the first error ends a statement)
SELECT q_ggml_quantize(zeroblob(128), 'q4_2');
SELECT q_ggml_quantize(zeroblob(128), 'iq4_xs');
SELECT q_ggml_quantize(zeroblob(128), '');
SELECT q_ggml_quantize(zeroblob(128), ' q4_0');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0' || char(0));
SELECT q_ggml_quantize(zeroblob(128), 5);
SELECT q_ggml_quantize(zeroblob(128), X'71345F30');
SELECT q_ggml_quantize(zeroblob(120), 'q4_0');
SELECT q_ggml_quantize(zeroblob(1024), 'q2_K', '[2,128]');
SELECT q_ggml_quantize(zeroblob(2048), 'q4_K', '[3,256]');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', '[32,0]');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', 32);
SELECT q_ggml_quantize(zeroblob(127), 'q4_0');
SELECT q_ggml_quantize('[1,2', 'q4_0');
SELECT q_ggml_quantize('[1e39]', 'q4_0');
SELECT q_ggml_quantize(X'0000000000000000000000000000C07F00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000', 'q4_0');
SELECT q_ggml_quantize(X'00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF', 'q8_0');
SELECT q_ggml_quantize(X'0000807F000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000', 'q6_K', '[256]', zeroblob(1024));
SELECT q_ggml_quantize(zeroblob(2048), 'q4_K', '[2,256]', zeroblob(4));
SELECT q_ggml_quantize(zeroblob(256), 'q4_0', '[2,32]', zeroblob(256));
SELECT q_ggml_quantize(zeroblob(128), 'q5_1', '[32]', '[1,2]');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', '[32]', X'000000000000000000000000000000BF00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000');
SELECT q_ggml_quantize(zeroblob(128), 'q4_1', '[32]', X'00000000000000000000C07F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000');
SELECT q_ggml_quantize(zeroblob(128), 'q5_0', '[32]', X'00000000000000000000807F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000');
SELECT q_ggml_quantize(zeroblob(1024), 'q3_K', '[256]', X'000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080FF');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', '[32]', '[1,');
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', '[32]', 7);
SELECT q_ggml_quantize(zeroblob(128), 'q4_0', '[32]', zeroblob(127));
SELECT q_ggml_dequantize(zeroblob(35), 'q8_0');
SELECT q_ggml_dequantize(zeroblob(288), 'q4_K', '[3,256]');
SELECT q_ggml_dequantize(zeroblob(288), 'q4_K', '[4,128]');
SELECT q_ggml_dequantize(zeroblob(83), 'q2_K');
SELECT q_ggml_dequantize(zeroblob(144), 'q4_K', 255);
SELECT q_ggml_dequantize(zeroblob(144), 'q4_K', -1);
SELECT q_ggml_dequantize(zeroblob(144), 'q4_K', 9223372036854775807);
SELECT q_ggml_dequantize(zeroblob(18), 'q4_0', '32');
SELECT q_ggml_dequantize(zeroblob(18), 'q4_0', 32.5);
SELECT q_ggml_dequantize('abc', 'q4_K');
SELECT q_ggml_dequantize(5, 'q4_K');
SELECT q_ggml_dequantize(1.5, 'q4_K');
SELECT q_ggml_dequantize(zeroblob(144), 'q4_X');

-- ---------------------------------------------------------------- model files
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C2033292C207D202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F0000004000004040000080400000A0400000C040');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C2033292C207D202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F0000004000004040000080400000A0400000C040', 'npy');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'90000000000000007B225F5F6D657461646174615F5F223A7B22666F726D6174223A227074227D2C2277223A7B226474797065223A22463332222C227368617065223A5B322C325D2C22646174615F6F666673657473223A5B302C31365D7D2C2262223A7B226474797065223A2242463136222C227368617065223A5B325D2C22646174615F6F666673657473223A5B31362C32305D7D7D0000803F000000400000404000008040803F0040');
SELECT * FROM q_tensor_metadata(X'90000000000000007B225F5F6D657461646174615F5F223A7B22666F726D6174223A227074227D2C2277223A7B226474797065223A22463332222C227368617065223A5B322C325D2C22646174615F6F666673657473223A5B302C31365D7D2C2262223A7B226474797065223A2242463136222C227368617065223A5B325D2C22646174615F6F666673657473223A5B31362C32305D7D7D0000803F000000400000404000008040803F0040', 'SafeTensors');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'474755460300000001000000000000000500000000000000140000000000000067656E6572616C2E6172636869746563747572650800000005000000000000006C6C616D61110000000000000067656E6572616C2E616C69676E6D656E7404000000200000000300000000000000782E66060000000000803E0500000000000000782E6172720900000005000000030000000000000001000000FEFFFFFF030000000300000000000000782E6207000000010300000000000000746F6B02000000030000000000000002000000000000000000000000000000000000000000000000803F0000004000004040000080400000A0400000C0400000000000000000');
SELECT * FROM q_tensor_metadata(X'474755460300000001000000000000000500000000000000140000000000000067656E6572616C2E6172636869746563747572650800000005000000000000006C6C616D61110000000000000067656E6572616C2E616C69676E6D656E7404000000200000000300000000000000782E66060000000000803E0500000000000000782E6172720900000005000000030000000000000001000000FEFFFFFF030000000300000000000000782E6207000000010300000000000000746F6B02000000030000000000000002000000000000000000000000000000000000000000000000803F0000004000004040000080400000A0400000C0400000000000000000');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'504B030414000000000065817E5D9ACAABE7880000008800000005000000612E6E7079934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F00000040504B030414000000000065817E5D7D47796A840000008400000005000000622E6E7079934E554D5059010076007B276465736372273A20273C6934272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028312C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A07000000504B0102140314000000000065817E5D9ACAABE78800000088000000050000000000000000000000800100000000612E6E7079504B0102140314000000000065817E5D7D47796A84000000840000000500000000000000000000008001AB000000622E6E7079504B0506000000000200020066000000520100000000');
SELECT count(*) FROM q_tensor_metadata(X'504B030414000000000065817E5D9ACAABE7880000008800000005000000612E6E7079934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F00000040504B030414000000000065817E5D7D47796A840000008400000005000000622E6E7079934E554D5059010076007B276465736372273A20273C6934272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028312C292C207D2020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A07000000504B0102140314000000000065817E5D9ACAABE78800000088000000050000000000000000000000800100000000612E6E7079504B0102140314000000000065817E5D7D47796A84000000840000000500000000000000000000008001AB000000622E6E7079504B0506000000000200020066000000520100000000', 'npz');
SELECT count(*) FROM q_tensors(NULL), q_tensor_metadata(X'00', NULL);
SELECT * FROM q_tensors(X'00010203040506070809');
SELECT * FROM q_tensors(X'934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C2033292C207D202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F0000004000004040000080400000A0400000C040', 'onnx');
SELECT * FROM q_tensors('934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C2033292C207D202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F0000004000004040000080400000A0400000C040');
SELECT * FROM q_tensor_metadata(X'934E554D5059010076007B276465736372273A20273C6634272C2027666F727472616E5F6F72646572273A2046616C73652C20277368617065273A2028322C2033292C207D202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020202020200A0000803F0000004000004040000080400000A0400000C040', 7);
SELECT * FROM q_tensors(X'934E554D5059010076007B276465736372273A20273C6634272C2027666F');
SELECT * FROM q_tensors(X'474755460300000001000000000000000500000000000000140000000000000067656E6572616C2E61726368697465637475');
SELECT * FROM q_tensors(X'90000000000000007B225F5F6D657461646174615F5F223A7B22666F726D6174223A227074227D2C2277223A7B', 'safetensors');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors_file('tests/host/files/small.npy');
SELECT * FROM q_tensor_metadata_file('tests/host/files/small.gguf', 'gguf');
SELECT name, shape, nbytes FROM q_tensors_file('tests/host/files/small.gguf');
SELECT * FROM q_tensors_file('tests/host/files/none.npy');
SELECT * FROM q_tensors_file('tests/host/queries.sql');
SELECT * FROM q_tensor_metadata_file('tests/host');

-- ------------------------------- typed BLOBs (docs/reference/data-formats.md#subtypes)
SELECT q_scale(q_bf16('[0.1, -0.3, 0.25, 2]')), q_json(q_f16('[0.5, -2]')), q_length(q_bf16('[1, 2, 3]'));
SELECT q_mse(q_f16('[0.1, 0.2]'), q_bf16('[0.1, 0.2]')), hex(quantize_blob(q_bf16('[1, -2]'), 1, 0));
SELECT q_json(quantize_blob('[1, -2, 3]', 1, 0)), q_json(dequantize_blob(quantize_blob('[1, -2, 3, 4]', 1, 0, 'int4'), 1, 0));
SELECT dequantize_blob(quantize_blob('[1, -2, 3, 4]', 1, 0, 'int4'), 1, 0, 'int8');
SELECT q_scale(quantize_blob('[1, -2]', 1, 0));
SELECT q_scale(q_ggml_quantize(q_f32(zeroblob(128)), 'q8_0', '[32]'));
SELECT q_f32(quantize_blob('[1, 2]', 1, 0, 'int4'), 'int8'), q_length(q_bf16('[1]'), 'f16');
SELECT name, q_scale(data), hex(q_f32(data)) FROM q_tensors((SELECT q_safetensors_agg('w', q_bf16('[0.5, -1.5, 3]'), 'bf16', '[3]')));
SELECT name, q_json(q_f32(data)), q_json(dequantize_blob(data, 1, 0, 'uint8')) FROM q_tensors((SELECT q_safetensors_agg('i', X'01FF7F', 'int8', '[3]')));
SELECT q_scale(data) FROM q_tensors((SELECT q_safetensors_agg('i', X'01FF7F', 'int8', '[3]')));
SELECT q_scale(data) FROM q_tensors(q_npy(X'0000000000000040000000000000E03F', 'f64', '[2]'));
SELECT quantize_per_channel_blob('[1, -2, 3, 4]', q_per_channel_scales('[1, -2, 3, 4]', '[2, 2]', 0), q_per_channel_scales('[1, -2, 3, 4]', '[2, 2]', 0), '[2, 2]', 0);
SELECT q_scale(data) FROM q_tensors(q_npy(X'9A9999999999B93F0000000000000040', 'f64', '[2]'));
SELECT q_scale(X'000000200000F03F000000400000F03F000000600000F03F000000800000F03F000000A00000F03F000000C00000F03F000000E00000F03F000000200000F03F000000400000F03F000000600000F03F000000800000F03F000000A00000F03F000000C00000F03F000000E00000F03F000000200000F03F000000400000F03F');

-- ---------------------------------------------------------------- writers
SELECT hex(q_npy(X'0000803F000000400000404000008040', 'f32', '[2,2]')), hex(q_npy(X'01', 'bool', '[]'));
SELECT name, dtype, shape, hex(data) FROM q_tensors(q_npy(X'01000200', 'INT16be', '[1,2]'));
SELECT q_npy(NULL, 'f32', '[1]'), q_npy(X'00', NULL, '[1]'), q_npy(X'00', 'int8', NULL);
SELECT q_npy(X'0000', 'bf16', '[1]');
SELECT q_npy(X'000000', 'f32', '[1]');
SELECT q_npy('x', 'int8', '[1]');
SELECT q_npy(X'00', 'int8', '[0]');
SELECT hex(q_safetensors_agg('attn.0', q_f32('[0,1,2,3,4,5]'), 'f32', '[1,2,3]'));
SELECT hex(q_safetensors_agg(n, d, t, s, '{"format":"pt","k\u00e9":"\ud83d\ude00"}')) FROM (SELECT 1 k, 'w' n, q_f32('[1,2,3,4]') d, 'f32' t, '[2,2]' s UNION ALL SELECT 2, 'b', q_bf16('[1,2]'), 'bf16', '[2]' UNION ALL SELECT 3, 'c', NULL, 'int8', '[1]' ORDER BY k);
SELECT name, dtype, shape, hex(data) FROM q_tensors((SELECT q_safetensors_agg(value || 'x', zeroblob(value * 8), 'int64', '[' || value || ']') FROM generate_series(1, 40)));
SELECT q_safetensors_agg(n, X'00', 'int8', '[1]') FROM (SELECT 'a' n UNION ALL SELECT 'a');
SELECT q_safetensors_agg('a', X'00', 'q4_0', '[1]');
SELECT q_safetensors_agg('a', X'0000', 'int8', '[1]');
SELECT q_safetensors_agg('a', X'00', 'int8', '[1]', '{"a":1}');
SELECT q_safetensors_agg('a', X'00', 'int8', '[1]', '{"a":"\ud800"}');
SELECT hex(q_safetensors_agg(n, X'00', 'int8', '[1]', '{"":""}')) FROM (SELECT '' n UNION ALL SELECT 'b');
SELECT q_safetensors_agg(n, X'00', 'int8', '[1]') FROM (SELECT '' n UNION ALL SELECT '');
SELECT q_safetensors_agg('a', NULL, 'int8', '[1]'), q_safetensors_agg('a', X'00', 'int8', '[]', NULL);
-- TFLite (docs/FORMATS.md#tflite): fixtures of tests/gen_tflite.py
SELECT name, dtype, shape, hex(data), offset, nbytes, quote(scope) FROM q_tensors_file('tests/data/tflite/subgraphs.tflite');
SELECT key, type, value FROM q_tensor_metadata_file('tests/data/tflite/subgraphs.tflite', 'tflite');
SELECT name, dtype, shape, hex(data), offset FROM q_tensors_file('tests/data/tflite/dtypes.tflite');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'1800000054464C330E00100004000000080000000C0000001000000003000000C40000000400000005000000B4000000900000006400000040000000140000000A0018000000080010000000000000001000000000000000010000000000000000000000000000000A001800000008001000000000000000100000000000000010020000000000000800000000000000060008000400000008000000100000000000000000000000000000000200000007080A001800000008001000000000000E0000000000000000020000000000000C0000000000000004000400000000000800000001000000100000000A001000040008000C0000000C0000001C00000014000000080000000000000000000000000000000000000004000000BC000000880000004C000000100000000C0014000400100008000C000C000000200000000400000008000000000000000B000000706C616365686F6C6465720001000000010000000C0014000400100008000C000C0000001800000003000000080000000100000001000000630000000200000002000000020000000C0014000400100008000C00000000001000000018000000020000000800000003000000010000006200000001000000020000000C0014000400100008000C000C0000001800000001000000080000000000000001000000610000000100000003000000000000000000803F000000400000404000000000003C004000420044');
SELECT * FROM q_tensors(X'1800000054464C330E00100004000000080000000C000000100000000300000044000000040000000200000034000000100000000600080004000000000000000C0000000800000000000000080000000000803F0000004004000400000000000800000001000000100000000A001000040008000C0000000C0000001C00000014000000080000000000000000000000000000000000000001000000140000000C0014000400100008000C00000000001000000018000000010000000800000000000000010000007700000001000000020000', 'tflite');
SELECT * FROM q_tensor_metadata_file('tests/data/tflite/vector_absurd.tflite', 'tflite');
SELECT * FROM q_tensors_file('tests/data/tflite/shared_expansion.tflite');

-- ------------------------------------------------ npz: deflated members, q_npz_agg
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors(X'504B03041400080008000000210000000000000000000000000005000000772E6E70799BEC17EA1B10C9C850C650AD9E925A9C5CA46EA5A06E9366A2AEA3A09E965F54529498179F5F94920A12774BCC294E058A17672416A402F91A663A9A3A0AB50A14002E063068B007120E4004C40D40BCC00100504B0708F9E557945300000098000000504B0102140314000800080000002100F9E557945300000098000000050000000000000000000000800100000000772E6E7079504B0506000000000100010033000000860000000000');
SELECT name, shape FROM q_tensors(X'504B030414000000080000002100F9E55794530000009800000005000000772E6E70799BEC17EA1B10C9C850C650AD9E925A9C5CA46EA5A06E9366A2AEA3A09E965F54529498179F5F94920A12774BCC294E058A17672416A402F91A663A9A3A0AB50A14002E063068B007120E4004C40D40BCC00100504B0102140314000000080000002100F8E557945300000098000000050000000000000000000000800100000000772E6E7079504B0506000000000100010033000000760000000000');
SELECT hex(data) FROM q_tensors(X'504B030414000000080000002100F9E55794530000009800000005000000772E6E70799BEC17EA1B10C9C850C650AD9E925A9C5CA46EA5A06E9366A2AEA3A09E965F54529498179F5F94920A12774BCC294E058A17672416A402F91A663A9A3A0AB50A14002E063068B007120E4004C40D40BCC00100504B0102140314000000080000002100F8E557945300000098000000050000000000000000000000800100000000772E6E7079504B0506000000000100010033000000760000000000');
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('tests/data/npz/types.npz');
SELECT name, hex(substr(data, 1, 8)) FROM q_tensors_file('tests/data/npz/big.npz');
SELECT * FROM q_tensors_file('tests/data/npz/reserved.npz');
SELECT hex(q_npz_agg('a', X'0000803F', 'f32', '[1]'));
SELECT name, dtype, shape, hex(data) FROM q_tensors((SELECT q_npz_agg(n, d, t, s) FROM (SELECT 'z' n, X'0102' d, 'int16be' t, '[]' s UNION ALL SELECT 'e', X'', 'f32', '[0,3]' UNION ALL SELECT 'b', NULL, 'int8', '[1]')));
SELECT q_npz_agg(n, X'01', 'uint8', '[1]') FROM (SELECT 'x' n UNION ALL SELECT 'x');
SELECT q_npz_agg('a', X'0000', 'bf16', '[1]');
SELECT q_npz_agg('a', NULL, 'f32', '[1]'), q_npz_agg('a', X'01', 'uint8', NULL);
SELECT hex(q_npy(X'', 'f32', '[2,0]')), q_npy(X'', 'int8', '[-1]');
-- Tensors bigger than a BLOB (docs/FORMATS.md#tensors-bigger-than-a-blob): under a 21000-byte limit
/* limit length 21000 */ SELECT name, shape, chunk, chunks, row_start, rows, offset, nbytes, length(data) FROM q_tensors_file('tests/host/files/chunks.safetensors');
/* limit length 21000 */ SELECT chunk, hex(q_per_channel_scales(data, json_set(shape, '$[0]', rows), 0)) FROM q_tensors_file('tests/host/files/chunks.safetensors') WHERE name = 'w';
/* limit length 21000 */ SELECT chunk, length(q_ggml_quantize(data, 'q4_K', json_set(shape, '$[0]', rows))) FROM q_tensors_file('tests/host/files/chunks.safetensors') WHERE name = 'w';
/* limit length 21000 */ SELECT q_scale_agg(data), q_zero_point_agg(data) FROM q_tensors_file('tests/host/files/chunks.safetensors') WHERE name = 'v';
SELECT name, chunk, chunks, rows, q_scale(data) FROM q_tensors_file('tests/host/files/chunks.safetensors') WHERE name = 'v';
-- The readers' sources (docs/FORMATS.md#how-files-are-read): rows of a megabyte through the cursor's buffer pool, a compressed member read on in chunks, its scratch under a small limit, overlapping zip members, a directory
SELECT name, length(data), hex(substr(data, -4)) FROM q_tensors((SELECT q_safetensors_agg('w', zeroblob(1100000), 'uint8', '[1100000]')));
/* limit length 21000 */ SELECT chunk, rows, hex(substr(data, 1, 4)), hex(substr(data, -4)) FROM q_tensors_file('tests/data/npz/big.npz');
/* limit length 1000 */ SELECT name, hex(data) FROM q_tensors_file('tests/data/npz/types.npz') WHERE name IN ('i8', 'flags');
SELECT count(*) FROM q_tensors_file('tests/data/npz/overlap.npz');
SELECT * FROM q_tensors_file('tests/data/onnx');
-- GGUF writer and the file writers (docs/FORMATS.md#writing-gguf, docs/FORMATS.md#file-writers)
SELECT hex(q_gguf_agg(n, d, t, s, '{"general.alignment":{"type":"uint32","value":16},"a":{"type":"array[float32]","value":[0.1,"NaN",-1e-45]},"b":{"type":"string","value":"\u00e9"},"c":{"type":"int64","value":-9223372036854775808},"d":{"type":"float64","value":0.1}}')) FROM (SELECT 1 k, 'w' n, q_f32('[1,2,3,4]') d, 'f32' t, '[2,2]' s UNION ALL SELECT 2, 'q', zeroblob(34), 'q8_0', '[32]' UNION ALL SELECT 3, 'c', NULL, 'int8', '[1]' ORDER BY k);
SELECT key, type, value FROM q_tensor_metadata((SELECT q_gguf_agg('w', X'01', 'int8', '[1]', '{"u":{"type":"uint64","value":18446744073709551615},"f":{"type":"float32","value":3.4028235e38},"e":{"type":"array[string]","value":[]},"t":{"type":"bool","value":true}}')));
SELECT name, dtype, shape, hex(data) FROM q_tensors((SELECT q_gguf_agg(n, d, 'int16', '[3,2]') FROM (SELECT 1 k, 'w' n, X'01000200' d UNION ALL SELECT 2, 'w', X'0300040005000600' ORDER BY k)));
SELECT q_gguf_agg(n, d, 'int16', '[3,2]') FROM (SELECT 1 k, 'w' n, X'01000200' d UNION ALL SELECT 2, 'v', X'0300' ORDER BY k);
SELECT q_gguf_agg('w', X'00', 'int8', '[1]', '{"k":{"type":"uint8","value":256}}');
SELECT q_gguf_agg('w', X'00', 'int8', '[1]', '{"general.alignment":{"type":"uint32","value":24}}');
SELECT q_gguf_agg('w', zeroblob(18), 'q4_0', '[16]'), q_gguf_agg('w', X'00', 'uint8', '[1]');
-- The path writers, tables a transaction writes: a file per commit, the
-- errors of a row and of the commit, ROLLBACK, savepoints, a statement
-- failing inside a transaction, a table in temp, the removed aggregates.
INSERT INTO q_gguf_write (path, name, data, type, shape) SELECT 'build/host-write.gguf', name, data, dtype, shape FROM q_tensors_file('tests/host/files/small.gguf');
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('build/host-write.gguf');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) SELECT 'build/host-write.safetensors', n, d, 'f32', '[2]', '{"a":"b"}' FROM (SELECT 1 k, 'w' n, q_f32('[1]') d UNION ALL SELECT 2, 'w', q_f32('[2]') ORDER BY k);
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('build/host-write.safetensors');
INSERT INTO q_npz_write (path, name, data, dtype, shape) VALUES ('build/host-write.npz', 'a', X'0000803F', 'f32', '[1]'), ('build/host-write.npz', 'é', X'', 'f32', '[0,3]'), ('build/host-write.npz', 'n', NULL, 'f32', '[1]');
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('build/host-write.npz');
INSERT INTO q_gguf_write (path, name, data, type, shape) VALUES ('build/no-such-dir/x.gguf', 'w', X'00', 'int8', '[1]');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape) VALUES ('build/host-write.safetensors', 'w', X'00', 'int8', '[2]');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-m.gguf', 'w', X'00', 'int8', '[1]', '{"k":{"type":"uint8","value":256}}');
INSERT INTO q_npz_write (path, name, data, dtype, shape) VALUES ('build/host-write-2.npz', 'x', X'01', 'uint8', '[1]'), ('build/host-write-2.npz', 'x', X'01', 'uint8', '[1]');
BEGIN; INSERT INTO q_gguf_write (path, name, data, type, shape) VALUES ('build/host-write.gguf', 'w', X'0102', 'int8', '[4]'); ROLLBACK; SELECT group_concat(name) FROM q_tensors_file('build/host-write.gguf');
BEGIN; INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) SELECT 'build/host-write-t.gguf', 'a', X'0102', 'int8', '[4]', '{"general.alignment":{"type":"uint32","value":64}}'; SAVEPOINT s; INSERT INTO q_gguf_write (path, name, data, type, shape) SELECT 'build/host-write-t.gguf', 'a', X'0304', 'int8', '[4]' UNION ALL SELECT 'build/host-write-t.gguf', 'b', X'05', 'int8', '[1]' UNION ALL SELECT 'build/host-write-u.gguf', 'c', X'06', 'int8', '[1]'; ROLLBACK TO s; RELEASE s; INSERT INTO q_gguf_write (path, name, data, type, shape) VALUES ('build/host-write-t.gguf', 'a', X'0708', 'int8', '[4]'); COMMIT; SELECT name, hex(data), offset FROM q_tensors_file('build/host-write-t.gguf');
BEGIN; INSERT INTO q_npz_write (path, name, data, dtype, shape) VALUES ('build/host-write-3.npz', 'a', X'01', 'uint8', '[1]'); INSERT INTO q_npz_write (path, name, data, dtype, shape) SELECT 'build/host-write-3.npz', 'b', CASE WHEN value = 2 THEN abs(-9223372036854775806 - value) ELSE X'02' END, 'uint8', '[1]' FROM (SELECT 1 value UNION ALL SELECT 2);
CREATE VIRTUAL TABLE IF NOT EXISTS temp.host_out USING q_safetensors_write; INSERT INTO temp.host_out (path, name, data, dtype, shape) VALUES ('build/host-write-temp.safetensors', 'w', X'01', 'uint8', '[1]'); SELECT name, hex(data) FROM q_tensors_file('build/host-write-temp.safetensors');
SELECT q_gguf_write('build/host-write-old.gguf', 'w', X'00', 'int8', '[1]');
SELECT q_safetensors_write('build/host-write-old.safetensors', 'w', X'00', 'int8', '[1]', '{}') WHERE 0;
-- ---------------------------------------------------------------- onnx
SELECT name, dtype, shape, hex(data), offset, nbytes, scope FROM q_tensors(X'080842040A0010113AA104120E74797065645F756E7061636B65642A1F0802080210014203663332250000C03F25000080BE25E6B1617F25000000802A240803100B4203663634519A9999999999B93F5100000000000000C05159F3F8C21F6EA5012A2B080310074205696E743634388080808080808080800138FFFFFFFFFFFFFFFFFF0138FFFFFFFFFFFFFFFF7F2A1C080210064205696E7433322880808080F8FFFFFFFF0128FFFFFFFF072A25080310054205696E743136288080FEFFFFFFFFFFFF0128FFFFFFFFFFFFFFFFFF0128FFFF012A22080310034204696E74382880FFFFFFFFFFFFFFFF0128FBFFFFFFFFFFFFFFFF01287F2A1208021004420675696E743136280028FFFF032A1308031002420575696E7438280028800128FF012A0E080210094204626F6F6C280128002A100802100A4203663136288078288080032A110802101042046266313628807F288080032A1208021011420766385F65346D33283828B8012A1208021013420766385F65356D32283C28FC012A0E080310164204696E7434281F28072A140802100C420675696E743332580058FFFFFFFF0F2A190802100D420675696E74363458FFFFFFFFFFFFFFFFFF0158052A101007420A7363616C61725F693634382A2A0F080010014209656D7074795F6633322A240804100142096D697865645F66333222080000803F0000004025000040402204000080402A2208020802100742096D697865645F69363438013A0B02FDFFFFFFFFFFFFFFFF013804');
SELECT name, dtype, shape, hex(data), scope FROM q_tensors(X'08083AFD050A321205746F705F632208436F6E7374616E742A1F0A0576616C75652A13080110014207746F705F635F764A040000803EA001040A88030A04636F6E6412036F75741A0449665F30220249662A540A0B656C73655F6272616E636832420A3A1206656C73655F632208436F6E7374616E742A260A0576616C75652A1A08010801100B4208656C73655F635F764A080000000000001040A001041204656C7365A001052A9A020A0B7468656E5F6272616E63683287020A3C12067468656E5F632208436F6E7374616E742A280A0576616C75652A1C0803100142087468656E5F635F764A0C0000803F0000004000004040A001040AC0010A04636F6E64120178220249662A580A0B656C73655F6272616E636832460A381209646565705F656C73652208436F6E7374616E742A210A0576616C75652A150801100A420B646565705F656C73655F764A020041A00104120A696E6E65725F656C7365A001052A570A0B7468656E5F6272616E636832450A371209646565705F7468656E2208436F6E7374616E742A200A0576616C75652A1408011003420B646565705F7468656E5F764A0101A00104120A696E6E65725F7468656EA0010512047468656EA001050A91010A000A04636F6E6412016C22044C6F6F702A7E0A04626F647932730A361206626F64795F632208436F6E7374616E742A220A0576616C75652A1610074208626F64795F635F764A080500000000000000A001040A180A09626F64795F696E697412017922084964656E746974791204626F64792A19080210064209626F64795F696E69744A080600000007000000A001050A8A0112017A2206437573746F6D2A770A086272616E636865735A330A2D120467315F632208436F6E7374616E742A1B0A0576616C75652A0F08011002420667315F635F764A0101A00104120262315A330A2D120467325F632208436F6E7374616E742A1B0A0576616C75652A0F08011002420667325F635F764A0102A0010412026232A0010A3A0474657374120C636F6E74726F6C5F666C6F772A0D080110094204636F6E644A010142040A00101142080A04746573741001', 'onnx');
SELECT * FROM q_tensor_metadata(X'0808120867656E5F6F6E6E781A03312E30220B6F72672E6578616D706C65282A32236C696E6520310A6C696E652032202271756F74656422205C207461620920636166C3A93A1D120C6D65746120226772617068222A0D080110014201774A040000803F42040A00101142110A0D636F6D2E6D6963726F736F66741001720C0A06617574686F7212026D65720E0A076C6963656E736512034D495472090A05656D7074791200720A0A0363746C1203610162');
SELECT name, dtype, shape, hex(data), offset, nbytes FROM q_tensors_file('tests/data/onnx/external.onnx');
SELECT name, hex(data) FROM q_tensors(X'08083A9701120865787465726E616C2A42080410014205775F6578746A180A086C6F636174696F6E120C65787465726E616C2E62696E6A0B0A066F66667365741201306A0C0A066C656E6774681202313670012A35080210074205625F6578746A180A086C6F636174696F6E120C65787465726E616C2E62696E6A0C0A066F66667365741202313670012A10080110054206696E736964654A02030042040A001011');
SELECT hex(data) FROM q_tensors(X'080842040A0010113A121201672A0D08021002420275382A0301AC02');
SELECT * FROM q_tensors_file('tests/data/onnx/bad_escape.onnx');
SELECT * FROM q_tensors_file('tests/data/onnx/ext_missing.onnx');
SELECT * FROM q_tensors(X'08FFFFFFFFFFFFFFFFFFFF01', 'onnx');
SELECT * FROM q_tensors(X'08083AFD050A321205746F705F632208436F6E7374616E742A1F0A0576616C75652A13080110014207746F705F635F764A040000803EA001040A88030A04636F6E6412036F75741A0449665F30220249662A540A0B656C73655F6272616E636832420A3A1206656C73655F632208436F6E7374616E742A260A0576616C75652A1A08010801100B4208656C73655F635F764A080000000000001040A001041204656C7365A001052A9A020A0B7468656E5F6272616E63683287020A3C12067468656E5F632208436F6E7374616E742A280A0576616C75652A1C0803100142087468656E5F635F764A0C0000803F0000004000004040A001040AC0010A04636F6E64120178220249662A580A0B656C73655F6272616E636832460A381209646565705F656C73652208436F6E7374616E742A210A0576616C75652A150801100A420B646565705F656C73655F764A020041A00104120A696E6E65725F656C7365A001052A570A0B7468656E5F6272616E636832450A371209646565705F7468656E2208436F6E7374616E', 'onnx');
SELECT name, shape, nbytes FROM q_tensors((SELECT q_safetensors_agg(n, d, 'int8', s) FROM (SELECT 'e' n, X'' d, '[2,0]' s UNION ALL SELECT 'w', X'01', '[1]')));

-- ---------------------------------------------------------------- method=histogram
SELECT q_scale(q_f32('[-1.5,0.25,3,7.5,-0.3,2]'), 'uint8', 'affine', 'method=histogram');
SELECT q_zero_point(q_f32('[0.1,0.2,0.7,-0.4]'), 'int8', 'symmetric', 'method=histogram,bins=16');
SELECT q_scale(q_f32('[2,2,2]'), 'uint8', 'affine', 'method=histogram');
SELECT hex(q_per_channel_scales(q_f32('[1,2,3,4,-5,6]'), '[2,3]', 1, 'int8', 'affine', 'method=histogram'));
SELECT q_scale_agg(x, 'uint8', 'affine', 'method=histogram,bins=64') FROM (SELECT q_f32('[0.5,1]') x UNION ALL SELECT q_f32('[-3,9,4]') UNION ALL SELECT q_f32('[0.1]'));
SELECT hex(q_per_channel_scales_agg(x, '[2,2]', 0, 'uint8', 'affine', 'method=histogram')) FROM (SELECT q_f32('[0,1,2,3]') x UNION ALL SELECT q_f32('[-4,1,20,3]'));
-- ------------------------------------------ calibration of groups above 2048 values
-- 5001 elements (6 distinct values, built by replace() so that the query
-- itself allocates little): percentile's radix select (histogram, compacted
-- segments) and mse's histogram estimate with its one exact pass; per block
-- of 32 and per channel of 1000, mse's all-candidates pass over small groups.
WITH x(v) AS (SELECT '[' || replace(hex(zeroblob(1000)), '00', '0.37,-1.5,2.25,9.5,-0.125,') || '0]')
SELECT q_scale(v, 'uint8', 'affine', 'method=percentile percentile=99.9'),
       q_scale(v, 'int8', 'symmetric', 'method=percentile percentile=75'),
       q_scale(v, 'int8', 'affine', 'method=mse'), q_zero_point(v, 'uint4', 'affine', 'method=mse'),
       q_json(q_block_scales(v, '[5001]', 0, 32, 'int4', 'symmetric', 'method=mse')),
       q_json(q_per_channel_scales(substr(v, 1, length(v) - 3) || ']', '[5,1000]', 0, 'int16', 'affine', 'method=mse')) FROM x;
-- ---------------------------------------------------------------- the tutorial's formula
SELECT q_scale('[[191.6, -13.5, 728.6], [92.14, 295.5, -184], [0, 684.6, 245.5]]', 'int8', 'affine', 'include_zero=0 params=double'),
       q_zero_point('[100, 150, 200]', 'uint8', 'affine', 'include_zero=0 params=double'),
       q_scale('[-50, -10]', 'int8', 'affine', 'include_zero=0'), q_scale('[-1, 3]', 'int8', 'symmetric', 'params=double'),
       q_zero_point('[5, 5]', 'uint8', 'affine', 'include_zero=0');
SELECT hex(quantize_blob('[0.125, 0.375, -0.125, 1e9]', 0.25, 1, 'int8', 'rounding=tutorial')),
       hex(q_fake_quantize('[0.125, 0.375, -0.125]', 0.25, 1, 'uint4', 'rounding=tutorial')),
       hex(quantize_blob(q_f32('[0.5, -3, 7.25]'), 0.5, 1001, 'uint16', 'rounding=tutorial'));
SELECT hex(q_per_channel_scales('[[1,2,3],[4,5,6]]', '[2,3]', 1, 'int8', 'affine', 'include_zero=0 params=double')),
       hex(q_per_channel_zero_points('[[1,2,3],[4,5,6]]', '[2,3]', 1, 'uint8', 'affine', 'include_zero=0')),
       hex(quantize_per_channel_blob('[[1,2,3],[4,5,6]]', '[0.5,0.25,0.125]', '[1,-1,3]', '[2,3]', 1, 'int8', 'rounding=tutorial')),
       hex(q_fake_quantize_per_block('[[1,2,3],[4,5,6]]', '[0.5,0.25,0.125,1]', '[1,-1,3,0]', '[2,3]', 1, 2, 'int16', 'rounding=tutorial')),
       hex(q_block_scales('[[1,2,3],[4,5,6]]', '[2,3]', 1, 2, 'int8', 'affine', 'include_zero=0 params=double'));
SELECT channel, scale, zero_point, mse FROM q_channels('[[1,2,3],[4,5,6]]', '[2,3]', 0, 'uint8', 'affine', 'include_zero=0 params=double');
WITH t(x) AS (VALUES ('[100, 150]'), ('[200, 50]'))
SELECT q_scale_agg(x, 'uint8', 'affine', 'include_zero=0 params=double'), q_zero_point_agg(x, 'int8', 'affine', 'include_zero=0'),
       hex(q_per_channel_scales_agg(x, '[2]', 0, 'int8', 'affine', 'params=double')) FROM t;
SELECT scheme, mse FROM q_compare('[[0.5,1.25,2],[3.75,0.1,0.2]]', '[2,3]', 0, 'dtypes=int8+uint4 blocks=none include_zero=0 params=double rounding=tutorial');
SELECT quantize_blob('[1]', 1, 0, 'int32', 'rounding=tutorial');
SELECT q_scale('[-3e38, 3e38]', 'uint8', 'affine', 'params=double quant_min=0 quant_max=1');
SELECT q_scale('[1]', 'int8', 'affine', 'include_zero=2 params=float64');
-- ---------------------------------------------------------------- log2 scheme (docs/NUMERICS.md#logarithmic-log2)
SELECT q_scale('[0.3,-5,0.01,0,7]', 'int8', 'log2'), q_zero_point('[1,-2]', 'int4', 'log2');
SELECT hex(quantize_log2_blob('[0.3,-5,0.01,0,7]', 8.0)), hex(quantize_log2_blob('[0.3,-5,0.01]', 8.0, 'int4'));
SELECT hex(dequantize_log2_blob(x'06FE0B0001', 8.0)), hex(dequantize_log2_blob(x'F102', 1, 'int4', 3)), hex(dequantize_log2_blob(x'80FF', 1.1754943508222875e-38));
SELECT hex(q_fake_quantize_log2('[0.3,-5,1e-30,0,7]', 8.0, 'int4')), hex(q_fake_quantize_log2(X'0000807F000080FF01000000', 2.0));
SELECT hex(q_per_channel_scales('[[1,2],[3,-0.1]]', '[2,2]', 0, 'int8', 'log2')), hex(q_block_scales('[1,2,3,-9]', '[4]', 0, 3, 'int4', 'log2')), hex(q_block_zero_points('[1,2,3,-9]', '[4]', 0, 3, 'int4', 'log2'));
SELECT hex(quantize_per_channel_log2_blob('[[1,2],[3,-0.1]]', '[2,4]', '[2,2]', 0)), hex(q_fake_quantize_per_channel_log2('[[1,2],[3,-0.1]]', '[2,4]', '[2,2]', 1, 'int4'));
SELECT hex(dequantize_per_channel_log2_blob(x'01020304', '[2,4]', '[2,2]', 0));
SELECT hex(quantize_per_block_log2_blob('[1,2,3,-9]', '[4,16]', '[4]', 0, 3)), hex(dequantize_per_block_log2_blob(x'0102', '[4,16]', '[4]', 0, 3, 'int4')), hex(q_fake_quantize_per_block_log2('[1,2,3,-9]', '[4,16]', '[4]', 0, 3));
SELECT length(q_fake_quantize_per_channel_log2(zeroblob(40000), q_per_channel_scales(zeroblob(40000), '[2,5000]', 1, 'int8', 'log2'), '[2,5000]', 1, 'int4')), length(quantize_per_channel_log2_blob(zeroblob(40000), q_per_channel_scales(zeroblob(40000), '[2,5000]', 1, 'int4', 'log2'), '[2,5000]', 1, 'int4'));
SELECT q_scale_agg(x, 'int8', 'log2'), q_zero_point_agg(x, 'int8', 'log2'), hex(q_per_channel_scales_agg(x, '[2]', 0, 'int4', 'log2')) FROM (SELECT '[1,-2]' AS x UNION ALL SELECT '[0.1,-11.4]');
SELECT channel, scale, zero_point, mse FROM q_channels('[[1,3],[0.5,-0.25]]', '[2,2]', 0, 'int8', 'log2');
SELECT scheme, qscheme, bits_per_weight, bytes, mse FROM q_compare('[[1,2,3,4],[0.5,-0.25,8,-3]]', '[2,4]', 0, 'schemes=log2+symmetric,blocks=2');
SELECT scheme, mse FROM q_compare('[[1,2,3,4],[0.5,-0.25,8,-3]]', '[2,4]', 0, 'schemes=log2,dtypes=int4,methods=mse+percentile,blocks=none');
SELECT q_scale('[1,2,3,4,5,6,7,8,9,1000]', 'int8', 'log2', 'method=percentile,percentile=80');
SELECT quantize_log2_blob('[1]', 0.3);
SELECT q_scale('[1]', 'uint8', 'log2');
SELECT quantize_per_channel_log2_blob('[[1,2],[3,4]]', '[1]', '[2,2]', 1);
SELECT quantize_log2_blob(X'0000803F0000C07F', 1);
-- ---------------------------------------------------------------- q_compare: blocks along flattened rows
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 53),
x(v) AS (SELECT json_group_array((i % 11) * 0.41 - 2.0 + i * 1e-3) FROM s)
SELECT c.scheme, c.block_size, c.bytes, c.mse FROM x, q_compare(x.v, '[2,3,3,3]', 1, 'blocks=9+27+32') AS c;
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 53),
x(v) AS (SELECT json_group_array((i % 11) * 0.41 - 2.0 + i * 1e-3) FROM s)
SELECT c.scheme, c.block_size, c.mse FROM x, q_compare(x.v, '[2,3,3,3]', 0, 'dtypes=int4 methods=minmax+mse blocks=4+32+128') AS c;
SELECT scheme, block_size, bytes, sqnr_db FROM q_compare(zeroblob(1024), '[2,8,16]', 0, 'dtypes=int8 schemes=symmetric blocks=none ggml=q8_0+q4_K');
SELECT count(*) FROM q_compare(zeroblob(1024), '[2,128]', 0, 'dtypes=none ggml=q4_K');
SELECT scheme, method, mse FROM q_compare('[0.5,-1.25,2,3.75,-0.1,0.2]', '[6]', 0, 'dtypes=int8 blocks=none methods=histogram+entropy');
SELECT scheme, mse, max_error FROM q_compare(zeroblob(40000), '[2,5000]', 1, 'dtypes=int8 schemes=affine blocks=none');
-- ---------------------------------------------------------------- method=entropy
SELECT q_scale('[0.5,-0.25,3,0.125,-2,12,1,1,1,0]', 'int8', 'affine', 'method=entropy'),
       q_zero_point('[0.5,-0.25,3,0.125,-2,12,1,1,1,0]', 'uint8', 'affine', 'method=entropy bins=64 quantized_bins=8');
SELECT q_scale('[0.5,-0.25,3,0.125,-2,12,1,1,1,0]', 'int8', 'symmetric', 'method=entropy bins=2048 quantized_bins=128');
SELECT q_per_channel_scales('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 1, 'int8', 'affine', 'method=entropy bins=32 quantized_bins=4');
SELECT * FROM q_channels('[[1,2,3,4,5,60],[-1,-2,-3,-4,-5,-6]]', '[2,6]', 0, 'uint8', 'affine', 'method=entropy bins=16 quantized_bins=2');
SELECT q_scale_agg(x, 'int8', 'affine', 'method=entropy bins=256 quantized_bins=16') FROM (SELECT '[1,-1,0.5]' AS x UNION ALL SELECT '[0.25,3]' UNION ALL SELECT '[2]');
SELECT q_scale_agg(x, 'int8', 'affine', 'method=entropy') FROM (SELECT '[0,0]' AS x UNION ALL SELECT '[1,-2]');
SELECT q_scale('[1,2]', 'int8', 'affine', 'method=entropy bins=8 quantized_bins=9');
SELECT q_scale_agg(x, 'int8', 'affine', 'method=entropy') FROM (SELECT '[1,-1]' AS x UNION ALL SELECT '[1000]');
-- ------------------------------- model-file paths the rest of the catalog misses
-- Each query's comment names the path it enters (checked with a coverage
-- build: docs/ARCHITECTURE.md#fuzzers-and-the-oom-catalog);
-- tests/host/gen_catalog_files.py
-- writes the files under tests/host/files/.
-- safetensors: names and metadata with JSON escapes (\u00e9, \", \\, \n, surrogate pairs)
SELECT name, hex(data) FROM q_tensors_file('tests/data/safetensors/names_escaped.safetensors');
SELECT * FROM q_tensor_metadata_file('tests/data/safetensors/meta_values.safetensors');
-- ONNX: Constant nodes' value, value_float(s) and value_int(s)
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('tests/data/onnx/constants.onnx');
-- npz: a member deflated as three stored blocks, whole and in chunks across the blocks' ends
SELECT name, dtype, shape, length(data), hex(substr(data, 1, 8)), hex(substr(data, -4)) FROM q_tensors_file('tests/host/files/stored.npz');
/* limit length 300 */ SELECT name, chunk, chunks, rows, hex(substr(data, 1, 4)), hex(substr(data, -4)) FROM q_tensors_file('tests/host/files/stored.npz');
-- npz: zip64 records and extra fields, deflated and stored
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('tests/data/npz/zip64.npz');
SELECT name, dtype, shape, hex(data) FROM q_tensors_file('tests/data/npy/zip64.npz');
-- GGUF: tensors whose offsets the overlap check sorts, NaN and infinite float metadata, an overlap
SELECT name, shape, offset, hex(data) FROM q_tensors_file('tests/host/files/unsorted.gguf');
SELECT * FROM q_tensor_metadata_file('tests/host/files/unsorted.gguf');
SELECT * FROM q_tensors_file('tests/host/files/overlap.gguf');
-- ONNX external data (one tensor in a subgraph) read in chunks under a small limit
/* limit length 100 */ SELECT name, scope, chunk, chunks, offset, hex(substr(data, 1, 4)), hex(substr(data, -4)) FROM q_tensors_file('tests/host/files/external.onnx');
-- q_compare with log2 on a tensor read from a file
SELECT q.scheme, q.qscheme, q.bytes, q.mse FROM q_tensors_file('tests/host/files/external.onnx') AS t, q_compare(t.data, t.shape, 0, 'schemes=log2+symmetric dtypes=int8+int4 blocks=32') AS q WHERE t.name = 'w_ext';
-- the writers' metadata refused: no file appears (the last query of each table finds none)
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) VALUES ('build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '{"a":1}');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) VALUES ('build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '{"a":"\ud800"}');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) VALUES ('build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '{"a":"b","a":"c"}');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) VALUES ('build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '{"a":"\x"}');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) VALUES ('build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '[1]');
INSERT INTO q_safetensors_write (path, name, data, dtype, shape, metadata) SELECT 'build/host-write-meta.safetensors', 'w', X'01', 'uint8', '[1]', '{"a":"b"}' UNION ALL SELECT 'build/host-write-meta.safetensors', 'v', X'02', 'uint8', '[1]', '{"a":"c"}';
SELECT * FROM q_tensors_file('build/host-write-meta.safetensors');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"k":{"type":"nope","value":1}}');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"general.alignment":{"type":"uint32","value":3}}');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"k":{"type":"array[string]","value":[1]}}');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"k":{"type":"string","value":"\ud800"}}');
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"k":1}');
BEGIN; INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'w', X'01', 'int8', '[1]', '{"k":{"type":"float32","value":"NaN"}}'); INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-meta.gguf', 'v', X'01', 'int8', '[1]', '{"k":{"type":"float32","value":1}}'); COMMIT;
SELECT * FROM q_tensors_file('build/host-write-meta.gguf');
-- GGUF metadata written with NaN and infinities, and read back
INSERT INTO q_gguf_write (path, name, data, type, shape, metadata) VALUES ('build/host-write-nan.gguf', 'w', X'01', 'int8', '[1]', '{"k":{"type":"float32","value":"NaN"},"a":{"type":"array[float64]","value":[1.5,"-Infinity","Infinity"]}}'); SELECT * FROM q_tensor_metadata_file('build/host-write-nan.gguf');

-- ---------------------------------------------------------------- bitsandbytes NF4 / FP4
-- Every arity: q_bnb4_quantize at 2 and 3, q_bnb4_absmax at 1 and 2,
-- q_bnb4_dequantize at 3, 4 and 5 (a ragged, odd count), the nesting both
-- ways, then the errors.
WITH d(v) AS (SELECT q_f32('[0.5, -1.2, 0.03, 2.0, -0.7, 0, 1e-3, -3.5, 0.25, 0.125, -0.0625, 7, 0.3, -0.3, 0.9, -0.9, 0.5, -1.2, 0.03, 2.0, -0.7, 0, 1e-3, -3.5, 0.25, 0.125, -0.0625, 7, 0.3, -0.3, 0.9, -0.9, 0.01]'))
SELECT hex(q_bnb4_quantize(v, 'nf4')), hex(q_bnb4_quantize(v, 'FP4', 32)), hex(q_bnb4_absmax(v)), hex(q_bnb4_absmax(v, 32)),
       hex(q_bnb4_dequantize(q_bnb4_quantize(v, 'nf4'), q_bnb4_absmax(v), 'nf4')),
       hex(q_bnb4_dequantize(q_bnb4_quantize(v, 'fp4', 32), q_bnb4_absmax(v, 32), 'fp4', 32)),
       hex(q_bnb4_dequantize(q_bnb4_quantize(v, 'nf4', 32), q_bnb4_absmax(v, 32), 'nf4', 32, 33)),
       hex(q_bnb4_nest(q_bnb4_absmax(v, 32))), hex(q_bnb4_unnest(q_bnb4_nest(q_bnb4_absmax(v, 32)))) FROM d;
SELECT hex(q_bnb4_nest(q_bnb4_absmax(zeroblob(4 * 300 * 32), 32))) = hex(q_bnb4_nest(zeroblob(4 * 300)));
SELECT q_bnb4_quantize('[1]', 'nf8');
SELECT q_bnb4_quantize('[1]', 'nf4', 48);
SELECT q_bnb4_quantize(X'0000C07F', 'fp4');
SELECT q_bnb4_absmax('[]');
SELECT q_bnb4_dequantize('ab', '[1]', 'nf4');
SELECT q_bnb4_dequantize(X'0000', '[1]', 'nf4', 64, 5);
SELECT q_bnb4_dequantize(zeroblob(40), '[1]', 'nf4', 64);
SELECT q_bnb4_unnest(zeroblob(8));
-- Subtypes: nf4 codes as fp4, an absmax of another block size, the two swapped
SELECT q_bnb4_dequantize(q_bnb4_quantize('[1, 2, 3]', 'nf4'), q_bnb4_absmax('[1, 2, 3]'), 'fp4');
SELECT q_bnb4_dequantize(q_bnb4_quantize(zeroblob(400), 'fp4'), q_bnb4_absmax(zeroblob(400), 128), 'fp4');
SELECT q_bnb4_dequantize(q_bnb4_absmax('[1, 2]'), q_bnb4_quantize('[1, 2]', 'nf4'), 'nf4');
SELECT hex(q_bnb4_dequantize(q_bnb4_quantize(zeroblob(400), 'fp4', 128), q_bnb4_absmax(zeroblob(400), 128), 'fp4', 128)), q_json(q_bnb4_absmax('[1, 2]'));
SELECT q_bnb4_quantize(NULL, 'nf4'), q_bnb4_dequantize(X'00', NULL, 'nf4'), q_bnb4_nest(NULL), q_bnb4_unnest(NULL);
-- q_compare's bnb4= candidates (a ragged, odd count), alone and beside the
-- integer schemes, then the option's errors
SELECT scheme, granularity, block_size, bits_per_weight, bytes, mse, sqnr_db, max_error FROM q_compare(q_f32('[0.5, -1.2, 0.03, 2.0, -0.7, 0, 1e-3, -3.5, 0.25, 0.125, -0.0625, 7, 0.3, -0.3, 0.9, -0.9, 0.5, -1.2, 0.03, 2.0, -0.7, 0, 1e-3, -3.5, 0.25, 0.125, -0.0625, 7, 0.3, -0.3, 0.9, -0.9, 0.01]'), '[33]', 0, 'dtypes=none bnb4=nf4+fp4@32+NF4@4096');
SELECT scheme, bytes, mse FROM q_compare(zeroblob(1024), '[8,32]', 0, 'dtypes=int4 blocks=none bnb4=fp4');
SELECT * FROM q_compare('[1,2]', '[2]', 0, 'bnb4=nf5');
SELECT * FROM q_compare('[1,2]', '[2]', 0, 'bnb4=nf4@48');
SELECT * FROM q_compare('[1,2]', '[2]', 0, 'bnb4=nf4+NF4@64');
