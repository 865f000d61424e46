#!/usr/bin/env bash
# make bench: decodes deterministic ~100 MiB workloads (text-like, binary-like,
# mixed random/x86 records) with unpack and with the reference tools in the
# same run (hyperfine), and prints MB/s, the ratio reference_time/unpack_time
# (above 1.0: unpack is faster) and peak RSS per row.
#   BENCH_MB=100 BENCH_RUNS=3 BENCH_FORMATS="gz zst …" scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${BENCH_MB:-100}
RUNS=${BENCH_RUNS:-3}
FORMATS=${BENCH_FORMATS-"gz zst bz2 xz xz-x86 xz-mt lz4 br tar.gz tar Z lzo"}
ARCHIVES=${BENCH_ARCHIVES-"zip-many zip-large 7z-lzma2 7z-bcj 7z-ppmd 7z-folders rar5 rar5-large rar4 rar4-audio rar4-e8 rar4-ppmd rar3-ppmd iso squashfs cpio cpio-crc ar deb rpm cab lzh arj xar zip-ppmd gz-cores wim-xpress wim-lzx wim-lzms wim-solid chm msi"}
CORPUS=${UNPACK_CORPUS:-$PWD/../shared/corpus}
W=${BENCH_DIR:-/tmp/unpack-bench}
mkdir -p "$W"
CGO_ENABLED=0 go build -o bin/unpack ./cmd/unpack
U=$PWD/bin/unpack

gen() { # kind file
  [ -s "$2" ] && return
  python3 - "$1" "$MB" "$2" <<'PY'
import random, sys, struct
kind, mb, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = random.Random(20261130)
n = mb << 20
with open(out, "wb") as f:
    if kind == "text":
        words = [("".join(r.choice("etaoinshrdlucmfwypvbgkjqxz") for _ in range(r.randint(2, 9)))) for _ in range(5000)]
        buf = []
        size = 0
        while size < n:
            line = " ".join(r.choice(words[:200] if r.random() < .7 else words) for _ in range(r.randint(4, 16))) + "\n"
            buf.append(line); size += len(line)
            if len(buf) > 4096:
                f.write("".join(buf).encode()); buf = []
        f.write("".join(buf).encode())
    elif kind == "binary":
        # Structured records: small ints, floats, repeated headers (like object files / databases).
        size = 0
        while size < n:
            rec = struct.pack("<IHHdI", r.randint(0, 1 << 16), r.randint(0, 300), 0xBEEF, r.random() * 1000, size & 0xFFFF)
            rec += bytes(r.randint(0, 3) for _ in range(12))
            f.write(rec); size += len(rec)
    else:  # mixed: x86-like code with E8/E9 calls, random chunks, text
        size = 0
        while size < n:
            k = r.random()
            if k < .4:
                chunk = bytearray()
                for _ in range(2048):
                    op = r.random()
                    if op < .1:
                        chunk += b"\xe8" + struct.pack("<i", r.randint(-50000, 50000))
                    elif op < .15:
                        chunk += b"\x0f\x84" + struct.pack("<i", r.randint(-5000, 5000))
                    else:
                        chunk += bytes([r.choice([0x48, 0x89, 0x8b, 0x83, 0xc3, 0x55, 0x5d, 0x31, 0xc0, 0x74, 0x75])])
            elif k < .55:
                chunk = r.randbytes(8192)
            else:
                chunk = (" ".join(str(r.randint(0, 999)) for _ in range(1500)) + "\n").encode()
            f.write(chunk); size += len(chunk)
        f.truncate(n)
PY
}

for k in text binary mixed; do gen "$k" "$W/$k.raw"; done

# compress FORMAT KIND -> path of the compressed file
compress() {
  local f=$1 k=$2 src=$W/$2.raw out
  case $f in
    gz) out=$W/$k.gz; [ -s "$out" ] || { gzip -6 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    zst) out=$W/$k.zst; [ -s "$out" ] || { zstd -q -19 -T0 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    bz2) out=$W/$k.bz2; [ -s "$out" ] || { lbzip2 -9 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    xz) out=$W/$k.xz; [ -s "$out" ] || { xz -6 -T1 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    xz-x86) out=$W/$k.x86.xz; [ -s "$out" ] || { xz --x86 --lzma2=preset=6 -T1 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    xz-mt) out=$W/$k.mt.xz; [ -s "$out" ] || { xz -6 -T2 --block-size=8MiB -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    lz4) out=$W/$k.lz4; [ -s "$out" ] || { lz4 -q -9 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    br) out=$W/$k.br; [ -s "$out" ] || { brotli -q 9 -c "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    tar.gz) out=$W/$k.tar.gz; [ -s "$out" ] || { tar -C "$W" -cf - "$k.raw" | gzip -6 > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
    tar) out=$W/$k.tar; [ -s "$out" ] || { tar -C "$W" -cf "$out.tmp" "$k.raw" && mv "$out.tmp" "$out"; } ;;
    Z) out=$W/$k.Z; [ -s "$out" ] || { command compress -c < "$src" > "$out.tmp"; mv "$out.tmp" "$out"; } ;;
    lzo) out=$W/$k.lzo; [ -s "$out" ] || { lzop -q -c < "$src" > "$out.tmp" && mv "$out.tmp" "$out"; } ;;
  esac
  echo "$out"
}

