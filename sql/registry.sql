-- registry.sql: a model registry for sqlite-quant.
--
-- Three tables hold what a team needs to keep quantized weights honest:
--
--   models          one row per model release (name, version, where the bytes
--                   came from, licence, checksum of the file they came from)
--   tensors         the float weights of each model, one BLOB per tensor, in
--                   the model's own float format (f32, f16 or bf16)
--   quantizations   every way a tensor has been quantized: dtype, scheme,
--                   granularity (per tensor / per channel / per block),
--                   calibration method, the parameters, the integer codes and
--                   the measured error
--
-- and views that read them back:
--
--   channel_scales  per-channel scales and zero points, one row per channel
--   block_scales    per-block scales and zero points, one row per block
--   model_summary   per model and quantization label: bytes before and after,
--                   bits per weight, mean and worst-layer SQNR
--
-- Load it with `sqlite3 my.db < sql/registry.sql` or `.read sql/registry.sql`;
-- it only creates what is missing, so running it twice is harmless.  The
-- tables, constraints and model_summary need nothing but SQLite 3.38 or later
-- (built-in JSON); Python's sqlite3 module can fill them without the
-- extension.  channel_scales and block_scales call the extension's q_each
-- table-valued function: load the extension (`.load dist/quant`) before
-- querying them ("no such table: main.q_each" means it is not loaded).
--
-- Conventions (SPEC section 1): float data are little-endian BLOBs with no
-- header; a shape is a JSON array of positive integers in row-major (C) order;
-- an axis counts from 0, negative from the end; per-channel and per-block
-- scales are float32 BLOBs and zero points int32 BLOBs, row-major, exactly as
-- q_per_channel_scales / q_block_scales return them, so a stored row can be
-- dequantized with nothing but its own columns:
--
--   SELECT dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
--                                      coalesce(q.view_shape, t.shape),
--                                      q.axis, q.dtype)
--   FROM quantizations q JOIN tensors t USING (tensor_id) WHERE ...;
--
-- Constraints reject inconsistent rows at the door.  Checks that need only
-- the row itself are named CHECK constraints (the error names them:
-- "CHECK constraint failed: per_channel_params"); checks that need another
-- row or a loop over a JSON array are BEFORE triggers whose messages start
-- with the table name ("tensors: shape ...").  Foreign keys are enforced
-- only on connections that run `PRAGMA foreign_keys = ON` (SQLite's default
-- is off, per connection); this script turns them on for its own connection.

PRAGMA foreign_keys = ON;

