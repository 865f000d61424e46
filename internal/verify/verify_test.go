package verify

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// TestKnownValues checks the check value ("123456789") of every kind.
func TestKnownValues(t *testing.T) {
	tests := []struct {
		kind Kind
		want string
	}{
		{CRC32, "cbf43926"},
		{CRC32C, "e3069283"},
		{CRC64, "995dc9bbdf1939fa"},
		{SHA256, "15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225"},
		{XXH32, "937bad67"},         // xxhsum -H0
		{XXH64, "8cb841db40e6ae83"}, // xxhsum -H1
		{CRC16, "3926"},
	}
	for _, tc := range tests {
		h := New(tc.kind)
		h.Write([]byte("123456789"))
		if got := hex.EncodeToString(h.Sum(nil)); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.kind, got, tc.want)
		}
		if h.Size() != tc.kind.Size() {
			t.Errorf("%v: Size %d, Kind.Size %d", tc.kind, h.Size(), tc.kind.Size())
		}
	}
	if New(None) != nil || New(Kind(200)) != nil {
		t.Error("New of None or an unknown kind is not nil")
	}
}

// TestRAR5Keyed checks the RAR 5 tweaked checksums against values computed
// with Python's hmac module following unrar's ConvertHashToMAC.
func TestRAR5Keyed(t *testing.T) {
	key := seqBytes(32)
	tests := []struct {
		kind   Kind
		digest string
		want   string
	}{
		{CRC32, "cbf43926", "9c98aacc"},
		{BLAKE2sp, "dd0e891776933f43c7d032b08a917e25741f8aa9a12c12e1cac8801500f2ca4f",
			"0060204526c65817441cff32e7f7b2e63c037d5e005877d3fdb750805ef9eb92"},
		{CRC64, "995dc9bbdf1939fa", "995dc9bbdf1939fa"}, // no keyed form: unchanged
	}
	for _, tc := range tests {
		if got := hex.EncodeToString(RAR5Keyed(tc.kind, key, mustHex(t, tc.digest))); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.kind, got, tc.want)
		}
	}
}

// readerCases drive the Reader and Writer stages: matching, mismatching and
// unchecked streams.
var readerCases = []struct {
	name    string
	kind    Kind
	data    string
	want    string // hex; "" for nil (unchecked)
	hashKey []byte
	err     bool
}{
	{"crc32 ok", CRC32, "123456789", "cbf43926", nil, false},
	{"crc32 bad", CRC32, "123456789", "cbf43927", nil, true},
	{"crc64 ok", CRC64, "123456789", "995dc9bbdf1939fa", nil, false},
	{"blake2sp ok", BLAKE2sp, "", "dd0e891776933f43c7d032b08a917e25741f8aa9a12c12e1cac8801500f2ca4f", nil, false},
	{"blake2sp bad", BLAKE2sp, "x", "dd0e891776933f43c7d032b08a917e25741f8aa9a12c12e1cac8801500f2ca4f", nil, true},
	{"unchecked", XXH64, "abc", "", nil, false},
	{"none", None, "abc", "00", nil, false},
	{"rar5 keyed ok", CRC32, "123456789", "9c98aacc", seqBytes(32), false},
	{"rar5 keyed plain digest", CRC32, "123456789", "cbf43926", seqBytes(32), true},
}

func TestReader(t *testing.T) {
	wraps := []struct {
		name string
		f    func(io.Reader) io.Reader
	}{
		{"plain", func(r io.Reader) io.Reader { return r }},
		{"onebyte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"dataerr", iotest.DataErrReader},
	}
	v := &Reader{}
	for _, tc := range readerCases {
		for _, w := range wraps {
			var want []byte
			if tc.want != "" {
				want = mustHex(t, tc.want)
			}
			v.Reset(w.f(strings.NewReader(tc.data)), tc.kind, want)
			if tc.hashKey != nil {
				v.SetRAR5Key(tc.hashKey)
			}
			got, err := io.ReadAll(v)
			if string(got) != tc.data {
				t.Errorf("%s/%s: read %q", tc.name, w.name, got)
			}
			if (err != nil) != tc.err {
				t.Errorf("%s/%s: err %v, want error %v", tc.name, w.name, err, tc.err)
			}
			if err != nil {
				var me *MismatchError
				if !errors.Is(err, ErrChecksum) || !errors.As(err, &me) || me.Kind != tc.kind || !bytes.Equal(me.Want, want) {
					t.Errorf("%s/%s: error %#v is not a proper MismatchError", tc.name, w.name, err)
				}
				// The error is sticky.
				if _, err2 := v.Read(make([]byte, 1)); err2 != err {
					t.Errorf("%s/%s: second Read error %v", tc.name, w.name, err2)
				}
			}
		}
	}
}

func TestWriter(t *testing.T) {
	v := &Writer{}
	for _, tc := range readerCases {
		var want []byte
		if tc.want != "" {
			want = mustHex(t, tc.want)
		}
		var out bytes.Buffer
		v.Reset(&out, tc.kind, want)
		if tc.hashKey != nil {
			v.SetRAR5Key(tc.hashKey)
		}
		for i := range len(tc.data) {
			if _, err := v.Write([]byte{tc.data[i]}); err != nil {
				t.Fatal(err)
			}
		}
		if out.String() != tc.data {
			t.Errorf("%s: wrote %q", tc.name, out.String())
		}
		err := v.Close()
		if (err != nil) != tc.err {
			t.Errorf("%s: err %v, want error %v", tc.name, err, tc.err)
		}
		if err != nil && !errors.Is(err, ErrChecksum) {
			t.Errorf("%s: %v is not ErrChecksum", tc.name, err)
		}
	}
	// A nil writer only hashes.
	w := NewWriter(nil, CRC32, mustHex(t, "cbf43926"))
	io.WriteString(w, "123456789")
	if err := w.Close(); err != nil {
		t.Errorf("hash-only writer: %v", err)
	}
	if got := hex.EncodeToString(w.Sum()); got != "cbf43926" {
		t.Errorf("hash-only writer Sum %s", got)
	}
}

// TestReaderPassesErrors checks that a read error other than EOF is passed
// through unchanged, without a checksum verdict.
func TestReaderPassesErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(iotest.ErrReader(boom), CRC32, []byte{1, 2, 3, 4})
	if _, err := r.Read(make([]byte, 8)); err != boom {
		t.Errorf("got %v, want boom", err)
	}
}

