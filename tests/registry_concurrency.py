#!/usr/bin/env python3
"""Several writers on one registry (docs/REGISTRY.md#several-writers): the registry
scripts run by concurrent processes against one WAL registry, each
connection with a busy timeout, must all succeed and leave exactly what the
same runs one after another leave.

    /usr/bin/python3 tests/registry_concurrency.py [--ext dist/quant] [--root .]

  1. A writer holds the write lock for 1.5 s; sql/policy.sql started
     meanwhile waits (BEGIN IMMEDIATE honours the busy timeout) and
     commits, where a deferred BEGIN fails at once with "database is
     locked" (SQLite does not wait to turn a read transaction into a write
     one); the import recipe waits the same way.
  2. With a busy timeout shorter than the hold, the second writer gets
     "database is locked" and the registry is unchanged.
  3. Four processes each import a model with the import recipe and run
     policy.sql, two more run policy.sql twice, a seventh commits a small
     write every few milliseconds and an eighth reads with no busy timeout
     at all, all started at the same moment: every run succeeds, no read
     fails, and the registry's content (by natural keys: ids depend on
     the order) is the serial run's.
Ends with "registry-concurrency: N passed, N failed".  The workers are this
file run with --worker.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

import registry_common as rc

BUSY_TIMEOUT = 60.0
MODELS = 4


def worker(args):
    """One child: ROLE [ARG], printing "ready", waiting for a line on stdin,
    then printing "ok ROLE SECONDS" or "error ROLE: MESSAGE"."""
    role, arg = args.worker, args.arg
    timeout = args.timeout
    db = rc.connect(args.db, args.ext, 0 if role == 'reader' else timeout)
    policy = rc.read(args.root, 'sql/policy.sql')
    stop = args.db + '.stop'
    print('ready', flush=True)
    sys.stdin.readline()
    t0 = time.monotonic()
    try:
        if role == 'import-policy':
            rc.run_statements(db, rc.recipe(args.root, 'import'),
                              rc.import_params(arg, os.path.basename(arg).split('.')[0]))
            db.executescript(policy)
        elif role == 'import':
            rc.run_statements(db, rc.recipe(args.root, 'import'),
                              rc.import_params(arg, os.path.basename(arg).split('.')[0]))
        elif role == 'policy':
            for _ in range(int(arg or 1)):
                db.executescript(policy)
        elif role == 'hold':
            db.execute('BEGIN IMMEDIATE')
            db.execute('INSERT INTO heartbeat VALUES (0)')
            print('locked', flush=True)
            time.sleep(float(arg))
            db.execute('COMMIT')
        elif role == 'noise':
            n = 0
            while not os.path.exists(stop):
                db.execute('BEGIN IMMEDIATE')
                db.execute('INSERT INTO heartbeat VALUES (?)', (n,))
                time.sleep(0.005)
                db.execute('COMMIT')
                n += 1
                time.sleep(0.005)
            arg = f'{n} commits'
        elif role == 'reader':
            n = 0
            while not os.path.exists(stop):
                db.execute('SELECT count(*), sum(length(codes)) FROM quantizations').fetchall()
                db.execute('SELECT count(*) FROM policy_choices').fetchall()
                n += 1
            arg = f'{n} reads'
    except Exception as e:  # the error is the result
        print(f'error {role}: {e}', flush=True)
        return 1
    shown = os.path.basename(str(arg))
    print(f'ok {role} {time.monotonic() - t0:.2f} s {shown}'.rstrip(), flush=True)
    return 0


class Pool:
    """Children started together: each connects and loads the extension,
    then all are released at once."""

    def __init__(self, args, db):
        self.args, self.db, self.procs = args, db, []

    def add(self, role, arg='', timeout=BUSY_TIMEOUT):
        cmd = [sys.executable, os.path.abspath(__file__), '--worker', role,
               '--db', self.db, '--ext', self.args.ext, '--root', self.args.root,
               '--timeout', str(timeout)]
        if arg:
            cmd += ['--arg', str(arg)]
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        line = p.stdout.readline().strip()
        if line != 'ready':
            raise SystemExit(f'worker {role} did not start: {line} {p.stdout.read()}')
        self.procs.append((role, p))
        return p

    def go(self, p):
        p.stdin.write('go\n')
        p.stdin.flush()

    def go_all(self):
        for _, p in self.procs:
            self.go(p)

    def results(self):
        out = []
        for role, p in self.procs:
            text = p.stdout.read()
            p.wait()
            out.append((role, p.returncode, text.strip().split('\n')[-1]))
        return out


def serial(args, work, files, db_path):
    """The same runs one after another, in one process."""
    rc.make_registry(db_path, args.root, args.ext, wal=True)
    db = rc.connect(db_path, args.ext, 5)
    policy = rc.read(args.root, 'sql/policy.sql')
    for f in files:
        rc.run_statements(db, rc.recipe(args.root, 'import'),
                          rc.import_params(f, os.path.basename(f).split('.')[0]))
        db.executescript(policy)
    db.close()
    return rc.content(db_path, args.ext)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ext', default=os.path.join(rc.REPO, 'dist', 'quant'))
    ap.add_argument('--root', default=rc.REPO, help='where sql/ is')
    ap.add_argument('--worker')
    ap.add_argument('--arg', default='')
    ap.add_argument('--db')
    ap.add_argument('--timeout', type=float, default=BUSY_TIMEOUT)
    args = ap.parse_args()
    args.ext = os.path.abspath(args.ext)
    if args.worker:
        return worker(args)

    t = rc.Checks('registry-concurrency')
    start = time.monotonic()
    work = os.path.join(rc.REPO, 'build', f'registry-concurrency-{os.getpid()}')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files = []
    for i in range(MODELS):
        files.append(os.path.join(work, f'm{i}.safetensors'))
        rc.write_safetensors(files[-1], i)
    want = serial(args, work, files, os.path.join(work, 'serial.db'))

    # 1. policy.sql and the import recipe beside a writer holding the lock.
    db = os.path.join(work, 'held.db')
    rc.make_registry(db, args.root, args.ext, wal=True)
    c = rc.connect(db, args.ext, 5)
    for f in files[:-1]:
        rc.run_statements(c, rc.recipe(args.root, 'import'),
                          rc.import_params(f, os.path.basename(f).split('.')[0]))
    c.close()
    pool = Pool(args, db)
    hold = pool.add('hold', 1.5)
    policy = pool.add('policy')
    imp = pool.add('import-policy', files[-1])
    pool.go(hold)
    line = hold.stdout.readline().strip()
    t.eq('the holder has the write lock', line, 'locked')
    pool.go(policy)
    pool.go(imp)
    res = pool.results()
    for role, code, last in res:
        t.check(f'{role} beside a writer holding the lock: {last}',
                code == 0 and last.startswith(f'ok {role}'))
    waited = [float(last.split()[2]) for role, code, last in res
              if role == 'policy' and code == 0]
    t.check('policy.sql waited for the lock (at least 1 s)',
            waited and waited[0] >= 1.0, f'{waited}')
    got = rc.content(db, args.ext)
    t.check('the registry is the serial run\'s', got == want, rc.diff(got, want))

    # 2. A busy timeout shorter than the hold: "database is locked", nothing
    #    changed.
    db = os.path.join(work, 'short.db')
    rc.make_registry(db, args.root, args.ext, wal=True)
    before = rc.content(db, args.ext)
    pool = Pool(args, db)
    hold = pool.add('hold', 1.5)
    imp = pool.add('import', files[0], timeout=0.2)
    policy = pool.add('policy', timeout=0.2)
    pool.go(hold)
    hold.stdout.readline()
    pool.go(imp)
    pool.go(policy)
    res = pool.results()
    t.eq('a short busy timeout: what the second writers see',
         [(role, code, last) for role, code, last in res if role != 'hold'],
         [('import', 1, 'error import: database is locked'),
          ('policy', 1, 'error policy: database is locked')])
    got = rc.content(db, args.ext)
    t.check('and the registry is unchanged', got == before, rc.diff(got, before))

    # 3. Everyone at once.
    db = os.path.join(work, 'concurrent.db')
    rc.make_registry(db, args.root, args.ext, wal=True)
    pool = Pool(args, db)
    for f in files:
        pool.add('import-policy', f)
    pool.add('policy', 2)
    pool.add('policy', 2)
    noise = pool.add('noise')
    reader = pool.add('reader')
    stop = db + '.stop'
    pool.go_all()
    others = [p for role, p in pool.procs if role not in ('noise', 'reader')]
    for p in others:
        p.wait()
    open(stop, 'w').close()
    res = pool.results()
    for role, code, last in res:
        t.check(f'concurrent {role}: {last}', code == 0 and last.startswith(f'ok {role}'))
    got = rc.content(db, args.ext)
    t.check('the registry is the serial run\'s', got == want, rc.diff(got, want))

    shutil.rmtree(work, ignore_errors=True)
    print(f'registry-concurrency: {time.monotonic() - start:.1f} s', flush=True)
    return t.finish()


if __name__ == '__main__':
    sys.exit(main())
