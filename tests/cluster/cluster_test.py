"""cluster_test.py: the registry on a 3-node dqlite cluster through crashes
and partitions, with every acknowledged write checked on every node's copy.

Usage: /usr/bin/python3 tests/cluster/cluster_test.py EXT SHIM DIR [MODELS_DIR]
  EXT     the extension (dist/quant.so)
  SHIM    the LD_PRELOAD shim that registers it in each node (autoload.so)
  DIR     scratch directory for the nodes' data and logs (removed at the end)
  MODELS_DIR  the demo's models; without them the test makes its own weights
Needs root (network namespaces).  CLUSTER_SEED=N repeats a run's choices (the
writes, which follower is killed, which is cut off); elections and timing
are the kernel's and raft's, not the seed's.

Each node is go-dqlite's dqlite-demo in a network namespace of its own
(tests/cluster/netns.py) with its own forced SQLITE_QUANT_KERNEL.  A client
thread (tests/cluster/writer.py) writes all along, one row per id it chose,
retrying each write until acknowledged.  In turn: a leader is killed in the
middle of a batch, a follower is killed and restarted, the leader is cut
off from the others, then a follower, then the leader is killed again.  At
the end every node is stopped and its own data directory is read alone
(made a cluster of one): each copy must hold every acknowledged write once,
the writes of unknown outcome at most once, and the same bytes as a local
file that ran the same statements.  Every wait is bounded; every node is
stopped by its own process id on any exit.  Prints "cluster: N passed, N
failed" last.
"""
import hashlib
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dqlite_wire  # noqa: E402
import netns  # noqa: E402
import workload  # noqa: E402
from writer import DB, Probe, Writer  # noqa: E402

TIMEOUT = 30.0   # seconds for any one wait: a leader, a role, a statement
DEADLINE = 60.0  # seconds a client write may take, retries included
PACE = 0.05      # seconds between the client's writes
BURST = 20       # writes acknowledged in each step before it ends
HOLD = 8.0       # seconds a follower stays cut off: longer than an election timeout
PROBE_ID = 1000000  # first id of each probe's writes (probe k: k * PROBE_ID)

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: expected {want!r}, got {got!r}")


class Node:
    def __init__(self, i, kernel, ext, shim, top, net):
        self.i, self.kernel, self.net = i, kernel, net
        self.db = f"{net.address(i)}:9001"
        self.api = f"{net.address(i)}:8001"
        self.dir = os.path.join(top, f"node{i}")
        self.data = os.path.join(self.dir, self.db)  # where dqlite-demo keeps it
        self.log = os.path.join(top, f"node{i}.log")
        self.env = dict(os.environ, LD_PRELOAD=shim, SQLITE_QUANT_AUTOLOAD=ext,
                        SQLITE_QUANT_KERNEL=kernel)
        self.proc = None
        os.makedirs(self.dir)

    def start(self, join):
        """In the node's namespace; setpriv makes the kernel kill the node if
        this process dies first, so no node outlives a killed test."""
        cmd = self.net.run_in(self.i) + [
            "setpriv", "--pdeathsig", "KILL",
            "dqlite-demo", "--api", self.api, "--db", self.db, "--dir", self.dir]
        if join:
            cmd += ["--join", join]
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(cmd, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        """SIGKILL by our own pid: no goodbye to the cluster, like a crash."""
        if self.alive():
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=TIMEOUT)

    def node_id(self):
        with open(os.path.join(self.data, "info.yaml")) as f:
            return int(next(line.split()[1] for line in f if line.startswith("ID:")))


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


def leader(nodes, not_at=()):
    """A connection to a leader not at an address in NOT_AT, and the seconds
    it took.  A node cut off, or not yet told of an election, may still name
    the old leader: that answer is skipped until the majority's arrives."""
    def find():
        for n in nodes:
            if not n.alive():
                continue
            try:
                probe = dqlite_wire.Connection(n.db, TIMEOUT)
                try:
                    address = probe.leader()
                finally:
                    probe.close()
                if not address or address in not_at:
                    continue
                conn = dqlite_wire.Connection(address, TIMEOUT)
                try:
                    conn.open(DB)
                except (OSError, dqlite_wire.Error):
                    conn.close()
                    raise
                return conn
            except (OSError, dqlite_wire.Error):
                continue
        return None
    return wait_for("leader", find)


