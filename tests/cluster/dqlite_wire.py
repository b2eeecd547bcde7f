"""dqlite_wire.py: a minimal client for dqlite's wire protocol (version 1).

Just what the cluster test needs: find the leader, open a database, run SQL
text (EXEC_SQL, several statements allowed) and queries (QUERY_SQL) without
parameters, list the cluster's nodes and hand leadership to one of them.  Every message is an 8-byte header (body length in 8-byte words,
type, revision, 2 unused bytes) and a body of 8-byte-aligned fields, all
little-endian; text is NUL-terminated and padded to 8 bytes.
"""
import socket
import struct

# Request types.
_LEADER, _OPEN, _EXEC_SQL, _QUERY_SQL, _CLUSTER, _TRANSFER = 0, 3, 8, 9, 16, 17
# Response types.
_FAILURE, _SERVER, _NODES, _DB, _RESULT, _ROWS, _EMPTY = 0, 1, 3, 4, 6, 7, 8
# Row value types.
_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL = 1, 2, 3, 4, 5
_DONE, _PART = 0xFFFFFFFFFFFFFFFF, 0xEEEEEEEEEEEEEEEE


class Error(Exception):
    """A FAILURE response (its SQLite extended result code in .code) or a
    broken connection (.code None)."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def _text(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


class _Reader:
    def __init__(self, body):
        self.b, self.i = body, 0

    def u64(self):
        v = struct.unpack_from("<Q", self.b, self.i)[0]
        self.i += 8
        return v

    def i64(self):
        v = struct.unpack_from("<q", self.b, self.i)[0]
        self.i += 8
        return v

    def f64(self):
        v = struct.unpack_from("<d", self.b, self.i)[0]
        self.i += 8
        return v

    def text(self):
        end = self.b.index(b"\0", self.i)
        s = self.b[self.i:end].decode()
        self.i = end + 1 + (-(end + 1 - self.i) % 8)
        return s

    def blob(self):
        n = self.u64()
        v = self.b[self.i:self.i + n]
        self.i += n + (-n % 8)
        return v


class Connection:
    """One TCP connection to one node."""

    def __init__(self, address, timeout):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.sendall(struct.pack("<Q", 1))  # protocol version
        self.address = address
        self.db = None

    def close(self):
        self.sock.close()

    def _recv(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise Error("connection closed by the node")
            buf += chunk
        return bytes(buf)

    def _request(self, kind, body):
        self.sock.sendall(struct.pack("<IBBH", len(body) // 8, kind, 0, 0) + body)
        return self._response()

    def _response(self):
        words, kind, _, _ = struct.unpack("<IBBH", self._recv(8))
        r = _Reader(self._recv(words * 8))
        if kind == _FAILURE:
            code = r.u64()
            raise Error(f"{r.text()} (code {code})", code)
        return kind, r

    def leader(self):
        """The leader's address as this node knows it ('' if none)."""
        kind, r = self._request(_LEADER, struct.pack("<Q", 0))
        if kind != _SERVER:
            raise Error(f"leader: unexpected response type {kind}")
        r.u64()  # node id
        return r.text()

    def cluster(self):
        """The leader's list of nodes: (id, address, role) with role 0 for
        a voter, 1 a stand-by, 2 a spare."""
        kind, r = self._request(_CLUSTER, struct.pack("<Q", 1))  # format 1: with roles
        if kind != _NODES:
            raise Error(f"cluster: unexpected response type {kind}")
        nodes = []
        for _ in range(r.u64()):
            node_id, address, role = r.u64(), r.text(), r.u64()
            nodes.append((node_id, address, role))
        return nodes

    def transfer(self, node_id):
        """Asks the leader to hand leadership to NODE_ID.  Raft grants it only
        once that node's log matches the leader's; otherwise a FAILURE."""
        kind, _ = self._request(_TRANSFER, struct.pack("<Q", node_id))
        if kind != _EMPTY:
            raise Error(f"transfer: unexpected response type {kind}")

    def open(self, name):
        kind, r = self._request(_OPEN, _text(name) + struct.pack("<Q", 0) + _text(""))
        if kind != _DB:
            raise Error(f"open: unexpected response type {kind}")
        self.db = struct.unpack_from("<I", r.b)[0]

    def exec(self, sql):
        """Runs SQL text (one or more statements); returns rows changed by the last."""
        body = struct.pack("<Q", self.db) + _text(sql) + struct.pack("<Q", 0)
        kind, r = self._request(_EXEC_SQL, body)
        if kind != _RESULT:
            raise Error(f"exec: unexpected response type {kind}")
        r.u64()  # last insert rowid
        return r.u64()

    def query(self, sql):
        """Runs one query; returns its rows as tuples of int, float, str, bytes, None."""
        body = struct.pack("<Q", self.db) + _text(sql) + struct.pack("<Q", 0)
        kind, r = self._request(_QUERY_SQL, body)
        rows = []
        while True:
            if kind != _ROWS:
                raise Error(f"query: unexpected response type {kind}")
            n = r.u64()
            for _ in range(n):
                r.text()  # column name
            while True:
                head = r.b[r.i:r.i + 8]
                marker = struct.unpack("<Q", head)[0]
                if marker in (_DONE, _PART):
                    r.i += 8
                    break
                hwords = (n + 15) // 16  # 4 bits per column, padded to a word
                header = r.b[r.i:r.i + 8 * hwords]
                r.i += 8 * hwords
                types = [(header[c // 2] >> (4 * (c % 2))) & 0xF for c in range(n)]
                rows.append(tuple(self._value(r, t) for t in types))
            if marker == _DONE:
                return rows
            kind, r = self._response()

    @staticmethod
    def _value(r, t):
        if t == _INTEGER:
            return r.i64()
        if t == _FLOAT:
            return r.f64()
        if t == _TEXT:
            return r.text()
        if t == _BLOB:
            return r.blob()
        if t == _NULL:
            r.u64()
            return None
        raise Error(f"query: unexpected value type {t}")


def connect_leader(addresses, database, timeout):
    """A connection to the current leader with DATABASE open, or Error."""
    last = "no node answered"
    for address in addresses:
        try:
            probe = Connection(address, timeout)
            try:
                leader = probe.leader()
            finally:
                probe.close()
            if not leader:
                last = f"{address} knows no leader"
                continue
            conn = Connection(leader, timeout)
            try:
                conn.open(database)
            except (OSError, Error):
                conn.close()
                raise
            return conn
        except (OSError, Error) as e:
            last = f"{address}: {e}"
    raise Error(last)