# references FORMAT FILE -> lines "name<TAB>command"
references() {
  local f=$1 p=$2
  case $f in
    gz) printf 'gzip -dc\tgzip -dc %s\npigz -dc\tpigz -dc %s\nbsdcat (zlib)\tbsdcat %s\n' "$p" "$p" "$p" ;;
    zst) printf 'zstd -dc\tzstd -dc %s\n' "$p" ;;
    bz2) printf 'bzip2 -dc\tbzip2 -dc %s\nlbzip2 -dc\tlbzip2 -dc %s\n7zz x -so\t7zz x -so %s\n' "$p" "$p" "$p" ;;
    xz|xz-x86) printf 'xz -dc -T1\txz -dc -T1 %s\n' "$p" ;;
    xz-mt) printf 'xz -dc -T1\txz -dc -T1 %s\nxz -dc -T2\txz -dc -T2 %s\n' "$p" "$p" ;;
    lz4) printf 'lz4 -dc\tlz4 -dc %s\n' "$p" ;;
    br) printf 'brotli -dc\tbrotli -dc %s\n' "$p" ;;
    tar.gz) printf 'bsdtar -xOf\tbsdtar -xOf %s\ntar -xzOf\ttar -xzOf %s\n' "$p" "$p" ;;
    tar) printf 'bsdtar -xOf\tbsdtar -xOf %s\ntar -xOf\ttar -xOf %s\n' "$p" "$p" ;;
    lzo) printf 'lzop -dc\tlzop -dc %s\nbsdcat\tbsdcat %s\n' "$p" "$p" ;;
    Z) printf 'compress -dc\tcompress -dc %s\ngzip -dc\tgzip -dc %s\nbsdcat\tbsdcat %s\n7zz x -so\t7zz x -so %s\n' "$p" "$p" "$p" "$p" ;;
  esac
}

peak_rss() { /usr/bin/time -f %M bash -c "$1 >/dev/null" 2>&1 | tail -1; }

# pair_times UCMD RNAME RCMD: prints the median seconds of unpack and of the
# reference. One hyperfine run of $RUNS each; when unpack's median is under
# 0.1 s (rows that are mostly process start-up, where the host's speed moves
# one batch against the next by 10-20%), five more batches of at least 20
# runs each, the pair's order swapped in every other batch, and the medians
# of all the runs pooled.
pair_times() {
  local ucmd=$1 rname=$2 rcmd=$3 json=$R/h.0.json noshell=-N
  hyperfine -N -w 1 -r "$RUNS" --export-json "$json" -n unpack "$ucmd" -n "$rname" "$rcmd" >/dev/null 2>&1 || {
    noshell=
    hyperfine -w 1 -r "$RUNS" --export-json "$json" -n unpack "$ucmd" -n "$rname" "$rcmd" >/dev/null 2>&1 || return 1
  }
  local short
  short=$(python3 -c "import json; print(int(json.load(open('$json'))['results'][0]['median'] < 0.1))")
  if [ "$short" = 1 ]; then
    local b n=$((RUNS > 20 ? RUNS : 20))
    for b in 1 2 3 4 5; do
      if [ $((b % 2)) = 1 ]; then
        hyperfine $noshell -w 1 -r "$n" --export-json "$R/h.$b.json" -n "$rname" "$rcmd" -n unpack "$ucmd" >/dev/null 2>&1 || return 1
      else
        hyperfine $noshell -w 1 -r "$n" --export-json "$R/h.$b.json" -n unpack "$ucmd" -n "$rname" "$rcmd" >/dev/null 2>&1 || return 1
      fi
    done
  fi
  python3 - "$R" <<'PY'
import glob, json, statistics, sys
times = {}
for f in glob.glob(sys.argv[1] + "/h.[0-9]*.json"):
    for r in json.load(open(f))["results"]:
        times.setdefault(r["command"] == "unpack", []).extend(r["times"])
print(statistics.median(times[True]), statistics.median(times[False]))
PY
  rm -f "$R"/h.[0-9]*.json
}

