-- export_gguf.sql: one model under one policy, out of the registry
-- (sql/registry.sql) as a GGUF file, in one INSERT into a q_gguf_write
-- table: the file appears at :path (or replaces the one there) when the
-- statement commits, never after a failure.  The table is in temp, so the
-- registry's write lock is not held while the file is built
-- (docs/FORMATS.md#file-writers).
--
-- Parameters, bound by name (`.parameter set :policy_id 1` in the sqlite3
-- shell): :policy_id, :model_id, :path (the file to write; its directory
-- must exist).  examples/export_gguf.sh runs it for every policy and model
-- and records each file in the exports table.
--
-- Every tensor of the model is written, in tensor order, as the policy's
-- choice for it (policy_choices) says (docs/FORMATS.md#the-registrys-gguf-export
-- has the convention):
--   a ggml type      its blocks as that ggml type, in the quantization's
--                    view shape when it has one;
--   an integer dtype its codes verbatim as GGUF's integer type of that
--                    width (int8 and uint8 codes as I8, 4-bit codes packed
--                    two per byte as a 1-D I8 tensor of the packed bytes),
--                    then "<name>.scales" (F32) and "<name>.zero_points"
--                    (I32), one entry per group, laid out as the registry
--                    lays them out, and keys sqlite_quant.tensor.<name>.*
--                    that say how to read them;
--   a log2 quantization  the floats its codes stand for (quantization_floats),
--                    as F32: neither GGUF nor these keys have log2 codes;
--   no choice, or a choice that keeps it float
--                    its stored float data (f32, f16 or bf16), as stored.
-- Metadata: the model's own keys (model_metadata, in the order they were
-- imported) whose types GGUF has, then sqlite_quant.version, .policy,
-- .policy.description, .model and .model.version, then the per-tensor keys.
-- The lists of names between /*{...*/ and /*}*/ are generated from
-- ext/catalogue.toml (`make catalogue`).
-- Nothing depends on the time or the machine: the same registry gives the
-- same bytes.

CREATE VIRTUAL TABLE IF NOT EXISTS temp.gguf_out USING q_gguf_write;
WITH
-- The model's tensors (a chunked tensor's rows in chunk order) with the
-- policy's quantization, if any.  vs: the shape the parameters refer to;
-- ax: their axis counted from 0.
pick AS (
  SELECT t.tensor_id, t.chunk, t.name, t.shape,
         CASE WHEN q.scheme = 'log2' THEN 'f32' ELSE t.dtype END AS stored,
         CASE WHEN q.scheme = 'log2'
              THEN (SELECT x FROM quantization_floats AS f
                    WHERE f.quantization_id = q.quantization_id)
              ELSE t.data END AS data,
         min(t.tensor_id) OVER (PARTITION BY t.name) AS first_id,
         q.dtype, q.scheme,
         CASE WHEN q.scheme = 'log2' THEN NULL ELSE q.granularity END AS granularity,
         q.view_shape, q.block_size,
         q.scale, q.zero_point, q.scales, q.zero_points,
         CASE WHEN q.scheme = 'log2' THEN NULL ELSE q.codes END AS codes,
         coalesce(q.view_shape, t.shape) AS vs,
         CASE WHEN q.axis < 0
              THEN q.axis + json_array_length(coalesce(q.view_shape, t.shape))
              ELSE q.axis END AS ax
  FROM tensors AS t
  LEFT JOIN policy_choices AS c
    ON c.tensor_id = t.tensor_id AND c.policy_id = :policy_id
  LEFT JOIN quantizations AS q ON q.quantization_id = c.quantization_id
  WHERE t.model_id = :model_id),
-- Integer codes' parameters: their shape is [1] per tensor, [channels] per
-- channel, the view shape with the axis counted in blocks per block.
params AS (
  SELECT *,
         CASE granularity
           WHEN 'tensor' THEN '[1]'
           WHEN 'channel' THEN json_array(json_extract(vs, '$[' || ax || ']'))
           ELSE json_set(vs, '$[' || ax || ']',
                         (json_extract(vs, '$[' || ax || ']') + block_size - 1)
                         / block_size) END AS grid
  FROM pick WHERE granularity IN ('tensor', 'channel', 'block')),
