-- quantize-ggml.sql: every 2-D weight of a release as a ggml block type.
--
--   sqlite3 -bail reg.db -cmd '.load dist/quant' \
--     -cmd ".parameter set :model llama" -cmd ".parameter set :version 1" \
--     -cmd ".parameter set :ggml_type q4_K" < sql/recipes/quantize-ggml.sql
--
-- Parameters: :model and :version (the release), :ggml_type ('q4_K', ...).
-- One statement, so atomic as any statement is.  The other recipes, and
-- how to run them from a host language:
-- docs/REGISTRY.md#recipes-files-in-and-out-of-the-registry.
--
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