-- ---------------------------------------------------------------------------
-- models: one row per model release.
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS models (
  model_id    INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,                -- 'silero_vad'
  version     TEXT NOT NULL,                -- 'v5'
  format      TEXT NOT NULL                 -- the file the weights came from
              CONSTRAINT model_format CHECK (format IN
                ('onnx', 'tflite', 'safetensors', 'gguf', 'pytorch', 'other')),
  source      TEXT NOT NULL,                -- where to get that file again:
                                            -- 'npm:@ricky0123/vad-web@0.0.31/dist/silero_vad_v5.onnx'
  licence     TEXT NOT NULL,                -- SPDX identifier: 'MIT', 'Apache-2.0'
  homepage    TEXT,                         -- the upstream project
  sha256      TEXT                          -- of the source file, lower-case hex
              CONSTRAINT model_sha256 CHECK (sha256 IS NULL OR
                (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*')),
  imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  CONSTRAINT model_release UNIQUE (name, version)
);

-- ---------------------------------------------------------------------------
-- tensors: the float weights, as the model stores them.
--
-- dtype is the float format of `data` ('f32', 'f16' or 'bf16'); half-format
-- tensors stay half here (no information is invented) and are widened on
-- use with q_f32(data, dtype).  numel is derived from the data length.
-- channel_axis is the output-channel axis as the framework lays the weight
-- out (ONNX Conv/Gemm/LSTM and TFLite CONV_2D: 0; TFLite DEPTHWISE_CONV_2D,
-- whose kernel is [1, H, W, C]: 3), i.e. the axis a per-channel quantizer
-- should use; NULL when the tensor has none (biases, scalars).
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS tensors (
  tensor_id    INTEGER PRIMARY KEY,
  model_id     INTEGER NOT NULL REFERENCES models ON DELETE CASCADE,
  name         TEXT NOT NULL,               -- '16k/encoder.0.reparam_conv.weight'
  shape        TEXT NOT NULL                -- '[128,129,3]'; '[]' for a scalar
               CONSTRAINT tensor_shape_json CHECK (json_valid(shape)
                 AND json_type(shape) = 'array'),
  dtype        TEXT NOT NULL
               CONSTRAINT tensor_dtype CHECK (dtype IN ('f32', 'f16', 'bf16')),
  channel_axis INTEGER
               CONSTRAINT tensor_channel_axis CHECK (channel_axis IS NULL OR
                 (typeof(channel_axis) = 'integer' AND channel_axis >= 0
                  AND json_valid(shape)
                  AND channel_axis < json_array_length(shape))),
  data         BLOB NOT NULL
               CONSTRAINT tensor_data CHECK (typeof(data) = 'blob'
                 AND length(data) > 0
                 AND length(data) % (CASE dtype WHEN 'f32' THEN 4 ELSE 2 END) = 0),
  numel        INTEGER GENERATED ALWAYS AS
                 (length(data) / (CASE dtype WHEN 'f32' THEN 4 ELSE 2 END)) VIRTUAL,
  CONSTRAINT tensor_name UNIQUE (model_id, name)
);

-- The shape must list positive integers whose product is the element count
-- of `data`.  CHECK cannot loop over a JSON array, so triggers do it (a
-- recursive CTE multiplies the dimensions; '[]' multiplies to 1).  BEFORE
-- triggers run before the CHECK constraints, so they skip rows that a CHECK
-- will refuse anyway (malformed JSON, unknown dtype, ragged data): each
-- error is reported by the rule that names it.
CREATE TRIGGER IF NOT EXISTS tensors_shape_insert
BEFORE INSERT ON tensors
WHEN json_valid(NEW.shape) AND json_type(NEW.shape) = 'array'
BEGIN
  SELECT RAISE(ABORT, 'tensors: shape must be a JSON array of positive integers')
  WHERE EXISTS (SELECT 1 FROM json_each(NEW.shape)
                WHERE type <> 'integer' OR value < 1);
  SELECT RAISE(ABORT, 'tensors: shape does not match the data length')
  WHERE NEW.dtype IN ('f32', 'f16', 'bf16') AND typeof(NEW.data) = 'blob'
    AND length(NEW.data) > 0
    AND length(NEW.data) % (CASE NEW.dtype WHEN 'f32' THEN 4 ELSE 2 END) = 0
    AND (WITH RECURSIVE dims(k, n) AS (
           SELECT 0, 1
           UNION ALL
           SELECT k + 1, n * json_extract(NEW.shape, '$[' || k || ']')
           FROM dims WHERE k < json_array_length(NEW.shape))
         SELECT n FROM dims ORDER BY k DESC LIMIT 1)
        IS NOT length(NEW.data) / (CASE NEW.dtype WHEN 'f32' THEN 4 ELSE 2 END);
END;

CREATE TRIGGER IF NOT EXISTS tensors_shape_update
BEFORE UPDATE OF shape, dtype, data ON tensors
WHEN json_valid(NEW.shape) AND json_type(NEW.shape) = 'array'
BEGIN
  SELECT RAISE(ABORT, 'tensors: shape must be a JSON array of positive integers')
  WHERE EXISTS (SELECT 1 FROM json_each(NEW.shape)
                WHERE type <> 'integer' OR value < 1);
  SELECT RAISE(ABORT, 'tensors: shape does not match the data length')
  WHERE NEW.dtype IN ('f32', 'f16', 'bf16') AND typeof(NEW.data) = 'blob'
    AND length(NEW.data) > 0
    AND length(NEW.data) % (CASE NEW.dtype WHEN 'f32' THEN 4 ELSE 2 END) = 0
    AND (WITH RECURSIVE dims(k, n) AS (
           SELECT 0, 1
           UNION ALL
           SELECT k + 1, n * json_extract(NEW.shape, '$[' || k || ']')
           FROM dims WHERE k < json_array_length(NEW.shape))
         SELECT n FROM dims ORDER BY k DESC LIMIT 1)
        IS NOT length(NEW.data) / (CASE NEW.dtype WHEN 'f32' THEN 4 ELSE 2 END);
END;

-- ---------------------------------------------------------------------------
-- quantizations: one row per (tensor, way of quantizing it).
--
-- What is quantized:
--   dtype        code type, canonical name of SPEC 1.3 (aliases such as
--                'qint8' are not stored: one spelling per meaning)
--   scheme       'affine' (asymmetric min/max) or 'symmetric'
--   granularity  'tensor'  one scale/zero point:  scale, zero_point
--                'channel' one per index along axis:  scales, zero_points, axis
--                'block'   one per block of block_size elements along axis:
--                          scales, zero_points, axis, block_size
--                Columns that do not belong to the granularity must be NULL.
--   method       calibration: 'minmax', 'percentile' (with percentile, the
--                P of method=percentile percentile=P) or 'mse'
--   options      any other options passed verbatim to the functions
--                (quant_min=, quant_max=, reduce_range=, rounding=); method
--                and percentile have their own columns and are not repeated
--                here.  call_options (generated) is the full option string:
--                q_scale(x, dtype, scheme, call_options) reproduces scale.
--   view_shape   the shape the functions were called with, when it is not
--                the tensor's own (e.g. a conv kernel [O, I, K] blocked as
--                the matrix [O, I*K]); same element count; NULL = tensor shape.
--                axis counts in this shape.
-- The parameters and codes, as the extension returns them:
--   scale REAL, zero_point INTEGER (per tensor); scales f32 BLOB and
--   zero_points i32 BLOB (per channel, per block); codes the packed integer
--   codes (4-bit: two per byte).
-- The measured error of dequantize(codes) against the float tensor
-- (q_mse, q_sqnr in dB, q_max_error, q_cosine); NULL until measured.
-- Generated: label (readable, unique per tensor) and bytes, the deployed
-- size: codes + float32 scales + zero points in the code dtype (ONNX
-- QuantizeLinear storage: an int4 zero point takes half a byte), zero points
-- omitted for symmetric schemes (they are implied).  Per-tensor parameters
-- count 4 bytes (+ the zero point).
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS quantizations (
  quantization_id INTEGER PRIMARY KEY,
  tensor_id    INTEGER NOT NULL REFERENCES tensors ON DELETE CASCADE,
  dtype        TEXT NOT NULL
               CONSTRAINT quantization_dtype CHECK (dtype IN
                 ('int8', 'uint8', 'int16', 'uint16', 'int32', 'int4', 'uint4')),
  scheme       TEXT NOT NULL DEFAULT 'affine'
               CONSTRAINT quantization_scheme CHECK (scheme IN ('affine', 'symmetric')),
  granularity  TEXT NOT NULL
               CONSTRAINT quantization_granularity CHECK (granularity IN
                 ('tensor', 'channel', 'block')),
  method       TEXT NOT NULL DEFAULT 'minmax'
               CONSTRAINT quantization_method CHECK (method IN
                 ('minmax', 'percentile', 'mse')),
  percentile   REAL,
  options      TEXT NOT NULL DEFAULT '',
  view_shape   TEXT
               CONSTRAINT quantization_view_shape CHECK (view_shape IS NULL OR
                 (json_valid(view_shape) AND json_type(view_shape) = 'array')),
  axis         INTEGER,
  block_size   INTEGER,
  scale        REAL,
  zero_point   INTEGER,
  scales       BLOB,
  zero_points  BLOB,
  codes        BLOB NOT NULL
               CONSTRAINT quantization_codes CHECK (typeof(codes) = 'blob'),
  mse          REAL CONSTRAINT quantization_mse CHECK (mse IS NULL OR mse >= 0),
  sqnr_db      REAL,
  max_error    REAL CONSTRAINT quantization_max_error
                 CHECK (max_error IS NULL OR max_error >= 0),
  cosine       REAL,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),

  -- Generated columns (computed on read, never stored).
  call_options TEXT GENERATED ALWAYS AS (trim(
    'method=' || method
    || CASE WHEN percentile IS NULL THEN '' ELSE ' percentile=' || percentile END
    || ' ' || options)) VIRTUAL,
  label        TEXT GENERATED ALWAYS AS (
    dtype || ' '
    || CASE granularity WHEN 'block' THEN 'block' || block_size ELSE granularity END
    || ' ' || scheme
    || CASE method WHEN 'minmax' THEN '' WHEN 'percentile' THEN ' p' || percentile
                   ELSE ' ' || method END
    || CASE options WHEN '' THEN '' ELSE ' ' || options END) VIRTUAL,
  bytes        INTEGER GENERATED ALWAYS AS (
    length(codes)
    + coalesce(length(scales), 4)
    + CASE WHEN scheme = 'symmetric' THEN 0
           ELSE (coalesce(length(zero_points) / 4, 1)
                 * (CASE WHEN dtype IN ('int4', 'uint4') THEN 4
                         WHEN dtype IN ('int8', 'uint8') THEN 8
                         WHEN dtype IN ('int16', 'uint16') THEN 16 ELSE 32 END)
                 + 7) / 8 END) VIRTUAL,

  -- Each granularity has exactly its own parameters.
  CONSTRAINT per_tensor_params CHECK (granularity <> 'tensor' OR
    (scale IS NOT NULL AND zero_point IS NOT NULL
     AND scales IS NULL AND zero_points IS NULL
     AND axis IS NULL AND block_size IS NULL)),
  CONSTRAINT per_channel_params CHECK (granularity <> 'channel' OR
    (scales IS NOT NULL AND zero_points IS NOT NULL AND axis IS NOT NULL
     AND block_size IS NULL AND scale IS NULL AND zero_point IS NULL)),
  CONSTRAINT per_block_params CHECK (granularity <> 'block' OR
    (scales IS NOT NULL AND zero_points IS NOT NULL AND axis IS NOT NULL
     AND block_size IS NOT NULL AND scale IS NULL AND zero_point IS NULL)),

  -- Parameter values (SPEC 1.4, 3.5): a finite float32 scale > 0; a zero
  -- point inside the dtype's range; scale and zero-point BLOBs of equal
  -- entry counts (4 bytes each); a positive block size.
  CONSTRAINT scale_value CHECK (scale IS NULL OR
    (typeof(scale) = 'real' AND scale > 0 AND scale <= 3.4028234663852886e38)),
  CONSTRAINT zero_point_range CHECK (zero_point IS NULL OR
    (typeof(zero_point) = 'integer' AND zero_point BETWEEN
       (CASE dtype WHEN 'int8' THEN -128 WHEN 'uint8' THEN 0
                   WHEN 'int16' THEN -32768 WHEN 'uint16' THEN 0
                   WHEN 'int32' THEN -2147483648 WHEN 'int4' THEN -8 ELSE 0 END)
   AND (CASE dtype WHEN 'int8' THEN 127 WHEN 'uint8' THEN 255
                   WHEN 'int16' THEN 32767 WHEN 'uint16' THEN 65535
                   WHEN 'int32' THEN 2147483647 WHEN 'int4' THEN 7 ELSE 15 END))),
  CONSTRAINT param_blobs CHECK (scales IS NULL OR
    (typeof(scales) = 'blob' AND typeof(zero_points) = 'blob'
     AND length(scales) > 0 AND length(scales) % 4 = 0
     AND length(zero_points) = length(scales))),
  CONSTRAINT block_size_value CHECK (block_size IS NULL OR
    (typeof(block_size) = 'integer' AND block_size >= 1)),
  CONSTRAINT axis_value CHECK (axis IS NULL OR typeof(axis) = 'integer'),

  -- Symmetric quantization to a signed dtype has zero points of 0 (SPEC 3.3).
  CONSTRAINT symmetric_zero_point CHECK (scheme <> 'symmetric'
    OR dtype NOT IN ('int8', 'int16', 'int32', 'int4')
    OR (coalesce(zero_point, 0) = 0
        AND (zero_points IS NULL OR zero_points = zeroblob(length(zero_points))))),

  -- percentile is set exactly when method = 'percentile', as 0 < P <= 100;
  -- options does not repeat method or percentile.
  CONSTRAINT percentile_value CHECK ((method = 'percentile') = (percentile IS NOT NULL)
    AND (percentile IS NULL OR (percentile > 0 AND percentile <= 100))),
  CONSTRAINT options_text CHECK (typeof(options) = 'text'
    AND options NOT LIKE '%method=%' AND options NOT LIKE '%percentile=%')
);

