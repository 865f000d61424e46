package archive

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"strings"
)

// Format names a container or stream format.
type Format string

// The formats unpack detects.
const (
	Unknown  Format = ""
	XZ       Format = "xz"
	LZMA     Format = "lzma" // LZMA-alone (.lzma)
	Lzip     Format = "lzip"
	Gzip     Format = "gzip"
	Bzip2    Format = "bzip2"
	Zstd     Format = "zstd"
	LZ4      Format = "lz4"
	Brotli   Format = "brotli"
	Tar      Format = "tar"
	Zip      Format = "zip"
	RAR4     Format = "rar4" // RAR 1.5 to 4.x
	RAR5     Format = "rar5"
	SevenZip Format = "7z"
	ISO      Format = "iso" // disc image: ISO 9660, UDF or both
	Squashfs Format = "squashfs"
	Compress Format = "compress" // Unix compress, .Z (LZW)
	Lzop     Format = "lzop"
	Cpio     Format = "cpio"
	Ar       Format = "ar"
	Deb      Format = "deb" // a Debian package: an ar archive of tars
	RPM      Format = "rpm" // an RPM package: headers and a compressed cpio
	XAR      Format = "xar" // XAR, as macOS .pkg and .xip use
	CFB      Format = "cfb" // a compound file (OLE structured storage: .msi, .doc…)
	MSI      Format = "msi" // a Windows Installer database (a compound file) read as the tree it installs
	CAB      Format = "cab" // a Microsoft cabinet
	CHM      Format = "chm" // Microsoft Compiled HTML Help (ITSF)
	LZH      Format = "lzh" // LHA/LArc (.lzh, .lha, .lzs)
	ARJ      Format = "arj"
	WIM      Format = "wim" // Windows Imaging: .wim, split .swm, .esd
)

// Stream reports whether f is a single-stream compressor (an archive of one
// entry whose content may itself be a tar).
func (f Format) Stream() bool {
	switch f {
	case XZ, LZMA, Lzip, Gzip, Bzip2, Zstd, LZ4, Brotli:
		return true
	case Compress, Lzop:
		return true
	}
	return false
}

// Suffixes are the file name endings of each stream format, longest first
// within a format, used to name the single entry and as a tie-breaker; and
// of disc images.
var Suffixes = map[Format][]string{
	XZ:     {".txz", ".xz"},
	LZMA:   {".tlz", ".lzma"},
	Lzip:   {".lz"},
	Gzip:   {".tgz", ".gz", ".z"},
	Bzip2:  {".tbz2", ".tbz", ".bz2"},
	Zstd:   {".tzst", ".zst", ".zstd"},
	LZ4:    {".lz4"},
	Brotli: {".br"},
	ISO:    {".iso", ".udf"},
	// .Z is found as ".z" (names are compared in lower case).
	Compress: {".taz", ".z"},
	Lzop:     {".tzo", ".lzo"},
	XAR:      {".xar", ".pkg", ".xip"},
	MSI:      {".msi"},
	CAB:      {".cab"},
	CHM:      {".chm"},
	LZH:      {".lzh", ".lha", ".lzs"},
	ARJ:      {".arj"},
	WIM:      {".wim", ".swm", ".esd"},
}

// isISO reports whether head holds a disc image's first volume structure
// where it must be (sector 16, whatever a hybrid image has in front): an
// ISO 9660 volume descriptor, or the start of a UDF volume recognition
// sequence.
func isISO(head []byte) bool {
	const at = 16 * 2048
	if len(head) < at+2048+6 {
		return false
	}
	id := string(head[at+1 : at+6])
	return id == "CD001" || id == "BEA01" && string(head[at+2048+1:at+2048+5]) == "NSR0"
}

var (
	magicXZ      = []byte{0xFD, '7', 'z', 'X', 'Z', 0}
	magic7z      = []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}
	magicRAR4    = []byte("Rar!\x1a\x07\x00")
	magicRAR5    = []byte("Rar!\x1a\x07\x01\x00")
	magicLzip    = []byte("LZIP")
	magicZipLoc  = []byte("PK\x03\x04")
	magicZipEnd  = []byte("PK\x05\x06")
	magicZipSpan = []byte("PK\x07\x08PK\x03\x04")
	magicZipSp00 = []byte("PK00PK\x03\x04")
	magicAr      = []byte("!<arch>\n")
	magicThin    = []byte("!<thin>\n")
	magicLzop    = []byte{0x89, 'L', 'Z', 'O', 0, '\r', '\n', 0x1a, '\n'}
)

