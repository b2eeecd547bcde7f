-- registry.sql: a model registry for sqlite-quant.
--
-- Four tables hold what a team needs to keep quantized weights honest:
--
--   models          one row per model release (name, version, where the bytes
--                   came from, licence, checksum of the file they came from)
--   model_metadata  the model file's own metadata, key by key (GGUF key-value
--                   pairs, safetensors __metadata__, ONNX model properties)
--   tensors         the float weights of each model, one BLOB per tensor, in
--                   the model's own float format (f32, f16 or bf16); a
--                   tensor bigger than a BLOB as several rows, its chunks
--   quantizations   every way a tensor has been quantized: dtype, scheme,
--                   granularity (per tensor / per channel / per block / a
--                   ggml block format), calibration method (or the ggml
--                   importance weights), the parameters, the codes and the
--                   measured error
--
-- then what deployment adds: policies and policy_rules (rule books that pick
-- one quantization per tensor), policy_choices (what each picked), exports
-- (the files written from a policy: GGUF, ONNX) and evaluations (an exported
-- model's output in a runtime against the float model's);
--
-- and views that read them back:
--
--   channel_scales  per-channel scales and zero points, one row per channel
--   block_scales    per-block scales and zero points, one row per block
--   quantization_floats  each quantization dequantized from its own columns
--   model_summary   per model and quantization label: bytes before and after,
--                   bits per weight, mean and worst-layer SQNR
--   tensor_chunk_errors  what is wrong with the chunks of chunked tensors
--   policy_rule_specs, policy_spec_fits, policy_matches
--                   what each policy rule asks for and which rule decides
--                   each tensor (sql/policy.sql makes it so)
--   policy_gaps     the tensors a policy leaves to no rule
--   policy_summary  per policy and model: bytes before and after, bits per
--                   weight, mean and worst SQNR
--
-- Load it with `sqlite3 my.db < sql/registry.sql` or `.read sql/registry.sql`;
-- it only creates what is missing, so running it twice is harmless (and a
-- registry created by an older version of this file keeps its older rules:
-- SQLite cannot add a constraint to an existing table).  The tables,
-- constraints, triggers and model_summary need nothing but SQLite 3.38 or
-- later (built-in JSON); Python's sqlite3 module can fill them without the
-- extension.  channel_scales and block_scales call the extension's
-- q_each_group table-valued function: load the extension (`.load
-- dist/quant`) before querying them ("no such table: main.q_each_group"
-- means it is not loaded).  A registry made by 0.2.0's registry.sql keeps
-- its views too, which took time quadratic in the channels; to replace them
-- (views hold no data), run `DROP VIEW channel_scales; DROP VIEW
-- block_scales;` and read this file again.
--
-- The lists of names (dtypes, schemes, granularities, methods, ggml types and
-- their block sizes) are generated: the text between /*{...*/ and /*}*/ is
-- what tools/gen_catalogue.py makes of ext/catalogue.toml (`make catalogue`
-- rewrites it; `make test-catalogue` checks it), so that the registry
-- accepts exactly what the extension computes.
--
-- Conventions (docs/reference/data-formats.md#data-formats): float data are little-endian BLOBs
-- with no header; a shape is a JSON array of 1 to 32 positive integers in
-- row-major (C) order, written as the extension's shape parser reads it
-- (brackets, digits, commas and spaces: no tabs or newlines), and a scalar
-- has shape '[1]'; an axis counts from 0, negative from the end; per-channel
-- and per-block scales are float32 BLOBs and zero points int32 BLOBs,
-- row-major, exactly as q_per_channel_scales / q_block_scales return them,
-- so a stored row can be dequantized with nothing but its own columns:
--
--   SELECT dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
--                                      coalesce(q.view_shape, t.shape),
--                                      q.axis, q.dtype)
--   FROM quantizations q JOIN tensors t USING (tensor_id) WHERE ...;
--
-- Constraints reject inconsistent rows at the door.  Checks that need only
-- the row itself are named CHECK constraints (the error names them:
-- "CHECK constraint failed: per_channel_params"); checks that need another
-- row or a loop (over a JSON array, a BLOB of parameters, the words of the
-- options) are BEFORE triggers whose messages start with the table name
-- ("tensors: shape ...").  Every rule holds whatever the connection's
-- `PRAGMA foreign_keys` says (SQLite's default is off, per connection, and
-- this script can turn it on only for its own connection):
--
--   - a tensor must name an existing model and a quantization an existing
--     tensor (triggers, not only the foreign keys);
--   - deleting a model deletes its tensors, and deleting a tensor its
--     quantizations (AFTER DELETE triggers repeat ON DELETE CASCADE);
--   - a parent that has children keeps its key, and cannot be overwritten
--     by an INSERT or UPDATE that collides with it: a trigger cannot tell
--     INSERT OR REPLACE from INSERT OR IGNORE or a plain INSERT, so all of
--     them are refused (delete the parent, or its children, first);
--   - a tensor that has quantizations keeps its shape, dtype and data, since
--     the quantizations describe exactly those.
--
-- The per-channel and per-block parameter BLOBs are checked entry by entry
-- in plain SQL, without the extension (SQLite 3.40 cannot read a float32
-- from a BLOB), on the hex digits of each 4-byte little-endian entry.  A
-- scale's digits, most significant byte first, are compared as text: for
-- float32 that is a comparison of values, since finite floats > 0 order like
-- their bit patterns (00000001..7F7FFFFF) and +inf, NaN and everything
-- negative lie above them (7F800000 and up).  The scales allowed are the
-- ones the extension accepts, (2^-128, 2^126] (patterns
-- 00200001..7E800000): a finite float32 > 0 whose reciprocal is a finite
-- normal float32.  A zero point's digits are matched with GLOB against the
-- two's-complement patterns of the dtype's range (int8: 00..7F followed by
-- three 00 bytes, or 80..FF followed by three FF bytes).  The extension's
-- q_each could read the values instead, but then the tables would refuse
-- every per-channel row on a connection without the extension.

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
                /*{model_formats*/('safetensors', 'gguf', 'npy', 'npz', 'onnx',
                    'tflite', 'pytorch', 'other')/*}*/),
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

-- A release that has tensors is not overwritten: an INSERT (of any conflict
-- clause) or UPDATE that collides with it on model_id or on (name, version)
-- is refused, because INSERT OR REPLACE and UPDATE OR REPLACE would delete
-- it without firing the delete triggers below, leaving its tensors behind
-- when foreign keys are off.  Delete the release first (its tensors go with
-- it) and insert it again; its metadata (source, licence, ...) may be
-- updated in place.
CREATE TRIGGER IF NOT EXISTS models_insert
BEFORE INSERT ON models
BEGIN
  SELECT RAISE(ABORT, 'models: a release that has tensors cannot be replaced; delete it first')
  WHERE EXISTS (SELECT 1 FROM models m JOIN tensors t USING (model_id)
                WHERE m.model_id = NEW.model_id
                   OR (m.name = NEW.name AND m.version = NEW.version));
END;

CREATE TRIGGER IF NOT EXISTS models_update
BEFORE UPDATE OF model_id, name, version ON models
BEGIN
  SELECT RAISE(ABORT, 'models: a release that has tensors keeps its model_id')
  WHERE NEW.model_id IS NOT OLD.model_id
    AND EXISTS (SELECT 1 FROM tensors WHERE model_id = OLD.model_id);
  SELECT RAISE(ABORT, 'models: a release that has tensors cannot be replaced; delete it first')
  WHERE EXISTS (SELECT 1 FROM models m JOIN tensors t USING (model_id)
                WHERE m.model_id IS NOT OLD.model_id
                  AND (m.model_id = NEW.model_id
                       OR (m.name = NEW.name AND m.version = NEW.version)));
END;

-- ON DELETE CASCADE acts only where foreign keys are on; this does the same
-- everywhere (where they are on, both run and the second finds nothing left
-- to delete).
CREATE TRIGGER IF NOT EXISTS models_delete
AFTER DELETE ON models
BEGIN
  DELETE FROM tensors WHERE model_id = OLD.model_id;
END;

-- ---------------------------------------------------------------------------
-- model_metadata: what the model file says about itself, carried over so an
-- export can write it back (sql/recipes/): one row per key, exactly as
-- q_tensor_metadata gives it (docs/FORMATS.md): the format's own type name
-- ('string', 'uint32', 'array[float32]', ...) and the value as JSON text.
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS model_metadata (
  model_id    INTEGER NOT NULL REFERENCES models ON DELETE CASCADE,
  key         TEXT NOT NULL,                -- 'general.architecture'
  type        TEXT NOT NULL,                -- 'string'
  value       TEXT NOT NULL                 -- '"llama"'
              CONSTRAINT model_metadata_value CHECK (json_valid(value)),
  PRIMARY KEY (model_id, key)
);

-- As tensors_insert does for tensors: the model must exist, whatever
-- PRAGMA foreign_keys says.
CREATE TRIGGER IF NOT EXISTS model_metadata_insert
BEFORE INSERT ON model_metadata
BEGIN
  SELECT RAISE(ABORT, 'model_metadata: no such model_id')
  WHERE NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
END;

-- The cascade of models_delete, for the metadata.
CREATE TRIGGER IF NOT EXISTS models_delete_metadata
AFTER DELETE ON models
BEGIN
  DELETE FROM model_metadata WHERE model_id = OLD.model_id;
END;

-- ---------------------------------------------------------------------------
-- import_notes: what an import (sql/recipes/import.sql) could not keep as
-- the file has it, one row per tensor and note: a tensor not imported
-- (imported 0: an integer or empty tensor) and why, or one imported with a
-- change (imported 1: float64 narrowed, a ggml-typed tensor dequantized,
-- no channel_axis known).  tensor, dtype and shape are the file's.  Nothing
-- a file holds leaves the registry without a row here or in tensors.
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS import_notes (
  model_id    INTEGER NOT NULL REFERENCES models ON DELETE CASCADE,
  tensor      TEXT NOT NULL,                -- 'blk.0.attn_q.weight'
  dtype       TEXT NOT NULL,                -- 'q4_K', 'int64'
  shape       TEXT NOT NULL,                -- '[4096,4096]'
  imported    INTEGER NOT NULL
              CONSTRAINT import_note_imported CHECK (imported IN (0, 1)),
  note        TEXT NOT NULL
);

-- As model_metadata_insert: the model must exist, whatever PRAGMA
-- foreign_keys says.
CREATE TRIGGER IF NOT EXISTS import_notes_insert
BEFORE INSERT ON import_notes
BEGIN
  SELECT RAISE(ABORT, 'import_notes: no such model_id')
  WHERE NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
END;

-- The cascade of models_delete, for the notes.
CREATE TRIGGER IF NOT EXISTS models_delete_import_notes
AFTER DELETE ON models
BEGIN
  DELETE FROM import_notes WHERE model_id = OLD.model_id;
END;

