#!/usr/bin/env python3
"""Robustness run: feeds unpack damaged inputs and counts what went wrong.

For every fixture under */testdata/ and every file of the shared corpus:
  (a) truncations at the start of each header-like signature found in the
      file plus a spread of other offsets,
  (b) single-bit flips at a seeded spread of positions,
  (c) random garbage behind each format's magic bytes.
Each input is extracted (`unpack x -o DIR`) under a timeout and an address
space limit. Totals: inputs tried, panics, hangs, runs over the memory limit,
wrong exit codes (anything but 0/3/4/5, or a failure without an
"unpack: ..." message), and files left in the destination after a failing
entry (a temporary file, or a file under the name of an entry reported as
failed). All but "inputs tried" must be 0; the exit status says so.

Environment: UNPACK (binary), UNPACK_CORPUS, ROBUST_CUTS, ROBUST_FLIPS,
ROBUST_GARBAGE, ROBUST_TIMEOUT (s), ROBUST_MEM (MiB), ROBUST_JOBS, ROBUST_SEED,
ROBUST_MAX_FILES (0: all), ROBUST_KEEP (directory to keep failing inputs).
"""
import concurrent.futures as cf
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNPACK = os.environ.get("UNPACK", os.path.join(ROOT, "bin", "unpack"))
CORPUS = os.environ.get("UNPACK_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
CUTS = int(os.environ.get("ROBUST_CUTS", "6"))
FLIPS = int(os.environ.get("ROBUST_FLIPS", "6"))
GARBAGE = int(os.environ.get("ROBUST_GARBAGE", "40"))
TIMEOUT = float(os.environ.get("ROBUST_TIMEOUT", "60"))
MEM = int(os.environ.get("ROBUST_MEM", "3072")) << 20
JOBS = int(os.environ.get("ROBUST_JOBS", str(os.cpu_count() or 2)))
SEED = int(os.environ.get("ROBUST_SEED", "1"))
MAX_FILES = int(os.environ.get("ROBUST_MAX_FILES", "0"))
KEEP = os.environ.get("ROBUST_KEEP", "")

SIGNATURES = [b"PK\x03\x04", b"PK\x01\x02", b"PK\x05\x06", b"PK\x06\x06", b"Rar!\x1a\x07", b"7z\xbc\xaf\x27\x1c",
              b"\xfd7zXZ\x00", b"YZ", b"BZh", b"1AY&SY", b"\x1f\x8b\x08", b"\x28\xb5\x2f\xfd", b"\x04\x22\x4d\x18",
              b"LZIP", b"ustar"]
MAGICS = {"xz": b"\xfd7zXZ\x00\x00\x01", "gzip": b"\x1f\x8b\x08\x00", "bzip2": b"BZh91AY&SY",
          "zstd": b"\x28\xb5\x2f\xfd", "lz4": b"\x04\x22\x4d\x18\x64\x40", "lzip": b"LZIP\x01\x0c",
          "lzma": b"\x5d\x00\x00\x80\x00\xff\xff\xff\xff\xff\xff\xff\xff", "zip": b"PK\x03\x04\x14\x00",
          "rar4": b"Rar!\x1a\x07\x00", "rar5": b"Rar!\x1a\x07\x01\x00", "7z": b"7z\xbc\xaf\x27\x1c\x00\x04"}
MSG = re.compile(r"^unpack: (.*)$", re.M)


def inputs():
    files = []
    for d, _, names in os.walk(ROOT):
        if "/testdata" in d and "/.git" not in d and "/fuzz" not in d:
            files += [os.path.join(d, n) for n in sorted(names)]
    if os.path.isdir(os.path.join(CORPUS, "files")):
        for d, _, names in os.walk(os.path.join(CORPUS, "files")):
            files += [os.path.join(d, n) for n in sorted(names)]
    files = [f for f in sorted(files) if os.path.isfile(f) and 0 < os.path.getsize(f) < 64 << 20]
    if MAX_FILES:
        random.Random(SEED).shuffle(files)
        files = files[:MAX_FILES]
    return files


def variants(path, rng):
    data = open(path, "rb").read()
    n = len(data)
    base = os.path.basename(path)
    offs = set()
    for sig in SIGNATURES:
        i = data.find(sig)
        while i >= 0 and len(offs) < 4 * CUTS:
            offs.update((i, i + len(sig), i + 7, i + 32))
            i = data.find(sig, i + 1)
    offs = [o for o in offs if 0 < o < n]
    rng.shuffle(offs)
    cuts = sorted(set(offs[:CUTS] + [rng.randrange(1, n) for _ in range(CUTS)] if n > 1 else []))
    for c in cuts:
        yield f"{base}.cut{c}", data[:c], base
    for _ in range(FLIPS):
        pos = rng.randrange(n)
        b = bytearray(data)
        b[pos] ^= 1 << rng.randrange(8)
        yield f"{base}.flip{pos}", bytes(b), base


def garbage(rng):
    for i in range(GARBAGE):
        fmt, magic = rng.choice(sorted(MAGICS.items()))
        body = bytes(rng.getrandbits(8) for _ in range(rng.choice([8, 100, 4000, 70000])))
        yield f"garbage-{i}.{fmt}", magic + body, f"garbage.{fmt}"


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEM, MEM))