# z7rar_row ARCHIVE: the 7-Zip row of a RAR PPMd archive (issue 23), with
# the first 7-Zip that opens it: $BENCH_7ZZ_RAR (default 7zz-rar, the
# official build scripts/install-tools.sh fetches where the network
# allows), else 7zz. Debian's 7zip package is built without the RAR
# codecs (its 7zz cannot open any RAR): then no row, as a row whose
# reference always fails would say nothing.
z7rar_row() {
  local z
  for z in "${BENCH_7ZZ_RAR:-7zz-rar}" 7zz; do
    if command -v "$z" >/dev/null 2>&1 && "$z" t "$1" >/dev/null 2>&1; then
      printf 'x -c, 1 thread\t%s\t%s x -so -mmt1\t%s x -so -mmt1 %s\n' "$U x -c --threads 1 $1" "${z##*/}" "$z" "$1"
      return
    fi
  done
}

# Archives: the unpack command and each reference, both writing the
# contents to stdout (or, for "t" rows, verifying). Rows name the threads.
archive_rows() { # kind -> lines "label<TAB>unpack command<TAB>ref name<TAB>ref command"
  local k=$1 a
  case $k in
    zip-many)
      a=$W/many.zip
      if [ ! -s "$a" ]; then
        rm -rf "$W/many" && mkdir -p "$W/many" && split -b 25k -a 4 "$W/text.raw" "$W/many/t" && \
          (cd "$W/many" && zip -q -6 -r "$a" .)
      fi
      printf 'x -c, 1 thread\t%s\tunzip -p\tunzip -p %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\t7zz x -so\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c --threads 1 $a" "$a"
      printf 't, 2 threads\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U t -q $a" "$a"
      printf 't, 2 threads\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a" ;;
    zip-large)
      a=$W/large.zip
      [ -s "$a" ] || (cd "$W" && zip -q -6 "$a" text.raw binary.raw mixed.raw)
      printf 'x -c, 1 thread\t%s\tunzip -p\tunzip -p %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\t7zz x -so\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c --threads 1 $a" "$a" ;;
    zip-ppmd)
      # PPMd variant I (zip method 98) as 7-Zip writes it: order 8, 16 MiB.
      a=$W/ppmd.zip
      [ -s "$a" ] || (cd "$W" && 7zz a -bd -tzip -mm=PPMd "$a" text.raw >/dev/null)
      printf 'x -c, 1 thread\t%s\t7zz x -so -mmt1\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a" ;;
    7z-lzma2|7z-bcj|7z-ppmd|7z-folders)
      a=$W/$k.7z
      if [ ! -s "$a" ]; then
        case $k in
          7z-lzma2) (cd "$W" && 7zz a -bd -mx=6 -m0=lzma2 -mmt=1 "$a" text.raw binary.raw >/dev/null) ;;
          7z-bcj) (cd "$W" && 7zz a -bd -mx=6 -mf=BCJ -m0=lzma "$a" mixed.raw >/dev/null) ;;
          7z-ppmd) (cd "$W" && 7zz a -bd -m0=ppmd "$a" text.raw >/dev/null) ;;
          7z-folders) (cd "$W" && 7zz a -bd -mx=6 -ms=off -m0=lzma2 "$a" text.raw binary.raw mixed.raw >/dev/null) ;;
        esac
      fi
      printf 'x -c, 1 thread\t%s\t7zz x -so -mmt1\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a"
      if [ "$k" = 7z-folders ]; then
        printf 't, 2 threads\t%s\t7zz t -mmt1\t7zz t -mmt1 %s\n' "$U t -q $a" "$a"
        printf 't, 2 threads\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a"
      fi ;;
    iso)
      # A Rock Ridge + Joliet image of the three inputs and the text cut
      # into 25 KB files.
      a=$W/image.iso
      if [ ! -s "$a" ]; then
        [ -d "$W/many" ] || { mkdir -p "$W/many" && split -b 25k -a 4 "$W/text.raw" "$W/many/t"; }
        genisoimage -quiet -R -J -o "$a" -graft-points /=$W/text.raw /=$W/binary.raw /=$W/mixed.raw many/=$W/many
      fi
      printf 'x -c, 1 thread\t%s\t7zz x -so -mmt1\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c --threads 1 $a" "$a"
      printf 't, 2 threads\t%s\t7zz t -mmt1\t7zz t -mmt1 %s\n' "$U t -q $a" "$a"
      printf 't, 2 threads\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a" ;;
    squashfs)
      # A gzip squashfs image (mksquashfs's default) of the three inputs
      # and the text cut into 25 KB files.
      a=$W/image.sqfs
      if [ ! -s "$a" ]; then
        [ -d "$W/many" ] || { mkdir -p "$W/many" && split -b 25k -a 4 "$W/text.raw" "$W/many/t"; }
        rm -rf "$W/sqsrc" && mkdir -p "$W/sqsrc" && cp -r "$W/text.raw" "$W/binary.raw" "$W/mixed.raw" "$W/many" "$W/sqsrc/"
        mksquashfs "$W/sqsrc" "$a" -quiet -noappend >/dev/null
      fi
      printf 'x -c, 1 thread\t%s\t7zz x -so -mmt1\t7zz x -so -mmt1 %s\n' "$U x -c --threads 1 $a" "$a"
      printf 't, 2 threads\t%s\t7zz t -mmt1\t7zz t -mmt1 %s\n' "$U t -q $a" "$a"
      printf 't, 2 threads\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a" ;;
    cpio|cpio-crc)
      a=$W/$k.cpio
      local h=newc; [ "$k" = cpio-crc ] && h=crc
      [ -s "$a" ] || (cd "$W" && printf '%s\n' text.raw binary.raw mixed.raw | cpio -o --quiet -H $h > "$a")
      printf 'x -c\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\tcpio -i --to-stdout\tcpio -i --quiet --to-stdout -F %s\n' "$U x -c $a" "$a" ;;
    lzh|arj)
      # One 32 MiB file (16 MiB of text, 16 MiB of mixed): -lh5- by jlha,
      # ARJ -m1 by arj.
      local w32=$W/w32.raw
      [ -s "$w32" ] || { head -c 16M "$W/text.raw" > "$w32.tmp" && head -c 16M "$W/mixed.raw" >> "$w32.tmp" && mv "$w32.tmp" "$w32"; }
      if [ "$k" = lzh ]; then
        a=$W/w32.lzh
        [ -s "$a" ] || { rm -f "$W/w32.tmp.lzh" && (cd "$W" && lha c2o5 w32.tmp.lzh w32.raw >/dev/null) && mv "$W/w32.tmp.lzh" "$a"; }
        printf 'x -c\t%s\tlhasa p\tlhasa p %s\n' "$U x -c $a" "$a"
      else
        a=$W/w32.arj
        [ -s "$a" ] || { rm -f "$W/w32.tmp.arj" && (cd "$W" && arj a -m1 -y w32.tmp.arj w32.raw >/dev/null) && mv "$W/w32.tmp.arj" "$a"; }
        printf 'x -c\t%s\tarj p\tarj p %s\n' "$U x -c $a" "$a"
      fi
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a" ;;
    ar)
      a=$W/t.a
      [ -s "$a" ] || (cd "$W" && ar rcD "$a" text.raw binary.raw mixed.raw)
      printf 'x -c\t%s\tar p\tar p %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a" ;;
    cab)
      # gcab -z (MSZIP) of 16 MiB of text and 16 MiB of binary records: the
      # 32 MiB workload. No tool here writes LZX or Quantum cabinets.
      a=$W/t.cab
      if [ ! -s "$a" ]; then
        rm -rf "$W/cabsrc" && mkdir -p "$W/cabsrc" && head -c 16M "$W/text.raw" > "$W/cabsrc/text" && \
          head -c 16M "$W/binary.raw" > "$W/cabsrc/binary" && (cd "$W/cabsrc" && gcab -c -z "$a" text binary)
      fi
      printf 'x -c\t%s\tcabextract -p\tcabextract -q -p %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a" ;;
    wim-xpress|wim-lzx|wim-lzms|wim-solid)
      # A 32 MiB image (the first third of each input) in each WIM
      # compression; wim-solid is LZMS in one solid resource (--solid).
      # t checks every blob's SHA-1, as wimlib-imagex verify does.
      a=$W/$k.wim
      if [ ! -s "$a" ]; then
        rm -rf "$W/wimsrc" && mkdir -p "$W/wimsrc"
        for i in text binary mixed; do head -c $(((32 << 20) / 3)) "$W/$i.raw" > "$W/wimsrc/$i.raw"; done
        case $k in
          wim-xpress) wimlib-imagex capture "$W/wimsrc" "$a" --compress=XPRESS >/dev/null ;;
          wim-lzx) wimlib-imagex capture "$W/wimsrc" "$a" --compress=LZX >/dev/null ;;
          wim-lzms) wimlib-imagex capture "$W/wimsrc" "$a" --compress=LZMS >/dev/null ;;
          wim-solid) wimlib-imagex capture "$W/wimsrc" "$a" --solid >/dev/null ;;
        esac
      fi
      printf 't\t%s\twimlib-imagex verify\twimlib-imagex verify %s\n' "$U t -q $a" "$a"
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a" ;;
    chm)
      # 32 MiB in a CHM by Free Pascal's chmcmd (LZX, 64 KiB window, reset
      # every 2 frames): 16 MiB of text as <p> lines in 64 KiB pages and
      # 16 MiB of binary records in 4 MiB files. chmcmd writes the
      # header's first PMGL chunk wrong, which makes chmlib skip 2/3 of
      # the files: set right here, so every tool reads all 32 MiB.
      # extract_chmLib writes only to a directory: unpack x to one too.
      a=$W/t.chm
      if [ ! -s "$a" ]; then
        rm -rf "$W/chmsrc" && mkdir -p "$W/chmsrc/html" "$W/chmsrc/img" && \
          head -c 16M "$W/text.raw" | sed 's/^/<p>/' | split -b 64k -a 3 -d --additional-suffix=.html - "$W/chmsrc/html/p" && \
          head -c 16M "$W/binary.raw" | split -b 4M -a 1 -d --additional-suffix=.bin - "$W/chmsrc/img/b" && \
          (cd "$W/chmsrc" && { printf '[OPTIONS]\nCompiled file=%s\nTitle=bench\n\n[FILES]\n' "$W/chmsrc.chm"; \
            find html img -type f | LC_ALL=C sort; } > t.hhp && chmcmd-3.2.2 --no-html-scan t.hhp >/dev/null) && \
          python3 -c "import struct, sys
