"""writer.py: the cluster test's clients and the retry rule they follow.

The rule (docs/CLUSTER.md#how-a-client-retries):
- Every write carries an id the client chose before its first attempt, and
  its statement inserts only if no row has that id yet (an existence check in
  the same statement; a UNIQUE key with INSERT OR IGNORE is the same rule
  kept by the schema).  One statement is one transaction, so the check and
  the insert cannot be split by another writer.
- An attempt is acknowledged when the node answers with a result: dqlite
  answers only once a majority holds the write in its log.
- Any other end of an attempt (the connection broke or timed out, "not
  leader", "leadership lost", "database is locked") is retried under the
  same id through the leader found afresh, until acknowledged or the write's
  deadline passes.  The attempt in flight at a crash or a partition has an
  unknown outcome; if it did commit, the retry finds its row and changes
  nothing (changed == 0), so every id is written once whatever happened.

Writer runs that rule in a thread, one write after another, and records
every attempt; Probe sends writes to one node only, each tried once, to see
what an isolated node answers.  Times are time.monotonic().
"""
import collections
import threading
import time

import dqlite_wire

DB = "registry"

# One end of one attempt: CHANGED is the rows the statement changed when the
# node acknowledged it (None if it did not), ERROR the failure's text.
Attempt = collections.namedtuple("Attempt", "write_id start end address changed error")


class Writer(threading.Thread):
    """Writes ids 1, 2, ... (the statement of id N is STATEMENT(N)) through
    whichever of ADDRESSES leads, PACE seconds apart."""

    def __init__(self, addresses, statement, pace, timeout, deadline):
        super().__init__(daemon=True)
        self.addresses, self.statement = addresses, statement
        self.pace, self.timeout, self.deadline = pace, timeout, deadline
        self.attempts = []
        self.fatal = None
        self._cond = threading.Condition()
        self._halt = self._paused = self._idle = self._sending = False
        self._conn = None

    # -- the thread --
    def run(self):
        write_id = 0
        try:
            while True:
                with self._cond:
                    self._idle = True
                    self._cond.notify_all()
                    while self._paused and not self._halt:
                        self._cond.wait()
                    if self._halt:
                        return
                    self._idle = False
                write_id += 1
                if not self._write(write_id):
                    return
                time.sleep(self.pace)
        finally:
            if self._conn:
                self._conn.close()
            with self._cond:
                self._idle = True
                self._cond.notify_all()

    def _write(self, write_id):
        """Attempts WRITE_ID until acknowledged (True); past the deadline,
        False, and fatal says why."""
        first = time.monotonic()
        while True:
            start = time.monotonic()
            address = None
            try:
                if self._conn is None:
                    self._conn = dqlite_wire.connect_leader(self.addresses, DB, self.timeout)
                address = self._conn.address
                self._set_sending(True)
                changed = self._conn.exec(self.statement(write_id))
                self._set_sending(False)
                self._record(Attempt(write_id, start, time.monotonic(), address, changed, None))
                return True
            except (OSError, dqlite_wire.Error) as e:
                self._set_sending(False)
                self._record(Attempt(write_id, start, time.monotonic(), address, None, str(e)))
                # Whatever the failure, the next attempt asks again who leads.
                if self._conn:
                    self._conn.close()
                    self._conn = None
            if time.monotonic() - first > self.deadline:
                with self._cond:
                    self.fatal = (f"write {write_id} not acknowledged within "
                                  f"{self.deadline:.0f} s (last error: {self.attempts[-1].error})")
                    self._cond.notify_all()
                return False
            time.sleep(0.05)

    def _set_sending(self, on):
        with self._cond:
            self._sending = on
            self._cond.notify_all()

    def _record(self, attempt):
        with self._cond:
            self.attempts.append(attempt)
            self._cond.notify_all()

    # -- the test's side --
    def pause(self):
        """Returns once the writer is between writes, and keeps it there."""
        with self._cond:
            self._paused = True
            if not self._cond.wait_for(lambda: self._idle or self.fatal, self.deadline + 5):
                raise TimeoutError("writer: did not pause")
        self._check()

    def resume(self):
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    def stop(self):
        with self._cond:
            self._halt = True
            self._cond.notify_all()
        self.join(self.deadline + 5)
        if self.is_alive():
            raise TimeoutError("writer: did not stop")
        self._check()

    def _check(self):
        if self.fatal:
            raise TimeoutError(f"writer: {self.fatal}")

    def wait_acks(self, count, since, timeout):
        """The first COUNT acknowledged attempts that started at SINCE or later;
        TimeoutError if they do not come within TIMEOUT seconds."""
        def acks():
            got = [a for a in self.attempts if a.changed is not None and a.start >= since]
            return got[:count] if len(got) >= count else None
        with self._cond:
            got = self._cond.wait_for(lambda: acks() or self.fatal, timeout)
        self._check()
        if not got:
            raise TimeoutError(f"writer: fewer than {count} writes acknowledged "
                               f"within {timeout:.0f} s")
        return got

    def wait_sending(self, timeout):
        """Returns while a write is on its way to the leader (sent or about
        to be): a crash now leaves it in flight."""
        with self._cond:
            ok = self._cond.wait_for(lambda: self._sending or self.fatal, timeout)
        self._check()
        if not ok:
            raise TimeoutError(f"writer: no write sent within {timeout:.0f} s")

    def between(self, t0, t1):
        """The attempts that started in [T0, T1)."""
        with self._cond:
            return [a for a in self.attempts if t0 <= a.start < t1]


class Probe(threading.Thread):
    """Sends writes FIRST_ID, FIRST_ID + 1, ... to the node at ADDRESS only,
    each once, until stopped; after each, asks that node who it thinks leads."""

    def __init__(self, address, first_id, statement, timeout, interval=0.2):
        super().__init__(daemon=True)
        self.address, self.first_id, self.statement = address, first_id, statement
        self.timeout, self.interval = timeout, interval
        self.attempts, self.leaders = [], []
        self._halt = threading.Event()
        self._answered = threading.Semaphore(0)

    def run(self):
        conn = None
        write_id = self.first_id
        while not self._halt.is_set():
            start = time.monotonic()
            try:
                if conn is None:
                    conn = dqlite_wire.Connection(self.address, self.timeout)
                    conn.open(DB)
                changed = conn.exec(self.statement(write_id))
                self.attempts.append(Attempt(write_id, start, time.monotonic(),
                                             self.address, changed, None))
            except (OSError, dqlite_wire.Error) as e:
                self.attempts.append(Attempt(write_id, start, time.monotonic(),
                                             self.address, None, str(e)))
                if not isinstance(e, dqlite_wire.Error) or e.code is None:
                    if conn:
                        conn.close()
                    conn = None
            self._answered.release()
            write_id += 1
            try:
                if conn:
                    self.leaders.append(conn.leader())
            except (OSError, dqlite_wire.Error):
                if conn:
                    conn.close()
                conn = None
            self._halt.wait(self.interval)
        if conn:
            conn.close()

    def wait_answers(self, count, timeout):
        """Returns once COUNT attempts have ended; TimeoutError if they do
        not within TIMEOUT seconds."""
        end = time.monotonic() + timeout
        for _ in range(count):
            if not self._answered.acquire(timeout=max(0.0, end - time.monotonic())):
                raise TimeoutError(f"probe of {self.address}: fewer than {count} "
                                   f"answers within {timeout:.0f} s")

    def stop(self):
        self._halt.set()
        self.join(self.timeout + 5)
        if self.is_alive():
            raise TimeoutError(f"probe of {self.address}: did not stop")
