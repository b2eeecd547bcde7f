"""What tests/registry_concurrency.py and tests/registry_kill.py share: the
registry scripts as a host runs them (Debian's python3 and its sqlite3
module, the extension loaded), generated model files, and the registry's
content as one comparable value.

Scripts are run from a root directory (--root, the checkout by default), so
the same tests can run another version's scripts and library (0.2.0's, to
see them fail).
"""
import json
import math
import os
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class Checks:
    """ok/FAILED lines and the closing "NAME: N passed, N failed"."""

    def __init__(self, name, quiet=False):
        # quiet: only failures and the checks marked show=True are printed.
        self.name, self.passed, self.failed, self.quiet = name, 0, 0, quiet

    def check(self, what, good, detail='', show=False):
        if good:
            self.passed += 1
            if show or not self.quiet:
                print(f'ok {what}', flush=True)
        else:
            self.failed += 1
            print(f'FAILED {what}' + (f': {detail}' if detail else ''), flush=True)
        return good

    def eq(self, what, got, want):
        return self.check(what, got == want, f'got {got!r}, expected {want!r}')

    def finish(self):
        print(f'{self.name}: {self.passed} passed, {self.failed} failed', flush=True)
        return 1 if self.failed else 0


def read(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        return f.read()


def recipe(root, name):
    """The statements of recipe NAME, sql/recipes/NAME.sql, split where
    SQLite says a statement ends."""
    return statements(read(root, f'sql/recipes/{name}.sql'))


def statements(text):
    """TEXT's SQL statements, in order, with their comments; lines that are
    shell dot-commands (.bail on) are left out."""
    out, cur = [], ''
    for line in text.split('\n'):
        if line.startswith('.') and only_comments(cur):
            continue
        cur += line + '\n'
        if sqlite3.complete_statement(cur):
            out.append(cur)
            cur = ''
    if not only_comments(cur):
        raise ValueError(f'an unterminated statement: {cur!r}')
    return out


def only_comments(text):
    return all(not l.strip() or l.strip().startswith('--') for l in text.split('\n'))


def connect(path, ext, timeout):
    """A connection as a host opens one: autocommit (the scripts open their
    own transactions), the busy timeout in seconds, the extension loaded."""
    db = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.enable_load_extension(False)
    return db


def import_params(path, model):
    return {'path': path, 'model': model, 'version': '1', 'format': 'safetensors',
            'source': 'tests/registry_common.py', 'licence': 'MIT'}


def run_statements(db, stmts, params):
    for s in stmts:
        db.execute(s, params).fetchall()


# ---- model files ------------------------------------------------------------

def _values(n, seed):
    # Deterministic weights with a spread of ranges (so that probes differ
    # from tensor to tensor).
    return [math.sin(seed * 7.1 + i * 0.37) * (1 + (i * 13 + seed) % 9) / 4
            for i in range(n)]


def write_safetensors(path, seed, rows=128):
    """A small model: two f32 weights, an f16 one, a bias, an f64 vector
    (the recipe narrows it), an int64 scalar (left out) and metadata."""
    tensors = [
        ('blocks.0.weight', 'F32', [rows, 256]),
        ('blocks.0.bias', 'F32', [rows]),
        ('blocks.1.weight', 'F32', [64, rows]),
        ('head.weight', 'F16', [16, 64]),
        ('temperature', 'F64', [3]),
        ('step', 'I64', []),
    ]
    header, blobs, offset = {}, [], 0
    for k, (name, dtype, shape) in enumerate(tensors):
        n = math.prod(shape)
        v = _values(n, seed * 10 + k)
        if dtype == 'F32':
            b = struct.pack(f'<{n}f', *v)
        elif dtype == 'F16':
            b = struct.pack(f'<{n}e', *v)
        elif dtype == 'F64':
            b = struct.pack(f'<{n}d', *v)
        else:
            b = struct.pack('<q', seed)
        header[name] = {'dtype': dtype, 'shape': shape,
                        'data_offsets': [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    header['__metadata__'] = {'format': 'pt', 'seed': str(seed)}
    h = json.dumps(header).encode()
    h += b' ' * (-len(h) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))


# ---- registries ----------------------------------------------------------------

# Policies over the generated models (the recipe leaves channel_axis NULL,
# so no per-channel rule would fit): a ggml type, int4 blocks, a probe rule,
# each ending with catch-alls.
POLICIES = """
INSERT INTO policies (name, description) VALUES
  ('q8_0', 'q8_0 where rows are whole blocks, else int8 per tensor'),
  ('int4-block32', 'int4 blocks of 32, biases float'),
  ('sqnr35', 'int8 per tensor unless its SQNR is under 35 dB: q8_0');
INSERT INTO policy_rules (policy_id, priority, min_rank, probe, probe_sqnr_below,
                          dtype, scheme, granularity, block_size)
WITH r(policy, priority, min_rank, probe, below, dtype, scheme, granularity,
       block) AS (VALUES
  ('q8_0', 10, 2, NULL, NULL, 'q8_0', NULL, 'ggml', NULL),
  ('q8_0', 20, 2, NULL, NULL, 'int8', 'affine', 'tensor', NULL),
  ('q8_0', 90, NULL, NULL, NULL, 'float', NULL, NULL, NULL),
  ('int4-block32', 10, 2, NULL, NULL, 'int4', 'symmetric', 'block', 32),
  ('int4-block32', 90, NULL, NULL, NULL, 'float', NULL, NULL, NULL),
  ('sqnr35', 10, 2, 'int8 tensor affine', 35.0, 'q8_0', NULL, 'ggml', NULL),
  ('sqnr35', 20, 2, NULL, NULL, 'int8', 'affine', 'tensor', NULL),
  ('sqnr35', 90, NULL, NULL, NULL, 'float', NULL, NULL, NULL))
SELECT p.policy_id, r.priority, r.min_rank, r.probe, r.below, r.dtype, r.scheme,
       r.granularity, r.block
FROM r JOIN policies p ON p.name = r.policy
ORDER BY p.policy_id, r.priority;
"""


def make_registry(path, root, ext, wal, policies=True):
    """A fresh registry at PATH (sql/registry.sql), in WAL mode or not, with
    POLICIES and a table `heartbeat` that the tests' extra writer fills
    (not part of the compared content)."""
    for suffix in ('', '-wal', '-shm', '-journal'):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = connect(path, ext, 5)
    if wal:
        db.execute('PRAGMA journal_mode = WAL').fetchall()
    db.executescript(read(root, 'sql/registry.sql'))
    db.execute('CREATE TABLE heartbeat (n INTEGER)')
    if policies:
        db.executescript(POLICIES)
    db.close()


# The registry's content by natural keys (no ids, no timestamps): the
# value a run must leave, whatever order concurrent runs took.
CONTENT = {
    'models': "SELECT name, version, format, source, licence, homepage, sha256 FROM models",
    'model_metadata': """
        SELECT m.name, m.version, k.key, k.type, k.value
        FROM model_metadata k JOIN models m ON m.model_id = k.model_id""",
    'tensors': """
        SELECT m.name, m.version, t.name, t.chunk, t.row_start, t.rows, t.shape,
               t.dtype, t.channel_axis, t.data
        FROM tensors t JOIN models m ON m.model_id = t.model_id""",
    'quantizations': """
        SELECT m.name, m.version, t.name, t.chunk, q.label, q.dtype, q.scheme,
               q.granularity, q.method, q.percentile, q.options, q.view_shape,
               q.axis, q.block_size, q.scale, q.zero_point, q.scales,
               q.zero_points, q.codes, q.importance, q.mse, q.sqnr_db,
               q.max_error, q.cosine
        FROM quantizations q JOIN tensors t ON t.tensor_id = q.tensor_id
        JOIN models m ON m.model_id = t.model_id""",
    'policies': "SELECT name, description FROM policies",
    'policy_rules': """
        SELECT p.name, r.priority, r.model_glob, r.name_glob, r.min_numel,
               r.min_rank, r.columns_below, r.probe, r.probe_sqnr_below, r.dtype,
               r.scheme, r.granularity, r.block_size, r.method, r.percentile,
               r.options
        FROM policy_rules r JOIN policies p ON p.policy_id = r.policy_id""",
    'policy_choices': """
        SELECT p.name, m.name, m.version, t.name, r.priority, q.label
        FROM policy_choices c JOIN policies p ON p.policy_id = c.policy_id
        JOIN tensors t ON t.tensor_id = c.tensor_id
        JOIN models m ON m.model_id = t.model_id
        JOIN policy_rules r ON r.rule_id = c.rule_id
        LEFT JOIN quantizations q ON q.quantization_id = c.quantization_id""",
    'exports': """
        SELECT p.name, m.name, m.version, e.format, e.path, e.bytes, e.sha256
        FROM exports e JOIN policies p ON p.policy_id = e.policy_id
        JOIN models m ON m.model_id = e.model_id""",
    'evaluations': "SELECT count(*) FROM evaluations",
}


def content(path, ext):
    """{table: sorted rows} of the registry at PATH (opening it recovers
    what a killed process left: a hot journal is rolled back, a WAL's
    committed frames kept)."""
    db = connect(path, ext, 5)
    out = {}
    for table, sql in CONTENT.items():
        out[table] = sorted(db.execute(sql).fetchall(), key=repr)
    db.close()
    return out


def diff(a, b):
    """Which tables differ, with their row counts."""
    return ', '.join(f'{t}: {len(a[t])} rows vs {len(b[t])}'
                     for t in CONTENT if a[t] != b[t]) or 'none'