def duplicate(arch, entry):
    """Whether the archive holds several entries of that name (a later good
    one may then rightly be on disk)."""
    try:
        p = subprocess.run([UNPACK, "l", "--json", "--password=wrong-password", arch], capture_output=True,
                           timeout=TIMEOUT, preexec_fn=limit, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False
    return p.stdout.decode("utf-8", "replace").count('"name":' + json.dumps(entry, ensure_ascii=False)[:-1] + '"') > 1


def run_one(name, data, keep_name):
    work = tempfile.mkdtemp(prefix="robust-")
    try:
        arch = os.path.join(work, keep_name)
        with open(arch, "wb") as f:
            f.write(data)
        dest = os.path.join(work, "out")
        try:
            p = subprocess.run([UNPACK, "x", "-q", arch, "-o", dest, "--password=wrong-password", "--threads", "1"],
                               capture_output=True, timeout=TIMEOUT, preexec_fn=limit, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "hang", name, data
        err = p.stderr.decode("utf-8", "replace")
        if "panic:" in err or "fatal error:" in err and "out of memory" not in err:
            return "panic", name, data
        if "out of memory" in err or "cannot allocate memory" in err:
            return "memory", name, data
        if p.returncode not in (0, 3, 4, 5) or (p.returncode != 0 and not MSG.search(err)):
            return "exit", name + f" (exit {p.returncode}: {err.strip()[:200]})", data
        left = []
        for d, _, names in os.walk(dest):
            left += [os.path.join(d, n) for n in names if n.startswith(".unpack-")]
        for m in MSG.finditer(err):
            parts = m.group(1).split(": ")
            if len(parts) >= 3 and parts[0] == arch and parts[1] and "exists" not in m.group(1) \
                    and "insecure path" not in m.group(1) and "skipped" not in m.group(1):
                p2 = os.path.join(dest, parts[1])
                if os.path.isfile(p2) and not os.path.islink(p2) and not duplicate(arch, parts[1]):
                    left.append(p2)
        if left:
            return "left", name + f" ({left[0]})", data
        return "ok", name, None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    if not os.access(UNPACK, os.X_OK):
        sys.exit(f"build unpack first: {UNPACK}")
    rng = random.Random(SEED)
    jobs = []
    for path in inputs():
        jobs += list(variants(path, rng))
    jobs += list(garbage(rng))
    counts = {k: 0 for k in ("ok", "panic", "hang", "memory", "exit", "left")}
    bad = []
    with cf.ThreadPoolExecutor(JOBS) as ex:
        for done, (kind, name, data) in enumerate(ex.map(lambda j: run_one(*j), jobs), 1):
            if done % 500 == 0:
                print(f"... {done}/{len(jobs)} inputs, problems so far: {sum(counts.values()) - counts['ok']}", flush=True)
            counts[kind] += 1
            if kind != "ok":
                bad.append((kind, name))
                if KEEP and data is not None:
                    os.makedirs(KEEP, exist_ok=True)
                    with open(os.path.join(KEEP, re.sub(r"[^\w.-]", "_", name)[:120]), "wb") as f:
                        f.write(data)
    for kind, name in bad[:50]:
        print(f"{kind}: {name}")
    print(f"inputs tried: {len(jobs)}")
    print(f"panics: {counts['panic']}")
    print(f"hangs: {counts['hang']}")
    print(f"over memory limit: {counts['memory']}")
    print(f"wrong exit codes: {counts['exit']}")
    print(f"files left after a failing entry: {counts['left']}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
