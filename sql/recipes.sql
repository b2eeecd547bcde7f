-- recipes.sql: model files in and out of the registry (sql/registry.sql),
-- each in one statement or one transaction.  Load the extension first; the
-- _file readers and the file writers (tables written by a transaction) are
-- SQLITE_DIRECTONLY, so these run from the shell or an application, never
-- from a view or trigger.
--
-- Each recipe is a section starting with a "-- @recipe <name>" line
-- (tests/recipes.test runs them in turn on generated files).  Parameters
-- are bound by name: in the sqlite3 shell with `.parameter set :path
-- 'model.safetensors'`, from Tcl or Python by binding :path etc.
--
-- A recipe that writes the registry does it all at once or not at all:
-- quantize-ggml is one statement, atomic as any statement is, and the
-- import, three statements, is one transaction.  It starts with BEGIN
-- IMMEDIATE, so beside another writer it waits for the connection's busy
-- timeout rather than failing at its first write (docs/REGISTRY.md#several-writers); a process killed midway leaves nothing of it, and running it
-- again imports the file.  If one of its statements fails (a file that
-- cannot be read, a release already in the registry), the transaction
-- stays open in the caller's connection, as after any failed statement:
-- ROLLBACK it (the shell's -bail exits, which does).
--
--   import          a whole file into the registry: the model, its float
--                   tensors and its metadata
--   quantize-ggml   every 2-D weight of a model as a ggml block type
--   export-gguf     a model's ggml quantizations (and its other tensors in
--                   float32) to a GGUF file, with the model's metadata
--   export-safetensors
--                   a model's per-channel quantizations to a safetensors
--                   file: codes, scales and zero points as three tensors
--                   per weight, the rest in float32
--
-- Parameters: :path (a file to read), :out (a file to write), :model and
-- :version (the release), :format ('safetensors', 'gguf', 'onnx', 'tflite'),
-- :source and :licence (for the models row), :ggml_type ('q4_K', ...),
-- :dtype ('int8' or 'uint8').

-- @recipe import
-- The models row, then every float tensor of the file (float64 narrowed
-- to float32, a scalar stored as '[1]'; integer tensors are not weights
-- and stay out), then the file's metadata, key by key, as
-- q_tensor_metadata gives it; in one transaction, which holds the write
-- lock while the file is read.  A release already there is refused
-- ("models: a release that has tensors cannot be replaced; delete it
-- first").
BEGIN IMMEDIATE;
INSERT INTO models (name, version, format, source, licence)
VALUES (:model, :version, :format, :source, :licence);
INSERT INTO tensors (model_id, name, shape, dtype, data)
SELECT m.model_id, t.name,
       CASE t.shape WHEN '[]' THEN '[1]' ELSE t.shape END,
       CASE t.dtype WHEN 'f64' THEN 'f32' ELSE t.dtype END,
       CASE t.dtype WHEN 'f64' THEN q_f32(t.data, 'f64') ELSE t.data END
FROM models AS m, q_tensors_file(:path) AS t
WHERE m.name = :model AND m.version = :version
  AND t.dtype IN ('f32', 'f16', 'bf16', 'f64') AND t.nbytes > 0;
INSERT INTO model_metadata (model_id, key, type, value)
SELECT m.model_id, k.key, k.type, k.value
FROM models AS m, q_tensor_metadata_file(:path) AS k
WHERE m.name = :model AND m.version = :version;
COMMIT;

-- @recipe quantize-ggml
-- Each weight of rank 2 whose rows are whole blocks of the type, with
-- ggml's reference quantizer (no importance weights).
INSERT INTO quantizations (tensor_id, dtype, scheme, granularity, method,
                           block_size, codes)
SELECT t.tensor_id, :ggml_type, g.scheme, 'ggml', 'ggml', g.block,
       q_ggml_quantize(q_f32(t.data, t.dtype), :ggml_type, t.shape)
FROM tensors AS t JOIN models AS m USING (model_id),
     (SELECT block_size AS block,
             CASE WHEN name IN /*{ggml_affine_types*/('q4_1', 'q5_1', 'q2_K',
                 'q4_K', 'q5_K')/*}*/
                  THEN 'affine' ELSE 'symmetric' END AS scheme
      FROM q_ggml_types WHERE name = :ggml_type) AS g
WHERE m.name = :model AND m.version = :version
  AND json_array_length(t.shape) = 2
  AND json_extract(t.shape, '$[1]') % g.block = 0;

-- @recipe export-gguf
-- One INSERT: the weights quantized as :ggml_type as their blocks, every
-- other tensor of the model as float32, in tensor order, and the model's
-- metadata with its types.  The file appears at :out when the statement
-- (or the transaction around it) commits, never after a failure.  Through
-- a table in temp: no lock on the registry while the file is built (the
-- eponymous q_gguf_write would hold its write lock while the file is
-- built; docs/FORMATS.md#file-writers).
CREATE VIRTUAL TABLE IF NOT EXISTS temp.gguf_out USING q_gguf_write;
INSERT INTO temp.gguf_out (path, name, data, type, shape, metadata)
SELECT :out, name, data, type, shape,
       (SELECT json_group_object(key, json_object('type', type,
                                                  'value', json(value)))
        FROM model_metadata AS k JOIN models AS m USING (model_id)
        WHERE m.name = :model AND m.version = :version)
FROM (SELECT t.name, coalesce(q.codes, q_f32(t.data, t.dtype)) AS data,
             coalesce(q.dtype, 'f32') AS type, t.shape
      FROM tensors AS t JOIN models AS m USING (model_id)
      LEFT JOIN quantizations AS q
        ON q.tensor_id = t.tensor_id AND q.granularity = 'ggml'
       AND q.dtype = :ggml_type AND q.importance IS NULL
      WHERE m.name = :model AND m.version = :version
      ORDER BY t.tensor_id);

-- @recipe export-safetensors
-- One INSERT: per weight quantized per channel as :dtype (affine,
-- min/max), "<name>" holds its codes, "<name>.scales" (float32) and
-- "<name>.zero_points" (int32) its parameters along "<name>.axis"
-- recorded in the metadata; tensors without such a row go as float32.
-- safetensors metadata values are strings: JSON strings are unwrapped,
-- other values kept as their JSON text.  Written at the commit, through a
-- table in temp, as export-gguf.
CREATE VIRTUAL TABLE IF NOT EXISTS temp.safetensors_out USING q_safetensors_write;
INSERT INTO temp.safetensors_out (path, name, data, dtype, shape, metadata)
SELECT :out, name, data, dtype, shape,
       (SELECT json_group_object(key, value) FROM (
          SELECT k.key, CASE json_type(k.value) WHEN 'text'
                 THEN json_extract(k.value, '$')
                 ELSE k.value END AS value
          FROM model_metadata AS k JOIN models AS m USING (model_id)
          WHERE m.name = :model AND m.version = :version
          UNION ALL
          SELECT t.name || '.axis', CAST(q.axis AS TEXT)
          FROM quantizations AS q JOIN tensors AS t USING (tensor_id)
          JOIN models AS m USING (model_id)
          WHERE m.name = :model AND m.version = :version
            AND q.granularity = 'channel' AND q.dtype = :dtype
            AND q.scheme = 'affine' AND q.method = 'minmax'
            AND q.options = ''))
FROM (SELECT t.tensor_id, 0 AS part, t.name,
             coalesce(q.codes, q_f32(t.data, t.dtype)) AS data,
             coalesce(q.dtype, 'f32') AS dtype, t.shape
      FROM tensors AS t JOIN models AS m USING (model_id)
      LEFT JOIN quantizations AS q
        ON q.tensor_id = t.tensor_id AND q.granularity = 'channel'
       AND q.dtype = :dtype AND q.scheme = 'affine' AND q.method = 'minmax'
       AND q.options = ''
      WHERE m.name = :model AND m.version = :version
      UNION ALL
      SELECT t.tensor_id, p.part, t.name || p.suffix,
             CASE p.part WHEN 1 THEN q.scales ELSE q.zero_points END,
             CASE p.part WHEN 1 THEN 'f32' ELSE 'int32' END,
             json_array(length(q.scales) / 4)
      FROM tensors AS t JOIN models AS m USING (model_id)
      JOIN quantizations AS q
        ON q.tensor_id = t.tensor_id AND q.granularity = 'channel'
       AND q.dtype = :dtype AND q.scheme = 'affine' AND q.method = 'minmax'
       AND q.options = '',
           (SELECT 1 AS part, '.scales' AS suffix
            UNION ALL SELECT 2, '.zero_points') AS p
      WHERE m.name = :model AND m.version = :version
      ORDER BY 1, 2);
