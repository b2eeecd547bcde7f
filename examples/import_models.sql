-- import_models.sql: the demo's two real models into the registry, in SQL.
--
-- Run by examples/demo.sh (`make demo`) as
--   sqlite3 build/demo.db '.load dist/quant' \
--     '.parameter set @models build/models' \
--     '.parameter set @silero_sha256 <sha256 of the .onnx>' \
--     '.parameter set @mediapipe_sha256 <sha256 of the .tflite>' \
--     '.read sql/registry.sql' '.read examples/import_models.sql'
-- q_tensors_file reads each file where it lies (docs/reference/model-files.md#model-files); it
-- is SQLITE_DIRECTONLY, so it runs from the shell's top level like this and
-- never from a view or trigger.
--
-- Silero VAD v5 (ONNX, MIT).  Its graph has no initializers: the weights
-- are Constant nodes inside the two branches of the top-level If node If_0,
-- which tests `sr == 16000` (Constant_0 holds 16000), so then_branch is the
-- 16 kHz network and else_branch the 8 kHz one.  q_tensors' scope says
-- which branch a Constant sits in ('If_0/then_branch', and deeper levels
-- below it); the name is the Constant's output with the exporter's inlining
-- prefix ('If_0_then_branch__Inline_0__') removed, under '16k/' or '8k/':
-- '16k/encoder.0.reparam_conv.weight'.  The 16 kHz branch comes first.
--
-- MediaPipe face detection, short range (TFLite, Apache-2.0).  Its weights
-- are float16 tensors of subgraph 0, stored as dtype 'f16' exactly as in the
-- file (the demo widens them with q_f32(data, 'f16')).
--
-- What is imported: every float32/float16 tensor with at least 16 elements.
-- Integer tensors (ONNX shape constants, TFLite padding tables) and float
-- tensors under 16 elements (Silero's scalar exponents and 1-element bias,
-- MediaPipe's 2- and 6-element classifier biases) are too small to quantize
-- meaningfully; the last query lists what was left out.
--
-- channel_axis is the output-channel axis of tensors of rank >= 2: 0 (ONNX
-- Conv [O, I, K], LSTM [4H, I]; TFLite CONV_2D [O, H, W, I]), except TFLite
-- DEPTHWISE_CONV_2D kernels, [1, H, W, C]: 3.  TFLite lays out no other
-- rank-4 weight with a first dimension of 1, so the shape tells them apart.
-- Rank-1 tensors (biases) get NULL.

.bail on
PRAGMA foreign_keys = ON;

-- Every tensor of both files, with what the rules above need: read into a
-- TEMP table before the transaction, so the registry's write lock is not
-- held while the files are parsed.
CREATE TEMP TABLE file_tensors AS
WITH files(model, path, format) AS (VALUES
       ('silero_vad', @models || '/silero_vad_v5.onnx', 'onnx'),
       ('face_detection_short_range',
        @models || '/face_detection_short_range.tflite', 'tflite')),
     t AS (
       SELECT f.model, f.format, q.name AS raw_name, q.scope, q.dtype, q.shape,
              q.data, q.offset, json_array_length(q.shape) AS rank,
              q.nbytes / CASE q.dtype WHEN 'f32' THEN 4 WHEN 'f16' THEN 2 ELSE 1 END
                AS numel
       FROM files AS f, q_tensors_file(f.path, f.format) AS q)
SELECT t.*,
       CASE WHEN scope LIKE 'If_0/then_branch%' THEN '16k/'
            WHEN scope LIKE 'If_0/else_branch%' THEN '8k/' ELSE '' END
       || ltrim(CASE WHEN raw_name GLOB 'If_[0-9]*_branch__Inline_[0-9]*__*'
                     THEN substr(substr(raw_name, instr(raw_name, '__Inline_') + 9),
                                 instr(substr(raw_name, instr(raw_name, '__Inline_') + 9),
                                       '__') + 2)
                     ELSE raw_name END, '/') AS name,
       dtype IN ('f32', 'f16') AND numel >= 16 AS imported
FROM t;

-- Running it again replaces the two releases (their quantizations, choices
-- and exports go with them): the old ones are deleted in the transaction
-- that imports the new ones, so a process killed midway leaves the old
-- ones, untouched, or the new ones, whole.  BEGIN IMMEDIATE: beside
-- another writer it waits for the busy timeout (docs/REGISTRY.md#several-writers).
BEGIN IMMEDIATE;
DELETE FROM models WHERE (name, version) IN
  (VALUES ('silero_vad', 'v5'), ('face_detection_short_range', '0.4.1657300184'));

INSERT INTO models (name, version, format, source, licence, homepage, sha256)
VALUES ('silero_vad', 'v5', 'onnx',
        'npm:@ricky0123/vad-web@0.0.31/dist/silero_vad_v5.onnx', 'MIT',
        'https://github.com/snakers4/silero-vad', @silero_sha256),
       ('face_detection_short_range', '0.4.1657300184', 'tflite',
        'npm:@mediapipe/face_detection@0.4.1657300184/face_detection_short_range.tflite',
        'Apache-2.0', 'https://github.com/google/mediapipe', @mediapipe_sha256);

INSERT INTO tensors (model_id, name, shape, dtype, channel_axis, data)
SELECT m.model_id, t.name, t.shape, t.dtype,
       CASE WHEN t.rank < 2 THEN NULL
            WHEN t.format = 'tflite' AND t.rank = 4
                 AND json_extract(t.shape, '$[0]') = 1 THEN 3
            ELSE 0 END,
       t.data
FROM temp.file_tensors AS t JOIN models AS m ON m.name = t.model
WHERE t.imported
ORDER BY m.model_id, t.scope LIKE 'If_0/then_branch%' DESC, t.rowid;
COMMIT;

SELECT printf('import: %s %s: %d tensors, %d bytes', m.name, m.version,
              count(*), sum(length(t.data)))
FROM models AS m JOIN tensors AS t USING (model_id)
WHERE m.model_id IN (SELECT model_id FROM models WHERE name IN
                     (SELECT model FROM temp.file_tensors))
GROUP BY m.model_id ORDER BY m.model_id;
SELECT printf('  %s: skipped %d %s tensors (%s)', model, count(*),
              CASE WHEN dtype IN ('f32', 'f16') THEN 'float' ELSE 'non-float' END,
              CASE WHEN dtype IN ('f32', 'f16') THEN 'fewer than 16 elements'
                   ELSE group_concat(DISTINCT dtype) END)
FROM temp.file_tensors WHERE NOT imported
GROUP BY model, dtype IN ('f32', 'f16') ORDER BY model DESC, dtype IN ('f32', 'f16');
DROP TABLE temp.file_tensors;