-- ---------------------------------------------------------------------------
-- tensors: the float weights, as the model stores them.
--
-- dtype is the float format of `data` ('f32', 'f16' or 'bf16'); half-format
-- tensors stay half here (no information is invented) and are widened on
-- use with q_f32(data, dtype).  numel is derived from the data length.
-- shape has at least one dimension: a scalar is stored as '[1]'.
-- channel_axis is the output-channel axis as the framework lays the weight
-- out (ONNX Conv/Gemm/LSTM and TFLite CONV_2D: 0; TFLite DEPTHWISE_CONV_2D,
-- whose kernel is [1, H, W, C]: 3), i.e. the axis a per-channel quantizer
-- should use; NULL when the tensor has none (biases, scalars).
--
-- The shape rules are those of the extension's shape parser, so that every
-- stored shape can be passed to it: JSON text (tensor_shape_json), 1 to 32
-- dimensions (tensor_shape_rank), and only brackets, digits, commas and
-- spaces (tensor_shape_chars; the second half refuses a trailing comma,
-- which SQLite 3.42 to 3.44 accept as JSON5).
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS tensors (
  tensor_id    INTEGER PRIMARY KEY,
  model_id     INTEGER NOT NULL REFERENCES models ON DELETE CASCADE,
  name         TEXT NOT NULL,               -- '16k/encoder.0.reparam_conv.weight'
  shape        TEXT NOT NULL                -- '[128,129,3]'; '[1]' for a scalar
               CONSTRAINT tensor_shape_json CHECK (typeof(shape) = 'text'
                 AND json_valid(shape) AND json_type(shape) = 'array')
               CONSTRAINT tensor_shape_rank CHECK (json_valid(shape)
                 AND json_array_length(shape) BETWEEN 1 AND 32)
               CONSTRAINT tensor_shape_chars CHECK (shape NOT GLOB '*[^] ,0-9[]*'
                 AND replace(shape, ' ', '') NOT GLOB '*,]*'),
  dtype        TEXT NOT NULL
               CONSTRAINT tensor_dtype CHECK (dtype IN /*{float_dtypes*/('f32',
                   'f16', 'bf16')/*}*/),
  channel_axis INTEGER
               CONSTRAINT tensor_channel_axis CHECK (channel_axis IS NULL OR
                 (typeof(channel_axis) = 'integer' AND channel_axis >= 0
                  AND json_valid(shape)
                  AND channel_axis < json_array_length(shape))),
  data         BLOB NOT NULL
               CONSTRAINT tensor_data CHECK (typeof(data) = 'blob'
                 AND length(data) > 0
                 AND length(data) % (/*{float_bytes:dtype*/CASE WHEN dtype IN
                     ('f32') THEN 4 WHEN dtype IN ('f16', 'bf16') THEN 2
                     END/*}*/) = 0),
  numel        INTEGER GENERATED ALWAYS AS
                 (length(data) / (/*{float_bytes:dtype*/CASE WHEN dtype IN
                     ('f32') THEN 4 WHEN dtype IN ('f16', 'bf16') THEN 2
                     END/*}*/)) VIRTUAL,
  -- A tensor bigger than a BLOB is stored in chunks of whole rows
  -- (docs/FORMATS.md#tensors-bigger-than-a-blob): one row per chunk, every
  -- chunk with the whole tensor's name, shape and dtype, holding rows
  -- [row_start, row_start + rows) of axis 0.  rows NULL: the row holds the
  -- whole tensor (chunk 0, row_start 0), as every row stored before chunks.
  chunk        INTEGER NOT NULL DEFAULT 0,
  row_start    INTEGER NOT NULL DEFAULT 0,
  rows         INTEGER,
  CONSTRAINT tensor_chunk CHECK (typeof(chunk) = 'integer' AND chunk >= 0
    AND typeof(row_start) = 'integer' AND row_start >= 0
    AND ((rows IS NULL AND chunk = 0 AND row_start = 0)
         OR (typeof(rows) = 'integer' AND rows >= 1 AND json_valid(shape)
             AND row_start + rows <= json_extract(shape, '$[0]')))),
  CONSTRAINT tensor_name UNIQUE (model_id, name, chunk)
);

-- The triggers check, in this order:
--   1. the model exists;
--   2. the row does not overwrite a tensor that has quantizations (see
--      models_insert for why every INSERT that collides is refused); an
--      UPDATE keeps tensor_id, shape, dtype and data of such a tensor;
--   3. the shape lists positive integers (CHECK cannot loop over a JSON
--      array) whose product is the element count of `data` (a recursive CTE
--      multiplies the dimensions; for a chunk, rows stands for shape[0]).
-- BEFORE triggers run before the CHECK constraints, so the WHEN clause and
-- the last statement skip rows that a CHECK will refuse anyway (malformed
-- JSON, no dimensions, stray characters, unknown dtype, ragged data): each
-- error is reported by the rule that names it.  A missing model is reported
-- whatever else is wrong with the row.
CREATE TRIGGER IF NOT EXISTS tensors_insert
BEFORE INSERT ON tensors
WHEN (NEW.model_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id))
  OR (typeof(NEW.shape) = 'text' AND json_valid(NEW.shape)
      AND json_type(NEW.shape) = 'array'
      AND json_array_length(NEW.shape) BETWEEN 1 AND 32)
BEGIN
  SELECT RAISE(ABORT, 'tensors: model_id does not name a model')
  WHERE NEW.model_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
  SELECT RAISE(ABORT, 'tensors: a tensor that has quantizations cannot be replaced; delete its quantizations first')
  WHERE EXISTS (SELECT 1 FROM tensors t JOIN quantizations q USING (tensor_id)
                WHERE t.tensor_id = NEW.tensor_id
                   OR (t.model_id = NEW.model_id AND t.name = NEW.name
                       AND t.chunk = NEW.chunk));
  SELECT RAISE(ABORT, 'tensors: shape must be a JSON array of positive integers')
  WHERE EXISTS (SELECT 1 FROM json_each(NEW.shape)
                WHERE type <> 'integer' OR value < 1);
  SELECT RAISE(ABORT, 'tensors: shape does not match the data length')
  WHERE NEW.shape NOT GLOB '*[^] ,0-9[]*'
    AND replace(NEW.shape, ' ', '') NOT GLOB '*,]*'
    AND NEW.dtype IN /*{float_dtypes*/('f32', 'f16',
        'bf16')/*}*/ AND typeof(NEW.data) = 'blob'
    AND length(NEW.data) > 0
    AND length(NEW.data) % (/*{float_bytes:NEW.dtype*/CASE WHEN NEW.dtype IN
        ('f32') THEN 4 WHEN NEW.dtype IN ('f16', 'bf16') THEN 2 END/*}*/) = 0
    AND ((NEW.rows IS NULL AND NEW.chunk = 0 AND NEW.row_start = 0)
         OR (typeof(NEW.rows) = 'integer' AND NEW.rows >= 1
             AND typeof(NEW.row_start) = 'integer' AND NEW.row_start >= 0
             AND NEW.row_start + NEW.rows <= json_extract(NEW.shape, '$[0]')))
    AND (WITH RECURSIVE dims(k, n) AS (
           SELECT 0, 1
           UNION ALL
           SELECT k + 1, n * (CASE WHEN k = 0 AND NEW.rows IS NOT NULL
                                   THEN NEW.rows
                                   ELSE json_extract(NEW.shape, '$[' || k || ']') END)
           FROM dims WHERE k < json_array_length(NEW.shape))
         SELECT n FROM dims ORDER BY k DESC LIMIT 1)
        IS NOT length(NEW.data) / (/*{float_bytes:NEW.dtype*/CASE WHEN NEW.dtype
            IN ('f32') THEN 4 WHEN NEW.dtype IN ('f16', 'bf16') THEN 2
            END/*}*/);
END;

CREATE TRIGGER IF NOT EXISTS tensors_update
BEFORE UPDATE OF tensor_id, model_id, name, shape, dtype, data, chunk, row_start, rows ON tensors
WHEN (NEW.model_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id))
  OR (typeof(NEW.shape) = 'text' AND json_valid(NEW.shape)
      AND json_type(NEW.shape) = 'array'
      AND json_array_length(NEW.shape) BETWEEN 1 AND 32)
BEGIN
  SELECT RAISE(ABORT, 'tensors: model_id does not name a model')
  WHERE NEW.model_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
  SELECT RAISE(ABORT, 'tensors: a tensor that has quantizations keeps its tensor_id, shape, dtype and data; delete its quantizations first')
  WHERE (NEW.tensor_id IS NOT OLD.tensor_id OR NEW.shape IS NOT OLD.shape
         OR NEW.dtype IS NOT OLD.dtype OR NEW.data IS NOT OLD.data
         OR NEW.chunk IS NOT OLD.chunk OR NEW.row_start IS NOT OLD.row_start
         OR NEW.rows IS NOT OLD.rows)
    AND EXISTS (SELECT 1 FROM quantizations WHERE tensor_id = OLD.tensor_id);
  SELECT RAISE(ABORT, 'tensors: a tensor that has quantizations cannot be replaced; delete its quantizations first')
  WHERE EXISTS (SELECT 1 FROM tensors t JOIN quantizations q USING (tensor_id)
                WHERE t.tensor_id IS NOT OLD.tensor_id
                  AND (t.tensor_id = NEW.tensor_id
                       OR (t.model_id = NEW.model_id AND t.name = NEW.name
                           AND t.chunk = NEW.chunk)));
  SELECT RAISE(ABORT, 'tensors: shape must be a JSON array of positive integers')
  WHERE EXISTS (SELECT 1 FROM json_each(NEW.shape)
                WHERE type <> 'integer' OR value < 1);
  SELECT RAISE(ABORT, 'tensors: shape does not match the data length')
  WHERE NEW.shape NOT GLOB '*[^] ,0-9[]*'
    AND replace(NEW.shape, ' ', '') NOT GLOB '*,]*'
    AND NEW.dtype IN /*{float_dtypes*/('f32', 'f16',
        'bf16')/*}*/ AND typeof(NEW.data) = 'blob'
    AND length(NEW.data) > 0
    AND length(NEW.data) % (/*{float_bytes:NEW.dtype*/CASE WHEN NEW.dtype IN
        ('f32') THEN 4 WHEN NEW.dtype IN ('f16', 'bf16') THEN 2 END/*}*/) = 0
    AND ((NEW.rows IS NULL AND NEW.chunk = 0 AND NEW.row_start = 0)
         OR (typeof(NEW.rows) = 'integer' AND NEW.rows >= 1
             AND typeof(NEW.row_start) = 'integer' AND NEW.row_start >= 0
             AND NEW.row_start + NEW.rows <= json_extract(NEW.shape, '$[0]')))
    AND (WITH RECURSIVE dims(k, n) AS (
           SELECT 0, 1
           UNION ALL
           SELECT k + 1, n * (CASE WHEN k = 0 AND NEW.rows IS NOT NULL
                                   THEN NEW.rows
                                   ELSE json_extract(NEW.shape, '$[' || k || ']') END)
           FROM dims WHERE k < json_array_length(NEW.shape))
         SELECT n FROM dims ORDER BY k DESC LIMIT 1)
        IS NOT length(NEW.data) / (/*{float_bytes:NEW.dtype*/CASE WHEN NEW.dtype
            IN ('f32') THEN 4 WHEN NEW.dtype IN ('f16', 'bf16') THEN 2
            END/*}*/);
END;

-- As models_delete: the cascade, with or without foreign keys.
CREATE TRIGGER IF NOT EXISTS tensors_delete
AFTER DELETE ON tensors
BEGIN
  DELETE FROM quantizations WHERE tensor_id = OLD.tensor_id;
END;

