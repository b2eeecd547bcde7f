-- export-gguf.sql: a release's ggml quantizations (and its other tensors in
-- float32) to a GGUF file, with the release's metadata.
--
--   sqlite3 -bail reg.db -cmd '.load dist/quant' \
--     -cmd ".parameter set :model llama" -cmd ".parameter set :version 1" \
--     -cmd ".parameter set :ggml_type q4_K" \
--     -cmd ".parameter set :out 'llama-q4_K.gguf'" < sql/recipes/export-gguf.sql
--
-- Parameters: :model and :version, :ggml_type, :out (the file to write).
-- The path writers are SQLITE_DIRECTONLY: run this from the shell or an
-- application, never from a view or trigger.  A policy's choices go to
-- GGUF through examples/export_gguf.sh instead
-- (docs/REGISTRY.md#recipes-files-in-and-out-of-the-registry).
--
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
