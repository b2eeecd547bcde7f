"""cluster_test.py: the registry on a 3-node dqlite cluster, through two
leader failures, compared byte for byte with the same work on a local file.

Usage: /usr/bin/python3 tests/cluster/cluster_test.py EXT SHIM DIR [MODELS_DIR]
  EXT     the extension (dist/quant.so)
  SHIM    the LD_PRELOAD shim that registers it in each node (autoload.so)
  DIR     scratch directory for the nodes' data and logs (removed at the end)
  MODELS_DIR  the demo's models; without them the test makes its own weights

Each node is go-dqlite's dqlite-demo on 127.0.0.1 with its own forced
SQLITE_QUANT_KERNEL; every wait is bounded; every node is stopped by its own
process id on any exit.  Prints "cluster: N passed, N failed" last.
"""
import hashlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dqlite_wire  # noqa: E402
import workload  # noqa: E402

DB = "registry"
TIMEOUT = 30.0  # seconds for any one wait: a leader, a role, a statement

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: expected {want!r}, got {got!r}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, i, kernel, ext, shim, top):
        self.i, self.kernel = i, kernel
        self.db = f"127.0.0.1:{free_port()}"
        self.api = f"127.0.0.1:{free_port()}"
        self.dir = os.path.join(top, f"node{i}")
        self.log = os.path.join(top, f"node{i}.log")
        self.env = dict(os.environ, LD_PRELOAD=shim, SQLITE_QUANT_AUTOLOAD=ext,
                        SQLITE_QUANT_KERNEL=kernel)
        self.proc = None
        os.makedirs(self.dir)

    def start(self, join):
        cmd = ["dqlite-demo", "--api", self.api, "--db", self.db, "--dir", self.dir]
        if join:
            cmd += ["--join", join]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(cmd, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

    def kill(self):
        """SIGKILL by our own pid: no goodbye to the cluster, like a crash."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=TIMEOUT)


def wait_for(what, fn, timeout=TIMEOUT, interval=0.05):
    """FN() until it returns a true value; its value and the seconds it took."""
    t0 = time.monotonic()
    last = None
    while time.monotonic() - t0 < timeout:
        try:
            v = fn()
            if v:
                return v, time.monotonic() - t0
        except (OSError, dqlite_wire.Error) as e:
            last = e
        time.sleep(interval)
    raise TimeoutError(f"cluster: no {what} after {timeout:.0f} s (last error: {last})")


def roles(nodes):
    """The cluster's voters as the dqlite shell reports them."""
    out = subprocess.run(["dqlite", "-s", ",".join(n.db for n in nodes), DB, ".cluster"],
                         capture_output=True, text=True, timeout=TIMEOUT).stdout
    return sorted(line.split("|")[1] for line in out.splitlines()
                  if line.endswith("|voter"))


def leader(nodes, not_at=None):
    """A connection to a leader other than NOT_AT, and the seconds it took."""
    def find():
        conn = dqlite_wire.connect_leader([n.db for n in nodes if n.proc.poll() is None],
                                          DB, timeout=TIMEOUT)
        if conn.address == not_at:
            conn.close()
            return None
        return conn
    return wait_for("leader", find)


def check_kernel(conn, node):
    """The leader runs the extension, on the kernel path its node was given."""
    check(f"node{node.i} leads with the extension on its forced {node.kernel} path",
          conn.query("SELECT q_info() ->> '$.kernel'")[0][0], node.kernel)


def follows(node):
    """The leader NODE knows of ('' if none)."""
    conn = dqlite_wire.Connection(node.db, timeout=TIMEOUT)
    try:
        return conn.leader()
    finally:
        conn.close()


def node_at(nodes, address):
    return next(n for n in nodes if n.db == address)


def new_leader(nodes, conn, victim, killed_at, how=""):
    """After the leader VICTIM was killed at KILLED_AT: a connection to the
    leader elected next and its node, its kernel path checked."""
    conn.close()
    conn, _ = leader(nodes, not_at=victim.db)
    node = node_at(nodes, conn.address)
    print(f"cluster: leader node{victim.i} killed{how}; node{node.i} "
          f"({node.kernel}) leads after {time.monotonic() - killed_at:.2f} s")
    check_kernel(conn, node)
    return conn, node


def main():
    ext, shim, top = (os.path.abspath(a) for a in sys.argv[1:4])
    models_dir = sys.argv[4] if len(sys.argv) > 4 else ""
    here = os.path.dirname(os.path.abspath(__file__))
    schema = open(os.path.join(here, "..", "..", "sql", "registry.sql")).read()

    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    local = sqlite3.connect(os.path.join(top, "local.db"), isolation_level=None)
    local.enable_load_extension(True)
    local.load_extension(ext[:-3] if ext.endswith(".so") else ext)
    info = local.execute("SELECT q_info() ->> '$.kernels'").fetchone()[0]
    kernels = [k for k in ("scalar", "avx2", "avx512") if f'"{k}"' in info]

    files = [("silero_vad", "v5", "onnx", "npm:@ricky0123/vad-web@0.0.31/dist/silero_vad_v5.onnx",
              "MIT", "silero_vad_v5.onnx"),
             ("face_detection_short_range", "0.4.1657300184", "tflite",
              "npm:@mediapipe/face_detection@0.4.1657300184/face_detection_short_range.tflite",
              "Apache-2.0", "face_detection_short_range.tflite")]
    models = [f[:5] + (os.path.join(models_dir, f[5]),) for f in files
              if models_dir and os.path.isfile(os.path.join(models_dir, f[5]))]
    if len(models) < len(files):
        print("cluster: the demo's models are not in build/models (offline?): "
              "using weights generated by tests/cluster/workload.py")
        models = []
    imports = workload.imports(local, models)
    print(f"cluster: weights of {', '.join(f'{n} ({k} tensors)' for n, k, _ in imports)}")

    nodes = [Node(i + 1, kernels[i % len(kernels)], ext, shim, top) for i in range(3)]
    global failed
    try:
        run(nodes, local, schema, imports)
    except (OSError, TimeoutError, subprocess.SubprocessError, dqlite_wire.Error) as e:
        failed += 1
        print(f"FAIL the run stopped: {e}")
        for n in nodes:
            if os.path.exists(n.log):
                tail = open(n.log, errors="replace").read().splitlines()[-5:]
                print(f"node{n.i}'s log ends:", *tail, sep="\n  ")
    finally:
        for n in nodes:
            n.kill()
        local.close()
        left = [n.proc.pid for n in nodes if n.proc and n.proc.poll() is None]
        check("every node process stopped", left, [])
        shutil.rmtree(top, ignore_errors=True)
    print(f"cluster: {passed} passed, {failed} failed")
    return 1 if failed else 0


def run(nodes, local, schema, imports):
    t0 = time.monotonic()
    nodes[0].start(None)
    wait_for("first node", lambda: dqlite_wire.connect_leader([nodes[0].db], DB, TIMEOUT))
    for n in nodes[1:]:
        n.start(nodes[0].db)
    want = sorted(n.db for n in nodes)
    wait_for("three voters", lambda: roles(nodes) == want and want)
    print(f"cluster: 3 voters up in {time.monotonic() - t0:.2f} s, kernels "
          + ", ".join(f"node{n.i}={n.kernel}" for n in nodes))

    def both(sql, conn):
        """Runs SQL on the cluster and on the local file; seconds each took."""
        a = time.monotonic()
        conn.exec(sql)
        b = time.monotonic()
        local.executescript(sql)
        return b - a, time.monotonic() - b

    # 1. Schema, weights, the first batches, through the first leader.
    conn, _ = leader(nodes)
    first = node_at(nodes, conn.address)
    check_kernel(conn, first)
    both(schema, conn)
    for name, count, sql in imports:
        both(sql, conn)
        check(f"{name}: {count} tensors imported through the cluster",
              conn.query(f"SELECT count(*) FROM tensors JOIN models USING (model_id) "
                         f"WHERE models.name = '{name}'")[0][0], count)
    cluster_s = local_s = 0.0
    for s in workload.SCHEMES[:3]:
        c, l = both(workload.batch([s]), conn)
        cluster_s, local_s = cluster_s + c, local_s + l
    rows = local.execute("SELECT count(*) FROM quantizations").fetchone()[0]
    print(f"cluster: quantize-and-insert, {rows} rows in 3 batches: cluster "
          f"{cluster_s:.3f} s ({rows / cluster_s:.0f} rows/s), local file "
          f"{local_s:.3f} s ({rows / local_s:.0f} rows/s), ratio local/cluster "
          f"{cluster_s / local_s:.2f}")

    # 2. The leader dies in the middle of a batch: one transaction of the
    # remaining schemes, sent from a thread, the leader killed meanwhile.
    big = workload.batch(workload.SCHEMES[3:-1], stall=True)
    tl = time.monotonic()
    local.executescript(big)
    local_big = time.monotonic() - tl
    print(f"cluster: a batch of {len(workload.SCHEMES) - 4} schemes, paused after the "
          f"first: {local_big:.3f} s on the local file")
    expect = local.execute("SELECT count(*) FROM quantizations").fetchone()[0]
    outcome = {}

    def send():
        try:
            outcome["changed"] = conn.exec(big)
        except (OSError, dqlite_wire.Error) as e:
            outcome["error"] = str(e)
    sender = threading.Thread(target=send)
    sender.start()
    # The first scheme's rows take a fraction of the pause (they are in the
    # local time too): half of it lands inside the pause.
    time.sleep(local_big / 2)
    tk = time.monotonic()
    first.kill()
    sender.join(TIMEOUT)
    check("the batch's client lost its leader before an answer",
          sorted(outcome), ["error"])
    conn, second = new_leader(nodes, conn, first, tk, " mid-batch")
    have = conn.query("SELECT count(*) FROM quantizations")[0][0]
    print(f"cluster: after the failover the registry has {have} rows: the batch "
          + ("committed whole" if have == expect else "left no trace" if have == rows
             else "is HALF there"))
    check("the batch is all or nothing", have in (rows, expect), True)
    if have == rows:
        conn.exec(big)
    check("the batch is complete through the new leader",
          conn.query("SELECT count(*) FROM quantizations")[0][0], expect)

    # 3. The killed node comes back and catches up; the second leader dies.
    # It is back once it follows the current leader, which then sends it the
    # log entries it missed; raft elects only a node whose log is complete.
    first.start(None)
    _, back = wait_for("the restarted node to follow the leader",
                       lambda: follows(first) == second.db)
    print(f"cluster: node{first.i} restarted; follows node{second.i} after {back:.2f} s")
    tk = time.monotonic()
    second.kill()
    conn, third = new_leader(nodes, conn, second, tk)
    both(workload.batch(workload.SCHEMES[-1:]), conn)

    kernels = {first.kernel, second.kernel, third.kernel}
    check("the work ran on more than one kernel path", len(kernels) > 1, True)
    queries = dict(workload.TABLES, recomputed_metrics=workload.RECOMPUTED)
    for table, sql in queries.items():
        a = workload.text(conn.query(sql))
        b = workload.text(local.execute(sql).fetchall())
        print(f"cluster: {table}: {a.count(chr(10))} rows, sha256 "
              f"{hashlib.sha256(a.encode()).hexdigest()[:16]}… on the cluster")
        check(f"{table}: identical to the local file's, byte for byte", a, b)
    conn.close()


if __name__ == "__main__":
    # SIGTERM (make's, CI's) unwinds through main's finally like Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
