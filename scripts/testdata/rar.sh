#!/usr/bin/env bash
# Small RAR test archives for internal/codec/rar/rar4 and rar5, copied from
# the shared corpus: no tool here writes RAR, so these are the public test
# files of python rarfile (ISC) and SharpCompress (MIT), kept as published.
# Each copy is named ORIGIN-NAME; beside it NAME.sha256s (and NAME.links)
# hold the expected content as the corpus recorded it (two or more readers
# agreeing, or the source's originals). fixtures.tsv lists every archive to
# open (first volumes only) with its password; SOURCES.md names the origin
# and licence of each file. Checks each file's SHA-256 against the corpus
# manifest. Needs the corpus ($UNPACK_CORPUS, default ../shared/corpus);
# without it the committed files stay as they are.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${UNPACK_CORPUS:-../shared/corpus}
if [ ! -f "$corpus/manifest.tsv" ]; then
  echo "rar.sh: no corpus at $corpus; committed RAR fixtures left as they are" >&2
  exit 0
fi
rf=files/rarfile/test/files
sc=files/sharpcompress/tests/TestArchives/Archives
rar4=(
  "$rf/unicode.rar" "$rf/rar3-solid.rar" "$rf/rar3-comment-plain.rar" "$rf/rar3-comment-psw.rar"
  "$rf/rar3-comment-hpsw.rar" "$rf/rar202-comment-nopsw.rar" "$rf/rar202-comment-psw.rar"
  "$rf/rar2-unix-owner.rar" "$rf/seektest.rar" "$rf/rar3-symlink-unix.rar" "$rf/rar3-owner.rar"
  "$sc/Rar15.rar"
  "$sc/Rar4.multi.part01.rar" "$sc/Rar4.multi.part02.rar" "$sc/Rar4.multi.part03.rar"
  "$sc/Rar4.multi.part04.rar" "$sc/Rar4.multi.part05.rar" "$sc/Rar4.multi.part06.rar"
  "$sc/Rar4.multi.part07.rar"
  "$sc/Rar2.multi.rar" "$sc/Rar2.multi.r00" "$sc/Rar2.multi.r01" "$sc/Rar2.multi.r02"
  "$sc/Rar2.multi.r03" "$sc/Rar2.multi.r04" "$sc/Rar2.multi.r05"
)
rar5=(
  "$rf/rar5-solid.rar" "$rf/rar5-times.rar" "$rf/rar5-psw.rar" "$rf/rar5-hpsw.rar"
  "$rf/rar5-psw-blake.rar" "$rf/rar5-blake.rar" "$rf/rar5-hlink.rar" "$rf/rar5-dups.rar"
  "$rf/rar5-symlink-win.rar" "$rf/rar5-symlink-unix.rar" "$rf/rar5-quick-open.rar"
  "$rf/rar5-solid-qo.rar" "$rf/rar5-versions.rar" "$rf/rar5-owner.rar"
  "$sc/Rar5.multi.part01.rar" "$sc/Rar5.multi.part02.rar" "$sc/Rar5.multi.part03.rar"
  "$sc/Rar5.multi.part04.rar" "$sc/Rar5.multi.part05.rar" "$sc/Rar5.multi.part06.rar"
)
copy() { # outdir files...
  local out=$1; shift
  rm -f "$out"/*.rar "$out"/*.r0? "$out"/*.sha256s "$out"/*.links
  printf 'file\tpassword\n' > "$out/fixtures.tsv"
  {
    echo "# Sources of the RAR test archives"
    echo
    echo "Copied byte for byte by scripts/testdata/rar.sh from the shared corpus; no"
    echo "tool here writes RAR. Expected sums (NAME.sha256s, NAME.links) are the"
    echo "corpus's: two or more readers agreeing, or the source's own originals."
    echo
    echo "| file | origin (repository, path) | licence |"
    echo "| --- | --- | --- |"
  } > "$out/SOURCES.md"
  for rel in "$@"; do
    local row repo path sum pw first exp origin name lic
    row=$(awk -F'\t' -v p="$rel" '$3==p' "$corpus/manifest.tsv")
    repo=$(cut -f1 <<<"$row"); path=$(cut -f2 <<<"$row"); sum=$(cut -f4 <<<"$row")
    pw=$(cut -f8 <<<"$row"); first=$(cut -f11 <<<"$row"); exp=$(cut -f12 <<<"$row")
    [ "$(sha256sum < "$corpus/$rel" | cut -d' ' -f1)" = "$sum" ] || { echo "rar.sh: $rel differs from the manifest" >&2; exit 1; }
    case $repo in
      markokr/rarfile) origin=rarfile lic=ISC ;;
      adamhathcock/sharpcompress) origin=sharpcompress lic=MIT ;;
      *) echo "rar.sh: unknown origin $repo" >&2; exit 1 ;;
    esac
    name=$origin-$(basename "$rel")
    cp "$corpus/$rel" "$out/$name"
    chmod 644 "$out/$name"
    echo "| $name | $repo, \`$path\` | $lic |" >> "$out/SOURCES.md"
    if [ -z "$first" ] || [ "$first" = "$rel" ]; then
      printf '%s\t%s\n' "$name" "$pw" >> "$out/fixtures.tsv"
      cp "$corpus/$exp" "$out/$name.sha256s"
      [ ! -f "$corpus/${exp%.sha256s}.links" ] || cp "$corpus/${exp%.sha256s}.links" "$out/$name.links"
      chmod 644 "$out/$name".*
    fi
  done
  du -sh "$out"
}
copy internal/codec/rar/rar4/testdata "${rar4[@]}"
copy internal/codec/rar/rar5/testdata "${rar5[@]}"