-- One row per tensor and label (the label spells out dtype, granularity,
-- block size, scheme, method and options, but not the axis or view_shape: a
-- tensor has one per-channel row per scheme); this index also serves the
-- tensor_id foreign key.
CREATE UNIQUE INDEX IF NOT EXISTS quantizations_tensor_label
  ON quantizations (tensor_id, label);
-- Ranking across a model or the whole registry: "worst SQNR under label X".
CREATE INDEX IF NOT EXISTS quantizations_label_sqnr
  ON quantizations (label, sqnr_db);
-- tensors (model_id, name) is indexed by its UNIQUE constraint.

-- A quantization row must fit its tensor: the shape it was computed in holds
-- the tensor's element count, axis lies inside that shape, the codes have
-- one element per tensor element (4-bit codes two per byte), and there is
-- one scale per channel (shape[axis] of them) or per block
-- (numel / shape[axis] * ceil(shape[axis] / block_size)).  These need the
-- tensors row, so they are triggers.  As for tensors, the trigger leaves to
-- the foreign key a missing tensor and to the CHECK constraints (which run
-- after it) what they refuse: missing or ragged parameters, bad names.
CREATE TRIGGER IF NOT EXISTS quantizations_fit_insert
BEFORE INSERT ON quantizations
WHEN EXISTS (SELECT 1 FROM tensors WHERE tensor_id = NEW.tensor_id)
 AND (NEW.view_shape IS NULL
      OR (json_valid(NEW.view_shape) AND json_type(NEW.view_shape) = 'array'))
