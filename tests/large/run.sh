#!/bin/sh
# make test-large (by hand, not in CI): a safetensors checkpoint of 3.2 GB
# (tests/large/gen_large.py: three tensors of 1,050,673,152 bytes, the shape
# of Llama 3 8B's embedding) read chunk by chunk with q_tensors_file under
# SQLITE_LIMIT_LENGTH = LARGE_LIMIT (default 256 MiB), every chunk's SHA3-256
# compared with the generator's; then, when the extension has the
# q_safetensors_write table, the file copied in one INSERT and compared.
# Peak RSS and times come from /usr/bin/time -v, next to a plain cp of the
# same file.  Needs about 10 GB in LARGE_DIR (default build/large), removed at the end
# unless LARGE_KEEP=1.  docs/FORMATS.md#tensors-bigger-than-a-blob
set -eu
EXT=$(realpath "${1:-dist/quant.so}")
DIR=${LARGE_DIR:-build/large}
LIMIT=${LARGE_LIMIT:-268435456}
mkdir -p "$DIR"
DIR=$(realpath "$DIR")
SRC=$DIR/model.safetensors
cleanup() { [ "${LARGE_KEEP:-0}" = 1 ] || rm -f "$SRC" "$DIR/cp.safetensors" "$DIR/written.safetensors"; }
trap cleanup EXIT

# What time -v says: peak RSS, wall clock.
report() {
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$2")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$2")
  echo "$1: wall $wall, peak RSS $((rss / 1024)) MiB"
}
shell() {  # the sqlite3 shell with the extension and the limit; stdin: SQL
  { printf '.load %s\n.limit length %s\n' "$EXT" "$LIMIT"; cat; } |
    /usr/bin/time -v -o "$DIR/$1.time" sqlite3 -batch :memory: |
    grep -v '^ *length [0-9]*$' || true
}

/usr/bin/time -v -o "$DIR/gen.time" \
  python3 tests/large/gen_large.py "$SRC" --limit "$LIMIT" > "$DIR/expected.txt"
SIZE=$(stat -c %s "$SRC")
echo "generated $SIZE bytes, $(wc -l < "$DIR/expected.txt") rows expected under limit $LIMIT"
report generate "$DIR/gen.time"

/usr/bin/time -v -o "$DIR/cp.time" cp "$SRC" "$DIR/cp.safetensors"
report "cp (page cache warm)" "$DIR/cp.time"
rm -f "$DIR/cp.safetensors"

shell read > "$DIR/read.txt" <<SQL
SELECT sum(length(data)) FROM q_tensors_file('$SRC');
SQL
echo "read: $(cat "$DIR/read.txt") bytes of data"
report "read (every chunk's data)" "$DIR/read.time"
[ "$(cat "$DIR/read.txt")" = "$((SIZE - 8 - $(od -An -tu8 -N8 "$SRC")))" ] ||
  { echo "FAIL: read the wrong number of bytes"; exit 1; }

shell digest > "$DIR/got.txt" <<SQL
SELECT name, chunk, chunks, row_start, rows, nbytes, hex(sha3(data, 256))
FROM q_tensors_file('$SRC');
SQL
report "digest (SHA3-256 of every chunk)" "$DIR/digest.time"
if ! cmp -s "$DIR/expected.txt" "$DIR/got.txt"; then
  echo "FAIL: chunks differ from the generator's"
  diff "$DIR/expected.txt" "$DIR/got.txt" | head -20
  exit 1
fi
echo "ok: $(wc -l < "$DIR/got.txt") chunks equal the generator's"

HAS_WRITER=$(echo "SELECT count(*) FROM pragma_module_list WHERE name = 'q_safetensors_write';" | shell probe)
if [ "$HAS_WRITER" = 0 ]; then
  echo "skipped: this build has no q_safetensors_write table, so the copy in one INSERT is not run"
  exit 0
fi
shell write > "$DIR/write.txt" <<SQL
INSERT INTO q_safetensors_write (path, name, data, dtype, shape)
SELECT '$DIR/written.safetensors', name, data, dtype, shape
FROM q_tensors_file('$SRC');
SQL
report "write (q_safetensors_write from q_tensors_file)" "$DIR/write.time"
if cmp -s "$SRC" "$DIR/written.safetensors"; then
  echo "ok: the written file equals the source byte for byte"
else
  # A writer may order or pad the header its own way: then every chunk of
  # the written file must still carry the generator's bytes.
  shell digest2 > "$DIR/got2.txt" <<SQL
SELECT name, chunk, chunks, row_start, rows, nbytes, hex(sha3(data, 256))
FROM q_tensors_file('$DIR/written.safetensors');
SQL
  if [ "$(sort "$DIR/expected.txt")" = "$(sort "$DIR/got2.txt")" ]; then
    echo "ok: the written file's header differs, its tensors equal the source's"
  else
    echo "FAIL: the written file's tensors differ"; exit 1
  fi
fi