f = open(sys.argv[1], 'r+b'); h = f.read(0x60); d = struct.unpack_from('<Q', h, 0x48)[0]
f.seek(d + 0x20); f.write(struct.pack('<i', 0))" "$W/chmsrc.chm" && mv "$W/chmsrc.chm" "$a"
      fi
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a"
      printf 'x to a directory\t%s\textract_chmLib\textract_chmLib %s %s\n' "$U x -q --overwrite -o $W/chm.u $a" "$a" "$W/chm.r"
      printf 'x to a directory\t%s\t7zz x\t7zz x -y -o%s %s\n' "$U x -q --overwrite -o $W/chm.u $a" "$W/chm.z" "$a"
      printf 't\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a" ;;
    msi)
      # 32 MiB installed by an MSI from msitools' wixl (its MSZIP cabinet
      # embedded): 16 files of text and 16 of binary records, 1 MiB each.
      # unpack x and msiextract write the installed tree; 7zz x the raw
      # streams (the tables and the cabinet, not the files): 7zz t
      # checks the same streams.
      a=$W/t.msi
      if [ ! -s "$a" ]; then
        rm -rf "$W/msisrc" && mkdir -p "$W/msisrc" && \
          head -c 16M "$W/text.raw" | split -b 1M -a 2 -d --additional-suffix=.txt - "$W/msisrc/t" && \
          head -c 16M "$W/binary.raw" | split -b 1M -a 2 -d --additional-suffix=.bin - "$W/msisrc/b" && \
          (cd "$W/msisrc" && {
            printf '<?xml version="1.0" encoding="utf-8"?>\n<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">\n'
            printf '<Product Id="8E4D6A5C-1D2B-4C3A-9F8E-7D6C5B4A3922" Name="Bench" Language="1033" Version="1.0.0" Manufacturer="unpack" UpgradeCode="12345678-1234-1234-1234-123456789013">\n'
            printf '<Package InstallerVersion="200" Compressed="yes" />\n<Media Id="1" Cabinet="data.cab" EmbedCab="yes" />\n'
            printf '<Directory Id="TARGETDIR" Name="SourceDir"><Directory Id="ProgramFilesFolder"><Directory Id="INSTALLDIR" Name="Bench">\n'
            printf '<Component Id="Main" Guid="11111111-2222-3333-4444-555555555557">\n'
            for f in t*.txt b*.bin; do printf '<File Id="%s" Name="%s" Source="%s" />\n' "${f%%.*}" "$f" "$f"; done
            printf '</Component></Directory></Directory></Directory>\n<Feature Id="F" Level="1"><ComponentRef Id="Main" /></Feature>\n</Product>\n</Wix>\n'
          } > t.wxs && wixl -o "$a.tmp" t.wxs) && mv "$a.tmp" "$a"
      fi
      printf 'x to a directory\t%s\tmsiextract\tmsiextract -C %s %s\n' "$U x -q --overwrite -o $W/msi.u $a" "$W/msi.r" "$a"
      printf 'x to a directory\t%s\t7zz x (streams)\t7zz x -y -o%s %s\n' "$U x -q --overwrite -o $W/msi.u $a" "$W/msi.z" "$a"
      printf 'x -c\t%s\t7zz x -so (streams)\t7zz x -so %s\n' "$U x -c $a" "$a"
      printf 't\t%s\t7zz t\t7zz t %s\n' "$U t -q $a" "$a" ;;
    deb)
      # The data member as xz (dpkg-deb's default): unpack x -c writes the
      # files, dpkg-deb --fsys-tarfile the decompressed data tar.
      a=$W/t.deb
      if [ ! -s "$a" ]; then
        rm -rf "$W/debroot" && mkdir -p "$W/debroot/DEBIAN" "$W/debroot/usr/share/t" && \
          cp "$W/text.raw" "$W/binary.raw" "$W/debroot/usr/share/t/" && \
          printf 'Package: t\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' > "$W/debroot/DEBIAN/control" && \
          dpkg-deb --root-owner-group -Zxz -b "$W/debroot" "$a" >/dev/null
      fi
      printf 'x -c\t%s\tdpkg-deb --fsys-tarfile\tdpkg-deb --fsys-tarfile %s\n' "$U x -c $a" "$a" ;;
    rpm)
      # 32 MiB (16 MiB of text, 16 MiB of binary records) in an rpm with a
      # zstd payload (rpmbuild -19, Fedora's default). unpack x -c writes
      # the files; rpm2cpio the decompressed cpio payload; bsdtar reads the
      # rpm itself. 7zz gives only the compressed payload: no 7zz row.
      a=$W/t.rpm
      if [ ! -s "$a" ]; then
        rm -rf "$W/rpmtop" && mkdir -p "$W/rpmtop/SPECS" "$W/rpmtop/RPMS" && \
          head -c 16M "$W/text.raw" > "$W/rpmtop/text" && head -c 16M "$W/binary.raw" > "$W/rpmtop/binary" && \
          printf '%s\n' 'Name: t' 'Version: 1' 'Release: 1' 'Summary: t' 'License: MIT' 'BuildArch: noarch' \
            '%description' 't' '%install' 'mkdir -p %{buildroot}/usr/share/t' \
            "cp $W/rpmtop/text $W/rpmtop/binary %{buildroot}/usr/share/t/" '%files' '/usr/share/t' \
            > "$W/rpmtop/SPECS/t.spec" && \
          rpmbuild --quiet --define "_topdir $W/rpmtop" --define "_binary_payload w19.zstdio" \
            -bb "$W/rpmtop/SPECS/t.spec" >/dev/null 2>&1 && mv "$W"/rpmtop/RPMS/noarch/t-1-1.noarch.rpm "$a"
      fi
      printf 'x -c\t%s\trpm2cpio\trpm2cpio %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c $a" "$a" ;;
    xar)
      # 32 MiB in a XAR (bsdtar's default: zlib data, SHA-1 checksums): the
      # first 16 MiB of the text and of the mixed input.
      a=$W/t.xar
      if [ ! -s "$a" ]; then
        rm -rf "$W/xarsrc" && mkdir -p "$W/xarsrc" && \
          head -c 16M "$W/text.raw" > "$W/xarsrc/text" && head -c 16M "$W/mixed.raw" > "$W/xarsrc/mixed" && \
          bsdtar --format xar -cf "$a" -C "$W/xarsrc" text mixed
      fi
      printf 'x -c\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\t7zz x -so\t7zz x -so %s\n' "$U x -c $a" "$a" ;;
    gz-cores)
      # One gzip member (gzip -6) decoded on both cores against one, and
      # against the references (pigz -d decodes on one core, with reads
      # and the CRC on others).
      local k
      for k in text mixed; do
        a=$(compress gz "$k")
        printf '%s, 2 threads\t%s\tbsdcat (zlib)\tbsdcat %s\n' "$k" "$U x -c --threads 2 $a" "$a"
        printf '%s, 2 threads\t%s\tpigz -dc\tpigz -dc %s\n' "$k" "$U x -c --threads 2 $a" "$a"
        printf '%s, 2 threads\t%s\tgzip -dc\tgzip -dc %s\n' "$k" "$U x -c --threads 2 $a" "$a"
        printf '%s, 2 threads\t%s\tunpack --threads 1\t%s\n' "$k" "$U x -c --threads 2 $a" "$U x -c --threads 1 $a"
      done ;;
    rar5|rar5-large|rar4|rar4-audio|rar4-e8|rar4-ppmd)
      # The largest corpus archives of each kind. Filter-heavy: rar5 (459
      # DELTA blocks) and rar4-audio (177 DELTA blocks and an AUDIO one);
      # rar4-e8 is the largest with an E8 block (a RAR behind a JPEG);
      # rar4-ppmd is the only RAR with PPMd blocks (163 bytes, 2 PPMd blocks:
      # start-up; none of the corpus's other RAR and SFX files has one);
      # rar5-large is 64 MiB of LZ output from 3 KB (decoder throughput).
      local d=$CORPUS/files/sharpcompress/tests/TestArchives/Archives
      case $k in
        rar5) a=$d/Rar.issue1050.rar ;;
        rar5-large) a=$d/Large/Large.rar ;;
        rar4) a=$d/Rar.rar ;;
        rar4-audio) a=$d/Rar.Audio_program.rar ;;
        rar4-e8) a=$d/Rar.jpeg.jpg ;;
        rar4-ppmd) a=$CORPUS/files/rarfile/test/files/unicode.rar ;;
      esac
      [ -s "$a" ] || return 0
      printf 'x -c\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c $a" "$a"
      printf 'x -c\t%s\tunar -o -\tunar -q -o - %s\n' "$U x -c $a" "$a"
      if [ "$k" = rar4-ppmd ]; then
        z7rar_row "$a"
      fi ;;
    rar3-ppmd)
      # RAR 3.x PPMd at scale: text.raw as one PPMd (variant H) block,
      # order 8, 128 MB, as rar -m5 -mc8:128t+ would write it. No tool
      # here writes RAR: the test code's writer (TestWriteRAR3, checked
      # against unar and 7-Zip's Ppmd7aDec) makes it once.
      a=$W/rar3-ppmd.rar
      if [ ! -s "$a" ]; then
        UNPACK_RAR3_IN=$W/text.raw UNPACK_RAR3_OUT=$a.tmp \
          go test -count=1 -timeout 30m -run '^TestWriteRAR3$' ./internal/codec/ppmd >/dev/null && mv "$a.tmp" "$a"
      fi
      printf 'x -c, 1 thread\t%s\tbsdtar -xOf\tbsdtar -xOf %s\n' "$U x -c --threads 1 $a" "$a"
      printf 'x -c, 1 thread\t%s\tunar -o -\tunar -q -o - %s\n' "$U x -c --threads 1 $a" "$a"
      z7rar_row "$a" ;;
  esac
}

