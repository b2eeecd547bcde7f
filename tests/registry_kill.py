#!/usr/bin/env python3
"""Registry scripts killed midway (SIGKILL) leave the registry as it was or
as a whole run leaves it, and the next run finishes the job.

    /usr/bin/python3 tests/registry_kill.py [--ext dist/quant] [--root .]
                                            [--models build/models]

Each script runs in a child process (Debian's python3, its sqlite3 module,
the extension loaded), statement by statement as a host runs it, and kills
itself at a chosen point, so every point is the same on every run:
  - between two statements, after statement k, for each k;
  - inside a statement: a progress handler called every 100 virtual-machine
    instructions kills at its n-th call, for n at eight points spread over
    an uninterrupted run's calls.
After each kill the registry, once opened (SQLite rolls back what was not
committed: a hot journal, a WAL's uncommitted frames), must hold either
its content before the run or the content an uninterrupted run leaves (by
natural keys, as tests/registry_common.py compares them).  Then the script
is run again: from "before" it must succeed and leave the uninterrupted
run's content; from "after" the import recipe must refuse the release
already there ("models: a release that has tensors cannot be replaced;
delete it first") and leave it, and the other scripts must succeed and change nothing.

The scripts: the import recipe (sql/recipes/import.sql) into a registry that
holds another model, sql/policy.sql on a registry with models and
policies, and, with --models (the demo's model files,
examples/fetch_models.sh), examples/import_models.sql over an earlier
import of the same models that has a quantization row (the re-import
replaces the releases, and the row goes with them).  Each in rollback-
journal and in WAL mode.  Prints the failures and one line per script and
mode (--verbose: every check); ends with "registry-kill: N passed, N
failed".
"""
import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

import registry_common as rc

PROGRESS_EVERY = 100
STEP_KILLS = 8
# The registry's refusal of an import over a release that has tensors
# (sql/registry.sql, models_insert).
REFUSED = 'models: a release that has tensors cannot be replaced; delete it first'


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


class Script:
    """A script under test: its statements, parameters and base registry."""

    def __init__(self, name, stmts, params, make_base, rerun_after):
        self.name, self.stmts, self.params = name, stmts, params
        self.make_base = make_base
        # What a run over the complete content does: 'refuse' or 'same'.
        self.rerun_after = rerun_after


def scripts(args, work):
    out = []
    ext, root = args.ext, args.root

    # The import recipe, beside a model already there.
    # Written by the parent; the children find them.
    other = os.path.join(work, 'other.safetensors')
    model = os.path.join(work, 'model.safetensors')
    if not os.path.exists(model):
        rc.write_safetensors(other, 7)
        rc.write_safetensors(model, 3, rows=512)

    def recipe_base(path, wal):
        rc.make_registry(path, root, ext, wal)
        db = rc.connect(path, ext, 5)
        rc.run_statements(db, rc.recipe(root, 'import'), rc.import_params(other, 'other'))
        db.close()
    out.append(Script('import recipe', rc.recipe(root, 'import'),
                      rc.import_params(model, 'model'), recipe_base, 'refuse'))

    # policy.sql over two imported models and the test policies.
    def policy_base(path, wal):
        recipe_base(path, wal)
        db = rc.connect(path, ext, 5)
        rc.run_statements(db, rc.recipe(root, 'import'), rc.import_params(model, 'model'))
        db.close()
    out.append(Script('policy.sql', rc.statements(rc.read(root, 'sql/policy.sql')), {},
                      policy_base, 'same'))

    # The demo's import over an earlier one.
    if args.models:
        models = os.path.abspath(args.models)
        params = {'models': models,
                  'silero_sha256': sha256(os.path.join(models, 'silero_vad_v5.onnx')),
                  'mediapipe_sha256': sha256(os.path.join(
                      models, 'face_detection_short_range.tflite'))}
        stmts = rc.statements(rc.read(root, 'examples/import_models.sql'))

        def demo_base(path, wal):
            rc.make_registry(path, root, ext, wal, policies=False)
            db = rc.connect(path, ext, 5)
            rc.run_statements(db, stmts, params)
            db.execute("""
                INSERT INTO quantizations (tensor_id, dtype, granularity, scale,
                                           zero_point, codes)
                SELECT tensor_id, 'int8', 'tensor', s, z,
                       quantize_blob(q_f32(data, dtype), s, z)
                FROM (SELECT tensor_id, data, dtype, q_scale(q_f32(data, dtype)) AS s,
                             q_zero_point(q_f32(data, dtype)) AS z
                      FROM tensors ORDER BY tensor_id LIMIT 1)""")
            db.close()
        out.append(Script('import_models.sql', stmts, params, demo_base, 'same'))
    return out


# ---- the child ----------------------------------------------------------------

