#!/usr/bin/env bash
# Installs the reference tools that fixtures, tests and benchmarks use.
# Idempotent; needs root (or sudo) on a Debian-like machine.
set -euo pipefail
pkgs=(xz-utils zstd bzip2 lbzip2 pbzip2 pigz gzip 7zip libarchive-tools unar brotli lz4 lzip
      hyperfine zip unzip tar tmux python3 time xxhash genisoimage xorriso squashfs-tools udftools rpm
      qemu-user ncompress lzop cpio binutils dpkg
      gcab cabextract libchm-bin jlha-utils lhasa arj wimtools)
pkgs+=(msitools wixl) # the compound-file (MSI) fixtures
pkgs+=(fp-utils-3.2.2) # chmcmd, the CHM fixtures and bench input (brings fpc-source-3.2.2)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The official 7-Zip build for Linux reads RAR; Debian's 7zip package is
# built without the RAR codecs. bench.sh's RAR PPMd rows compare with it
# as 7zz-rar (BENCH_7ZZ_RAR names another). Not fatal: without network
# those rows go without 7-Zip.
TOOLS=${UNPACK_TOOLS_DIR:-/usr/local/bin}
Z7URL=https://github.com/ip7z/7zip/releases/download/25.01/7z2501-linux-x64.tar.xz
if ! command -v 7zz-rar >/dev/null 2>&1 && [ ! -x "$TOOLS/7zz-rar" ]; then
  tmp=$(mktemp -d)
  if command -v curl >/dev/null 2>&1 &&
    curl -fsSL --connect-timeout 10 --max-time 120 -o "$tmp/7z.tar.xz" "$Z7URL" 2>/dev/null &&
    tar -xJf "$tmp/7z.tar.xz" -C "$tmp" 7zz 2>/dev/null &&
    $SUDO install -m 0755 "$tmp/7zz" "$TOOLS/7zz-rar"; then
    echo "install-tools: $TOOLS/7zz-rar is 7-Zip 25.01's official Linux build (reads RAR)"
  else
    echo "install-tools: could not fetch $Z7URL (no network?): the RAR PPMd bench rows go without 7-Zip" >&2
  fi
  rm -rf "$tmp"
fi