-- What the file holds: part 0 the tensor itself, parts 1 and 2 the scales
-- and zero points of integer codes.
parts AS (
  SELECT first_id, chunk, 0 AS part, name,
         coalesce(codes, data) AS data,
         CASE WHEN granularity IS NULL THEN stored
              WHEN granularity = 'ggml' THEN dtype
              WHEN dtype IN /*{code_dtypes_of_bits:16*/('int16',
                  'uint16')/*}*/ THEN 'int16'
              WHEN dtype IN /*{code_dtypes_of_bits:32*/('int32')/*}*/ THEN 'int32'
              ELSE 'int8' END AS type,
         CASE WHEN granularity IS NULL THEN shape
              WHEN granularity = 'ggml' THEN vs
              WHEN dtype IN /*{code_dtypes_of_bits:4*/('int4', 'uint4')/*}*/
                THEN json_array(length(codes))
              ELSE shape END AS shape
  FROM pick
  UNION ALL
  SELECT first_id, chunk, 1, name || '.scales',
         -- A per-tensor scale is a REAL holding a float32 value: its text
         -- (15 significant digits) reads back as that float32.
         CASE granularity WHEN 'tensor' THEN q_f32(json_array(scale))
                          ELSE scales END,
         'f32', grid
  FROM params
  UNION ALL
  SELECT first_id, chunk, 2, name || '.zero_points',
         -- int32 codes of zero_point / 1 + 0: the integer itself, as a
         -- little-endian int32.
         CASE granularity WHEN 'tensor'
              THEN quantize_blob(q_f32(json_array(zero_point)), 1, 0, 'int32')
              ELSE zero_points END,
         'int32', grid
  FROM params),
-- The keys, in order: (section, tensor, field).
keys AS (
  SELECT 0 AS s, 0 AS tid, k.rowid AS f, k.key,
         json_object('type', k.type, 'value', json(k.value)) AS v
  FROM model_metadata AS k
  WHERE k.model_id = :model_id
    -- GGUF's value types, alone or as an array's elements (TFLite's
    -- operator codes have none: they stay out).
    AND (CASE WHEN k.type GLOB 'array[[]*]' THEN substr(k.type, 7, length(k.type) - 7)
              ELSE k.type END)
        IN /*{gguf_scalar_value_types*/('uint8', 'int8', 'uint16', 'int16',
            'uint32', 'int32', 'float32', 'bool', 'string', 'uint64', 'int64',
            'float64')/*}*/
  UNION ALL
  SELECT 1, 0, f, key, json_object('type', 'string', 'value', value)
  FROM (SELECT 1 AS f, 'sqlite_quant.version' AS key, q_version() AS value
        UNION ALL SELECT 2, 'sqlite_quant.policy', name
                  FROM policies WHERE policy_id = :policy_id
        UNION ALL SELECT 3, 'sqlite_quant.policy.description', description
                  FROM policies WHERE policy_id = :policy_id
        UNION ALL SELECT 4, 'sqlite_quant.model', name
                  FROM models WHERE model_id = :model_id
        UNION ALL SELECT 5, 'sqlite_quant.model.version', version
                  FROM models WHERE model_id = :model_id)
  UNION ALL
  SELECT 2, tensor_id, f, 'sqlite_quant.tensor.' || name || '.' || field,
         json_object('type', type, 'value', json(value))
  FROM (SELECT tensor_id, name, 1 AS f, 'dtype' AS field, 'string' AS type,
               json_quote(dtype) AS value FROM params
        UNION ALL
        SELECT tensor_id, name, 2, 'scheme', 'string', json_quote(scheme) FROM params
        UNION ALL
        SELECT tensor_id, name, 3, 'granularity', 'string', json_quote(granularity)
        FROM params
        UNION ALL
        -- The model's shape: always for integer codes (4-bit ones are
        -- stored flat), for a ggml type written in its view shape.
        SELECT tensor_id, name, 4, 'shape', 'array[int64]', shape FROM params
        UNION ALL
        SELECT tensor_id, name, 4, 'shape', 'array[int64]', shape
        FROM pick WHERE granularity = 'ggml' AND view_shape IS NOT NULL
        UNION ALL
        -- The shape the axis and the blocks refer to, when not the model's.
        SELECT tensor_id, name, 5, 'view_shape', 'array[int64]', view_shape
        FROM params WHERE view_shape IS NOT NULL
        UNION ALL
        SELECT tensor_id, name, 6, 'axis', 'int32', ax
        FROM params WHERE granularity IN ('channel', 'block')
        UNION ALL
        SELECT tensor_id, name, 7, 'block_size', 'uint32', block_size
        FROM params WHERE granularity = 'block')),
metadata AS (
  SELECT json_group_object(key, json(v)) AS json
  FROM (SELECT key, v FROM keys ORDER BY s, tid, f))
INSERT INTO temp.gguf_out (path, name, data, type, shape, metadata)
SELECT :path, name, data, type, shape, (SELECT json FROM metadata)
FROM (SELECT * FROM parts ORDER BY first_id, part, chunk);