// TestReaderZeroAllocs checks that a Reader reused with Reset allocates
// nothing per stream when the checksum matches.
func TestReaderZeroAllocs(t *testing.T) {
	data := pattern(3000)
	for _, k := range []Kind{CRC32, CRC64, BLAKE2sp, XXH64} {
		h := New(k)
		h.Write(data)
		want := h.Sum(nil)
		src := bytes.NewReader(data)
		v := NewReader(src, k, want)
		buf := make([]byte, 1000)
		if allocs := testing.AllocsPerRun(10, func() {
			src.Reset(data)
			v.Reset(src, k, want)
			for {
				if _, err := v.Read(buf); err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					break
				}
			}
		}); allocs != 0 {
			t.Errorf("%v: %v allocations per stream", k, allocs)
		}
	}
}

// TestXXH32Sum checks the one-shot XXH32 against the streaming hash at
// lengths around its 16-byte stripes.
func TestXXH32Sum(t *testing.T) {
	p := make([]byte, 300)
	for i := range p {
		p[i] = byte(i*131 + 7)
	}
	for n := range len(p) {
		h := New(XXH32)
		h.Write(p[:n])
		want := h.(interface{ Sum32() uint32 }).Sum32()
		if got := XXH32Sum(p[:n]); got != want {
			t.Fatalf("length %d: XXH32Sum %08x, streaming %08x", n, got, want)
		}
	}
}

// TestSumCRC16ITU checks the CRC-16/XMODEM check value and ECMA-167's
// example (a tag CRC over bytes 0x70 0x6A 0x77, 0x3299).
func TestSumCRC16ITU(t *testing.T) {
	if got := SumCRC16ITU([]byte("123456789")); got != 0x31C3 {
		t.Errorf("check value %04x, want 31c3", got)
	}
	if got := SumCRC16ITU([]byte{0x70, 0x6A, 0x77}); got != 0x3299 {
		t.Errorf("ECMA-167 example %04x, want 3299", got)
	}
}

// TestCRC16ITUSlicing checks the slicing-by-8 path against the bytewise
// one at every length up to 67, from every starting value's high and low
// byte patterns, and split at every point.
func TestCRC16ITUSlicing(t *testing.T) {
	tab := crcITUTables()
	data := make([]byte, 67)
	for i := range data {
		data[i] = byte(i*151 + 7)
	}
	for n := 0; n <= len(data); n++ {
		for _, c := range []uint16{0, 0xFFFF, 0x1234, 0x8001} {
			want := updateCRC16ITUBytes(c, &tab[0], data[:n])
			if got := updateCRC16ITU(c, tab, data[:n]); got != want {
				t.Fatalf("length %d from %04x: %04x, bytewise %04x", n, c, got, want)
			}
			for k := 0; k <= n; k++ {
				if got := updateCRC16ITU(updateCRC16ITU(c, tab, data[:k]), tab, data[k:n]); got != want {
					t.Fatalf("length %d from %04x split at %d: %04x, bytewise %04x", n, c, k, got, want)
				}
			}
		}
	}
}

func BenchmarkCRC16ITU(b *testing.B) {
	for _, n := range []int{176, 2032} { // a file entry's tag CRC, a whole block's
		data := make([]byte, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				SumCRC16ITU(data)
			}
		})
	}
}

// TestCRC16ARC checks the CRC-16/ARC check value, the slicing path against
// the bytewise one at every length and split, and the hash form.
func TestCRC16ARC(t *testing.T) {
	if got := UpdateCRC16ARC(0, []byte("123456789")); got != 0xBB3D {
		t.Errorf("check value %04x, want bb3d", got)
	}
	data := make([]byte, 67)
	for i := range data {
		data[i] = byte(i*151 + 7)
	}
	for n := range len(data) {
		var want uint16
		for _, b := range data[:n] {
			want = want>>8 ^ crcARCTables()[0][byte(want)^b]
		}
		for cut := 0; cut <= n; cut += 3 {
			if got := UpdateCRC16ARC(UpdateCRC16ARC(0, data[:cut]), data[cut:n]); got != want {
				t.Fatalf("length %d cut %d: %04x, want %04x", n, cut, got, want)
			}
		}
	}
	h := New(CRC16ARC)
	h.Write([]byte("123456789"))
	if got := h.Sum(nil); !bytes.Equal(got, []byte{0xBB, 0x3D}) || CRC16ARC.Size() != 2 || CRC16ARC.String() != "CRC-16/ARC" {
		t.Errorf("hash sum %x, size %d, name %s", got, CRC16ARC.Size(), CRC16ARC)
	}
}