-- ---------------------------------------------------------------------------
-- quantizations: one row per (tensor, way of quantizing it).
--
-- What is quantized:
--   dtype        code type, canonical name from the dtype table of docs/reference/data-formats.md
--                (aliases such as 'qint8' are not stored: one spelling per
--                meaning), or a ggml type as ggml spells it ('q4_0', 'q4_K')
--   scheme       a scheme of the catalogue (docs/CATALOGUE.md#schemes):
--                'affine' (asymmetric min/max), 'symmetric' or 'log2' (int8
--                or int4 codes, a power-of-two scale per group, zero points
--                0, options ''); a ggml type's own: affine for the types
--                that store a minimum, symmetric for the others
--   granularity  'tensor'  one scale/zero point:  scale, zero_point
--                'channel' one per index along axis:  scales, zero_points, axis
--                'block'   one per block of block_size elements along axis:
--                          scales, zero_points, axis, block_size
--                'ggml'    a ggml block format (dtype): rows along the last
--                          dimension of whole blocks, the parameters inside
--                          the blocks (codes, as q_ggml_quantize returns
--                          them); block_size is the type's (32 to 256);
--                          method 'ggml'; importance the weights used, one
--                          float32 per column, or NULL (ggml's reference
--                          quantizer); options '' but for mxfp4 rows made
--                          under another producer's shared-exponent rule:
--                          'mx_exponent=ocp', 'mx_exponent=torchao-rceil',
--                          'mx_exponent=torchao-ceil', 'mx_exponent=torchao-even'
--                          or 'mx_exponent=mlx' (q_ggml_quantize's option;
--                          docs/NUMERICS.md#mx-shared-exponent-rules)
--                'bnb4'    bitsandbytes' NF4 or FP4 (dtype 'nf4' or 'fp4')
--                          in blocks of block_size (a power of two, 32 to
--                          4096) over the flat tensor, the last block
--                          possibly short: codes as q_bnb4_quantize returns
--                          them ((numel + 1) / 2 bytes), scales the absmax
--                          as q_bnb4_absmax does (a float32 >= 0 per block,
--                          stored plain, not nested); method 'bnb4', scheme
--                          'symmetric', no zero points, axis or view_shape
--                Columns that do not belong to the granularity must be NULL.
--   method       calibration, a method of the catalogue
--                (docs/CATALOGUE.md#calibration-methods): 'minmax',
--                'percentile' (with percentile, the P of method=percentile
--                percentile=P), 'mse', 'histogram', 'entropy' (their bins=
--                and quantized_bins= at the defaults: options does not take
--                them)
--   options      the other options passed to the functions, in one
--                canonical spelling so that the label below is unique:
--                'quant_min=N quant_max=N reduce_range=1 rounding=onnx',
--                each optional, in that order, one space apart, integers
--                without '+' or leading zeros, defaults left out
--                (reduce_range=0 and rounding=torch are what '' means);
--                '' for none.  method and percentile have their own columns
--                and are not repeated here.  call_options (generated) is the
--                full option string: q_scale(x, dtype, scheme, call_options)
--                reproduces scale.
--   view_shape   the shape the functions were called with, when it is not
--                the tensor's own (e.g. a conv kernel [O, I, K] blocked as
--                the matrix [O, I*K]); same element count and the same rules
--                as tensors.shape; NULL = tensor shape.  axis counts in this
--                shape.
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
                 /*{quantization_dtypes*/('int8', 'uint8', 'int16', 'uint16',
                     'int32', 'int4', 'uint4', 'int2', 'uint2', 'q4_0', 'q4_1',
                     'q5_0', 'q5_1', 'q8_0', 'q2_K', 'q3_K', 'q4_K', 'q5_K',
                     'q6_K', 'iq2_xxs', 'iq2_xs', 'iq3_xxs', 'iq1_s', 'iq1_m',
                     'iq4_nl', 'iq3_s', 'iq2_s', 'iq4_xs', 'tq1_0', 'tq2_0',
                     'mxfp4', 'nvfp4', 'q1_0', 'q2_0', 'nf4', 'fp4')/*}*/),
  scheme       TEXT NOT NULL DEFAULT 'affine'
               CONSTRAINT quantization_scheme CHECK (scheme IN
                 /*{schemes*/('affine', 'symmetric', 'log2')/*}*/),
  granularity  TEXT NOT NULL
               CONSTRAINT quantization_granularity CHECK (granularity IN
                 /*{granularities*/('tensor', 'channel', 'block', 'ggml',
                     'bnb4')/*}*/),
  method       TEXT NOT NULL DEFAULT 'minmax'
               CONSTRAINT quantization_method CHECK (method IN
                 /*{registry_methods*/('minmax', 'percentile', 'mse',
                     'histogram', 'entropy', 'ggml', 'bnb4')/*}*/),
  percentile   REAL,
  options      TEXT NOT NULL DEFAULT '',
  view_shape   TEXT
               CONSTRAINT quantization_view_shape CHECK (view_shape IS NULL OR
                 (typeof(view_shape) = 'text' AND json_valid(view_shape)
                  AND json_type(view_shape) = 'array'))
               CONSTRAINT quantization_view_shape_rank CHECK (view_shape IS NULL OR
                 (json_valid(view_shape)
                  AND json_array_length(view_shape) BETWEEN 1 AND 32))
               CONSTRAINT quantization_view_shape_chars CHECK (view_shape IS NULL OR
                 (view_shape NOT GLOB '*[^] ,0-9[]*'
                  AND replace(view_shape, ' ', '') NOT GLOB '*,]*')),
  axis         INTEGER,
  block_size   INTEGER,
  scale        REAL,
  zero_point   INTEGER,
  scales       BLOB,
  zero_points  BLOB,
  codes        BLOB NOT NULL
               CONSTRAINT quantization_codes CHECK (typeof(codes) = 'blob'),
  importance   BLOB
               CONSTRAINT quantization_importance CHECK (importance IS NULL OR
                 (typeof(importance) = 'blob' AND length(importance) > 0
                  AND length(importance) % 4 = 0)),
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
    CASE granularity WHEN 'ggml' THEN
      dtype || ' ggml' || CASE WHEN importance IS NULL THEN '' ELSE ' imatrix' END
      || CASE options WHEN '' THEN '' ELSE ' ' || options END
    WHEN 'bnb4' THEN dtype || ' bnb4 block' || block_size
    ELSE dtype || ' '
    || CASE granularity WHEN 'block' THEN 'block' || block_size ELSE granularity END
    || ' ' || scheme
    || CASE method WHEN 'minmax' THEN '' WHEN 'percentile' THEN ' p' || percentile
                   ELSE ' ' || method END
    || CASE options WHEN '' THEN '' ELSE ' ' || options END END) VIRTUAL,
  -- A ggml row's blocks hold its parameters: its bytes are its codes; a
  -- bnb4 row's are its codes and its absmax.
  bytes        INTEGER GENERATED ALWAYS AS (
    CASE WHEN granularity = 'ggml' THEN length(codes)
    WHEN granularity = 'bnb4' THEN length(codes) + length(scales) ELSE
    length(codes)
    + coalesce(length(scales), 4)
    + CASE WHEN scheme IN /*{implied_zero_point_schemes*/('symmetric',
        'log2')/*}*/ THEN 0
           ELSE (coalesce(length(zero_points) / 4, 1)
                 * (/*{code_bits:dtype*/CASE WHEN dtype IN ('int8', 'uint8')
                     THEN 8 WHEN dtype IN ('int16', 'uint16') THEN 16 WHEN dtype
                     IN ('int32') THEN 32 WHEN dtype IN ('int4', 'uint4') THEN 4
                     WHEN dtype IN ('int2', 'uint2') THEN 2 END/*}*/)
                 + 7) / 8 END END) VIRTUAL,

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
  -- A ggml type is a granularity of its own, with its own block size, scheme
  -- and method; only ggml rows have importance weights.
  CONSTRAINT ggml_params CHECK ((granularity = 'ggml') = (dtype IN
      /*{ggml_types*/('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'q2_K', 'q3_K',
          'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs', 'iq3_xxs', 'iq1_s',
          'iq1_m', 'iq4_nl', 'iq3_s', 'iq2_s', 'iq4_xs', 'tq1_0', 'tq2_0',
          'mxfp4', 'nvfp4', 'q1_0', 'q2_0')/*}*/)
    AND (granularity = 'ggml') = (method = 'ggml')
    AND (granularity = 'ggml' OR importance IS NULL)
    AND (granularity <> 'ggml' OR
      (scale IS NULL AND zero_point IS NULL AND scales IS NULL
       AND zero_points IS NULL AND axis IS NULL
       -- mxfp4 rows record their shared-exponent rule when it is not
       -- ggml's own (q_ggml_quantize's mx_exponent=; '' is ggml's).
       AND (options = '' OR (dtype = 'mxfp4' AND options IN
           ('mx_exponent=ocp', 'mx_exponent=torchao-rceil',
            'mx_exponent=torchao-ceil', 'mx_exponent=torchao-even',
            'mx_exponent=mlx')))
       AND block_size IS (/*{ggml_block_size:dtype*/CASE WHEN dtype IN ('q4_0',
           'q4_1', 'q5_0', 'q5_1', 'q8_0', 'iq4_nl', 'mxfp4') THEN 32 WHEN dtype
           IN ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs',
           'iq3_xxs', 'iq1_s', 'iq1_m', 'iq3_s', 'iq2_s', 'iq4_xs', 'tq1_0',
           'tq2_0') THEN 256 WHEN dtype IN ('nvfp4', 'q2_0') THEN 64 WHEN dtype
           IN ('q1_0') THEN 128 END/*}*/)
       AND scheme = (CASE WHEN dtype IN /*{ggml_affine_types*/('q4_1', 'q5_1',
           'q2_K', 'q4_K', 'q5_K')/*}*/
                          THEN 'affine' ELSE 'symmetric' END)))),

  -- A bnb4 type is a granularity of its own too: its absmax are its
  -- scales (one per block, checked by quantizations_insert), its method
  -- 'bnb4', its scheme symmetric, its blocks run over the flat tensor.
  CONSTRAINT bnb4_params CHECK ((granularity = 'bnb4') = (dtype IN
      /*{bnb4_types*/('nf4', 'fp4')/*}*/)
    AND (granularity = 'bnb4') = (method = 'bnb4')
    AND (granularity <> 'bnb4' OR
      (scale IS NULL AND zero_point IS NULL AND scales IS NOT NULL
       AND zero_points IS NULL AND axis IS NULL AND view_shape IS NULL
       AND options = '' AND scheme = 'symmetric'
       AND block_size IN /*{bnb4_block_sizes*/(32, 64, 128, 256, 512, 1024, 2048,
           4096)/*}*/))),

  -- Parameter values (docs/reference/numerics.md#numerics, Checks): a scale the extension
  -- accepts, i.e. a REAL that rounds to a float32 in (2^-128, 2^126], the
  -- finite values > 0 whose float32 reciprocal is finite and normal (the
  -- bounds below are the doubles 2^-128 + 2^-150, which rounds to even
  -- 2^-128, and 2^126 + 2^102, which rounds to even 2^126); a zero point
  -- inside the dtype's range; scale and zero-point BLOBs of equal entry
  -- counts (4 bytes each); a positive block size.  The entries of the BLOBs
  -- are checked by quantizations_insert.
  CONSTRAINT scale_value CHECK (scale IS NULL OR
    (typeof(scale) = 'real' AND scale > 2.938736577704951e-39
     AND scale <= 8.507059680083702e37)),
  CONSTRAINT zero_point_range CHECK (zero_point IS NULL OR
    (typeof(zero_point) = 'integer' AND zero_point BETWEEN
       (/*{zero_point_min:dtype*/CASE dtype WHEN 'int8' THEN -128 WHEN 'uint8'
           THEN 0 WHEN 'int16' THEN -32768 WHEN 'uint16' THEN 0 WHEN 'int32'
           THEN -2147483648 WHEN 'int4' THEN -8 WHEN 'uint4' THEN 0 WHEN 'int2'
           THEN -2 WHEN 'uint2' THEN 0 END/*}*/)
   AND (/*{zero_point_max:dtype*/CASE dtype WHEN 'int8' THEN 127 WHEN 'uint8'
       THEN 255 WHEN 'int16' THEN 32767 WHEN 'uint16' THEN 65535 WHEN 'int32'
       THEN 2147483647 WHEN 'int4' THEN 7 WHEN 'uint4' THEN 15 WHEN 'int2' THEN
       1 WHEN 'uint2' THEN 3 END/*}*/))),
  CONSTRAINT param_blobs CHECK (scales IS NULL OR
    (typeof(scales) = 'blob' AND length(scales) > 0 AND length(scales) % 4 = 0
     AND (granularity = 'bnb4' OR (typeof(zero_points) = 'blob'
                                   AND length(zero_points) = length(scales))))),
  CONSTRAINT block_size_value CHECK (block_size IS NULL OR
    (typeof(block_size) = 'integer' AND block_size >= 1)),
  CONSTRAINT axis_value CHECK (axis IS NULL OR typeof(axis) = 'integer'),

  -- Symmetric quantization to a signed dtype has zero points of 0 (docs/reference/numerics.md#numerics,
  -- Parameters).
  CONSTRAINT symmetric_zero_point CHECK (scheme <> 'symmetric'
    OR dtype NOT IN /*{signed_code_dtypes*/('int8', 'int16', 'int32', 'int4',
        'int2')/*}*/
    OR (coalesce(zero_point, 0) = 0
        AND (zero_points IS NULL OR zero_points = zeroblob(length(zero_points))))),

  -- log2 codes (docs/NUMERICS.md#logarithmic-log2) take only some dtypes
  -- (int8 and int4), have zero points of 0 and one power-of-two scale per
  -- group, and no option means anything to them.
  CONSTRAINT log2_params CHECK (scheme <> 'log2'
    OR (dtype IN /*{log2_dtypes*/('int8')/*}*/ AND options = ''
        AND coalesce(zero_point, 0) = 0
        AND (zero_points IS NULL OR zero_points = zeroblob(length(zero_points))))),

  -- percentile is set exactly when method = 'percentile', as 0 < P <= 100;
  -- options does not repeat method or percentile (its spelling is checked
  -- by quantizations_insert).
  CONSTRAINT percentile_value CHECK ((method = 'percentile') = (percentile IS NOT NULL)
    AND (percentile IS NULL OR (percentile > 0 AND percentile <= 100))),
  CONSTRAINT options_text CHECK (typeof(options) = 'text'
    AND options NOT LIKE '%method=%' AND options NOT LIKE '%percentile=%')
);

-- One row per tensor and label (the label spells out dtype, granularity,
-- block size, scheme, method and options, but not the axis or view_shape: a
-- tensor has one per-channel row per scheme); this index also serves the
-- tensor_id lookups of the triggers and the foreign key.
CREATE UNIQUE INDEX IF NOT EXISTS quantizations_tensor_label
  ON quantizations (tensor_id, label);
-- Ranking across a model or the whole registry: "worst SQNR under label X".
CREATE INDEX IF NOT EXISTS quantizations_label_sqnr
  ON quantizations (label, sqnr_db);
-- tensors (model_id, name) is indexed by its UNIQUE constraint.

-- A quantization row must name an existing tensor and fit it.  The checks,
-- in this order:
--   1. the tensor exists (reported whatever else is wrong with the row);
--   2. options are spelled canonically (see the table's comment): the words
--      that are canonical are put back together in canonical order, and the
--      result must be the text as given;
--   3. the shape it was computed in holds the tensor's element count, axis
--      lies inside that shape, the codes have one element per tensor
--      element (4-bit codes two per byte), and there is one scale per
--      channel (shape[axis] of them) or per block
--      (numel / shape[axis] * ceil(shape[axis] / block_size));
--   4. every entry of scales is a float32 in (2^-128, 2^126] and every entry
--      of zero_points lies inside the dtype's range, checked on the hex
--      digits of each entry as the header explains (a recursive CTE walks
--      the entries; EXISTS stops at the first bad one).
-- As for tensors, the WHEN clause and the statements leave to the CHECK
-- constraints (which run after the trigger) what they refuse: missing or
-- ragged parameters, bad names, a malformed view_shape.
--
-- REPLACE INTO quantizations is a delete and an insert: the new row passes
-- these checks like any other.  Updates are quantizations_update's business.
CREATE TRIGGER IF NOT EXISTS quantizations_insert
BEFORE INSERT ON quantizations
WHEN (NEW.tensor_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM tensors WHERE tensor_id = NEW.tensor_id))
  OR (EXISTS (SELECT 1 FROM tensors WHERE tensor_id = NEW.tensor_id)
      AND (NEW.view_shape IS NULL
           OR (typeof(NEW.view_shape) = 'text' AND json_valid(NEW.view_shape)
               AND json_type(NEW.view_shape) = 'array'
               AND json_array_length(NEW.view_shape) BETWEEN 1 AND 32)))
BEGIN
  SELECT RAISE(ABORT, 'quantizations: tensor_id does not name a tensor')
  WHERE NEW.tensor_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM tensors WHERE tensor_id = NEW.tensor_id);
  SELECT RAISE(ABORT, 'quantizations: options must be canonical: quant_min=N quant_max=N reduce_range=1 rounding=onnx, each optional, in that order, one space apart')
  WHERE typeof(NEW.options) = 'text' AND NEW.granularity IS NOT 'ggml'
    AND NEW.options NOT LIKE '%method=%' AND NEW.options NOT LIKE '%percentile=%'
    AND NEW.options IS NOT (
      WITH RECURSIVE words(w, rest) AS (
        SELECT NULL, NEW.options || ' '
        UNION ALL
        SELECT substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
        FROM words WHERE rest <> '')
      SELECT trim(
        coalesce((SELECT ' ' || w FROM words
                  WHERE w = 'quant_min=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                  LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words
                     WHERE w = 'quant_max=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                     LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'reduce_range=1' LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'rounding=onnx' LIMIT 1), '')));
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
    (SELECT /*{code_bytes:NEW.dtype, numel*/CASE WHEN NEW.dtype IN ('int8',
        'uint8') THEN numel WHEN NEW.dtype IN ('int16', 'uint16') THEN numel * 2
        WHEN NEW.dtype IN ('int32') THEN numel * 4 WHEN NEW.dtype IN ('int4',
        'uint4') THEN (numel + 1) / 2 WHEN NEW.dtype IN ('int2', 'uint2') THEN
        (numel + 3) / 4 END/*}*/
     FROM tensors WHERE tensor_id = NEW.tensor_id)
    AND NEW.dtype IN /*{code_dtypes*/('int8', 'uint8', 'int16', 'uint16',
        'int32', 'int4', 'uint4', 'int2', 'uint2')/*}*/;
  SELECT RAISE(ABORT, 'quantizations: ggml rows (the last dimension) must be whole blocks of the type')
  WHERE NEW.granularity = 'ggml' AND typeof(NEW.block_size) = 'integer'
    AND NEW.block_size IN /*{ggml_block_sizes*/(32, 256, 64, 128)/*}*/
    AND (SELECT json_extract(s, '$[#-1]') % NEW.block_size <> 0
         FROM (SELECT coalesce(NEW.view_shape, shape) AS s
               FROM tensors WHERE tensor_id = NEW.tensor_id));
  SELECT RAISE(ABORT, 'quantizations: codes length does not match the tensor and ggml type')
  WHERE NEW.granularity = 'ggml' AND typeof(NEW.codes) = 'blob'
    AND length(NEW.codes) IS NOT
    (SELECT numel / (/*{ggml_block_size:NEW.dtype*/CASE WHEN NEW.dtype IN
        ('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'iq4_nl', 'mxfp4') THEN 32 WHEN
        NEW.dtype IN ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs',
        'iq2_xs', 'iq3_xxs', 'iq1_s', 'iq1_m', 'iq3_s', 'iq2_s', 'iq4_xs',
        'tq1_0', 'tq2_0') THEN 256 WHEN NEW.dtype IN ('nvfp4', 'q2_0') THEN 64
        WHEN NEW.dtype IN ('q1_0') THEN 128 END/*}*/)
            * (/*{ggml_type_size:NEW.dtype*/CASE NEW.dtype WHEN 'q4_0' THEN 18
                WHEN 'q4_1' THEN 20 WHEN 'q5_0' THEN 22 WHEN 'q5_1' THEN 24 WHEN
                'q8_0' THEN 34 WHEN 'q2_K' THEN 84 WHEN 'q3_K' THEN 110 WHEN
                'q4_K' THEN 144 WHEN 'q5_K' THEN 176 WHEN 'q6_K' THEN 210 WHEN
                'iq2_xxs' THEN 66 WHEN 'iq2_xs' THEN 74 WHEN 'iq3_xxs' THEN 98
                WHEN 'iq1_s' THEN 50 WHEN 'iq1_m' THEN 56 WHEN 'iq4_nl' THEN 18
                WHEN 'iq3_s' THEN 110 WHEN 'iq2_s' THEN 82 WHEN 'iq4_xs' THEN
                136 WHEN 'tq1_0' THEN 54 WHEN 'tq2_0' THEN 66 WHEN 'mxfp4' THEN
                17 WHEN 'nvfp4' THEN 36 WHEN 'q1_0' THEN 18 WHEN 'q2_0' THEN 18
                END/*}*/)
     FROM tensors WHERE tensor_id = NEW.tensor_id)
    AND NEW.dtype IN /*{ggml_types*/('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0',
        'q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs', 'iq3_xxs',
        'iq1_s', 'iq1_m', 'iq4_nl', 'iq3_s', 'iq2_s', 'iq4_xs', 'tq1_0',
        'tq2_0', 'mxfp4', 'nvfp4', 'q1_0', 'q2_0')/*}*/;
  SELECT RAISE(ABORT, 'quantizations: codes length does not match the tensor and bnb4 type')
  WHERE NEW.granularity = 'bnb4' AND typeof(NEW.codes) = 'blob'
    AND length(NEW.codes) IS NOT
    (SELECT (numel + 1) / 2 FROM tensors WHERE tensor_id = NEW.tensor_id);
  SELECT RAISE(ABORT, 'quantizations: bnb4 absmax (scales) must have one float32 per block of the flat tensor')
  WHERE NEW.granularity = 'bnb4' AND typeof(NEW.scales) = 'blob'
    AND length(NEW.scales) % 4 = 0
    AND typeof(NEW.block_size) = 'integer' AND NEW.block_size >= 1
    AND length(NEW.scales) / 4 IS NOT
    (SELECT (numel + NEW.block_size - 1) / NEW.block_size
     FROM tensors WHERE tensor_id = NEW.tensor_id);
  -- Finite and >= 0, as importance weights (a block of zeros has absmax 0).
  SELECT RAISE(ABORT, 'quantizations: each bnb4 absmax must be a finite float32 >= 0')
  WHERE NEW.granularity = 'bnb4' AND typeof(NEW.scales) = 'blob'
    AND length(NEW.scales) > 0 AND length(NEW.scales) % 4 = 0
    AND EXISTS (
      WITH RECURSIVE k(i) AS (
        SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < length(NEW.scales) / 4)
      SELECT 1 FROM k
      WHERE (SELECT substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2)
                    || substr(h, 1, 2)
             FROM (SELECT hex(substr(NEW.scales, 4 * i + 1, 4)) AS h))
            > '7F7FFFFF');
  SELECT RAISE(ABORT, 'quantizations: importance must have one float32 per column (the last dimension)')
  WHERE typeof(NEW.importance) = 'blob' AND length(NEW.importance) % 4 = 0
    AND length(NEW.importance) IS NOT
    (SELECT 4 * json_extract(coalesce(NEW.view_shape, shape), '$[#-1]')
     FROM tensors WHERE tensor_id = NEW.tensor_id);
  -- Finite and >= 0: big-endian digits 00000000..7F7FFFFF (as for scales).
  SELECT RAISE(ABORT, 'quantizations: each importance weight must be a finite float32 >= 0')
  WHERE typeof(NEW.importance) = 'blob' AND length(NEW.importance) > 0
    AND length(NEW.importance) % 4 = 0
    AND EXISTS (
      WITH RECURSIVE k(i) AS (
        SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < length(NEW.importance) / 4)
      SELECT 1 FROM k
      WHERE (SELECT substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2)
                    || substr(h, 1, 2)
             FROM (SELECT hex(substr(NEW.importance, 4 * i + 1, 4)) AS h))
            > '7F7FFFFF');
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
  SELECT RAISE(ABORT, 'quantizations: each scale must be a float32 in (2^-128, 2^126]')
  WHERE NEW.granularity IS NOT 'bnb4'
    AND typeof(NEW.scales) = 'blob' AND length(NEW.scales) > 0
    AND length(NEW.scales) % 4 = 0
    AND EXISTS (
      WITH RECURSIVE k(i) AS (
        SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < length(NEW.scales) / 4)
      SELECT 1 FROM k
      -- A top byte of 01..7D settles most entries without the full pattern.
      WHERE hex(substr(NEW.scales, 4 * i + 4, 1)) NOT BETWEEN '01' AND '7D'
        AND (SELECT substr(h, 7, 2) || substr(h, 5, 2) || substr(h, 3, 2)
                    || substr(h, 1, 2)
             FROM (SELECT hex(substr(NEW.scales, 4 * i + 1, 4)) AS h))
            NOT BETWEEN '00200001' AND '7E800000');
  SELECT RAISE(ABORT, 'quantizations: each zero point must lie inside the dtype''s range')
  WHERE typeof(NEW.zero_points) = 'blob' AND length(NEW.zero_points) > 0
    AND length(NEW.zero_points) % 4 = 0
    AND NEW.dtype IN /*{narrow_code_dtypes*/('int8', 'uint8', 'int16', 'uint16',
        'int4', 'uint4', 'int2', 'uint2')/*}*/
    AND EXISTS (
      WITH RECURSIVE k(i) AS (
        SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < length(NEW.zero_points) / 4)
      SELECT 1
      FROM (SELECT hex(substr(NEW.zero_points, 4 * i + 1, 4)) AS h FROM k)
      -- h is little-endian: low byte first.  '' matches no entry: unsigned
      -- dtypes have no negative range.
      WHERE h NOT GLOB /*{zero_point_glob:NEW.dtype*/CASE NEW.dtype WHEN 'int8'
          THEN '[0-7]?000000' WHEN 'uint8' THEN '??000000' WHEN 'int16' THEN
          '??[0-7]?0000' WHEN 'uint16' THEN '????0000' WHEN 'int4' THEN
          '0[0-7]000000' WHEN 'uint4' THEN '0?000000' WHEN 'int2' THEN
          '0[0-1]000000' WHEN 'uint2' THEN '0[0-3]000000' END/*}*/
        AND h NOT GLOB /*{negative_zero_point_glob:NEW.dtype*/CASE NEW.dtype
            WHEN 'int8' THEN '[8-F]?FFFFFF' WHEN 'uint8' THEN '' WHEN 'int16'
            THEN '??[8-F]?FFFF' WHEN 'uint16' THEN '' WHEN 'int4' THEN
            'F[8-F]FFFFFF' WHEN 'uint4' THEN '' WHEN 'int2' THEN 'F[E-F]FFFFFF'
            WHEN 'uint2' THEN '' END/*}*/);
END;

-- Updates that change what a row describes would need every check again:
-- the simplest correct rule is "delete and insert again", so they are
-- refused.  Measured metrics (mse, sqnr_db, max_error, cosine) may be
-- updated freely.
CREATE TRIGGER IF NOT EXISTS quantizations_update
BEFORE UPDATE OF tensor_id, dtype, scheme, granularity, method, percentile,
                 options, view_shape, axis, block_size, scale, zero_point,
                 scales, zero_points, codes, importance ON quantizations
BEGIN
  SELECT RAISE(ABORT, 'quantizations: a quantization is immutable; delete it and insert a new row')
  WHERE NEW.tensor_id IS NOT OLD.tensor_id OR NEW.dtype IS NOT OLD.dtype
     OR NEW.scheme IS NOT OLD.scheme OR NEW.granularity IS NOT OLD.granularity
     OR NEW.method IS NOT OLD.method OR NEW.percentile IS NOT OLD.percentile
     OR NEW.options IS NOT OLD.options OR NEW.view_shape IS NOT OLD.view_shape
     OR NEW.axis IS NOT OLD.axis OR NEW.block_size IS NOT OLD.block_size
     OR NEW.scale IS NOT OLD.scale OR NEW.zero_point IS NOT OLD.zero_point
     OR NEW.scales IS NOT OLD.scales OR NEW.zero_points IS NOT OLD.zero_points
     OR NEW.codes IS NOT OLD.codes OR NEW.importance IS NOT OLD.importance;
END;

-- ---------------------------------------------------------------------------
-- Views.
-- ---------------------------------------------------------------------------

-- quantization_floats: each quantization's values, dequantized from the
-- row's own columns exactly as the extension does it (a float32 BLOB of the
-- tensor's, or the chunk's, element count): what the codes stand for, for
-- measuring a row and for exporting it.  It calls the extension: load it
-- before querying the view, as for channel_scales.
CREATE VIEW IF NOT EXISTS quantization_floats AS
SELECT q.quantization_id, q.tensor_id,
       CASE WHEN q.scheme = 'log2' THEN
         CASE q.granularity
           WHEN 'tensor'  THEN dequantize_log2_blob(q.codes, q.scale, q.dtype, t.numel)
           WHEN 'channel' THEN dequantize_per_channel_log2_blob(q.codes, q.scales,
                                 coalesce(q.view_shape, t.shape), q.axis, q.dtype)
           ELSE dequantize_per_block_log2_blob(q.codes, q.scales,
                  coalesce(q.view_shape, t.shape), q.axis, q.block_size, q.dtype)
         END
       ELSE CASE q.granularity
         WHEN 'tensor'  THEN dequantize_blob(q.codes, q.scale, q.zero_point,
                                             q.dtype, t.numel)
         WHEN 'channel' THEN dequantize_per_channel_blob(q.codes, q.scales,
                               q.zero_points, coalesce(q.view_shape, t.shape),
                               q.axis, q.dtype)
         WHEN 'block'   THEN dequantize_per_block_blob(q.codes, q.scales,
                               q.zero_points, coalesce(q.view_shape, t.shape),
                               q.axis, q.block_size, q.dtype)
         WHEN 'bnb4'    THEN q_bnb4_dequantize(q.codes, q.scales, q.dtype,
                                               q.block_size, t.numel)
         ELSE q_ggml_dequantize(q.codes, q.dtype)
       END END AS x
FROM quantizations q JOIN tensors t USING (tensor_id);

-- channel_scales: per-channel parameters exploded into rows, one per channel
-- (needs the extension: q_each_group).  E.g. the channels whose scale is 10x
-- the median of their tensor, or a histogram of scales per layer.
-- q_each_group reads the two BLOBs side by side, once: time linear in the
-- channels (two q_each scans joined on their index would rescan the zero
-- points for every scale).
CREATE VIEW IF NOT EXISTS channel_scales AS
SELECT m.name        AS model,
       t.name        AS tensor,
       q.label       AS label,
       q.quantization_id,
       q.axis        AS axis,
       g.i           AS channel,
       g.scale       AS scale,
       g.zero_point  AS zero_point
FROM quantizations q
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
JOIN q_each_group(q.scales, q.zero_points) g
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
       g.i           AS block,
       g.scale       AS scale,
       g.zero_point  AS zero_point
FROM quantizations q
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
JOIN q_each_group(q.scales, q.zero_points) g
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

-- ---------------------------------------------------------------------------
-- tensor_chunk_errors: what is wrong with the chunks of each tensor stored
-- in chunks (docs/FORMATS.md#tensors-bigger-than-a-blob), one row per
-- problem; empty when every chunked tensor is whole.  A chunk arrives on its
-- own row, so a tensor is only complete once its last chunk is in: the
-- triggers check each chunk, this view checks the chunks together.  The
-- chunks of a tensor must be numbered 0, 1, ... with no gap, share its
-- shape and dtype, and cover its rows in order without a gap or an overlap.
-- Plain SQL (window functions, SQLite 3.25+), no extension needed.
-- A quantization of a chunk names the chunk's row (tensor_id) and gives the
-- chunk's own shape as view_shape ([rows, ...]).
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS tensor_chunk_errors AS
WITH c AS (
  SELECT model_id, name, chunk, shape, dtype, row_start,
         coalesce(rows, json_extract(shape, '$[0]')) AS nrows,
         json_extract(shape, '$[0]') AS dim0,
         row_number() OVER w - 1 AS seq,
         count(*) OVER (PARTITION BY model_id, name) AS chunks,
         first_value(shape) OVER w AS first_shape,
         first_value(dtype) OVER w AS first_dtype,
         lag(row_start + coalesce(rows, json_extract(shape, '$[0]')), 1, 0)
           OVER w AS expected_start
  FROM tensors
  WINDOW w AS (PARTITION BY model_id, name ORDER BY chunk))
SELECT model_id, name, chunk, problem FROM (
  SELECT model_id, name, chunk,
         CASE WHEN chunk <> seq THEN 'chunk ' || seq || ' is missing'
              WHEN shape IS NOT first_shape THEN 'shape ' || shape
                   || ' differs from chunk 0''s ' || first_shape
              WHEN dtype IS NOT first_dtype THEN 'dtype ' || dtype
                   || ' differs from chunk 0''s ' || first_dtype
              WHEN row_start <> expected_start THEN 'starts at row '
                   || row_start || ', not ' || expected_start
              WHEN seq = chunks - 1 AND row_start + nrows <> dim0 THEN
                   'the chunks end at row ' || (row_start + nrows) || ' of '
                   || dim0
         END AS problem
  FROM c)
WHERE problem IS NOT NULL;

-- ---------------------------------------------------------------------------
-- Policies: a rule book that picks one quantization per tensor, in the spirit
-- of llama.cpp's per-tensor type overrides, applied with plain SQL
-- (sql/policy.sql) to every whole tensor of the registry.  A chunked tensor
-- (tensors.rows not NULL) is outside every policy: its chunks are quantized
-- chunk by chunk and no single row holds it.
--
-- A policy's rules are tried in priority order, lowest first; the first rule
-- whose every condition holds AND whose action fits the tensor decides it.
-- A NULL condition holds for every tensor.  Conditions:
--   model_glob        models.name GLOB this
--   name_glob         tensors.name GLOB this (case-sensitive, as GLOB is)
--   min_numel         the tensor has at least this many elements
--   min_rank          the tensor has at least this many dimensions (2: the
--                     weights, not the biases)
--   columns_below     the tensor's columns, its last dimension (the row
--                     ggml quantizes: ne[0] in GGUF), are fewer than this
--   probe, probe_sqnr_below
--                     the tensor quantized as the label `probe` (e.g. 'int8
--                     tensor affine', 'q8_0 ggml') measures an SQNR below
--                     probe_sqnr_below dB; both or neither.  sql/policy.sql
--                     makes and measures the probe row where it is missing;
--                     a tensor the probe does not fit does not match.
-- Action: the quantization's dtype, scheme, granularity, block_size, method,
-- percentile and options, as in quantizations; NULL scheme, method, options
-- and (ggml) block_size mean the defaults: 'affine' (a ggml type's own
-- scheme), 'minmax' ('ggml'), '' and the type's block size.  dtype 'float'
-- keeps the tensor in its stored float format (the other action columns
-- NULL).  Where the action puts its parameters follows from the tensor:
--   tensor   one scale and zero point: fits every tensor;
--   channel  along the tensor's channel_axis: fits a tensor that has one;
--   block    blocks along the last axis of the matrix view [shape[0],
--            numel / shape[0]] (view_shape, NULL when the tensor is 2-D; a
--            1-D tensor is blocked along its own axis): fits every tensor
--            (the last block may be short, as ONNX allows);
--   ggml     rows along the tensor's own last dimension, as GGUF stores the
--            tensor: fits when that dimension is whole blocks of the type.
-- A rule whose action does not fit falls through to the next rule, so every
-- policy should end with a catch-all (no condition; dtype 'float', or
-- granularity 'tensor', which fits everything).  A whole tensor that no rule
-- takes is an error of sql/policy.sql (the view policy_gaps lists them): a
-- tensor left float by accident would make the policy's size and error lie.
-- ---------------------------------------------------------------------------
CREATE TABLE IF NOT EXISTS policies (
  policy_id    INTEGER PRIMARY KEY,
  -- Exports write files under a directory of this name: no path characters.
  name         TEXT NOT NULL UNIQUE
               CONSTRAINT policy_name CHECK (typeof(name) = 'text'
                 AND length(name) BETWEEN 1 AND 64
                 AND name NOT GLOB '*[^A-Za-z0-9_.-]*' AND name NOT GLOB '.*'),
  description  TEXT NOT NULL DEFAULT ''
               CONSTRAINT policy_description CHECK (typeof(description) = 'text')
);

CREATE TABLE IF NOT EXISTS policy_rules (
  rule_id          INTEGER PRIMARY KEY,
  policy_id        INTEGER NOT NULL REFERENCES policies ON DELETE CASCADE,
  priority         INTEGER NOT NULL
                   CONSTRAINT policy_rule_priority_value
                     CHECK (typeof(priority) = 'integer'),
  model_glob       TEXT,
  name_glob        TEXT,
  min_numel        INTEGER,
  columns_below    INTEGER,
  probe            TEXT,
  probe_sqnr_below REAL,
  dtype            TEXT NOT NULL,
  scheme           TEXT,
  granularity      TEXT,
  block_size       INTEGER,
  method           TEXT,
  percentile       REAL,
  options          TEXT,
  min_rank         INTEGER,
  CONSTRAINT policy_rule_priority UNIQUE (policy_id, priority),

  -- Conditions.
  CONSTRAINT policy_rule_globs CHECK (
    (model_glob IS NULL OR typeof(model_glob) = 'text')
    AND (name_glob IS NULL OR typeof(name_glob) = 'text')),
  CONSTRAINT policy_rule_sizes CHECK (
    (min_numel IS NULL OR (typeof(min_numel) = 'integer' AND min_numel >= 1))
    AND (columns_below IS NULL
         OR (typeof(columns_below) = 'integer' AND columns_below >= 1))
    AND (min_rank IS NULL
         OR (typeof(min_rank) = 'integer' AND min_rank BETWEEN 1 AND 32))),
  CONSTRAINT policy_rule_probe CHECK ((probe IS NULL) = (probe_sqnr_below IS NULL)
    AND (probe IS NULL OR (typeof(probe) = 'text'
                           AND typeof(probe_sqnr_below) = 'real'))),

  -- The action: the values quantizations allows, plus 'float'.
  CONSTRAINT policy_rule_dtype CHECK (dtype IN
    /*{policy_dtypes*/('float', 'int8', 'uint8', 'int16', 'uint16', 'int32',
        'int4', 'uint4', 'int2', 'uint2', 'q4_0', 'q4_1', 'q5_0', 'q5_1',
        'q8_0', 'q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs',
        'iq3_xxs', 'iq1_s', 'iq1_m', 'iq4_nl', 'iq3_s', 'iq2_s', 'iq4_xs',
        'tq1_0', 'tq2_0', 'mxfp4', 'nvfp4', 'q1_0', 'q2_0')/*}*/),
  CONSTRAINT policy_rule_float CHECK (dtype <> 'float' OR
    (scheme IS NULL AND granularity IS NULL AND block_size IS NULL
     AND method IS NULL AND percentile IS NULL AND options IS NULL)),
  CONSTRAINT policy_rule_granularity CHECK (dtype = 'float' OR
    coalesce(granularity IN /*{policy_granularities*/('tensor', 'channel',
        'block', 'ggml')/*}*/
             AND (granularity = 'ggml') = (dtype IN
               /*{ggml_types*/('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'q2_K',
                   'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs',
                   'iq3_xxs', 'iq1_s', 'iq1_m', 'iq4_nl', 'iq3_s', 'iq2_s',
                   'iq4_xs', 'tq1_0', 'tq2_0', 'mxfp4', 'nvfp4', 'q1_0',
                   'q2_0')/*}*/), 0)),
  CONSTRAINT policy_rule_scheme CHECK (scheme IS NULL OR
    (granularity IS NOT 'ggml' AND scheme IN /*{schemes*/('affine', 'symmetric',
        'log2')/*}*/)
    OR (granularity = 'ggml' AND scheme = (CASE WHEN dtype IN
          /*{ggml_affine_types*/('q4_1', 'q5_1', 'q2_K', 'q4_K',
              'q5_K')/*}*/ THEN 'affine'
          ELSE 'symmetric' END))),
  CONSTRAINT policy_rule_block_size CHECK (CASE granularity
    WHEN 'block' THEN typeof(block_size) = 'integer' AND block_size >= 1
    WHEN 'ggml' THEN block_size IS NULL
      OR block_size IS (/*{ggml_block_size:dtype*/CASE WHEN dtype IN ('q4_0',
          'q4_1', 'q5_0', 'q5_1', 'q8_0', 'iq4_nl', 'mxfp4') THEN 32 WHEN dtype
          IN ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs',
          'iq3_xxs', 'iq1_s', 'iq1_m', 'iq3_s', 'iq2_s', 'iq4_xs', 'tq1_0',
          'tq2_0') THEN 256 WHEN dtype IN ('nvfp4', 'q2_0') THEN 64 WHEN dtype
          IN ('q1_0') THEN 128 END/*}*/)
    ELSE block_size IS NULL END),
  CONSTRAINT policy_rule_log2 CHECK (scheme IS NOT 'log2' OR
    (dtype IN /*{log2_dtypes*/('int8')/*}*/ AND coalesce(options, '') = '')),
  CONSTRAINT policy_rule_method CHECK (method IS NULL OR
    (granularity IS NOT 'ggml' AND method IN /*{methods*/('minmax',
        'percentile', 'mse', 'histogram', 'entropy')/*}*/)
    OR (granularity = 'ggml' AND method = 'ggml')),
  CONSTRAINT policy_rule_percentile CHECK (
    (method IS 'percentile') = (percentile IS NOT NULL)
    AND (percentile IS NULL OR (percentile > 0 AND percentile <= 100))),
  CONSTRAINT policy_rule_options CHECK (options IS NULL OR
    (typeof(options) = 'text' AND options NOT LIKE '%method=%'
     AND options NOT LIKE '%percentile=%'
     AND (granularity IS NOT 'ggml' OR options = '')))
);

-- What each policy chose for each whole tensor: the rule that decided and
-- the quantization it made (NULL: a 'float' rule, the tensor stays float).
-- Filled by sql/policy.sql; one row per policy and tensor.
CREATE TABLE IF NOT EXISTS policy_choices (
  policy_id        INTEGER NOT NULL REFERENCES policies ON DELETE CASCADE,
  tensor_id        INTEGER NOT NULL REFERENCES tensors ON DELETE CASCADE,
  rule_id          INTEGER NOT NULL REFERENCES policy_rules ON DELETE CASCADE,
  quantization_id  INTEGER REFERENCES quantizations ON DELETE CASCADE,
  PRIMARY KEY (policy_id, tensor_id)
);

-- Files written from a policy's choices: one row per policy, model and
-- format, with the file's size and SHA-256 (the same policy must give the
-- same bytes on every run and kernel path).
CREATE TABLE IF NOT EXISTS exports (
  export_id    INTEGER PRIMARY KEY,
  policy_id    INTEGER NOT NULL REFERENCES policies ON DELETE CASCADE,
  model_id     INTEGER NOT NULL REFERENCES models ON DELETE CASCADE,
  format       TEXT NOT NULL CONSTRAINT export_format CHECK (format IN ('gguf', 'onnx')),
  path         TEXT NOT NULL
               CONSTRAINT export_path CHECK (typeof(path) = 'text' AND length(path) > 0),
  bytes        INTEGER NOT NULL
               CONSTRAINT export_bytes CHECK (typeof(bytes) = 'integer' AND bytes > 0),
  sha256       TEXT NOT NULL               -- lower-case hex, as sha256sum prints it
               CONSTRAINT export_sha256 CHECK (typeof(sha256) = 'text'
                 AND length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
  CONSTRAINT export_unique UNIQUE (policy_id, model_id, format)
);

-- A model's output measured in a runtime, against the float model on the
-- same inputs: one row per exported file and input set.  For a voice
-- activity detector: the speech probability's mean and max absolute
-- difference over `frames` frames, and the frames whose decision
-- (probability >= threshold) differs from the float model's.
CREATE TABLE IF NOT EXISTS evaluations (
  evaluation_id     INTEGER PRIMARY KEY,
  export_id         INTEGER NOT NULL REFERENCES exports ON DELETE CASCADE,
  runtime           TEXT NOT NULL,      -- 'onnxruntime-node 1.22.0'
  input_set         TEXT NOT NULL,      -- 'espeak-ng speech, silence, noise'
  sample_rate       INTEGER NOT NULL
                    CONSTRAINT evaluation_sample_rate
                      CHECK (typeof(sample_rate) = 'integer' AND sample_rate > 0),
  frames            INTEGER NOT NULL
                    CONSTRAINT evaluation_frames
                      CHECK (typeof(frames) = 'integer' AND frames > 0),
  threshold         REAL NOT NULL DEFAULT 0.5
                    CONSTRAINT evaluation_threshold
                      CHECK (threshold >= 0 AND threshold <= 1),
  mean_abs_diff     REAL NOT NULL
                    CONSTRAINT evaluation_mean_abs_diff CHECK (mean_abs_diff >= 0),
  max_abs_diff      REAL NOT NULL
                    CONSTRAINT evaluation_max_abs_diff CHECK (max_abs_diff >= 0),
  decisions_changed INTEGER NOT NULL
                    CONSTRAINT evaluation_decisions_changed
                      CHECK (typeof(decisions_changed) = 'integer'
                             AND decisions_changed BETWEEN 0 AND frames),
  changed_share     REAL GENERATED ALWAYS AS (1.0 * decisions_changed / frames) VIRTUAL,
  CONSTRAINT evaluation_unique UNIQUE (export_id, input_set, sample_rate)
);

-- The deployment tables' triggers, in the style of the ones above: parents
-- exist whatever PRAGMA foreign_keys says, deletes cascade without it, and
-- a parent that has children is neither renumbered nor overwritten.
CREATE TRIGGER IF NOT EXISTS policies_insert
BEFORE INSERT ON policies
BEGIN
  SELECT RAISE(ABORT, 'policies: a policy that has rules, choices or exports cannot be replaced; delete it first')
  WHERE EXISTS (SELECT 1 FROM policies p
                WHERE (p.policy_id = NEW.policy_id OR p.name = NEW.name)
                  AND (EXISTS (SELECT 1 FROM policy_rules r WHERE r.policy_id = p.policy_id)
                       OR EXISTS (SELECT 1 FROM policy_choices c WHERE c.policy_id = p.policy_id)
                       OR EXISTS (SELECT 1 FROM exports e WHERE e.policy_id = p.policy_id)));
END;

CREATE TRIGGER IF NOT EXISTS policies_update
BEFORE UPDATE OF policy_id ON policies
BEGIN
  SELECT RAISE(ABORT, 'policies: a policy that has rules, choices or exports keeps its policy_id')
  WHERE NEW.policy_id IS NOT OLD.policy_id
    AND (EXISTS (SELECT 1 FROM policy_rules WHERE policy_id = OLD.policy_id)
         OR EXISTS (SELECT 1 FROM policy_choices WHERE policy_id = OLD.policy_id)
         OR EXISTS (SELECT 1 FROM exports WHERE policy_id = OLD.policy_id));
END;

CREATE TRIGGER IF NOT EXISTS policies_delete
AFTER DELETE ON policies
BEGIN
  DELETE FROM policy_choices WHERE policy_id = OLD.policy_id;
  DELETE FROM policy_rules WHERE policy_id = OLD.policy_id;
  DELETE FROM exports WHERE policy_id = OLD.policy_id;
END;

-- A rule's policy must exist, and its options be spelled as quantizations
-- spells them (the same canonical form, checked the same way).  Its probe
-- must be a label sql/policy.sql can make: policy_rules_inserted, once the
-- row is in, reads it through the view policy_rule_specs.  INSERT OR
-- REPLACE may replace a rule (same rule_id, or same policy and priority):
-- policy_rules_inserted then forgets the choices it made.
CREATE TRIGGER IF NOT EXISTS policy_rules_insert
BEFORE INSERT ON policy_rules
BEGIN
  SELECT RAISE(ABORT, 'policy_rules: policy_id does not name a policy')
  WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'policy_rules: options must be canonical: quant_min=N quant_max=N reduce_range=1 rounding=onnx, each optional, in that order, one space apart')
  WHERE typeof(NEW.options) = 'text'
    AND NEW.options NOT LIKE '%method=%' AND NEW.options NOT LIKE '%percentile=%'
    AND NEW.options IS NOT (
      WITH RECURSIVE words(w, rest) AS (
        SELECT NULL, NEW.options || ' '
        UNION ALL
        SELECT substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
        FROM words WHERE rest <> '')
      SELECT trim(
        coalesce((SELECT ' ' || w FROM words
                  WHERE w = 'quant_min=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                  LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words
                     WHERE w = 'quant_max=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                     LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'reduce_range=1' LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'rounding=onnx' LIMIT 1), '')));
END;

-- A rule's choices follow from the whole rule book, so any change to a
-- policy's rules forgets the policy's choices; sql/policy.sql makes them
-- again.  An update may not move a rule that has choices to another policy
-- or number (the choices name it), nor break the checks of the insert.
CREATE TRIGGER IF NOT EXISTS policy_rules_update
BEFORE UPDATE ON policy_rules
BEGIN
  SELECT RAISE(ABORT, 'policy_rules: policy_id does not name a policy')
  WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'policy_rules: a rule keeps its rule_id and policy_id; delete it and insert a new row')
  WHERE NEW.rule_id IS NOT OLD.rule_id OR NEW.policy_id IS NOT OLD.policy_id;
  SELECT RAISE(ABORT, 'policy_rules: options must be canonical: quant_min=N quant_max=N reduce_range=1 rounding=onnx, each optional, in that order, one space apart')
  WHERE typeof(NEW.options) = 'text'
    AND NEW.options NOT LIKE '%method=%' AND NEW.options NOT LIKE '%percentile=%'
    AND NEW.options IS NOT (
      WITH RECURSIVE words(w, rest) AS (
        SELECT NULL, NEW.options || ' '
        UNION ALL
        SELECT substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1)
        FROM words WHERE rest <> '')
      SELECT trim(
        coalesce((SELECT ' ' || w FROM words
                  WHERE w = 'quant_min=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                  LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words
                     WHERE w = 'quant_max=' || CAST(CAST(substr(w, 11) AS INTEGER) AS TEXT)
                     LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'reduce_range=1' LIMIT 1), '')
        || coalesce((SELECT ' ' || w FROM words WHERE w = 'rounding=onnx' LIMIT 1), '')));
END;

CREATE TRIGGER IF NOT EXISTS policy_rules_inserted
AFTER INSERT ON policy_rules
BEGIN
  SELECT RAISE(ABORT, 'policy_rules: probe must be a quantization label such as ''int8 tensor affine'' or ''q8_0 ggml''')
  WHERE NEW.probe IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM policy_rule_specs
                    WHERE rule_id = NEW.rule_id AND role = 'probe' AND valid);
  DELETE FROM policy_choices
  WHERE policy_id = NEW.policy_id OR rule_id = NEW.rule_id
     OR rule_id NOT IN (SELECT rule_id FROM policy_rules);
END;

CREATE TRIGGER IF NOT EXISTS policy_rules_updated
AFTER UPDATE ON policy_rules
BEGIN
  SELECT RAISE(ABORT, 'policy_rules: probe must be a quantization label such as ''int8 tensor affine'' or ''q8_0 ggml''')
  WHERE NEW.probe IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM policy_rule_specs
                    WHERE rule_id = NEW.rule_id AND role = 'probe' AND valid);
  DELETE FROM policy_choices WHERE policy_id = NEW.policy_id;