// SFXScanLimit is how far into a file detection looks for an archive behind
// a self-extractor stub.
const SFXScanLimit = 4 << 20

// Detect names the format of data starting with head (as much of the start
// as is available; 64 KiB is enough for all but SFX stubs), using name's
// extension only as a tie-breaker and for brotli, which has no magic.
// tail, when non-nil, is the end of the file (up to 64 KiB + 22 bytes) and
// lets zip archives with a prefix or no entries be found by their end record.
func Detect(head, tail []byte, name string) Format {
	switch {
	case bytes.HasPrefix(head, magicXZ):
		return XZ
	case bytes.HasPrefix(head, magic7z):
		return SevenZip
	case bytes.HasPrefix(head, magicRAR5):
		return RAR5
	case bytes.HasPrefix(head, magicRAR4):
		return RAR4
	case bytes.HasPrefix(head, magicLzip):
		return Lzip
	case bytes.HasPrefix(head, magicZipLoc), bytes.HasPrefix(head, magicZipEnd),
		bytes.HasPrefix(head, magicZipSpan), bytes.HasPrefix(head, magicZipSp00):
		return Zip
	case len(head) >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8:
		return Gzip
	case isBzip2(head):
		return Bzip2
	case bytes.HasPrefix(head, []byte("hsqs")) && len(head) >= 30 && binary.LittleEndian.Uint16(head[28:]) == 4:
		return Squashfs
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x9d:
		return Compress
	case bytes.HasPrefix(head, []byte{0xED, 0xAB, 0xEE, 0xDB}):
		return RPM
	case bytes.HasPrefix(head, []byte("MSWIM\x00\x00\x00")):
		return WIM
	case bytes.HasPrefix(head, magicLzop):
		return Lzop
	case bytes.HasPrefix(head, []byte("xar!")):
		return XAR
	case bytes.HasPrefix(head, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")):
		// An .msi is read as the tree it installs; --format cfb gives
		// its raw streams.
		if hasSuffix(name, MSI) {
			return MSI
		}
		return CFB
	case IsCpioHeader(head):
		return Cpio
	case bytes.HasPrefix(head, []byte("MSCF\x00\x00\x00\x00")):
		return CAB
	case bytes.HasPrefix(head, []byte("ITSF")) && len(head) >= 8 && binary.LittleEndian.Uint32(head[4:]) <= 4:
		return CHM
	case isARJ(head):
		return ARJ
	case bytes.HasPrefix(head, magicAr), bytes.HasPrefix(head, magicThin):
		// A .deb starts with its debian-binary member.
		if len(head) >= 24 && strings.TrimRight(string(head[8:24]), " /") == "debian-binary" {
			return Deb
		}
		return Ar
	}
	if len(head) >= 4 {
		m := binary.LittleEndian.Uint32(head)
		switch {
		case m == 0xFD2FB528:
			return Zstd
		case m&0xFFFFFFF0 == 0x184D2A50:
			// A skippable frame: zstd and lz4 both allow it. Look past it.
			// The length is checked as a uint64 before it becomes an int:
			// 8+n overflows a 32-bit int.
			if len(head) >= 8 {
				if n := uint64(binary.LittleEndian.Uint32(head[4:])); n < uint64(len(head)-8) {
					if f := Detect(head[8+int(n):], nil, name); f == Zstd || f == LZ4 {
						return f
					}
				}
			}
			if hasSuffix(name, LZ4) {
				return LZ4
			}
			return Zstd
		case m == 0x184D2204, m == 0x184C2102:
			return LZ4
		}
	}
	if isISO(head) {
		return ISO
	}
	if IsTarHeader(head) {
		return Tar
	}
	if IsLZHHeader(head) {
		return LZH
	}
	if isLZMAAlone(head, name) {
		return LZMA
	}
	if hasSuffix(name, Brotli) {
		return Brotli
	}
	// Self-extractors and prefixed archives: a signature further in.
	if i := bytes.Index(head, magicRAR5); i > 0 {
		return RAR5
	}
	if i := bytes.Index(head, magicRAR4); i > 0 {
		return RAR4
	}
	if tail != nil && bytes.Contains(tail, magicZipEnd) {
		return Zip
	}
	if i := bytes.Index(head, magic7z); i > 0 {
		return SevenZip
	}
	if lzhSFX(head) {
		return LZH
	}
	for i := 0; ; i++ {
		j := bytes.Index(head[i:], []byte{0x60, 0xEA})
		if j < 0 {
			break
		}
		if i += j; isARJ(head[i:]) {
			return ARJ
		}
	}
	if IsEmptyTar(head) {
		return Tar
	}
	return Unknown
}

// TailMatters reports whether Detect could name head otherwise if given the
// file's tail, when without it it names it f: only the formats Detect finds
// after its check for a zip's end record (signatures behind a stub, an empty
// tar, nothing) can change, so for the rest the tail need not be read.
func TailMatters(f Format) bool {
	switch f {
	case Unknown, SevenZip, LZH, ARJ, Tar:
		return true
	}
	return false
}

// SFXOffset returns where a RAR or 7z signature starts in head, or -1.
func SFXOffset(head []byte, f Format) int {
	switch f {
	case RAR5:
		return bytes.Index(head, magicRAR5)
	case RAR4:
		return bytes.Index(head, magicRAR4)
	case SevenZip:
		return bytes.Index(head, magic7z)
	}
	return -1
}

func isBzip2(h []byte) bool {
	if len(h) < 4 || h[0] != 'B' || h[1] != 'Z' || h[2] != 'h' || h[3] < '1' || h[3] > '9' {
		return false
	}
	if len(h) < 10 {
		return true
	}
	// Block magic (pi) or end-of-stream magic (sqrt pi).
	return bytes.HasPrefix(h[4:], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}) ||
		bytes.HasPrefix(h[4:], []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90})
}

