-- export-safetensors.sql: a release's per-channel quantizations to a
-- safetensors file: codes, scales and zero points as three tensors per
-- weight, the rest in float32.
--
--   sqlite3 -bail reg.db -cmd '.load dist/quant' \
--     -cmd ".parameter set :model demo" -cmd ".parameter set :version 1" \
--     -cmd ".parameter set :dtype int8" \
--     -cmd ".parameter set :out 'demo-int8.safetensors'" \
--     < sql/recipes/export-safetensors.sql
--
-- Parameters: :model and :version, :dtype ('int8' or 'uint8'), :out.
-- SQLITE_DIRECTONLY writers, as export-gguf.sql.
--
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
