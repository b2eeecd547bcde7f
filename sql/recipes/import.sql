-- import.sql: a whole model file into the registry (sql/registry.sql): the
-- models row, every tensor of the file, its metadata, and a note for every
-- tensor the registry could not take as the file has it.
--
--   sqlite3 -bail reg.db -cmd '.load dist/quant' \
--     -cmd ".parameter set :path 'model.safetensors'" \
--     -cmd ".parameter set :model demo" -cmd ".parameter set :version 1" \
--     -cmd ".parameter set :format safetensors" \
--     -cmd ".parameter set :source 'hf:me/demo'" \
--     -cmd ".parameter set :licence MIT" < sql/recipes/import.sql
--
-- Parameters: :path (the file), :model and :version (the release), :format
-- (the models row's format: 'safetensors', 'gguf', 'npy', 'npz', 'onnx',
-- 'tflite'; it also picks the channel_axis rule), :source and :licence.
--
-- What each tensor of the file becomes (docs/REGISTRY.md#importing-a-file):
--   f32, f16, bf16   a tensors row as stored;
--   f64              a tensors row narrowed to f32 (noted: rounding);
--   a ggml type      a tensors row of its dequantized values (f32) and a
--   (q4_K ...)       ggml quantizations row holding the file's own codes
--                    (noted: the original floats are not in the file);
--   anything else    not imported, noted with why (integer tensors are not
--   (int64 ...)      weights; an empty tensor has no data).
-- channel_axis, the axis a per-channel rule quantizes along, is set by the
-- file's layout: NULL for rank 1 (biases, norms, scalars); for rank >= 2,
-- 3 for a TFLite depthwise kernel ([1, H, W, C]: rank 4, first dimension
-- 1), 0 for the other TFLite, ONNX, safetensors and npy/npz tensors (the
-- output channel of Conv and Linear weights in PyTorch and ONNX order), 0
-- for a 2-D GGUF tensor (one channel per ggml row: the registry's shape is
-- numpy's order, ne[1] first, and ggml's blocks run along the last axis);
-- NULL, noted, for a GGUF tensor of rank > 2 and for format 'other'.
-- import_notes lists every note; the last line counts them.
--
-- One transaction, started with BEGIN IMMEDIATE, so beside another writer
-- it waits for the busy timeout rather than failing at its first write
-- (docs/REGISTRY.md#several-writers), and holds the write lock while the
-- file is read.  A process killed midway leaves nothing of it.  A release
-- already there is refused ("models: a release that has tensors cannot be
-- replaced; delete it first").  If a statement fails, the transaction stays
-- open in the caller's connection: ROLLBACK it (the shell's -bail exits,
-- which does; without -bail the shell would go on to COMMIT the rest).
-- The file readers are SQLITE_DIRECTONLY: run this from the shell or an
-- application, never from a view or trigger.
BEGIN IMMEDIATE;
INSERT INTO models (name, version, format, source, licence)
VALUES (:model, :version, :format, :source, :licence);
INSERT INTO tensors (model_id, name, shape, dtype, channel_axis, data)
SELECT m.model_id, t.name,
       CASE t.shape WHEN '[]' THEN '[1]' ELSE t.shape END,
       CASE WHEN t.dtype IN ('f32', 'f16', 'bf16') THEN t.dtype ELSE 'f32' END,
       CASE WHEN json_array_length(t.shape) < 2 THEN NULL
            WHEN m.format = 'tflite' AND json_array_length(t.shape) = 4
                 AND json_extract(t.shape, '$[0]') = 1 THEN 3
            WHEN m.format IN ('tflite', 'onnx', 'safetensors', 'npy', 'npz') THEN 0
            WHEN m.format = 'gguf' AND json_array_length(t.shape) = 2 THEN 0
       END,
       CASE WHEN t.dtype IN ('f32', 'f16', 'bf16') THEN t.data
            ELSE q_f32(t.data, t.dtype) END
FROM models AS m, q_tensors_file(:path) AS t
WHERE m.name = :model AND m.version = :version AND t.nbytes > 0
  AND (t.dtype IN ('f32', 'f16', 'bf16', 'f64')
       OR t.dtype IN (SELECT name FROM q_ggml_types));
-- The file's codes of each ggml-typed tensor, as the ggml row quantize-ggml
-- would make (its error is not measured: the original floats are unknown).
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method,
                           block_size, codes)
SELECT x.tensor_id, g.name,
       CASE WHEN g.name IN /*{ggml_affine_types*/('q4_1', 'q5_1', 'q2_K',
           'q4_K', 'q5_K')/*}*/
            THEN 'affine' ELSE 'symmetric' END,
       'ggml', 'ggml', g.block_size, t.data
FROM models AS m, q_tensors_file(:path) AS t
JOIN q_ggml_types AS g ON g.name = t.dtype
JOIN tensors AS x ON x.model_id = m.model_id AND x.name = t.name
WHERE m.name = :model AND m.version = :version AND t.nbytes > 0;
INSERT INTO import_notes (model_id, tensor, dtype, shape, imported, note)
SELECT m.model_id, t.name, t.dtype, t.shape, x.tensor_id IS NOT NULL,
       CASE WHEN x.tensor_id IS NULL AND t.nbytes = 0
              THEN 'empty (a 0 in its shape): not imported'
            WHEN x.tensor_id IS NULL
              THEN 'dtype ' || t.dtype || ' is not a float weight: not imported'
            WHEN t.dtype = 'f64'
              THEN 'float64 narrowed to float32 (rounded to nearest)'
            ELSE 'stored as ' || t.dtype || ': tensors holds its dequantized '
                 || 'values, quantizations the file''s codes (a ggml row); the '
                 || 'original floats are not in the file' END
FROM models AS m, q_tensors_file(:path) AS t
LEFT JOIN tensors AS x ON x.model_id = m.model_id AND x.name = t.name
WHERE m.name = :model AND m.version = :version
  AND (x.tensor_id IS NULL OR t.dtype NOT IN ('f32', 'f16', 'bf16'))
UNION ALL
SELECT m.model_id, x.name, x.dtype, x.shape, 1,
       'no output-channel axis known for a ' || m.format || ' tensor of rank '
       || json_array_length(x.shape) || ': channel_axis NULL, per-channel '
       || 'rules do not fit it'
FROM models AS m JOIN tensors AS x USING (model_id)
WHERE m.name = :model AND m.version = :version
  AND json_array_length(x.shape) >= 2 AND x.channel_axis IS NULL;
INSERT INTO model_metadata (model_id, key, type, value)
SELECT m.model_id, k.key, k.type, k.value
FROM models AS m, q_tensor_metadata_file(:path) AS k
WHERE m.name = :model AND m.version = :version;
COMMIT;

SELECT printf('import: %s %s: %d tensors (%d of them from ggml codes), %d not imported, %d notes (SELECT * FROM import_notes)',
              m.name, m.version,
              (SELECT count(*) FROM tensors WHERE model_id = m.model_id),
              (SELECT count(*) FROM quantizations JOIN tensors USING (tensor_id)
               WHERE model_id = m.model_id),
              (SELECT count(*) FROM import_notes
               WHERE model_id = m.model_id AND NOT imported),
              (SELECT count(*) FROM import_notes WHERE model_id = m.model_id))
FROM models AS m WHERE m.name = :model AND m.version = :version;