END;

CREATE TRIGGER IF NOT EXISTS policy_rules_delete
AFTER DELETE ON policy_rules
BEGIN
  DELETE FROM policy_choices WHERE policy_id = OLD.policy_id;
END;

-- A choice names its policy, a whole tensor, a rule of that policy and, for
-- a rule that quantizes, a quantization of that tensor that does what the
-- rule says (dtype, granularity, scheme, block size, method, percentile,
-- options: the defaults of NULL action columns as the header says).
-- Choices are not edited: sql/policy.sql deletes and inserts them.
CREATE TRIGGER IF NOT EXISTS policy_choices_insert
BEFORE INSERT ON policy_choices
BEGIN
  SELECT RAISE(ABORT, 'policy_choices: policy_id does not name a policy')
  WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'policy_choices: tensor_id does not name a whole tensor (chunked tensors are outside policies)')
  WHERE NOT EXISTS (SELECT 1 FROM tensors WHERE tensor_id = NEW.tensor_id
                                            AND rows IS NULL);
  SELECT RAISE(ABORT, 'policy_choices: rule_id does not name a rule of the policy')
  WHERE NOT EXISTS (SELECT 1 FROM policy_rules WHERE rule_id = NEW.rule_id
                                                 AND policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'policy_choices: a float rule has no quantization, and every other rule one')
  WHERE (NEW.quantization_id IS NULL)
        <> (SELECT dtype = 'float' FROM policy_rules WHERE rule_id = NEW.rule_id);
  SELECT RAISE(ABORT, 'policy_choices: quantization_id does not name a quantization of the tensor')
  WHERE NEW.quantization_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM quantizations
                    WHERE quantization_id = NEW.quantization_id
                      AND tensor_id = NEW.tensor_id);
  SELECT RAISE(ABORT, 'policy_choices: the quantization does not do what the rule says')
  WHERE NEW.quantization_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM quantizations q, policy_rule_specs s
                    WHERE q.quantization_id = NEW.quantization_id
                      AND s.rule_id = NEW.rule_id AND s.role = 'action'
                      AND q.dtype = s.dtype AND q.granularity = s.granularity
                      AND q.scheme = s.scheme AND q.block_size IS s.block_size
                      AND q.method = s.method AND q.percentile IS s.percentile
                      AND q.options = s.options AND q.importance IS NULL);
