"""workload.py: the registry work the cluster test runs, as SQL text.

The same statements run through the cluster and on a local SQLite file, so
the two registries can be compared byte for byte.  Each batch is one
transaction: a batch is in the registry whole or not at all.  The client's
single-row writes (client_write) go to a table of the test's own.
"""
import random
import struct

# (dtype, scheme, granularity) of each quantize-and-insert batch.
SCHEMES = [
    ("int8", "affine", "tensor"), ("int8", "symmetric", "tensor"),
    ("uint8", "affine", "tensor"), ("int4", "symmetric", "tensor"),
    ("int8", "affine", "channel"), ("int8", "symmetric", "channel"),
    ("uint8", "affine", "channel"), ("int4", "affine", "channel"),
    ("int4", "symmetric", "channel"),
]

# The float weights of every tensor that has a channel axis (rank >= 2).
_W = """(SELECT tensor_id, q_f32(data, dtype) AS x, shape, channel_axis AS axis
         FROM tensors WHERE channel_axis IS NOT NULL)"""


def _insert(dtype, scheme, granularity):
    if granularity == "tensor":
        return f"""INSERT INTO quantizations (tensor_id, dtype, scheme, granularity,
                                   method, scale, zero_point, codes)
SELECT tensor_id, '{dtype}', '{scheme}', 'tensor', 'minmax', s, z,
       quantize_blob(x, s, z, '{dtype}')
FROM (SELECT tensor_id, x, q_scale(x, '{dtype}', '{scheme}') AS s,
             q_zero_point(x, '{dtype}', '{scheme}') AS z FROM {_W})"""
    return f"""INSERT INTO quantizations (tensor_id, dtype, scheme, granularity,
                                   axis, scales, zero_points, codes)
SELECT tensor_id, '{dtype}', '{scheme}', 'channel', axis, s, z,
       quantize_per_channel_blob(x, s, z, shape, axis, '{dtype}')
FROM (SELECT tensor_id, x, shape, axis,
             q_per_channel_scales(x, shape, axis, '{dtype}', '{scheme}') AS s,
             q_per_channel_zero_points(x, shape, axis, '{dtype}', '{scheme}') AS z
      FROM {_W})"""


# Every row still without metrics, measured from its stored codes.
MEASURE = f"""UPDATE quantizations
SET mse = q_mse(w.x, y), sqnr_db = q_sqnr(w.x, y),
    max_error = q_max_error(w.x, y), cosine = q_cosine(w.x, y)
FROM (SELECT q.quantization_id AS id, w.x,
             CASE q.granularity
               WHEN 'tensor' THEN dequantize_blob(q.codes, q.scale, q.zero_point, q.dtype)
               ELSE dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
                                                w.shape, q.axis, q.dtype) END AS y
      FROM quantizations AS q JOIN {_W} AS w USING (tensor_id)
      WHERE q.sqnr_db IS NULL) AS w
WHERE w.id = quantizations.quantization_id"""


# A statement that writes nothing and takes a few tenths of a second: in
# the middle of a batch it holds the transaction open, half written, long
# enough for the test to kill the leader there.
# (dqlite's EXEC refuses a statement that returns rows, so it is a DELETE
# whose condition is the slow count, false.)
STALL = """DELETE FROM quantizations WHERE (SELECT count(*) FROM
  (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000000)
   SELECT i FROM c)) < 0"""


def batch(schemes, stall=False):
    """One transaction: quantize every tensor under SCHEMES, then measure;
    with STALL, a pause after the first scheme's rows."""
    stmts = [_insert(*s) for s in schemes] + [MEASURE]
    if stall:
        stmts.insert(1, STALL)
    return "BEGIN;\n" + ";\n".join(stmts) + ";\nCOMMIT;"