BEGIN
  SELECT RAISE(ABORT, 'quantizations: view_shape does not hold the tensor''s elements')
  WHERE NEW.view_shape IS NOT NULL
    AND ((SELECT count(*) FROM json_each(NEW.view_shape)
          WHERE type <> 'integer' OR value < 1) > 0
         OR (WITH RECURSIVE dims(k, n) AS (
               SELECT 0, 1
               UNION ALL
               SELECT k + 1, n * json_extract(NEW.view_shape, '$[' || k || ']')
               FROM dims WHERE k < json_array_length(NEW.view_shape))
             SELECT n FROM dims ORDER BY k DESC LIMIT 1)
            IS NOT (SELECT numel FROM tensors WHERE tensor_id = NEW.tensor_id));
  SELECT RAISE(ABORT, 'quantizations: axis is out of range for the shape')
  WHERE NEW.axis IS NOT NULL AND typeof(NEW.axis) = 'integer'
    AND (SELECT NEW.axis < -r OR NEW.axis >= r
         FROM (SELECT json_array_length(coalesce(NEW.view_shape, shape)) AS r
               FROM tensors WHERE tensor_id = NEW.tensor_id));
  SELECT RAISE(ABORT, 'quantizations: codes length does not match the tensor and dtype')
  WHERE typeof(NEW.codes) = 'blob' AND length(NEW.codes) IS NOT
    (SELECT CASE WHEN NEW.dtype IN ('int4', 'uint4') THEN (numel + 1) / 2
                 WHEN NEW.dtype IN ('int8', 'uint8') THEN numel
                 WHEN NEW.dtype IN ('int16', 'uint16') THEN numel * 2
                 WHEN NEW.dtype = 'int32' THEN numel * 4 END
     FROM tensors WHERE tensor_id = NEW.tensor_id)
    AND NEW.dtype IN ('int8', 'uint8', 'int16', 'uint16', 'int32', 'int4', 'uint4');
  SELECT RAISE(ABORT, 'quantizations: per-channel scales must have shape[axis] entries')
  WHERE NEW.granularity = 'channel' AND typeof(NEW.axis) = 'integer'
    AND typeof(NEW.scales) = 'blob' AND length(NEW.scales) % 4 = 0
    AND length(NEW.scales) / 4 IS NOT
      (SELECT json_extract(s, '$[' || (CASE WHEN NEW.axis < 0
                                            THEN NEW.axis + json_array_length(s)
                                            ELSE NEW.axis END) || ']')
       FROM (SELECT coalesce(NEW.view_shape, shape) AS s
             FROM tensors WHERE tensor_id = NEW.tensor_id));
  SELECT RAISE(ABORT, 'quantizations: per-block scales must have one entry per block')
  WHERE NEW.granularity = 'block' AND typeof(NEW.axis) = 'integer'
    AND typeof(NEW.scales) = 'blob' AND length(NEW.scales) % 4 = 0
    AND typeof(NEW.block_size) = 'integer' AND NEW.block_size >= 1
    AND length(NEW.scales) / 4 IS NOT
      (SELECT numel / d * ((d + NEW.block_size - 1) / NEW.block_size)
       FROM (SELECT numel, json_extract(s, '$[' || (CASE WHEN NEW.axis < 0
                                            THEN NEW.axis + json_array_length(s)
                                            ELSE NEW.axis END) || ']') AS d
             FROM (SELECT numel, coalesce(NEW.view_shape, shape) AS s
                   FROM tensors WHERE tensor_id = NEW.tensor_id)));
