#!/bin/sh
# fetch_ggml.sh [DEST]: put ggml's reference library at DEST
# (default build/ggml/libggml-base.so), for tests/ggml/ggml_ref_test.c and
# tests/ggml/gen_vectors.py.
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

dest=${1:-build/ggml/libggml-base.so}

if [ -f "$dest" ]; then
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
