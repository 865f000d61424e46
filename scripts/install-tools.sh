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
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