END;

-- Updates that change what a row describes go through the same checks: the
-- simplest correct rule is "delete and insert again", so they are refused.
-- Measured metrics (mse, sqnr_db, max_error, cosine) may be updated freely.
CREATE TRIGGER IF NOT EXISTS quantizations_fixed_update
BEFORE UPDATE OF tensor_id, dtype, scheme, granularity, method, percentile,
                 options, view_shape, axis, block_size, scale, zero_point,
                 scales, zero_points, codes ON quantizations
BEGIN
  SELECT RAISE(ABORT, 'quantizations: a quantization is immutable; delete it and insert a new row')
  WHERE NEW.tensor_id IS NOT OLD.tensor_id OR NEW.dtype IS NOT OLD.dtype
     OR NEW.scheme IS NOT OLD.scheme OR NEW.granularity IS NOT OLD.granularity
     OR NEW.method IS NOT OLD.method OR NEW.percentile IS NOT OLD.percentile
     OR NEW.options IS NOT OLD.options OR NEW.view_shape IS NOT OLD.view_shape
     OR NEW.axis IS NOT OLD.axis OR NEW.block_size IS NOT OLD.block_size
     OR NEW.scale IS NOT OLD.scale OR NEW.zero_point IS NOT OLD.zero_point
     OR NEW.scales IS NOT OLD.scales OR NEW.zero_points IS NOT OLD.zero_points
     OR NEW.codes IS NOT OLD.codes;