END;

CREATE TRIGGER IF NOT EXISTS policy_choices_update
BEFORE UPDATE ON policy_choices
BEGIN
  SELECT RAISE(ABORT, 'policy_choices: a choice is not edited; delete it and run sql/policy.sql');
END;

-- The cascades of ON DELETE CASCADE, with foreign keys on or off.
CREATE TRIGGER IF NOT EXISTS tensors_delete_choices
AFTER DELETE ON tensors
BEGIN
  DELETE FROM policy_choices WHERE tensor_id = OLD.tensor_id;
END;

CREATE TRIGGER IF NOT EXISTS quantizations_delete_choices
AFTER DELETE ON quantizations
BEGIN
  DELETE FROM policy_choices WHERE quantization_id = OLD.quantization_id;
END;

CREATE TRIGGER IF NOT EXISTS models_delete_exports
AFTER DELETE ON models
BEGIN
  DELETE FROM exports WHERE model_id = OLD.model_id;
END;

CREATE TRIGGER IF NOT EXISTS exports_insert
BEFORE INSERT ON exports
BEGIN
  SELECT RAISE(ABORT, 'exports: policy_id does not name a policy')
  WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'exports: model_id does not name a model')
  WHERE NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
  DELETE FROM evaluations
  WHERE export_id IN (SELECT export_id FROM exports
                      WHERE export_id = NEW.export_id
                         OR (policy_id = NEW.policy_id AND model_id = NEW.model_id
                             AND format = NEW.format));
