#!/usr/bin/env bash
# RPM fixtures from rpmbuild: one small package per payload compressor
# (gzip, xz, zstd, bzip2, lzma, none), each with a payload digest and
# header digests. Expected payload: rpm2cpio's output, its SHA-256 in
# SHA256SUMS. Output: internal/codec/rpm/testdata/.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/internal/codec/rpm/testdata
mkdir -p "$out"
rm -f "$out"/*.rpm "$out"/SHA256SUMS
export SOURCE_DATE_EPOCH=1612325106
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{SPECS,SOURCES,BUILD,RPMS,SRPMS,BUILDROOT}
cat > "$work/SPECS/fixture.spec" <<'SPEC'
Name: fixture
Version: 1.0
Release: 1
Summary: unpack test fixture
License: MIT
BuildArch: noarch
%description
A package for unpack's tests.
%install
mkdir -p %{buildroot}/usr/share/fixture %{buildroot}/etc
printf 'hello, rpm\n' > %{buildroot}/usr/share/fixture/hello.txt
python3 -c "import sys; sys.stdout.write(''.join('line %d\n' % i for i in range(3000)))" > %{buildroot}/usr/share/fixture/lines.txt
ln -s ../usr/share/fixture/hello.txt %{buildroot}/etc/fixture-link
%files
/usr/share/fixture
/etc/fixture-link
SPEC
for c in w9.gzdio w6.xzdio w19.zstdio w9.bzdio w6.lzdio w.ufdio; do
  rpmbuild --quiet --define "_topdir $work" --define "_binary_payload $c" \
    --define "_buildhost fixture" --define "use_source_date_epoch_as_buildtime 1" \
    --define "clamp_mtime_to_source_date_epoch 1" -bb "$work/SPECS/fixture.spec" >/dev/null 2>&1
  f=$(ls "$work"/RPMS/noarch/*.rpm)
  mv "$f" "$out/fixture-${c#*.}.rpm"
done
(cd "$out" && for f in *.rpm; do printf '%s  %s\n' "$(rpm2cpio "$f" | sha256sum | cut -d' ' -f1)" "$f"; done) > "$out/SHA256SUMS"
ls -l "$out"