def child(args):
    """Runs the script's statements; with --kill-after K kills itself after
    statement K, with --kill-step N at the N-th progress call.  Without
    either prints "calls C statements S"."""
    spec = SPECS[args.child]
    db = rc.connect(args.db, args.ext, 5)
    calls = 0

    def progress():
        nonlocal calls
        calls += 1
        if calls == args.kill_step:
            os.kill(os.getpid(), signal.SIGKILL)
        return 0
    db.set_progress_handler(progress, PROGRESS_EVERY)
    try:
        for k, s in enumerate(spec.stmts, 1):
            db.execute(s, spec.params).fetchall()
            if k == args.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)
    except Exception as e:  # the error is the result
        print(f'error: {e}', flush=True)
        return 1
    print(f'calls {calls} statements {len(spec.stmts)}', flush=True)
    return 0


def run_child(args, name, db, kill_after=0, kill_step=0):
    cmd = [sys.executable, os.path.abspath(__file__), '--child', name, '--db', db,
           '--ext', args.ext, '--root', args.root,
           '--kill-after', str(kill_after), '--kill-step', str(kill_step)]
    if args.models:
        cmd += ['--models', args.models]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def fresh(src, dst):
    for suffix in ('', '-wal', '-shm', '-journal'):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
    shutil.copyfile(src, dst)


SPECS = {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ext', default=os.path.join(rc.REPO, 'dist', 'quant'))
    ap.add_argument('--root', default=rc.REPO, help='where sql/ and examples/ are')
    ap.add_argument('--models', help="the demo's model files (examples/fetch_models.sh)")
    ap.add_argument('--child')
    ap.add_argument('--db')
    ap.add_argument('--kill-after', type=int, default=0)
    ap.add_argument('--kill-step', type=int, default=0)
    ap.add_argument('--work')
    ap.add_argument('--verbose', action='store_true', help='print every check')
    args = ap.parse_args()
    args.ext = os.path.abspath(args.ext)
    if args.child:
        for s in scripts(args, args.work or os.path.dirname(args.db)):
            SPECS[s.name] = s
        return child(args)

    t = rc.Checks('registry-kill', quiet=not args.verbose)
    start = time.monotonic()
    work = os.path.join(rc.REPO, 'build', f'registry-kill-{os.getpid()}')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for spec in scripts(args, work):
        SPECS[spec.name] = spec
    for spec in SPECS.values():
        for wal in (False, True):
            mode = 'WAL' if wal else 'rollback journal'
            base = os.path.join(work, 'base.db')
            spec.make_base(base, wal)
            before = rc.content(base, args.ext)
            ref = os.path.join(work, 'ref.db')
            fresh(base, ref)
            code, out = run_child(args, spec.name, ref)
            if not t.check(f'{spec.name} ({mode}): an uninterrupted run', code == 0, out):
                continue
            calls = int(out.split()[1])
            after = rc.content(ref, args.ext)
            t.check(f'{spec.name} ({mode}): it changes the registry', after != before)
            n = len(spec.stmts)
            # Every statement boundary of a short script; of a long one
            # (policy.sql) ten, with the last.
            after_k = range(1, n + 1) if n <= 12 else sorted(
                {max(1, n * j // 10) for j in range(1, 11)})
            points = [('after statement', k) for k in after_k]
            points += [('at progress call', max(1, calls * j // (STEP_KILLS + 1)))
                       for j in range(1, STEP_KILLS + 1)]
            states = {'before': 0, 'after': 0}
            for how, k in points:
                what = f'{spec.name} ({mode}) killed {how} {k}'
                db = os.path.join(work, 'kill.db')
                fresh(base, db)
                code, out = run_child(args, spec.name, db,
                                      kill_after=k if how == 'after statement' else 0,
                                      kill_step=k if how == 'at progress call' else 0)
                if not t.check(f'{what}: SIGKILL', code == -signal.SIGKILL, f'{code} {out}'):
                    continue
                got = rc.content(db, args.ext)
                state = 'before' if got == before else 'after' if got == after else None
                if not t.check(f'{what}: the registry is as before or as after',
                               state is not None,
                               f'before: {rc.diff(got, before)}; after: {rc.diff(got, after)}'):
                    continue
                states[state] += 1
                code, out = run_child(args, spec.name, db)
                if state == 'after' and spec.rerun_after == 'refuse':
                    t.eq(f'{what} ({state}): the next run refuses the release',
                         (code, out), (1, f'error: {REFUSED}'))
                else:
                    t.check(f'{what} ({state}): the next run succeeds', code == 0, out)
                got = rc.content(db, args.ext)
                t.check(f'{what} ({state}): and leaves an uninterrupted run\'s content',
                        got == after, rc.diff(got, after))
            t.check(f'{spec.name} ({mode}): kills left it before ({states["before"]}) '
                    f'and after ({states["after"]}), {time.monotonic() - start:.1f} s so far',
                    states['before'] > 0 and states['after'] > 0, show=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f'registry-kill: {time.monotonic() - start:.1f} s', flush=True)
    return t.finish()


if __name__ == '__main__':
    sys.exit(main())