END;

-- ---------------------------------------------------------------------------
-- Views.
-- ---------------------------------------------------------------------------

-- channel_scales: per-channel parameters exploded into rows, one per channel
-- (needs the extension: q_each).  E.g. the channels whose scale is 10x the
-- median of their tensor, or a histogram of scales per layer.
CREATE VIEW IF NOT EXISTS channel_scales AS
SELECT m.name        AS model,
       t.name        AS tensor,
       q.label       AS label,
       q.quantization_id,
       q.axis        AS axis,
       s.i           AS channel,
       s.value       AS scale,
       z.value       AS zero_point
FROM quantizations q
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
JOIN q_each(q.scales) s
JOIN q_each(q.zero_points, 'int32') z ON z.i = s.i
WHERE q.granularity = 'channel';

-- block_scales: the same for per-block rows; `block` is the row-major index
-- of the block in the view shape with shape[axis] replaced by the block count.
CREATE VIEW IF NOT EXISTS block_scales AS
SELECT m.name        AS model,
       t.name        AS tensor,
       q.label       AS label,
       q.quantization_id,
       q.axis        AS axis,
       q.block_size  AS block_size,
       s.i           AS block,
       s.value       AS scale,
       z.value       AS zero_point
FROM quantizations q
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
JOIN q_each(q.scales) s
JOIN q_each(q.zero_points, 'int32') z ON z.i = s.i
WHERE q.granularity = 'block';

-- model_summary: one row per model and quantization label, over the tensors
-- quantized under that label.
--   tensors         how many tensors
--   weights         their element count
--   bytes_before    as stored in the registry (f16 models: 2 bytes per weight)
--   f32_bytes       as float32 (4 bytes per weight)
--   bytes_after     deployed size of the codes and parameters (quantizations.bytes)
--   bits_per_weight 8 * bytes_after / weights
--   mean_sqnr_db    mean over tensors of the per-tensor SQNR
--   worst_sqnr_db   the lowest per-tensor SQNR, and worst_tensor its tensor
--                   (SQLite returns the bare column from the min() row)
CREATE VIEW IF NOT EXISTS model_summary AS
SELECT m.name                                   AS model,
       m.version                                AS version,
       q.label                                  AS label,
       count(*)                                 AS tensors,
       sum(t.numel)                             AS weights,
       sum(length(t.data))                      AS bytes_before,
       sum(t.numel) * 4                         AS f32_bytes,
       sum(q.bytes)                             AS bytes_after,
       8.0 * sum(q.bytes) / sum(t.numel)        AS bits_per_weight,
       avg(q.sqnr_db)                           AS mean_sqnr_db,
       min(q.sqnr_db)                           AS worst_sqnr_db,
       t.name                                   AS worst_tensor
FROM quantizations q
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
GROUP BY m.model_id, q.label;
