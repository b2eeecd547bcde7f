-- compare.sql: choosing a quantization scheme with SQL.
--
-- Runs against the registry of sql/registry.sql (tables models and tensors;
-- tensor data may be f32, f16 or bf16, hence q_f32(data, dtype)).  Needs the
-- extension loaded.  Each query stands alone; the temp table below is shared.
--
--   sqlite3 build/demo.db '.load dist/quant' '.read sql/compare.sql'

.mode box
.headers on

-- Every candidate scheme of every weight tensor (2 or more dimensions), once.
-- q_compare evaluates each candidate with one round trip of the tensor.
DROP TABLE IF EXISTS temp.scheme_results;
CREATE TEMP TABLE scheme_results AS
SELECT m.name AS model, t.name AS tensor, t.numel, c.*
FROM models AS m
JOIN tensors AS t USING (model_id)
JOIN q_compare(q_f32(t.data, t.dtype), t.shape, 0,
               'methods=minmax+mse blocks=32+128') AS c
WHERE json_array_length(t.shape) >= 2;

-- 1. Per tensor: the best scheme within a budget of 4.5 bits per weight.
.print 'Best scheme per tensor within 4.5 bits per weight'
SELECT model, tensor, scheme, printf('%.2f', bits_per_weight) AS bpw,
       printf('%.1f', sqnr_db) AS sqnr_db
FROM (SELECT *, row_number() OVER (PARTITION BY model, tensor
                                   ORDER BY sqnr_db DESC, bits_per_weight) AS rank
      FROM scheme_results WHERE bits_per_weight <= 4.5)
WHERE rank = 1
ORDER BY model, tensor;

-- 2. Whole model: each scheme's size and its error over all tensors taken
--    together.  sum (x - x')^2 = mse * n, and sqnr = 10*log10(sum x^2 / that),
--    so sum x^2 = mse * n * 10^(sqnr/10) (exact round trips add no error).
.print 'Whole model by scheme: bytes, overall SQNR and worst tensor'
SELECT model, scheme, sum(bytes) AS bytes,
       printf('%.2f', 8.0 * sum(bytes) / sum(numel)) AS bpw,
       printf('%.1f', 10 * log10(sum(CASE WHEN sqnr_db < 1e300
                                          THEN mse * numel * pow(10, sqnr_db / 10) END)
                                 / sum(mse * numel))) AS model_sqnr_db,
       printf('%.1f', min(sqnr_db)) AS worst_tensor_sqnr_db
FROM scheme_results
GROUP BY model, scheme
ORDER BY model, bpw, model_sqnr_db DESC;

-- 3. Per layer: how much per-channel int8 gains over per-tensor int8 (affine,
--    minmax).  Layers whose channels have very different ranges gain most.
.print 'Per-channel over per-tensor gain (int8 affine), by layer'
SELECT c.model, c.tensor,
       printf('%.1f', t.sqnr_db) AS per_tensor_db,
       printf('%.1f', c.sqnr_db) AS per_channel_db,
       printf('%+.1f', c.sqnr_db - t.sqnr_db) AS gain_db
FROM scheme_results AS c
JOIN scheme_results AS t USING (model, tensor)
WHERE c.qscheme = 'per_channel_affine' AND c.dtype = 'int8' AND c.method = 'minmax'
  AND t.qscheme = 'per_tensor_affine' AND t.dtype = 'int8' AND t.method = 'minmax'
ORDER BY c.sqnr_db - t.sqnr_db DESC;

-- 4. What calibration buys: mse versus minmax for int4 per-tensor.
.print 'Calibration: method=mse over minmax (int4 symmetric per-tensor)'
SELECT a.model, a.tensor,
       printf('%.1f', a.sqnr_db) AS minmax_db, printf('%.1f', b.sqnr_db) AS mse_db
FROM scheme_results AS a
JOIN scheme_results AS b USING (model, tensor, dtype, qscheme)
WHERE a.dtype = 'int4' AND a.qscheme = 'per_tensor_symmetric'
  AND a.method = 'minmax' AND b.method = 'mse'
ORDER BY b.sqnr_db - a.sqnr_db DESC;