END;

-- An evaluation is of a file's bytes.  A file written again is an INSERT
-- that collides with its export (exports_insert above forgets the old
-- file's evaluations: if the INSERT then fails, that is undone with it) or
-- an UPDATE of path, bytes and sha256 (a new sha256 forgets them,
-- exports_updated).  What an export is of (policy, model, format) and its
-- export_id stay while it has evaluations.
CREATE TRIGGER IF NOT EXISTS exports_update
BEFORE UPDATE OF export_id, policy_id, model_id, format ON exports
BEGIN
  SELECT RAISE(ABORT, 'exports: an export that has evaluations keeps its export_id, policy, model and format')
  WHERE (NEW.export_id IS NOT OLD.export_id OR NEW.policy_id IS NOT OLD.policy_id
         OR NEW.model_id IS NOT OLD.model_id OR NEW.format IS NOT OLD.format)
    AND EXISTS (SELECT 1 FROM evaluations WHERE export_id = OLD.export_id);
  SELECT RAISE(ABORT, 'exports: policy_id does not name a policy')
  WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy_id = NEW.policy_id);
  SELECT RAISE(ABORT, 'exports: model_id does not name a model')
  WHERE NOT EXISTS (SELECT 1 FROM models WHERE model_id = NEW.model_id);
END;