def _tensor_rows(conn_local, path, fmt):
    """(name, dtype, shape, hex data, channel axis) of a model file's float tensors."""
    return conn_local.execute(
        """SELECT name, dtype, shape, hex(data),
                  CASE WHEN json_array_length(shape) >= 2 THEN 0 END
           FROM q_tensors_file(?, ?)
           WHERE dtype IN ('f32', 'f16')
             AND nbytes / CASE dtype WHEN 'f32' THEN 4 ELSE 2 END >= 16""",
        (path, fmt)).fetchall()


def _generated_rows(seed):
    """Weights made here when the real models cannot be fetched: a few conv
    and linear layers of seeded Gaussian float32 with per-channel spread."""
    rng = random.Random(seed)
    rows = []
    for i, shape in enumerate([(16, 8, 3), (32, 16, 3), (64, 32), (10, 64)]):
        n = 1
        for d in shape:
            n *= d
        per = n // shape[0]
        vals = [rng.gauss(0, 0.1 * (1 + c % 4)) for c in range(shape[0]) for _ in range(per)]
        data = struct.pack(f"<{n}f", *vals).hex().upper()
        rows.append((f"layer{i}.weight", "f32", "[" + ", ".join(map(str, shape)) + "]", data, 0))
    return rows


def imports(conn_local, models):
    """The import transactions: one per model, its row and its tensors.

    MODELS is a list of (name, version, format, source, licence, path) of
    real files, or empty for generated weights.  CONN_LOCAL, a sqlite3 connection with the
    extension loaded, reads the files."""
    sources = [(n, v, f, src, lic, _tensor_rows(conn_local, p, f))
               for n, v, f, src, lic, p in models]
    if not sources:
        sources = [("generated", "1", "other", "tests/cluster/workload.py", "MIT",
                    _generated_rows(20261201))]
    out = []
    for name, version, fmt, source, licence, rows in sources:
        model = f"(SELECT model_id FROM models WHERE name = '{name}')"
        stmts = [f"INSERT INTO models (name, version, format, source, licence) "
                 f"VALUES ('{name}', '{version}', '{fmt}', '{source}', '{licence}')"]
        for tname, dtype, shape, data, axis in rows:
            ax = "NULL" if axis is None else str(axis)
            tname = tname.replace("'", "''")
            stmts.append(f"INSERT INTO tensors (model_id, name, shape, dtype, channel_axis, data) "
                         f"VALUES ({model}, '{tname}', '{shape}', '{dtype}', {ax}, X'{data}')")
        out.append((name, len(rows), "BEGIN;\n" + ";\n".join(stmts) + ";\nCOMMIT;"))
    return out


# The client's own writes, one row each, keyed by an id the client chose.
# write_id is deliberately not UNIQUE: only the retry rule keeps one row per
# id, so a retry that wrote twice would show as two rows.  kernel is the
# path of the node that ran the statement (not compared: it is the one value
# that should differ between a node and the local file).
CLIENT_WRITES = """CREATE TABLE client_writes (
  write_id   INTEGER NOT NULL,
  tensor_id  INTEGER NOT NULL REFERENCES tensors,
  kernel     TEXT NOT NULL,
  dtype      TEXT NOT NULL,
  scheme     TEXT NOT NULL,
  scale      REAL,
  zero_point INTEGER,
  codes      BLOB NOT NULL,
  sqnr_db    REAL,
  ggml_type  TEXT NOT NULL,
  ggml       BLOB NOT NULL
)"""

# Tensors small enough for a write every few tens of milliseconds and whole
# ggml blocks of 32 (q4_0, q5_1, q8_0): (tensor_id, ...) on the local file.
WRITABLE = """SELECT tensor_id FROM tensors
WHERE length(data) / CASE dtype WHEN 'f32' THEN 4 ELSE 2 END % 32 = 0
  AND length(data) / CASE dtype WHEN 'f32' THEN 4 ELSE 2 END <= 4096
ORDER BY tensor_id"""

_CLIENT_CHOICES = [("int8", "affine"), ("int8", "symmetric"), ("uint8", "affine"),
                   ("int4", "symmetric"), ("int4", "affine")]
