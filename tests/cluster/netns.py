"""netns.py: the cluster test's network, and a partition of one node.

Rules:
- Every node runs in a network namespace of its own, NAME-nI, whose eth0 holds
  10.77.0.I/24; the client (the test process itself) runs in NAME-hub, whose
  bridge br0 holds 10.77.0.254/24 and joins the nodes' veth pairs.  These
  addresses exist only inside the run's namespaces: nothing is routed to or
  from the machine's own network, and the test opens no socket outside them.
- NAME carries the test's process id, so runs on one machine never share a
  namespace; a run removes its own namespaces on exit and, on start, those of
  runs whose process is gone (killed before its cleanup ran).
- A partition of node I is a blackhole route in its namespace to each other
  node and one in each other node's to it: their packets are dropped without
  an answer, as by a cut cable, so TCP only learns of it by retransmitting.
  The hub's routes are untouched, so the client still reaches every node and
  can see what an isolated node answers.
- Every `ip` command has a time limit and a failure stops the run with the
  command and its message.
"""
import ctypes
import os
import re
import subprocess

SUBNET = "10.77.0"
CLIENT = f"{SUBNET}.254"
_CLONE_NEWNET = 0x40000000
_PREFIX = "sqquant"


def _ip(*args, timeout=30):
    r = subprocess.run(("ip",) + args, capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        raise OSError(f"netns: ip {' '.join(args)} failed: {r.stderr.strip()}")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def remove_stale():
    """Deletes the namespaces of earlier runs whose process is gone."""
    for name in sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []:
        m = re.fullmatch(_PREFIX + r"(\d+)-(hub|n\d+)", name)
        if m and not _alive(int(m.group(1))):
            _ip("netns", "delete", name)


class Network:
    def __init__(self, count):
        self.name = f"{_PREFIX}{os.getpid()}"
        self.hub = f"{self.name}-hub"
        self.nodes = [f"{self.name}-n{i}" for i in range(1, count + 1)]
        self.made = []
        self.cut = set()

    def address(self, i):
        """Node I's address (I from 1)."""
        return f"{SUBNET}.{i}"

    def up(self):
        remove_stale()
        _ip("netns", "add", self.hub)
        self.made.append(self.hub)
        _ip("-n", self.hub, "link", "set", "lo", "up")
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.hub, "addr", "add", f"{CLIENT}/24", "dev", "br0")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        for i, ns in enumerate(self.nodes, 1):
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            # Both ends are made in the namespaces, never in the machine's:
            # the names cannot clash with its interfaces or another run's.
            _ip("-n", self.hub, "link", "add", f"n{i}", "type", "veth",
                "peer", "name", "eth0", "netns", ns)
            _ip("-n", self.hub, "link", "set", f"n{i}", "master", "br0")
            _ip("-n", self.hub, "link", "set", f"n{i}", "up")
            _ip("-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")

    def enter_hub(self):
        """Moves the calling thread, and so every thread and process it starts
        later, into the hub.  Call it before starting any thread."""
        fd = os.open(f"/run/netns/{self.hub}", os.O_RDONLY)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"netns: setns into {self.hub}")
        finally:
            os.close(fd)

    def run_in(self, i):
        """The command prefix that runs a program in node I's namespace."""
        return ["ip", "netns", "exec", self.nodes[i - 1]]

    def _routes(self, i, op):
        for j in range(1, len(self.nodes) + 1):
            if j != i:
                _ip("-n", self.nodes[i - 1], "route", op, "blackhole", f"{self.address(j)}/32")
                _ip("-n", self.nodes[j - 1], "route", op, "blackhole", f"{self.address(i)}/32")

    def partition(self, i):
        """Cuts node I off from every other node (not from the client)."""
        self._routes(i, "add")
        self.cut.add(i)

    def heal(self, i):
        self._routes(i, "del")
        self.cut.discard(i)

    def down(self):
        """Deletes the run's namespaces (their interfaces go with them)."""
        errors = []
        for ns in reversed(self.made):
            try:
                _ip("netns", "delete", ns)
            except (OSError, subprocess.SubprocessError) as e:
                errors.append(str(e))
        self.made = []
        if errors:
            raise OSError("; ".join(errors))
