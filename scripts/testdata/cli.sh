#!/usr/bin/env bash
# Regenerates internal/cli/testdata: small encrypted archives for the
# password-candidate tests, made by Info-ZIP zip (ZipCrypto) and 7-Zip
# (WinZip AES, 7z AES with plain and with encrypted headers). The password
# of every archive is "secret" (pw-mixed.zip: "secret" and "other"). Idempotent: the content comes from a fixed
# seed and timestamps are pinned (salts and IVs are random, so the bytes
# differ from run to run; the tests depend only on the content).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/internal/cli/testdata
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src"
python3 - "$src" <<'PY'
import os, random, sys
d = sys.argv[1]
r = random.Random(20261130)
words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
open(os.path.join(d, "a.txt"), "w").write("classified\n")
open(os.path.join(d, "b.txt"), "w").write(" ".join(r.choice(words) for _ in range(2000)) + "\n")
PY
touch -d '2026-11-30 01:02:03' "$src"/*
chmod 644 "$src"/*
rm -f "$out"/pw-*
cd "$src"
zip -q -X -P secret "$out/pw-zipcrypto.zip" a.txt b.txt
# Two entries, two passwords: a.txt "secret", b.txt "other".
zip -q -X -P secret "$out/pw-mixed.zip" a.txt
zip -q -X -P other "$out/pw-mixed.zip" b.txt
7zz a -bd -bso0 -tzip -mem=AES256 -psecret "$out/pw-winzipaes.zip" a.txt b.txt
7zz a -bd -bso0 -t7z -mhe=off -psecret "$out/pw-data.7z" a.txt b.txt
7zz a -bd -bso0 -t7z -mhe=on -psecret "$out/pw-header.7z" a.txt b.txt
ls -l "$out"
