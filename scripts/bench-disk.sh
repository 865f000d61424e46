#!/usr/bin/env bash
# make bench, to-disk rows: extraction of many-file trees to disk, unpack
# against GNU tar, bsdtar and unzip in the same run (hyperfine), with the
# output removed and `sync` before every run. Trees: Go's source tree
# (GOROOT/src) and a tree of many tiny files (0-4 KiB); archives: tar.gz,
# tar.zst and zip of each. Prints the median times, their ratio
# (reference/unpack: above 1.0 unpack is faster) and the system and user
# CPU time of each side (what to read on a loaded machine). UNPACK names
# the binary to measure (default bin/unpack). BENCH_DISK_OVERWRITE=1 adds rows
# "over" where every tool extracts over its own previous output (unpack
# --overwrite, unzip -o, 7zz -aoa; the tars replace by default), `sync` before
# each run.
# Every run writes into a file system made for it: where loop mounts are
# allowed (root), a fresh ext4 (mkfs.ext4 defaults, BENCH_DISK_FS_SIZE,
# default 4G, sparse; mounted noinit_itable, so no lazy-init thread runs
# beside the tools) is made and mounted before each run, so every tool
# meets the same empty file system. On a long-used one the kernel's cost of
# creating 100k files depends on its history (ext4's inode allocator walks
# free slots and skips those freed in the last 60 s; pages given back to the
# host cost again when touched): the same command's system time swings
# 1.5-4 s there. Without loop mounts (BENCH_DISK_FS=root, or not root),
# no run deletes: each run's preparation moves the last output aside (a
# rename) and the moved trees are deleted before the next pair of commands,
# which starts BENCH_DISK_SETTLE seconds (default 61) after that deletion
# and a sync. Where /proc/sys/vm/drop_caches is writable, the preparation
# also drops the clean page cache and reads the archive and the tools'
# binaries back in, so every run starts cold alike.
#   BENCH_RUNS=3 BENCH_DISK_TREES="gosrc tiny" BENCH_TINY_FILES=100000 scripts/bench-disk.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${BENCH_RUNS:-3}
W=${BENCH_DIR:-/tmp/unpack-bench}/disk
TREES=${BENCH_DISK_TREES-"gosrc tiny"}
TINY=${BENCH_TINY_FILES:-100000}
mkdir -p "$W"
U=${UNPACK:-$PWD/bin/unpack}
[ -x "$U" ] || CGO_ENABLED=0 go build -o "$U" ./cmd/unpack

tree() { # name -> the tree's directory (made once, cached in $W)
  local d=$W/$1
  if [ ! -d "$d" ]; then
    case $1 in
      gosrc) mkdir -p "$d.tmp" && cp -r "$(go env GOROOT)/src" "$d.tmp/src" ;;
      tiny) python3 - "$d.tmp" "$TINY" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(20261202)
words = [bytes(r.choice(b"etaoinshrdlucmfwyp") for _ in range(r.randint(2, 9))) for _ in range(3000)]
for i in range(n):
    d = os.path.join(root, "d%03d" % (i % 256), "e%02d" % (i // 256 % 16))
    os.makedirs(d, exist_ok=True)
    size = r.randint(0, 4096)
    data = b" ".join(r.choice(words) for _ in range(size // 5 + 1))[:size]
    with open(os.path.join(d, "f%06d.txt" % i), "wb") as f:
        f.write(data)
PY
      ;;
    esac
    mv "$d.tmp" "$d"
  fi
  echo "$d"
}

archive() { # tree format -> the archive's path
  local d a
  d=$(tree "$1")
  a=$W/$1.$2
  if [ ! -s "$a" ]; then
    case $2 in
      tar.gz) tar -C "$d" -cf - . | gzip -6 > "$a.tmp" ;;
      tar.zst) tar -C "$d" -cf - . | zstd -q -3 > "$a.tmp" ;;
      zip) (cd "$d" && zip -q -6 -r "$a.tmp.zip" . && mv "$a.tmp.zip" "$a.tmp") ;;
    esac
    mv "$a.tmp" "$a"
  fi
  echo "$a"
}

references() { # format archive dir -> lines "name<TAB>command"
  case $1 in
    tar.gz) printf 'GNU tar\ttar -xzf %s -C %s\nbsdtar\tbsdtar -xf %s -C %s\n' "$2" "$3" "$2" "$3" ;;
    tar.zst) printf 'GNU tar\ttar --zstd -xf %s -C %s\nbsdtar\tbsdtar -xf %s -C %s\n' "$2" "$3" "$2" "$3" ;;
    zip) printf 'unzip\tunzip -q %s -d %s\nbsdtar\tbsdtar -xf %s -C %s\n7zz\t7zz x -bd -y -o%s %s\n' "$2" "$3" "$2" "$3" "$3" "$2" ;;
  esac
}

R=$(mktemp -d "$W/results.XXXXXX")
# prep.sh archive dir...: moves the directories into the trash and makes
# them again empty (with CLEAN set), syncs and, where allowed, drops the
# page cache, then reads the archive and the tools' binaries and libraries
# back in.
warm=$(for t in "$U" tar bsdtar unzip 7zz gzip zstd; do
  b=$(command -v "$t" || true)
  [ -n "$b" ] && b=$(readlink -f "$b") && echo "$b" && ldd "$b" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | tr '\n' ' ')