if [ -n "${BENCH_PREPARE:-}" ]; then # only make the inputs (they are cached in $W)
  for f in $FORMATS; do for k in text binary mixed; do compress "$f" "$k" >/dev/null; done; done
  for k in $ARCHIVES; do archive_rows "$k" >/dev/null; done
  exit 0
fi

# Results of this run in a directory of their own, so two runs sharing the
# cached inputs in $W do not write over each other's files.
R=$(mktemp -d "$W/results.XXXXXX")
out=$R/table.md
{
  echo "| workload | format | reference | unpack MB/s | reference MB/s | ratio | unpack peak RSS | reference peak RSS |"
  echo "|---|---|---|---:|---:|---:|---:|---:|"
} > "$out"
for f in $FORMATS; do
  for k in text binary mixed; do
    p=$(compress "$f" "$k")
    case $f in
      br) ucmd="$U x -c --format brotli $p" ;;
      *) ucmd="$U x -c $p" ;;
    esac
    # byte-exact check before timing
    if [ "$f" = tar.gz ]; then
      cmp -s <($ucmd | tar -xOf -) "$W/$k.raw" || { echo "MISMATCH: $ucmd" >&2; exit 1; }
    else
      cmp -s <($ucmd) "$W/$k.raw" || { echo "MISMATCH: $ucmd" >&2; exit 1; }
    fi
    while IFS=$'\t' read -r rname rcmd; do
      times=$(pair_times "$ucmd" "$rname" "$rcmd") || { echo "FAILED: $rcmd" >&2; exit 1; }
      read -r tu tr <<<"$times"
      mbu=$(python3 -c "print(f'{$MB*1.048576/$tu:.0f}')"); mbr=$(python3 -c "print(f'{$MB*1.048576/$tr:.0f}')")
      ratio=$(python3 -c "print(f'{$tr/$tu:.2f}')")
      ru=$(peak_rss "$ucmd"); rr=$(peak_rss "$rcmd")
      printf '| %s | %s | %s | %s | %s | **%s** | %s MiB | %s MiB |\n' "$k" "$f" "$rname" "$mbu" "$mbr" "$ratio" \
        "$((ru/1024))" "$((rr/1024))" | tee -a "$out"
    done < <(references "$f" "$p")
  done