CREATE TRIGGER IF NOT EXISTS exports_updated
AFTER UPDATE OF sha256 ON exports
WHEN NEW.sha256 IS NOT OLD.sha256
BEGIN
  DELETE FROM evaluations WHERE export_id = NEW.export_id;
END;

CREATE TRIGGER IF NOT EXISTS exports_delete
AFTER DELETE ON exports
BEGIN
  DELETE FROM evaluations WHERE export_id = OLD.export_id;
END;

CREATE TRIGGER IF NOT EXISTS evaluations_insert
BEFORE INSERT ON evaluations
BEGIN
  SELECT RAISE(ABORT, 'evaluations: export_id does not name an export')
  WHERE NOT EXISTS (SELECT 1 FROM exports WHERE export_id = NEW.export_id);
END;

CREATE TRIGGER IF NOT EXISTS evaluations_update
BEFORE UPDATE OF export_id ON evaluations
BEGIN
  SELECT RAISE(ABORT, 'evaluations: export_id does not name an export')
  WHERE NOT EXISTS (SELECT 1 FROM exports WHERE export_id = NEW.export_id);
END;

-- ---------------------------------------------------------------------------
-- policy_rule_specs: what each rule would make, with the defaults filled in:
-- one row per rule for its action (role 'action'; dtype 'float' and NULLs for
-- a float rule) and one per probe (role 'probe'), the probe label read back
-- into its parts: 'int8 block32 symmetric p99.9 rounding=onnx' is dtype,
-- granularity and block size, scheme, method (and percentile), options; 'q8_0
-- ggml' a ggml type.  label is the quantizations label the spec gives; valid
-- says the parts are values quantizations allows and spell the probe back.
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS policy_rule_specs AS
WITH action AS (
  SELECT rule_id, 'action' AS role, dtype, granularity,
         CASE WHEN dtype = 'float' THEN NULL
              WHEN granularity = 'ggml' THEN
                CASE WHEN dtype IN /*{ggml_affine_types*/('q4_1', 'q5_1',
                    'q2_K', 'q4_K', 'q5_K')/*}*/
                     THEN 'affine' ELSE 'symmetric' END
              ELSE coalesce(scheme, 'affine') END AS scheme,
         CASE granularity WHEN 'ggml' THEN
                /*{ggml_block_size:dtype*/CASE WHEN dtype IN ('q4_0', 'q4_1',
                    'q5_0', 'q5_1', 'q8_0', 'iq4_nl', 'mxfp4') THEN 32 WHEN
                    dtype IN ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs',
                    'iq2_xs', 'iq3_xxs', 'iq1_s', 'iq1_m', 'iq3_s', 'iq2_s',
                    'iq4_xs', 'tq1_0', 'tq2_0') THEN 256 WHEN dtype IN ('nvfp4',
                    'q2_0') THEN 64 WHEN dtype IN ('q1_0') THEN 128 END/*}*/
              ELSE block_size END AS block_size,
         CASE WHEN dtype = 'float' THEN NULL
              WHEN granularity = 'ggml' THEN 'ggml'
              ELSE coalesce(method, 'minmax') END AS method,
         percentile,
         CASE WHEN dtype = 'float' THEN NULL ELSE coalesce(options, '') END AS options
  FROM policy_rules),
words AS (
  SELECT rule_id, probe,
         CASE WHEN json_valid('["' || replace(probe, ' ', '","') || '"]')
              THEN '["' || replace(probe, ' ', '","') || '"]' END AS j
  FROM policy_rules WHERE probe IS NOT NULL),
parts AS (
  SELECT rule_id, probe, json_extract(j, '$[0]') AS dtype,
         json_extract(j, '$[1]') AS g, json_extract(j, '$[2]') AS w2,
         json_extract(j, '$[3]') AS w3
  FROM words),
probe AS (
  SELECT rule_id, 'probe' AS role, probe, dtype,
         CASE WHEN g GLOB 'block[1-9]*' THEN 'block' ELSE g END AS granularity,
         CASE WHEN g = 'ggml' THEN
                CASE WHEN dtype IN /*{ggml_affine_types*/('q4_1', 'q5_1',
                    'q2_K', 'q4_K', 'q5_K')/*}*/
                     THEN 'affine' ELSE 'symmetric' END
              ELSE w2 END AS scheme,
         CASE WHEN g GLOB 'block[1-9]*' AND g NOT GLOB 'block*[^0-9]*'
                   AND length(g) <= 14 THEN CAST(substr(g, 6) AS INTEGER)
              WHEN g = 'ggml' THEN /*{ggml_block_size:dtype*/CASE WHEN dtype IN
                  ('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'iq4_nl', 'mxfp4')
                  THEN 32 WHEN dtype IN ('q2_K', 'q3_K', 'q4_K', 'q5_K', 'q6_K',
                  'iq2_xxs', 'iq2_xs', 'iq3_xxs', 'iq1_s', 'iq1_m', 'iq3_s',
                  'iq2_s', 'iq4_xs', 'tq1_0', 'tq2_0') THEN 256 WHEN dtype IN
                  ('nvfp4', 'q2_0') THEN 64 WHEN dtype IN ('q1_0') THEN 128
                  END/*}*/
         END AS block_size,
         CASE WHEN g = 'ggml' THEN 'ggml'
              WHEN w3 IN /*{label_methods*/('mse', 'histogram',
                  'entropy')/*}*/ THEN w3
              WHEN w3 GLOB 'p[0-9]*' THEN 'percentile' ELSE 'minmax' END AS method,
         CASE WHEN g <> 'ggml' AND w3 GLOB 'p[0-9]*'
              THEN CAST(substr(w3, 2) AS REAL) END AS percentile,
         CASE WHEN g = 'ggml' THEN ''
              ELSE trim(substr(probe, length(dtype || ' ' || g || ' ' || w2
                   || CASE WHEN w3 IN /*{label_methods*/('mse', 'histogram',
                       'entropy')/*}*/
                                OR w3 GLOB 'p[0-9]*' THEN ' ' || w3
                           ELSE '' END) + 1)) END AS options
  FROM parts),
specs AS (
  SELECT rule_id, role, NULL AS probe, dtype, scheme, granularity, block_size,
         method, percentile, options FROM action
  UNION ALL
  SELECT rule_id, role, probe, dtype, scheme, granularity, block_size,
         method, percentile, options FROM probe),
labelled AS (
  SELECT *,
         CASE WHEN dtype = 'float' THEN NULL
              WHEN granularity = 'ggml' THEN dtype || ' ggml'
              ELSE dtype || ' '
                || CASE granularity WHEN 'block' THEN 'block' || block_size
                                    ELSE granularity END
                || ' ' || scheme
                || CASE method WHEN 'minmax' THEN '' WHEN 'percentile'
                               THEN ' p' || percentile ELSE ' ' || method END
                || CASE options WHEN '' THEN '' ELSE ' ' || options END
         END AS label
  FROM specs)
SELECT rule_id, role, dtype, scheme, granularity, block_size, method,
       percentile, options, label,
       role = 'action' OR (label IS probe
         AND ((granularity = 'ggml' AND dtype IN
                 /*{ggml_types*/('q4_0', 'q4_1', 'q5_0', 'q5_1', 'q8_0', 'q2_K',
                     'q3_K', 'q4_K', 'q5_K', 'q6_K', 'iq2_xxs', 'iq2_xs',
                     'iq3_xxs', 'iq1_s', 'iq1_m', 'iq4_nl', 'iq3_s', 'iq2_s',
                     'iq4_xs', 'tq1_0', 'tq2_0', 'mxfp4', 'nvfp4', 'q1_0',
                     'q2_0')/*}*/)
              OR (granularity IN /*{code_granularities*/('tensor', 'channel',
                  'block')/*}*/
                  AND dtype IN /*{code_dtypes*/('int8', 'uint8', 'int16',
                      'uint16', 'int32', 'int4', 'uint4', 'int2', 'uint2')/*}*/
                  AND scheme IN /*{schemes*/('affine', 'symmetric', 'log2')/*}*/
                  AND (scheme <> 'log2' OR (dtype IN /*{log2_dtypes*/('int8')/*}*/
                                            AND options = ''))
                  AND (granularity <> 'block' OR block_size >= 1)
                  AND (percentile IS NULL OR (percentile > 0 AND percentile <= 100))
                  AND options NOT LIKE '%method=%'
                  AND options NOT LIKE '%percentile=%'))) AS valid
FROM labelled;

-- ---------------------------------------------------------------------------
-- policy_spec_fits: every spec of every rule against every whole tensor its
-- rule's fixed conditions (model_glob, name_glob, min_numel, min_rank,
-- columns_below) let through: where the quantization would put its
-- parameters (axis, view_shape: see the policies header), whether it fits
-- the tensor, the identical quantization already stored (same dtype,
-- scheme, granularity, view_shape, axis, block_size, method, percentile,
-- options, no importance) and a stored row that has the spec's label but
-- differs (another axis or view_shape: sql/policy.sql refuses to guess).
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS policy_spec_fits AS
WITH t AS (
  SELECT t.tensor_id, t.name, t.channel_axis, t.numel, m.name AS model,
         json_array_length(t.shape) AS rank,
         json_extract(t.shape, '$[0]') AS dim0,
         json_extract(t.shape, '$[#-1]') AS columns
  FROM tensors t JOIN models m USING (model_id)
  WHERE t.rows IS NULL),