// IsTarHeader reports whether h starts with a 512-byte tar header whose
// checksum is right (ustar, GNU or v7).
func IsTarHeader(h []byte) bool {
	if len(h) < 512 {
		return false
	}
	h = h[:512]
	field := bytes.TrimRight(bytes.TrimLeft(h[148:156], " \x00"), " \x00")
	if len(field) == 0 {
		return false
	}
	var want int64
	for _, c := range field {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	var unsigned, signed int64
	for i, c := range h {
		if i >= 148 && i < 156 {
			c = ' '
		}
		unsigned += int64(c)
		signed += int64(int8(c))
	}
	return want == unsigned || want == signed
}

// IsCpioHeader reports whether h starts with a cpio header: the ASCII
// magic of the odc, newc or crc format followed by digits, or the old
// binary magic in either byte order with a sane name size and, when the
// name is within h, a NUL at its end.
func IsCpioHeader(h []byte) bool {
	if len(h) >= 6 && (string(h[:6]) == "070707" || string(h[:6]) == "070701" || string(h[:6]) == "070702") {
		digits, n := "01234567", 76
		if h[5] != '7' {
			digits, n = "0123456789abcdefABCDEF", 110
		}
		if len(h) < n {
			return false
		}
		for _, c := range h[6:n] {
			if strings.IndexByte(digits, c) < 0 {
				return false
			}
		}
		return true
	}
	if len(h) < 26 {
		return false
	}
	var n int
	switch {
	case h[0] == 0xc7 && h[1] == 0x71:
		n = int(binary.LittleEndian.Uint16(h[20:]))
	case h[0] == 0x71 && h[1] == 0xc7:
		n = int(binary.BigEndian.Uint16(h[20:]))
	default:
		return false
	}
	return n >= 2 && n <= 4096 && (26+n > len(h) || h[26+n-1] == 0)
}

// IsLZHHeader reports whether h starts with an LHA file header: a method
// field ("-lh5-", "-lz5-", "-pm0-"…) at offset 2, a header level of 0 to
// 3 at offset 20 and, for levels 0 and 1, the header's byte sum right.
func IsLZHHeader(h []byte) bool {
	if len(h) < 22 || h[2] != '-' || h[6] != '-' {
		return false
	}
	switch m := h[5]; string(h[3:5]) {
	case "lh":
		if !(m >= '0' && m <= '9' || m == 'd' || m == 'x') {
			return false
		}
	case "lz":
		if m != '4' && m != '5' && m != 's' {
			return false
		}
	case "pm":
		if m != '0' && m != '1' && m != '2' {
			return false
		}
	default:
		return false
	}
	switch h[20] {
	case 0, 1:
		n := int(h[0])
		if n < 22 {
			return false
		}
		if len(h) < n+2 {
			return true
		}
		var sum byte
		for _, c := range h[2 : n+2] {
			sum += c
		}
		return sum == h[1]
	case 2:
		return binary.LittleEndian.Uint16(h) >= 26
	case 3:
		return binary.LittleEndian.Uint16(h) == 4
	}
	return false
}

// isARJ reports whether h starts with an ARJ main header: the id 60 EA,
// a basic header of 30 to 2600 bytes whose first field fits in it, the
// main header's file type (2) and, when the header is within h, a right
// CRC-32.
func isARJ(h []byte) bool {
	if len(h) < 12 || h[0] != 0x60 || h[1] != 0xEA {
		return false
	}
	n := int(binary.LittleEndian.Uint16(h[2:]))
	if n < 30 || n > 2600 || int(h[4]) < 30 || int(h[4]) > n || h[10] != 2 {
		return false
	}
	if len(h) < 4+n+4 {
		return true
	}
	return crc32.ChecksumIEEE(h[4:4+n]) == binary.LittleEndian.Uint32(h[4+n:])
}

// lzhSFX reports whether an LHA header starts within the first 128 KiB
// of head, as in LHA's self-extracting programs (lhasa's 64 KiB scan
// counts half the bytes it passes, and some stubs are that long).
func lzhSFX(head []byte) bool {
	head = head[:min(len(head), 128<<10+22)]
	for i := 0; ; i++ {
		j := bytes.IndexByte(head[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		if i >= 2 && IsLZHHeader(head[i-2:]) {
			return true
		}
	}
}

// IsEmptyTar recognises a tar archive of no entries: its end marker, two
// or more 512-byte blocks of zeros, and nothing else in head.
func IsEmptyTar(h []byte) bool {
	if len(h) < 1024 || len(h)%512 != 0 {
		return false
	}
	for _, c := range h {
		if c != 0 {
			return false
		}
	}
	return true
}

// isLZMAAlone recognises the 13-byte LZMA-alone header as xz-utils does:
// properties below 225, a dictionary of 2^n or 2^n+2^(n-1) bytes (or any
// size with a .lzma name), and an unknown size or one below 256 GiB.
func isLZMAAlone(h []byte, name string) bool {
	if len(h) < 13 || h[0] >= 225 {
		return false
	}
	dict := binary.LittleEndian.Uint32(h[1:])
	size := binary.LittleEndian.Uint64(h[5:])
	if size != ^uint64(0) && size >= 1<<38 {
		return false
	}
	if hasSuffix(name, LZMA) {
		return true
	}
	if dict == 0xFFFFFFFF {
		return true
	}
	d := dict - 1
	d |= d >> 2
	d |= d >> 3
	d |= d >> 4
	d |= d >> 8
	d |= d >> 16
	d++
	return d == dict && dict >= 4096
}

func hasSuffix(name string, f Format) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, s := range Suffixes[f] {
		if ext == s {
			return true
		}
	}
	return false
}

// StreamEntryName is the name a single-stream archive's entry gets, as
// gunzip would name it: the file name without its suffix ("a.tar.gz" →
// "a.tar", "a.tgz" → "a.tar"), "NAME.out" when there is no known suffix,
// or "stdin.out" for standard input.
func StreamEntryName(path string, f Format) string {
	if path == "" || path == "-" {
		return "stdin.out"
	}
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	for _, s := range Suffixes[f] {
		if strings.HasSuffix(lower, s) && len(base) > len(s) {
			stem := base[:len(base)-len(s)]
			if strings.HasPrefix(s, ".t") {
				return stem + ".tar" // .tgz, .txz, .tbz2, .tzst, .tlz
			}
			return stem
		}
	}
	return base + ".out"
}

// containerSuffixes are the file name endings of the container formats
// (and of self-extractors).
var containerSuffixes = []string{".tar", ".zip", ".7z", ".rar", ".exe"}

// Stem is an archive's file name without its archive suffixes, to name a
// folder after it: "a.tar.gz" → "a", "b.part1.rar" → "b", "c.7z.001" → "c",
// "-" → "stdin"; "archive" when nothing is left.
func Stem(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	lower := strings.ToLower(base)
	cut := 0
	try := func(s string) {
		if len(s) > cut && len(base) > len(s) && strings.HasSuffix(lower, s) {
			cut = len(s)
		}
	}
	for _, list := range Suffixes {
		for _, s := range list {
			try(s)
			try(".tar" + s)
		}
	}
	for _, s := range containerSuffixes {
		try(s)
	}
	base = base[:len(base)-cut]
	for _, s := range []string{".7z.001", ".zip.001"} {
		if len(base) > len(s) && strings.HasSuffix(strings.ToLower(base), s) {
			base = base[:len(base)-len(s)]
		}
	}
	base = trimPart(base)
	if base == "" || base == "." || base == ".." {
		return "archive"
	}
	return base
}

// trimPart removes a ".partN" ending (a multi-volume RAR's).
func trimPart(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i < len(".part") || !strings.EqualFold(name[i-len(".part"):i], ".part") {
		return name
	}
	return name[:i-len(".part")]
}
