#!/usr/bin/env bash
# Regenerates the MSI fixtures in internal/codec/msi/testdata with msitools'
# wixl: t.msi (its cabinet embedded) and t-ext.msi with t-ext.cab beside it
# (an external cabinet, which wixl does not write: made by gcab -cz from the
# files named by their File keys, as an MSI's cabinets name them), installing a tree of nested directories, a file
# and a directory with short|long names, and an empty file. files.txt and
# ext-files.txt list "SHA-256 size path" of what msiextract extracts.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/msi/testdata
mkdir -p "$D"
rm -f "$D"/*.msi "$D"/*.cab "$D"/*.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - <<'PY'
import random
r = random.Random(20261202)
open('readme.txt', 'w').write('installed by an MSI\n')
open('data.bin', 'wb').write(bytes(r.randrange(256) for _ in range(70000)))
open('long file name.txt', 'w').write(''.join(r.choice('ab \n') for _ in range(9000)))
open('empty.txt', 'w').close()
PY
wxs() { # embed
  cat <<WXS
<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="8E4D6A5C-1D2B-4C3A-9F8E-7D6C5B4A3921" Name="UnpackTest" Language="1033" Version="1.0.0"
           Manufacturer="unpack" UpgradeCode="12345678-1234-1234-1234-123456789012">
    <Package InstallerVersion="200" Compressed="yes" />
    <Media Id="1" Cabinet="$2" EmbedCab="$1" />
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="ProgramFilesFolder">
        <Directory Id="INSTALLDIR" Name="UnpackTest">
          <Component Id="Main" Guid="11111111-2222-3333-4444-555555555555">
            <File Id="readme" Name="readme.txt" Source="readme.txt" />
            <File Id="empty" Name="empty.txt" Source="empty.txt" />
          </Component>
          <Directory Id="SUB" Name="Sub Directory With Long Name">
            <Component Id="Sub" Guid="11111111-2222-3333-4444-555555555556">
              <File Id="data" Name="data.bin" Source="data.bin" />
              <File Id="long" Name="long file name.txt" Source="long file name.txt" />
            </Component>
          </Directory>
        </Directory>
      </Directory>
    </Directory>
    <Feature Id="F" Level="1"><ComponentRef Id="Main" /><ComponentRef Id="Sub" /></Feature>
  </Product>
</Wix>
WXS
}
sums() {
  (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
    printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"
  done)
}
wxs yes data.cab > t.wxs
wixl -o "$D/t.msi" t.wxs
msiextract -C x "$D/t.msi" >/dev/null
sums x > "$D/files.txt"
mkdir ext && cd ext
wxs no t-ext.cab > t.wxs
cp ../*.txt ../data.bin .
wixl -o t-ext.msi t.wxs
mkdir keys
cp readme.txt keys/readme; cp empty.txt keys/empty; cp data.bin keys/data; cp 'long file name.txt' keys/long
(cd keys && gcab -cz ../t-ext.cab readme empty data long)
cp t-ext.msi t-ext.cab "$D/"
cd "$D" && msiextract -C "$tmp/y" t-ext.msi >/dev/null
sums "$tmp/y" > "$D/ext-files.txt"
ls -l "$D"