_GGML_TYPES = ["q4_0", "q5_1", "q8_0"]


def client_write(write_id, tensor_ids, seed):
    """The statement of write WRITE_ID: one row of a tensor's codes under a
    scheme and its ggml blocks, chosen by (SEED, WRITE_ID) alone, and only if
    no row has that id yet (the retry rule, tests/cluster/writer.py)."""
    rng = random.Random(f"{seed}:{write_id}")
    tensor_id = rng.choice(tensor_ids)
    dtype, scheme = rng.choice(_CLIENT_CHOICES)
    ggml = rng.choice(_GGML_TYPES)
    return f"""INSERT INTO client_writes (write_id, tensor_id, kernel, dtype, scheme,
                           scale, zero_point, codes, sqnr_db, ggml_type, ggml)
SELECT {write_id}, tensor_id, q_info() ->> '$.kernel', '{dtype}', '{scheme}', s, z, c,
       q_sqnr(x, dequantize_blob(c, s, z, '{dtype}')), '{ggml}', q_ggml_quantize(x, '{ggml}')
FROM (SELECT tensor_id, x, s, z, quantize_blob(x, s, z, '{dtype}') AS c
      FROM (SELECT tensor_id, x, q_scale(x, '{dtype}', '{scheme}') AS s,
                   q_zero_point(x, '{dtype}', '{scheme}') AS z
            FROM (SELECT tensor_id, q_f32(data, dtype) AS x FROM tensors
                  WHERE tensor_id = {tensor_id})))
WHERE NOT EXISTS (SELECT 1 FROM client_writes WHERE write_id = {write_id})"""


# The client's rows in a fixed order, without the kernel column, and the
# kernel column alone.
CLIENT_ROWS = """SELECT write_id, tensor_id, dtype, scheme, scale, zero_point, codes,
       sqnr_db, ggml_type, ggml FROM client_writes ORDER BY write_id, rowid"""
CLIENT_KERNELS = "SELECT write_id, kernel FROM client_writes ORDER BY write_id, rowid"


# The metrics of every row computed again from its codes, by whichever
# kernel path runs the query, as exact text.
RECOMPUTED = f"""SELECT id, q_mse(x, y), q_sqnr(x, y), q_max_error(x, y), q_cosine(x, y)
FROM (SELECT q.quantization_id AS id, w.x,
             CASE q.granularity
               WHEN 'tensor' THEN dequantize_blob(q.codes, q.scale, q.zero_point, q.dtype)
               ELSE dequantize_per_channel_blob(q.codes, q.scales, q.zero_points,
                                                w.shape, q.axis, q.dtype) END AS y
      FROM quantizations AS q JOIN {_W} AS w USING (tensor_id))
ORDER BY id"""

# Every table the work writes, whole, in a fixed order: the comparison.
TABLES = {
    "models": "SELECT model_id, name, version, format, source, licence FROM models ORDER BY model_id",
    "tensors": "SELECT tensor_id, model_id, name, shape, dtype, channel_axis, data "
               "FROM tensors ORDER BY tensor_id",
    "quantizations": "SELECT quantization_id, tensor_id, dtype, scheme, granularity, axis, "
                     "method, scale, zero_point, scales, zero_points, codes, "
                     "mse, sqnr_db, max_error, cosine FROM quantizations "
                     "ORDER BY quantization_id",
}


def text(rows):
    """Query results as exact text: type-tagged, REALs as their bits in hex,
    BLOBs in hex, one line per row."""
    def one(v):
        if v is None:
            return "null"
        if isinstance(v, bytes):
            return "x" + v.hex()
        if isinstance(v, float):
            return "r" + struct.pack("<d", v).hex()
        if isinstance(v, int):
            return "i" + str(v)
        return "t" + repr(v)
    return "".join("|".join(one(v) for v in row) + "\n" for row in rows)