done
{
  echo
  echo "| archive | unpack | reference | unpack ms | reference ms | ratio | unpack peak RSS | reference peak RSS |"
  echo "|---|---|---|---:|---:|---:|---:|---:|"
} >> "$out"
echo
for k in $ARCHIVES; do
  while IFS=$'\t' read -r label ucmd rname rcmd; do
    if ! $ucmd >/dev/null 2>&1; then
      printf '| %s | %s | %s | | | unpack fails | | |\n' "$k" "$label" "$rname" | tee -a "$out"; continue
    fi
    if ! $rcmd >/dev/null 2>&1; then
      printf '| %s | %s | %s | | | reference fails | | |\n' "$k" "$label" "$rname" | tee -a "$out"; continue
    fi
    times=$(pair_times "$ucmd" "$rname" "$rcmd") || { echo "skip $k $rname" >&2; continue; }
    read -r tu tr <<<"$times"
    ratio=$(python3 -c "print(f'{$tr/$tu:.2f}')")
    ru=$(peak_rss "$ucmd"); rr=$(peak_rss "$rcmd")
    printf '| %s | %s | %s | %.0f | %.0f | **%s** | %s MiB | %s MiB |\n' "$k" "$label" "$rname" \
      "$(python3 -c "print($tu*1000)")" "$(python3 -c "print($tr*1000)")" "$ratio" "$((ru/1024))" "$((rr/1024))" | tee -a "$out"
  done < <(archive_rows "$k")
