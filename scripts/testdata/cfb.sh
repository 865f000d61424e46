#!/usr/bin/env bash
# Regenerates the compound-file fixture internal/codec/cfb/testdata/t.msi:
# a Windows Installer database written by msitools' wixl (version 3, 512-
# byte sectors, mini stream and FAT streams, an embedded cabinet), and
# streams.txt: "SHA-256 size name" of every stream as 7-Zip extracts them
# (7zz x -tCompound: the raw streams, MSI names unpacked).
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/cfb/testdata
mkdir -p "$D"
rm -f "$D"/t.msi "$D"/streams.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
python3 - <<'PY'
import random
r = random.Random(20261202)
open('readme.txt', 'w').write('hello from a compound file\n')
open('data.bin', 'wb').write(bytes(r.randrange(256) for _ in range(20000)))
PY
cat > t.wxs <<'WXS'
<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="8E4D6A5C-1D2B-4C3A-9F8E-7D6C5B4A3921" Name="UnpackTest" Language="1033" Version="1.0.0"
           Manufacturer="unpack" UpgradeCode="12345678-1234-1234-1234-123456789012">
    <Package InstallerVersion="200" Compressed="yes" />
    <Media Id="1" Cabinet="data.cab" EmbedCab="yes" />
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="ProgramFilesFolder">
        <Directory Id="INSTALLDIR" Name="UnpackTest">
          <Component Id="Main" Guid="11111111-2222-3333-4444-555555555555">
            <File Id="readme" Name="readme.txt" Source="readme.txt" />
            <File Id="data" Name="data.bin" Source="data.bin" />
          </Component>
        </Directory>
      </Directory>
    </Directory>
    <Feature Id="F" Level="1"><ComponentRef Id="Main" /></Feature>
  </Product>
</Wix>
WXS
wixl -o "$D/t.msi" t.wxs
7zz x -tCompound -y -bd -oraw "$D/t.msi" >/dev/null
(cd raw && find . -type f | LC_ALL=C sort | while read -r f; do
  printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"
done) > "$D/streams.txt"
ls -l "$D"
