#!/bin/sh
# fetch_onnxruntime.sh [DIR]: put ONNX Runtime for Node.js under DIR
# (default build/onnxruntime), as DIR/node_modules/onnxruntime-node and
# DIR/node_modules/onnxruntime-common, for examples/evaluate_vad.mjs.
#
# Pinned: onnxruntime-node 1.30.0 (its CPU library and Node binding for
# linux-x64 are inside the package) and onnxruntime-common 1.30.0, the one
# package it needs at run time.  Each tarball is fetched with `npm pack`
# (download only: nothing is installed and no package script runs, so the
# postinstall that would download extra binaries never does) and checked
# against the sha512 below, the registry's dist.integrity in hex.  Only what
# runs here is extracted: package.json, dist/, lib/ and, of onnxruntime-node,
# bin/napi-v6/linux/x64/ (45 MB of the package's 290).  The dependencies
# adm-zip and global-agent serve only that install script and are not
# fetched.
#
# Idempotent: DIR/.pinned records what was extracted; when it matches,
# nothing touches the network.  Offline on a first run, it says what could
# not be fetched and how to get it by hand, and exits 1: tarballs downloaded
# elsewhere into a directory D are taken from there with ORT_TARBALLS=D
# (checked the same way).
set -eu

dir=${1:-build/onnxruntime}
VERSION=1.30.0
# package@version|sha512 of the tarball (npm view PKG dist.integrity, in hex)
pins="onnxruntime-node@$VERSION|b7086cd42d82fc1164cf5c9ce4e634288536194aba0d444eee10f86f1e50d90cb79c0309c115d6f31537355733136f5503d96894b3987a9a03f1f8d318e7c8ab
onnxruntime-common@$VERSION|edf7555a30080f5755847fc6f2a2b700f011ba7578564045a024003fbaa9e1691a6f49aba2bbe673eb2a893fa62973b30ea7633798fefd9f676f883334f59cc8"

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "fetch_onnxruntime.sh: only linux-x64 is set up here, got $(uname -s)-$(uname -m)" >&2
  exit 1
fi
if [ -f "$dir/.pinned" ] && [ "$(cat "$dir/.pinned")" = "$pins" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || {
  echo "fetch_onnxruntime.sh: npm is missing (sh tests/ensure-deps.sh onnx)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch_onnxruntime.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/node_modules"
IFS='
'
for line in $pins; do
  spec=${line%%|*}
  want=${line#*|}
  name=${spec%@*}
  if [ -n "${ORT_TARBALLS:-}" ] && [ -f "$ORT_TARBALLS/$name-$VERSION.tgz" ]; then
    echo "fetch_onnxruntime.sh: $ORT_TARBALLS/$name-$VERSION.tgz"
    cp "$ORT_TARBALLS/$name-$VERSION.tgz" "$tmp/"
    echo "$name-$VERSION.tgz" >"$tmp/pack.out"
  else
    echo "fetch_onnxruntime.sh: npm pack $spec"
    if ! (cd "$tmp" && npm pack --ignore-scripts --loglevel=error \
            --fetch-retries=1 --fetch-timeout=60000 "$spec" >pack.out 2>pack.err); then
      {
        echo "fetch_onnxruntime.sh: could not fetch $spec: $(grep -v 'complete log' "$tmp/pack.err" | head -n 3 | tr '\n' ' ')"
        echo "  the evaluation needs network access once; by hand, on a machine that has it:"
        echo "    npm pack onnxruntime-node@$VERSION onnxruntime-common@$VERSION"
        echo "      # or: curl -LO https://registry.npmjs.org/NAME/-/NAME-$VERSION.tgz for both"
        echo "  then copy the two .tgz files into a directory D here and re-run with ORT_TARBALLS=D"
      } >&2
      exit 1
    fi
  fi
  tgz="$tmp/$(tail -n 1 "$tmp/pack.out")"
  got=$(sha512sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$want" ]; then
    echo "fetch_onnxruntime.sh: $spec: tarball sha512 $got, expected $want; refusing it" >&2
    exit 1
  fi
  mkdir -p "$tmp/x"
  case "$name" in
    onnxruntime-node)
      tar -xzf "$tgz" -C "$tmp/x" package/package.json package/dist package/lib \
          package/bin/napi-v6/linux/x64 ;;
    *)
      tar -xzf "$tgz" -C "$tmp/x" package/package.json package/dist package/lib ;;
  esac
  mv "$tmp/x/package" "$tmp/node_modules/$name"
  rm -rf "$tmp/x" "$tgz"
done

# Into place whole: an interrupted run never leaves half a runtime.
rm -rf "$dir.part"
mkdir -p "$dir.part"
mv "$tmp/node_modules" "$dir.part/node_modules"
printf '%s\n' "$pins" >"$dir.part/.pinned"
rm -rf "$dir"
mv "$dir.part" "$dir"
echo "fetch_onnxruntime.sh: $dir (onnxruntime-node $VERSION, linux-x64 CPU)"