done

echo
echo "ratio = reference median time / unpack median time (> 1.0: unpack faster); MB = 10^6 bytes of output"
if [ "${BENCH_CORES-1}" != 0 ]; then
  # What both cores give on this machine, same run: one reference decoder
  # alone against two copies at once (scaling 2.0 = two full cores).
  x=$(compress xz binary)
  hyperfine -w 1 -r "$RUNS" --export-json "$R/h.json" -n one "xz -dc -T1 $x >/dev/null" \
    -n two "xz -dc -T1 $x >/dev/null & xz -dc -T1 $x >/dev/null; wait" >/dev/null 2>&1
  python3 -c "import json; d=json.load(open('$R/h.json'))['results']; t1, t2 = d[0]['median'], d[1]['median']
print(f'two-core scaling: one xz -dc -T1 {t1:.2f} s, two at once {t2:.2f} s: both cores give {2*t1/t2:.2f}x one core')" | tee "$R/cores.md"
fi
if [ "${BENCH_ALLOCS-1}" != 0 ]; then
  echo
  echo "allocations per MiB extracted (Go benchmarks of the archive readers, -benchmem):"
  UNPACK_CORPUS=$CORPUS go test -run '^$' -benchtime 3x -benchmem \
    -bench '^Benchmark(Decode|Encrypted|Reader|Read|File)$' \
    ./internal/codec/rar/rar4 ./internal/codec/rar/rar5 ./internal/codec/zip ./internal/codec/sevenzip 2>/dev/null | python3 -c '
import re, sys
print("| benchmark | MiB per op | bytes allocated per MiB |")
print("|---|---:|---:|")
pkg = ""
for line in sys.stdin:
    if line.startswith("pkg: "):
        pkg = line.split()[1].rsplit("/", 1)[-1] + "."  # rar4.Reader, zip.Read
    m = re.match(r"Benchmark(\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op\s+([\d.]+) MB/s\s+(\d+) B/op", line)
    if m:
        mib = float(m.group(4)) * float(m.group(3)) / 1e3 / 1048576
        if mib > 0:
            print(f"| {pkg}{m.group(1)} | {mib:.2f} | {int(m.group(5))/mib:.0f} |")
' | tee "$R/allocs.md"
fi
if [ "${BENCH_VERIFY-1}" != 0 ]; then
  echo
  echo "checksums (internal/verify) beside the command-line hashers, same run:"
  COUNT=${BENCH_VERIFY_COUNT:-3} bash scripts/bench-verify.sh 30x | tee "$R/verify.md"
fi
if [ "${BENCH_DISK-1}" != 0 ]; then
  echo
  echo "extraction to disk (scripts/bench-disk.sh), same run:"
  bash scripts/bench-disk.sh | tee "$R/disk.md"
fi
echo "table written to $out"