f AS (
  SELECT r.policy_id, r.priority, r.probe_sqnr_below, s.*, t.tensor_id,
         CASE s.granularity WHEN 'channel' THEN t.channel_axis
                            WHEN 'block' THEN min(t.rank, 2) - 1 END AS axis,
         CASE WHEN s.granularity = 'block' AND t.rank > 2
              THEN json_array(t.dim0, t.numel / t.dim0) END AS view_shape,
         CASE WHEN s.dtype = 'float' THEN 1
              WHEN s.granularity = 'channel' THEN t.channel_axis IS NOT NULL
              WHEN s.granularity = 'ggml' THEN t.columns % s.block_size = 0
              ELSE 1 END AS fits
  FROM policy_rules r JOIN policy_rule_specs s USING (rule_id)
  JOIN t ON (r.model_glob IS NULL OR t.model GLOB r.model_glob)
        AND (r.name_glob IS NULL OR t.name GLOB r.name_glob)
        AND (r.min_numel IS NULL OR t.numel >= r.min_numel)
        AND (r.min_rank IS NULL OR t.rank >= r.min_rank)
        AND (r.columns_below IS NULL OR t.columns < r.columns_below)
  WHERE s.valid)
SELECT f.*,
       (SELECT q.quantization_id FROM quantizations q
        WHERE q.tensor_id = f.tensor_id AND q.dtype = f.dtype
          AND q.scheme = f.scheme AND q.granularity = f.granularity
          AND q.view_shape IS f.view_shape AND q.axis IS f.axis
          AND q.block_size IS f.block_size AND q.method = f.method
          AND q.percentile IS f.percentile AND q.options = f.options
          AND q.importance IS NULL) AS quantization_id,
       (SELECT q.quantization_id FROM quantizations q
        WHERE q.tensor_id = f.tensor_id AND q.label = f.label
          AND (q.view_shape IS NOT f.view_shape OR q.axis IS NOT f.axis)) AS conflict_id
FROM f;

-- ---------------------------------------------------------------------------
-- policy_matches: per policy and whole tensor, the rule that decides it: the
-- first by priority whose conditions hold (the probe's SQNR included) and
-- whose action fits; rule_id NULL when none does.  With what the action
-- makes and the identical stored quantization (NULL: not made yet).
-- policy_gaps: the tensors no rule of their policy takes, by name.
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS policy_matches AS
WITH probed AS (
  SELECT f.rule_id, f.tensor_id
  FROM policy_spec_fits f JOIN quantizations q USING (quantization_id)
  WHERE f.role = 'probe' AND f.fits AND q.sqnr_db < f.probe_sqnr_below),
candidates AS (
  SELECT a.*, row_number() OVER (PARTITION BY a.policy_id, a.tensor_id
                                 ORDER BY a.priority) AS n
  FROM policy_spec_fits a
  JOIN policy_rules r USING (rule_id)
  WHERE a.role = 'action' AND a.fits
    AND (r.probe IS NULL OR EXISTS (SELECT 1 FROM probed p
                                    WHERE p.rule_id = a.rule_id
                                      AND p.tensor_id = a.tensor_id)))
SELECT p.policy_id, t.tensor_id, c.rule_id, c.dtype, c.scheme, c.granularity,
       c.view_shape, c.axis, c.block_size, c.method, c.percentile, c.options,
       c.label, c.quantization_id, c.conflict_id
FROM policies p JOIN tensors t ON t.rows IS NULL
LEFT JOIN candidates c ON c.policy_id = p.policy_id
                      AND c.tensor_id = t.tensor_id AND c.n = 1;

CREATE VIEW IF NOT EXISTS policy_gaps AS
SELECT p.name AS policy, m.name AS model, t.name AS tensor, t.shape
FROM policy_matches x
JOIN policies p USING (policy_id)
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
WHERE x.rule_id IS NULL;

-- ---------------------------------------------------------------------------
-- policy_warnings: what a policy does that its author may not have meant,
-- one row per finding, from policy_matches (so it holds before and after
-- sql/policy.sql; a probe rule matches only once its probes are measured,
-- which sql/policy.sql does).  tensor, model and priority are NULL where
-- they do not apply.  kind:
--   no rule            a whole tensor no rule takes (policy_gaps; sql/policy.sql
--                      refuses the policy);
--   unmatched rule     a rule whose conditions hold for no whole tensor;
--   no channel axis    a tensor left float (its deciding rule keeps it float)
--                      although an earlier per-channel rule's conditions
--                      held: the tensor has no channel_axis;
--   no whole blocks    the same for a ggml rule: the tensor's last dimension
--                      is not whole blocks of the type;
--   quantizes nothing  the policy keeps every whole tensor float.
-- sql/policy.sql's summary line counts them.
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS policy_warnings AS
WITH probed AS (
  SELECT f.rule_id, f.tensor_id
  FROM policy_spec_fits f JOIN quantizations q USING (quantization_id)
  WHERE f.role = 'probe' AND f.fits AND q.sqnr_db < f.probe_sqnr_below),
held AS (
  -- Per rule and whole tensor whose conditions hold (the probe's too).
  SELECT a.policy_id, a.rule_id, a.priority, a.tensor_id, a.label,
         a.granularity, a.block_size, a.fits
  FROM policy_spec_fits a JOIN policy_rules r USING (rule_id)
  WHERE a.role = 'action'
    AND (r.probe IS NULL OR EXISTS (SELECT 1 FROM probed p
                                    WHERE p.rule_id = a.rule_id
                                      AND p.tensor_id = a.tensor_id))),
decided AS (
  SELECT x.policy_id, x.tensor_id, x.rule_id, x.dtype, r.priority
  FROM policy_matches x LEFT JOIN policy_rules r USING (rule_id))
SELECT p.name AS policy, m.name AS model, t.name AS tensor, NULL AS priority,
       'no rule' AS kind,
       'no rule takes this tensor: sql/policy.sql refuses the policy' AS warning
FROM decided d JOIN policies p USING (policy_id)
JOIN tensors t USING (tensor_id) JOIN models m USING (model_id)
WHERE d.rule_id IS NULL
UNION ALL
SELECT p.name, NULL, NULL, r.priority, 'unmatched rule',
       printf('rule %d (%s) matches no tensor', r.priority,
              coalesce(s.label, 'float'))
FROM policy_rules r JOIN policies p USING (policy_id)
JOIN policy_rule_specs s ON s.rule_id = r.rule_id AND s.role = 'action'
WHERE NOT EXISTS (SELECT 1 FROM held h WHERE h.rule_id = r.rule_id)
UNION ALL
SELECT p.name, m.name, t.name, h.priority,
       CASE h.granularity WHEN 'channel' THEN 'no channel axis'
                          ELSE 'no whole blocks' END,
       CASE h.granularity
         WHEN 'channel' THEN printf('left float: rule %d (%s) needs a channel_axis, the tensor has none',
                                    h.priority, h.label)
         ELSE printf('left float: rule %d (%s) needs rows of whole %d-element blocks, the tensor''s last dimension is %d',
                     h.priority, h.label, h.block_size,
                     json_extract(t.shape, '$[#-1]')) END
FROM decided d JOIN held h ON h.policy_id = d.policy_id
                          AND h.tensor_id = d.tensor_id
                          AND h.priority < coalesce(d.priority, h.priority + 1)
                          AND NOT h.fits
JOIN policies p ON p.policy_id = d.policy_id
JOIN tensors t ON t.tensor_id = d.tensor_id JOIN models m USING (model_id)
WHERE d.dtype IS NULL OR d.dtype = 'float'
UNION ALL
SELECT p.name, NULL, NULL, NULL, 'quantizes nothing',
       printf('quantizes nothing: all %d whole tensors stay float', count(*))
FROM decided d JOIN policies p USING (policy_id)
GROUP BY d.policy_id
HAVING count(d.dtype <> 'float' OR NULL) = 0;

-- ---------------------------------------------------------------------------
-- policy_summary: per policy and model, what the policy's choices cost and
-- lose (tensors a policy has not been applied to, i.e. without a choice, are
-- not counted: run sql/policy.sql first).
--   tensors, weights      the whole tensors chosen for and their elements
--   quantized             how many of them are quantized (the rest float)
--   bytes_before          the stored float bytes (f16 models: 2 per weight)
--   bytes_after           the chosen quantizations' bytes (quantizations.bytes)
--                         plus the stored float bytes of the tensors kept float
--   bits_per_weight       8 * bytes_after / weights
--   mean_sqnr_db          mean over the quantized tensors of their SQNR (a
--                         float tensor is exact and left out)
--   worst_sqnr_db         the lowest, and worst_tensor its tensor
-- ---------------------------------------------------------------------------
CREATE VIEW IF NOT EXISTS policy_summary AS
SELECT p.policy_id                              AS policy_id,
       p.name                                   AS policy,
       m.model_id                               AS model_id,
       m.name                                   AS model,
       m.version                                AS version,
       count(*)                                 AS tensors,
       sum(t.numel)                             AS weights,
       count(q.quantization_id)                 AS quantized,
       sum(length(t.data))                      AS bytes_before,
       sum(coalesce(q.bytes, length(t.data)))   AS bytes_after,
       8.0 * sum(coalesce(q.bytes, length(t.data))) / sum(t.numel)
                                                AS bits_per_weight,
       avg(q.sqnr_db)                           AS mean_sqnr_db,
       min(q.sqnr_db)                           AS worst_sqnr_db,
       CASE WHEN min(q.sqnr_db) IS NOT NULL THEN t.name END AS worst_tensor
FROM policy_choices c
JOIN policies p USING (policy_id)
JOIN tensors t USING (tensor_id)
JOIN models m USING (model_id)
LEFT JOIN quantizations q ON q.quantization_id = c.quantization_id
GROUP BY p.policy_id, m.model_id;