def check_kernel(conn, node, what="leads"):
    """The leader runs the extension, on the kernel path its node was given."""
    check(f"node{node.i} {what} with the extension on its forced {node.kernel} path",
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


def new_leader(nodes, conn, victim, since, how):
    """After the leader VICTIM was killed or cut off at SINCE: a connection
    to the leader elected next and its node, its kernel path checked."""
    conn.close()
    conn, _ = leader(nodes, not_at=(victim.db,))
    node = node_at(nodes, conn.address)
    print(f"cluster: leader node{victim.i} {how}; node{node.i} "
          f"({node.kernel}) leads after {time.monotonic() - since:.2f} s")
    check_kernel(conn, node)
    return conn, node


def hand_over(nodes, node):
    """Leadership handed to NODE, which raft grants only once NODE's log
    matches the leader's: asked again until then.  A connection to NODE as
    leader, and the seconds it took."""
    t0 = time.monotonic()
    target = node.node_id()

    def once():
        conn, _ = leader(nodes)
        if conn.address == node.db:
            return conn
        try:
            conn.transfer(target)
        finally:
            conn.close()
        conn, _ = leader(nodes)
        if conn.address == node.db:
            return conn
        conn.close()
        return None
    conn, _ = wait_for(f"leadership handed to node{node.i}", once, interval=0.2)
    return conn, time.monotonic() - t0


def main():
    ext, shim, top = (os.path.abspath(a) for a in sys.argv[1:4])
    models_dir = sys.argv[4] if len(sys.argv) > 4 else ""
    here = os.path.dirname(os.path.abspath(__file__))
    schema = open(os.path.join(here, "..", "..", "sql", "registry.sql")).read()
    seed = int(os.environ.get("CLUSTER_SEED") or random.SystemRandom().randrange(1 << 31))
    print(f"cluster: seed {seed} (CLUSTER_SEED={seed} repeats this run's choices)")
    if os.geteuid() != 0:
        print("FAIL the cluster test needs root: it runs each node in a network namespace")
        print("cluster: 0 passed, 1 failed")
        return 1

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

    global failed
    net = netns.Network(3)
    nodes = []
    threads = []
    try:
        net.up()
        # From here on this process, its threads and its children are in
        # the hub: every socket the test opens is inside the namespaces.
        net.enter_hub()
        nodes = [Node(i + 1, kernels[i % len(kernels)], ext, shim, top, net) for i in range(3)]
        run(nodes, net, local, schema, imports, seed, threads)
    except (OSError, TimeoutError, subprocess.SubprocessError, dqlite_wire.Error) as e:
        failed += 1
        print(f"FAIL the run stopped: {e}")
        for n in nodes:
            if os.path.exists(n.log):
                tail = open(n.log, errors="replace").read().splitlines()[-5:]
                print(f"node{n.i}'s log ends:", *tail, sep="\n  ")
    finally:
        for t in threads:
            try:
                t.stop()
            except TimeoutError as e:
                print(f"cluster: {e}")
        for n in nodes:
            n.kill()
        local.close()
        left = [n.proc.pid for n in nodes if n.alive()]
        check("every node process stopped", left, [])
        try:
            net.down()
            gone = [ns for ns in [net.hub] + net.nodes if os.path.exists(f"/run/netns/{ns}")]
        except (OSError, subprocess.SubprocessError) as e:
            gone = str(e)
        check("every namespace of the run removed", gone, [])
        shutil.rmtree(top, ignore_errors=True)
    print(f"cluster: {passed} passed, {failed} failed")
    return 1 if failed else 0


def run(nodes, net, local, schema, imports, seed, threads):
    rng = random.Random(seed)
    t0 = time.monotonic()
    nodes[0].start(None)
    first_conn, _ = leader(nodes[:1])
    first_conn.close()
    for n in nodes[1:]:
        n.start(nodes[0].db)
    want = sorted(n.db for n in nodes)

    def voters():
        conn, _ = leader(nodes)
        try:
            return sorted(a for _, a, role in conn.cluster() if role == 0) == want
        finally:
            conn.close()
    wait_for("three voters", voters)
    print(f"cluster: 3 voters up in {time.monotonic() - t0:.2f} s on "
          f"{netns.SUBNET}.0/24 in namespaces {net.name}-*, kernels "
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
    both(schema + ";\n" + workload.CLIENT_WRITES + ";", conn)
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

    # The client writes from here to the end, through whichever node leads.
    tensor_ids = [r[0] for r in local.execute(workload.WRITABLE)]

    def statement(write_id):
        return workload.client_write(write_id, tensor_ids, seed)
    writer = Writer([n.db for n in nodes], statement, PACE, TIMEOUT, DEADLINE)
    threads.append(writer)
    probes = []
    writer.start()
    writer.wait_acks(BURST, 0, TIMEOUT)

    # 2. The leader dies in the middle of a batch: one transaction of the
    # remaining schemes, sent from a thread, the leader killed meanwhile.
    # The client's writes meet a locked database until then.
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
    writer.pause()
    sender = threading.Thread(target=send)
    sender.start()
    # The first scheme's rows take a fraction of the pause (they are in the
    # local time too): half of it lands inside the pause.
    time.sleep(local_big / 4)
    writer.resume()
    time.sleep(local_big / 4)
    tk = time.monotonic()
    first.kill()
    sender.join(TIMEOUT)
    check("the batch's client lost its leader before an answer",
          sorted(outcome), ["error"])
    conn, second = new_leader(nodes, conn, first, tk, "killed mid-batch")
    acks = writer.wait_acks(1, tk, TIMEOUT)
    print(f"cluster: the client's first write after the kill acknowledged "
          f"{acks[0].end - tk:.2f} s after it, by node{node_at(nodes, acks[0].address).i}")
    writer.pause()
    have = conn.query("SELECT count(*) FROM quantizations")[0][0]
    print(f"cluster: after the failover the registry has {have} rows: the batch "
          + ("committed whole" if have == expect else "left no trace" if have == rows
             else "is HALF there"))
    check("the batch is all or nothing", have in (rows, expect), True)
    if have == rows:
        conn.exec(big)
    check("the batch is complete through the new leader",
          conn.query("SELECT count(*) FROM quantizations")[0][0], expect)
    writer.resume()

    # The killed node comes back and follows the new leader.
    first.start(None)
    _, back = wait_for(f"node{first.i} to follow the leader after its restart",
                       lambda: follows(first) == second.db)
    print(f"cluster: node{first.i} restarted; follows node{second.i} after {back:.2f} s")

    # 3. A follower is killed while the client writes: the two others are a
    # majority, so no write may fail.  It restarts and catches up.
    ld = second
    victim = rng.choice([n for n in nodes if n is not ld])
    writer.wait_acks(BURST, time.monotonic(), TIMEOUT)
    tk = time.monotonic()
    victim.kill()
    acks = writer.wait_acks(BURST, tk, TIMEOUT)
    down = writer.between(tk, time.monotonic())
    check(f"follower node{victim.i} killed: {BURST} writes acknowledged while it was "
          f"down, by node{ld.i}, and no attempt failed",
          ([a.error for a in down if a.error], sorted({a.address for a in acks})),
          ([], [ld.db]))
    tr = time.monotonic()
    victim.start(None)
    _, back = wait_for(f"node{victim.i} to follow the leader after its restart",
                       lambda: follows(victim) == ld.db)
    conn.close()
    conn, caught = hand_over(nodes, victim)
    print(f"cluster: follower node{victim.i} killed with {len(down)} writes sent meanwhile; "
          f"restarted, it follows node{ld.i} after {back:.2f} s and its log matches the "
          f"leader's {time.monotonic() - tr:.2f} s after the restart (leadership handed "
          f"to it after {caught:.2f} s)")
    check_kernel(conn, victim, "leads once caught up,")
    ld = victim

    # 4. The leader is cut off from the two others.  It must acknowledge
    # nothing; the majority elects a leader and keeps acknowledging.
    writer.wait_acks(BURST, time.monotonic(), TIMEOUT)
    isolated = ld
    probe = Probe(isolated.db, 1 * PROBE_ID, statement, TIMEOUT)
    probes.append(probe)
    threads.append(probe)
    tp = time.monotonic()
    net.partition(isolated.i)
    probe.start()
    conn, ld = new_leader(nodes, conn, isolated, tp, "cut off from the others")
    acks = writer.wait_acks(BURST, tp, TIMEOUT)
    probe.wait_answers(3, TIMEOUT)
    probe.stop()
    threads.remove(probe)
    th = time.monotonic()
    net.heal(isolated.i)
    during = writer.between(tp, th) + probe.attempts
    first_answer = probe.attempts[0] if probe.attempts else None
    print(f"cluster: leader node{isolated.i} cut off: its first write answered after "
          f"{first_answer.end - tp:.2f} s ({first_answer.error or 'acknowledged'}); "
          f"the majority's first acknowledgement {acks[0].end - tp:.2f} s after the cut, "
          f"by node{node_at(nodes, acks[0].address).i}")
    print(f"cluster: the cut-off leader's answers, in order: {answers(probe.attempts)}")
    check(f"the cut-off leader node{isolated.i} acknowledged none of the "
          f"{len(probe.attempts)} writes sent to it (at least 3)",
          (len(probe.attempts) >= 3,
           [a.write_id for a in during if a.address == isolated.db and a.changed is not None]),
          (True, []))
    check(f"the majority acknowledged {BURST} writes while node{isolated.i} was cut off",
          len([a for a in acks if a.address != isolated.db]), BURST)
    _, back = wait_for(f"node{isolated.i} to follow the majority's leader after the heal",
                       lambda: follows(isolated) == ld.db)
    conn.close()
    conn, caught = hand_over(nodes, isolated)
    print(f"cluster: healed after {th - tp:.2f} s; node{isolated.i} follows node{ld.i} "
          f"after {back:.2f} s, its log matches the leader's {time.monotonic() - th:.2f} s "
          f"after the heal")
    check_kernel(conn, isolated, "leads once caught up,")
    ld = isolated

    # 5. A follower is cut off for longer than an election timeout: it must
    # acknowledge nothing and never lead, and the leader must not notice:
    # no write fails, during the partition or after it heals.
    cut = rng.choice([n for n in nodes if n is not ld])
    # The client's connection may still be at the leader before the hand-
    # over: once it has written through the new one, it is there.
    writer.wait_acks(BURST, time.monotonic(), TIMEOUT)
    probe = Probe(cut.db, 2 * PROBE_ID, statement, TIMEOUT)
    probes.append(probe)
    threads.append(probe)
    tp = time.monotonic()
    net.partition(cut.i)
    probe.start()
    time.sleep(HOLD)
    probe.wait_answers(3, TIMEOUT)
    probe.stop()
    threads.remove(probe)
    th = time.monotonic()
    net.heal(cut.i)
    _, back = wait_for(f"node{cut.i} to follow the leader after the heal",
                       lambda: follows(cut) == ld.db)
    writer.wait_acks(BURST, time.monotonic(), TIMEOUT)
    window = writer.between(tp, time.monotonic())
    print(f"cluster: follower node{cut.i} cut off for {th - tp:.2f} s; {len(window)} writes "
          f"through node{ld.i} meanwhile and after; it follows again {back:.2f} s after the heal")
    print(f"cluster: the cut-off follower's answers, in order: {answers(probe.attempts)}")
    check(f"the cut-off follower node{cut.i} acknowledged none of the "
          f"{len(probe.attempts)} writes sent to it (at least 3) and never led",
          (len(probe.attempts) >= 3, [a.write_id for a in probe.attempts if a.changed is not None],
           cut.db in probe.leaders),
          (True, [], False))
    check(f"with follower node{cut.i} cut off and healed, every write was acknowledged, "
          f"first time, by node{ld.i}",
          ([a.error for a in window if a.error], sorted({a.address for a in window})),
          ([], [ld.db]))

    # 6. The leader is killed with a client write in flight.
    victim = ld
    writer.wait_sending(TIMEOUT)
    tk = time.monotonic()
    victim.kill()
    conn, ld = new_leader(nodes, conn, victim, tk, "killed with a write in flight")
    acks = writer.wait_acks(1, tk, TIMEOUT)
    flight = [a for a in writer.between(0, tk) if a.end >= tk and a.address == victim.db]
    print(f"cluster: the client's first write after the kill acknowledged "
          f"{acks[0].end - tk:.2f} s after it; in flight at the kill: "
          + (", ".join(f"write {a.write_id} ({a.error})" for a in flight) or "none"))
    writer.pause()
    both(workload.batch(workload.SCHEMES[-1:]), conn)
    writer.resume()
    victim.start(None)
    _, back = wait_for(f"node{victim.i} to follow the leader after its restart",
                       lambda: follows(victim) == ld.db)
    writer.wait_acks(BURST, time.monotonic(), TIMEOUT)
    writer.stop()
    threads.remove(writer)

    kernels = {n.kernel for n in nodes}
    check("the work ran on more than one kernel path", len(kernels) > 1, True)

    # Every node's log made equal to the leader's: leadership handed to each.
    tc = time.monotonic()
    for n in nodes:
        if n is not ld:
            conn.close()
            conn, _ = hand_over(nodes, n)
    conn.close()
    print(f"cluster: every node's log matches the leader's "
          f"({time.monotonic() - tc:.2f} s to hand leadership to each)")
    for n in nodes:
        n.kill()

    # The outcome of every write the client sent, and the bytes the local
    # file gives each.
    attempts = writer.attempts + [a for p in probes for a in p.attempts]
    acked = {a.write_id: a for a in attempts if a.changed is not None}
    sent = sorted({a.write_id for a in attempts})
    unknown = [i for i in sent if i not in acked]
    retried = sorted({a.write_id for a in attempts if a.error} & set(acked))
    committed_before = [i for i in retried if acked[i].changed == 0]
    print(f"cluster: the client sent {len(sent)} writes in {len(attempts)} attempts: "
          f"{len(acked)} acknowledged ({len(retried)} after a failed attempt, "
          f"{len(committed_before)} of which had committed: the retry changed nothing), "
          f"{len(unknown)} of unknown outcome (never retried)")
    for i in committed_before:
        failure = next(a for a in attempts if a.write_id == i and a.error)
        print(f"cluster: write {i}: an attempt ended in \"{failure.error}\" yet had "
              f"committed; its retry through {acked[i].address} changed nothing")
    check("every write acknowledged on its first attempt changed one row",
          sorted({a.changed for i, a in acked.items() if i not in retried}), [1])
    for i in sent:
        local.execute(statement(i))
    want_rows = rows_by_id(local.execute(workload.CLIENT_ROWS).fetchall())

    # 7. Each node's own copy, read alone.
    copies = {}
    for n in nodes:
        copies[n.i] = read_copy(n, nodes, local, acked, unknown, want_rows)
    base = copies[nodes[0].i]
    for n in nodes[1:]:
        check(f"node{n.i}'s copy identical to node{nodes[0].i}'s, every table",
              copies[n.i] == base, True)
    ran_on = sorted({k for i, k in base["client_kernels"] if i in acked})
    print(f"cluster: the acknowledged writes ran on {', '.join(ran_on)}")
    check("the acknowledged writes ran on more than one kernel path", len(ran_on) > 1, True)


def answers(attempts):
    """What a node answered, in order of first appearance, with counts."""
    seen = {}
    for a in attempts:
        what = a.error or f"acknowledged ({a.changed} rows)"
        seen[what] = seen.get(what, 0) + 1
    return ", ".join(f"{n} x {what}" for what, n in seen.items())


def rows_by_id(rows):
    """CLIENT_ROWS as {write_id: [each row with that id, as exact text]}."""
    out = {}
    for row in rows:
        out.setdefault(row[0], []).append(workload.text([row]))
    return out


def read_copy(node, nodes, local, acked, unknown, want_rows):
    """NODE's own data directory, every other node stopped, made a cluster of
    one (dqlite's .reconfigure appends that configuration to its log) and
    started alone: the database its log holds, and nothing from any other
    node.  Its tables checked; their text returned for comparison."""
    one = os.path.join(os.path.dirname(node.dir), f"alone{node.i}.yaml")
    with open(one, "w") as f:
        f.write(f"- Address: {node.db}\n  ID: {node.node_id()}\n  Role: 0\n")
    r = subprocess.run(["dqlite", "-s", node.db, DB, f".reconfigure {node.data} {one}"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    if r.stdout.strip() != "OK":
        raise OSError(f"cluster: .reconfigure of node{node.i}'s directory: {r.stdout}{r.stderr}")
    shutil.copyfile(one, os.path.join(node.data, "cluster.yaml"))
    node.start(None)
    try:
        conn, took = leader([node])
        print(f"cluster: node{node.i}'s copy, alone, answers after {took:.2f} s")
        check_kernel(conn, node, "alone runs its copy")
        out = {}
        queries = dict(workload.TABLES, recomputed_metrics=workload.RECOMPUTED)
        for table, sql in queries.items():
            a = workload.text(conn.query(sql))
            b = workload.text(local.execute(sql).fetchall())
            print(f"cluster: node{node.i}: {table}: {a.count(chr(10))} rows, sha256 "
                  f"{hashlib.sha256(a.encode()).hexdigest()[:16]}…")
            check(f"node{node.i}'s copy: {table} identical to the local file's, byte for byte",
                  a, b)
            out[table] = a
        have = rows_by_id(conn.query(workload.CLIENT_ROWS))
        out["client_rows"] = have
        out["client_kernels"] = conn.query(workload.CLIENT_KERNELS)
        conn.close()
    finally:
        node.kill()
    check(f"node{node.i}'s copy: each of the {len(acked)} acknowledged writes exactly once",
          [i for i in acked if len(have.get(i, [])) != 1], [])
    check(f"node{node.i}'s copy: each acknowledged write's bytes those of the local file",
          [i for i in acked if i in have and have[i] != want_rows[i]], [])
    check(f"node{node.i}'s copy: the {len(unknown)} writes of unknown outcome each at most "
          f"once ({sum(1 for i in unknown if i in have)} there), with the local file's bytes",
          [i for i in unknown if i in have and have[i] != want_rows[i]], [])
    check(f"node{node.i}'s copy: no row the client did not send",
          sorted(set(have) - set(acked) - set(unknown)), [])
    return out


if __name__ == "__main__":
    # SIGTERM (make's, CI's) unwinds through main's finally like Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
