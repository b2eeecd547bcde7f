#!/bin/sh
# fetch_ggml.sh [DEST]: put ggml's reference library at DEST
# (default build/ggml/libggml-base.so), for tests/ggml/ggml_ref_test.c and
# tests/ggml/gen_vectors.py.
# fetch_ggml.sh --llama DIR: put llama.cpp's libllama.v0.5.0.so and the
# three ggml libraries it loads (libggml.v0.5.0.so, libggml-base.so,
# libggml-cpu-x64.so, the baseline x86-64 CPU backend) side by side in DIR,
# for tests/llama/quantize_check.py; the same package, each file pinned.
#
# The library is libggml-base.so from the npm package
# @node-llama-cpp/linux-x64@3.22.1 (ggml 0.25.1, commit 0ad4a86: a baseline
# x86-64 build, no FMA).  The package is fetched with `npm pack` into a
# temporary directory, its tarball checked against the pinned sha512 below
# (the registry's dist.integrity), and only that one file extracted.  Nothing
# else of the package is kept; npm's own cache is wherever npm keeps it
# (~/.npm unless npm_config_cache says otherwise), never in the repository.
#
# Idempotent: when DEST exists with the pinned sha256 nothing is fetched; a
# file with any other content is replaced.
set -eu

PKG="@node-llama-cpp/linux-x64@3.22.1"
MEMBER="package/bins/linux-x64/libggml-base.so"
# npm view @node-llama-cpp/linux-x64@3.22.1 dist.integrity =
#   sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg==
# which is, in hex:
TGZ_SHA512=e6e0820cda9608d7da026f1a47f533c5ba381c1a4a80d17dd640873dea4a86032057638099ab6879f6ce94c8a1b2a0a21f639ddf913f7941d00856df44126e3a
# sha256 of the extracted libggml-base.so:
SO_SHA256=6c342c8aeb20cb31a18099d6f79de4de6703814d1cfd5c4d754a8643087e486e

BINS="package/bins/linux-x64"
# sha256 of each file --llama extracts
LLAMA_FILES="libllama.v0.5.0.so:2ecd1d85f68456573a664106a9039366b88231579fd65d9669c9a6ab41374fd4
libggml.v0.5.0.so:41cd5e6ad78b9f0af31a6f80d637d3168e75ff84db14c495de4d3d9c95607444
libggml-cpu-x64.so:1174c3c3e0b8722313df561d7ef5ece516a070732cec9b8ddda3667c0b959728
libggml-base.so:$SO_SHA256"

llama=
if [ "${1:-}" = "--llama" ]; then
  llama=${2:?fetch_ggml.sh: --llama needs a directory}
  all=1
  for f in $LLAMA_FILES; do
    have=$(sha256sum "$llama/${f%%:*}" 2>/dev/null | cut -d' ' -f1)
    [ "$have" = "${f#*:}" ] || all=0
  done
  [ $all = 1 ] && exit 0
  dest=$llama/libggml-base.so
else
  dest=${1:-build/ggml/libggml-base.so}
fi

if [ -z "$llama" ] && [ -f "$dest" ]; then
  have=$(sha256sum "$dest" | cut -d' ' -f1)
  [ "$have" = "$SO_SHA256" ] && exit 0
  echo "fetch_ggml.sh: $dest has sha256 $have, not the pinned one; fetching again" >&2
fi

command -v npm >/dev/null 2>&1 || {
  echo "fetch_ggml.sh: npm is missing (sh tests/ensure-deps.sh ggml)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "fetch_ggml.sh: npm pack $PKG"
(cd "$tmp" && npm pack --silent --ignore-scripts "$PKG" >npm-pack.out) || {
  echo "fetch_ggml.sh: npm pack failed" >&2; exit 1; }
tgz=$(ls "$tmp"/*.tgz 2>/dev/null | head -n 1)
[ -n "$tgz" ] || { echo "fetch_ggml.sh: npm pack wrote no tarball" >&2; exit 1; }

got=$(sha512sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$TGZ_SHA512" ]; then
  echo "fetch_ggml.sh: $(basename "$tgz"): sha512 $got" >&2
  echo "fetch_ggml.sh: expected $TGZ_SHA512; refusing it" >&2
  exit 1
fi

if [ -n "$llama" ]; then
  mkdir -p "$llama"
  for f in $LLAMA_FILES; do
    name=${f%%:*}
    tar -xzf "$tgz" -C "$tmp" "$BINS/$name"
    got=$(sha256sum "$tmp/$BINS/$name" | cut -d' ' -f1)
    if [ "$got" != "${f#*:}" ]; then
      echo "fetch_ggml.sh: $name: sha256 $got, expected ${f#*:}" >&2
      exit 1
    fi
    cp "$tmp/$BINS/$name" "$llama/$name.tmp.$$"
    mv -f "$llama/$name.tmp.$$" "$llama/$name"
  done
  echo "fetch_ggml.sh: $llama (llama.cpp v0.5.0 with ggml 0.25.1)"
  exit 0
fi

tar -xzf "$tgz" -C "$tmp" "$MEMBER"
got=$(sha256sum "$tmp/$MEMBER" | cut -d' ' -f1)
if [ "$got" != "$SO_SHA256" ]; then
  echo "fetch_ggml.sh: libggml-base.so: sha256 $got, expected $SO_SHA256" >&2
  exit 1
fi
mkdir -p "$(dirname "$dest")"
# Into place atomically, so an interrupted run never leaves half a library.
cp "$tmp/$MEMBER" "$dest.tmp.$$"
mv -f "$dest.tmp.$$" "$dest"
echo "fetch_ggml.sh: $dest (ggml 0.25.1, 0ad4a86)"
