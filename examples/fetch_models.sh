#!/bin/sh
# fetch_models.sh [CACHE_DIR]: fetch the two real models the demo quantizes
# into CACHE_DIR (default build/models, git-ignored), verifying checksums.
#
#   silero_vad_v5.onnx               Silero VAD v5 (MIT, github.com/snakers4/silero-vad)
#     from npm @ricky0123/vad-web@0.0.31, file dist/silero_vad_v5.onnx
#   face_detection_short_range.tflite  MediaPipe face detection (Apache-2.0,
#     github.com/google/mediapipe), float16 weights
#     from npm @mediapipe/face_detection@0.4.1657300184, file face_detection_short_range.tflite
#
# Each package is fetched with `npm pack` (downloads the tarball only: nothing
# is installed and no package script runs) and the one file is extracted with
# tar.  Versions are pinned and each file's sha256 is checked; a cached file
# with the right checksum is re-used without touching the network.  When a
# file cannot be fetched (offline, no npm) the script says which and how to
# get it by hand, and exits with status 1.  The models are never committed.
set -eu

cache=${1:-build/models}
mkdir -p "$cache"

# name|npm package@version|path inside the package|sha256 of the file
models='silero_vad_v5.onnx|@ricky0123/vad-web@0.0.31|dist/silero_vad_v5.onnx|2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f
face_detection_short_range.tflite|@mediapipe/face_detection@0.4.1657300184|face_detection_short_range.tflite|3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633'

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# The registry's tarball URL, for the by-hand instructions:
# @scope/name@ver -> https://registry.npmjs.org/@scope/name/-/name-ver.tgz
tarball_url() {
  pkg=${1%@*}
  echo "https://registry.npmjs.org/$pkg/-/${pkg##*/}-${1##*@}.tgz"
}
# The file name npm pack writes: @scope/name@ver -> scope-name-ver.tgz
tarball_name() {
  pkg=${1%@*}
  pkg=${pkg#@}
  echo "$(echo "$pkg" | tr / -)-${1##*@}.tgz"
}

failed=""
IFS='
'
for line in $models; do
  file=$(echo "$line" | cut -d'|' -f1)
  spec=$(echo "$line" | cut -d'|' -f2)
  inner=$(echo "$line" | cut -d'|' -f3)
  want=$(echo "$line" | cut -d'|' -f4)
  dest="$cache/$file"

  if [ -f "$dest" ] && [ "$(sha256 "$dest")" = "$want" ]; then
    echo "fetch_models: $file: cached ($dest)"
    continue
  fi
  rm -f "$dest"

  why=""
  if ! command -v npm >/dev/null 2>&1; then
    why="npm is not installed (Debian: apt-get install npm)"
  else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch_models.XXXXXX")
    echo "fetch_models: $file: npm pack $spec"
    if ! (cd "$tmp" && npm pack --ignore-scripts --loglevel=error \
            --fetch-retries=1 --fetch-timeout=60000 "$spec" \
            >pack.out 2>pack.err); then
      why="npm pack $spec failed: $(grep -v '^npm error A complete log' "$tmp/pack.err" \
                                     | head -n 3 | tr '\n' ' ')"
    else
      tgz=$(tail -n 1 "$tmp/pack.out")
      if ! tar -xzf "$tmp/$tgz" -C "$tmp" "package/$inner" 2>"$tmp/tar.err"; then
        why="$tgz has no package/$inner: $(cat "$tmp/tar.err")"
      else
        got=$(sha256 "$tmp/package/$inner")
        if [ "$got" != "$want" ]; then
          why="checksum mismatch for $inner in $spec: got $got, expected $want"
        else
          mv "$tmp/package/$inner" "$dest.part" && mv "$dest.part" "$dest"
          echo "fetch_models: $file: ok ($dest, sha256 $want)"
        fi
      fi
    fi
    rm -rf "$tmp"
  fi

  if [ -n "$why" ]; then
    failed="$failed $file"
    url=$(tarball_url "$spec")
    base=$(tarball_name "$spec")
    {
      echo "fetch_models: could not fetch $file: $why"
      echo "  get it by hand (the npm tarball; no install needed), then re-run:"
      echo "    npm pack $spec"
      echo "      # or: curl -L -o $base $url"
      echo "    tar -xzf $base package/$inner"
      echo "    mkdir -p $cache && mv package/$inner $dest"
      echo "    sha256sum $dest       # must print $want"
    } >&2
  fi
done

if [ -n "$failed" ]; then
  echo "fetch_models: missing:$failed (see above); the demo needs network access once, then runs from $cache" >&2
  exit 1
fi