T=$R/trash SETTLE=${BENCH_DISK_SETTLE:-61}
mkdir -p "$T"
FS=${BENCH_DISK_FS:-fresh} IMG=$W/fs.img MNT=$R/mnt
if [ "$FS" = fresh ]; then
  mkdir -p "$MNT"
  if truncate -s "${BENCH_DISK_FS_SIZE:-4G}" "$IMG" && mkfs.ext4 -q -F "$IMG" 2>/dev/null &&
    mount -o loop "$IMG" "$MNT" 2>/dev/null; then
    umount "$MNT"
    trap 'umount "$MNT" 2>/dev/null; rm -f "$IMG"' EXIT
    SETTLE=0
  else
    echo "no loop mount here: runs write to $R on its own file system, $SETTLE s after each deletion" >&2
    FS=root
  fi
fi
# settle deletes the trash, then waits until ext4 no longer skips the freed
# slots.
settle() {
  rm -rf "$T" && mkdir -p "$T" && sync && sleep "$SETTLE"
}
drop=no
[ -w /proc/sys/vm/drop_caches ] && drop=yes
cat > "$R/prep.sh" <<EOF
#!/usr/bin/env bash
set -e
a=\$1; shift
if [ $FS = fresh ] && [ -n "\${CLEAN:-}" ]; then
  umount "$MNT" 2>/dev/null || true
  mkfs.ext4 -q -F "$IMG"
  mount -o loop,noinit_itable "$IMG" "$MNT"
  for d; do mkdir -p "\$d"; done
elif [ -n "\${CLEAN:-}" ]; then
  for d; do [ -e "\$d" ] && mv "\$d" "$T/\$(date +%s%N)"; mkdir -p "\$d"; done
fi
sync
if [ $drop = yes ]; then echo 1 > /proc/sys/vm/drop_caches; cat "\$a" $warm > /dev/null; fi
exit 0
EOF
chmod +x "$R/prep.sh"
# row tree files archive reference: the table's row from hyperfine's $R/h.json.
row() {
  python3 - "$R/h.json" "$@" <<'PY' | tee -a "$out"
import json, sys
d = json.load(open(sys.argv[1]))["results"]
u, r = d[0], d[1]
mean = lambda v: sum(v) / len(v) if isinstance(v, list) else v
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {sys.argv[5]} | {u['median']:.2f} | {r['median']:.2f} | **{r['median']/u['median']:.2f}** | {mean(u['system']):.2f} | {mean(r['system']):.2f} | {mean(u['user']):.2f} | {mean(r['user']):.2f} |")
PY
}
out=$R/disk.md
{
  echo "| tree | files | archive | reference | unpack s | reference s | ratio | unpack sys s | reference sys s | unpack user s | reference user s |"
  echo "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$out"
for t in $TREES; do
  src=$(tree "$t")
  files=$(find "$src" -type f | wc -l)
  for f in tar.gz tar.zst zip; do
    a=$(archive "$t" "$f")
    du=$R/out-unpack dr=$R/out-ref # per invocation: two runs at once don't share them
    [ "$FS" = fresh ] && du=$MNT/out-unpack dr=$MNT/out-ref
    env CLEAN=1 "$R/prep.sh" "$a" "$du"
    "$U" x -q "$a" -o "$du"
    diff -r "$src" "$du" >/dev/null || { echo "MISMATCH: unpack x $a" >&2; exit 1; }
    while IFS=$'\t' read -r rname rcmd; do
      env CLEAN=1 "$R/prep.sh" "$a" "$du" "$dr" && settle
      hyperfine -N -r "$RUNS" --export-json "$R/h.json" \
        --prepare "env CLEAN=1 $R/prep.sh $a $du $dr" \
        -n unpack "$U x -q $a -o $du" -n "$rname" "$rcmd" >/dev/null 2>&1 || { echo "skip $t $f $rname" >&2; continue; }
      row "$t" "$files" "$f" "$rname"
    done < <(references "$f" "$a" "$dr")
    if [ -n "${BENCH_DISK_OVERWRITE:-}" ]; then
      while IFS=$'\t' read -r rname rcmd; do
        rcmd=${rcmd/unzip -q/unzip -q -o}
        rcmd=${rcmd/7zz x -bd -y/7zz x -bd -y -aoa}
        env CLEAN=1 "$R/prep.sh" "$a" "$du" "$dr"
        "$U" x -q "$a" -o "$du" && $rcmd >/dev/null 2>&1 || { echo "skip over $t $f $rname" >&2; continue; }
        settle
        hyperfine -N -r "$RUNS" --export-json "$R/h.json" --prepare "$R/prep.sh $a" \
          -n unpack "$U x -q --overwrite $a -o $du" -n "$rname" "$rcmd" >/dev/null 2>&1 || { echo "skip over $t $f $rname" >&2; continue; }
        row "$t" "$files" "$f over" "$rname"
      done < <(references "$f" "$a" "$dr")
    fi
    [ "$FS" = fresh ] || { rm -rf "$du" "$dr" "$T" && mkdir -p "$T"; }
  done
done
where="no deletion within ${SETTLE} s before a run"
[ "$FS" = fresh ] && where="every run into a fresh ext4 (loop mount, mkfs.ext4 defaults)"
echo "ratio = reference median / unpack median (> 1.0: unpack faster); sys, user = mean system and user CPU time; sync before every run; $where; page cache dropped before every run: $drop"
echo "table written to $out"
