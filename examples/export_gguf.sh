#!/bin/sh
# export_gguf.sh DB [OUTDIR]: every policy of the registry DB, for every
# model it made choices for, as a GGUF file OUTDIR/<policy>/<model>.gguf
# (OUTDIR defaults to build/demo/policies), each written by
# examples/export_gguf.sql and recorded in DB's exports table (format
# 'gguf', the path as written here, its size and SHA-256).  A file that is
# already there is replaced; the exports row keeps its export_id, so
# evaluations tied to it stay.  DB, OUTDIR and QUANT_EXT are paths from the
# directory it is run in; the script finds export_gguf.sql beside itself.
#
# A policy that quantizes nothing of a model (every choice float: a
# per-channel rule on tensors without channel_axis, say) is not written:
# the file would be the float model under the policy's name.  The script
# says so on stderr, with its policy_warnings, deletes that pair's exports
# row and file, and goes on; EXPORT_FLOAT=1 writes such files anyway.  It
# fails when it wrote nothing.
#
# The extension is the repository's dist/quant.so; QUANT_EXT=path/to/quant
# overrides (without the .so suffix).  Needs the sqlite3 shell and
# sha256sum.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

usage="usage: sh examples/export_gguf.sh DB [OUTDIR]"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
db=$1
out=${2:-build/demo/policies}
ext=${QUANT_EXT:-$here/../dist/quant}
float_ok=${EXPORT_FLOAT:-0}

fail() { echo "export_gguf: $*" >&2; exit 1; }
[ -f "$db" ] || fail "no registry at '$db'"
case $out in *"'"*) fail "OUTDIR may not contain a quote, got $out" ;; esac
case $here in *"'"*) fail "the script's directory may not contain a quote, got $here" ;; esac
[ -f "$ext.so" ] || fail "$ext.so not found; build it first with: make"
command -v sqlite3 >/dev/null 2>&1 ||
  fail "the sqlite3 command-line shell is missing (Debian: apt-get install sqlite3)"
command -v sha256sum >/dev/null 2>&1 || fail "sha256sum is missing (Debian: coreutils)"

now() { date +%s.%N; }
start=$(now)

# A quantized tensor stored in chunks has one quantization per chunk, with
# per-chunk parameters: the convention has no place for them yet.
chunked=$(sqlite3 "$db" "
  SELECT p.name || ': ' || t.name FROM policy_choices c
  JOIN policies p USING (policy_id) JOIN tensors t USING (tensor_id)
  WHERE c.quantization_id IS NOT NULL AND t.rows IS NOT NULL LIMIT 1")
[ -z "$chunked" ] ||
  fail "policy $chunked: a quantized tensor stored in chunks cannot be exported"

# What to write: each policy with each model it made choices for.
pairs="
  SELECT p.policy_id, m.model_id, p.name AS policy, m.name AS model
  FROM policies p, models m
  WHERE EXISTS (SELECT 1 FROM policy_choices c JOIN tensors t USING (tensor_id)
                WHERE c.policy_id = p.policy_id AND t.model_id = m.model_id)"

# The names become a directory and a file name: plain ones only, checked
# before anything is written.
bad=$(sqlite3 "$db" "
  SELECT name FROM (SELECT policy AS name FROM ($pairs)
                    UNION ALL SELECT model FROM ($pairs))
  WHERE name = '' OR name GLOB '.*' OR name GLOB '*[^A-Za-z0-9._-]*' LIMIT 1")
[ -z "$bad" ] ||
  fail "'$bad' cannot be a file name (letters, digits, '.', '_', '-'; not first '.')"

list=$(sqlite3 -separator ' ' "$db" "$pairs ORDER BY p.policy_id, m.model_id")
[ -n "$list" ] || fail "'$db' has no policy with choices (policy_choices is empty)"

written=0
while read -r policy_id model_id policy model; do
  path=$out/$policy/$model.gguf
  quantized=$(sqlite3 "$db" "
    SELECT count(c.quantization_id) FROM policy_choices c JOIN tensors t USING (tensor_id)
    WHERE c.policy_id = $policy_id AND t.model_id = $model_id")
  if [ "$quantized" -eq 0 ] && [ "$float_ok" != 1 ]; then
    {
      echo "export_gguf: WARNING: policy $policy quantizes nothing of $model: every tensor stays float, so $path is not written (EXPORT_FLOAT=1 writes it)"
      sqlite3 "$db" "
        SELECT '  ' || warning || coalesce(' (' || tensor || ')', '') FROM policy_warnings
        WHERE policy = '$policy' AND (model IS NULL OR model = '$model') LIMIT 10" 2>/dev/null || true
    } >&2
    sqlite3 -bail "$db" "DELETE FROM exports WHERE policy_id = $policy_id
                         AND model_id = $model_id AND format = 'gguf'"
    rm -f "$path"
    continue
  fi
  mkdir -p "$out/$policy"
  sqlite3 -bail "$db" ".load $ext" \
    ".parameter set :policy_id $policy_id" \
    ".parameter set :model_id $model_id" \
    ".parameter set :path '$path'" \
    ".read '$here/export_gguf.sql'"
  bytes=$(wc -c <"$path")
  sha=$(sha256sum "$path" | cut -d' ' -f1)
  sqlite3 -bail "$db" "
    INSERT INTO exports (policy_id, model_id, format, path, bytes, sha256)
    VALUES ($policy_id, $model_id, 'gguf', '$path', $bytes, '$sha')
    ON CONFLICT (policy_id, model_id, format) DO UPDATE
    SET path = excluded.path, bytes = excluded.bytes, sha256 = excluded.sha256"
  echo "export_gguf: $path  $bytes bytes  sha256 $sha"
  written=$((written + 1))
done <<EOF
$list
EOF
[ "$written" -gt 0 ] || fail "no file written: no policy quantizes anything of its models"
awk -v a="$start" -v b="$(now)" \
  'BEGIN { printf "export_gguf: done in %.2f s\n", b - a }'
