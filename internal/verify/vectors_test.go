package verify

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/testutil"
)

// pattern is the deterministic test input of scripts/testdata/verify.sh:
// byte i is (i*131 + i>>9) mod 256.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*131 + i>>9)
	}
	return b
}

// seqBytes is the KAT input: 0x00, 0x01, … of length n.
func seqBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vector is one row of testdata/vectors.tsv, made by reference tools.
type vector struct {
	kind   Kind
	length int
	digest []byte
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "vectors.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string]Kind{}
	for k := range Kind(len(names)) {
		kinds[k.String()] = k
	}
	var vs []vector
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 3 {
			t.Fatalf("bad vectors line %q", sc.Text())
		}
		n, err := strconv.Atoi(fs[1])
		if err != nil {
			t.Fatal(err)
		}
		k, ok := kinds[fs[0]]
		if !ok {
			t.Fatalf("unknown kind %q", fs[0])
		}
		vs = append(vs, vector{k, n, mustHex(t, fs[2])})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatal("no vectors")
	}
	return vs
}

// writeSplit writes p to h in pieces cut at random points (one piece when
// rng is nil).
func writeSplit(h interface{ Write([]byte) (int, error) }, p []byte, rng *rand.Rand) {
	for len(p) > 0 {
		n := len(p)
		if rng != nil {
			n = 1 + rng.IntN(min(len(p), 1+rng.IntN(1200)))
		}
		h.Write(p[:n])
		p = p[n:]
	}
}

// TestVectors checks every kind against digests made by reference tools
// (testdata/vectors.tsv), with one-shot, byte-by-byte and random writes,
// over every implementation.
func TestVectors(t *testing.T) {
	vs := loadVectors(t)
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, v := range vs {
			data := pattern(v.length)
			h := New(v.kind)
			for mode := range 3 {
				h.Reset()
				switch mode {
				case 0:
					h.Write(data)
				case 1:
					for i := range data {
						h.Write(data[i : i+1])
					}
				case 2:
					writeSplit(h, data, rng)
				}
				if got := h.Sum(nil); string(got) != string(v.digest) {
					t.Errorf("%v len %d mode %d: got %x, want %x", v.kind, v.length, mode, got, v.digest)
				}
			}
		}
	})
}

// blake2spKAT holds a few BLAKE2sp known answers of the BLAKE2 reference
// (blake2-kat.json): input 0x00.. of the given length, key 0x00..0x1f when
// keyed.
var blake2spKAT = []struct {
	n     int
	keyed bool
	out   string
}{
	{0, false, "dd0e891776933f43c7d032b08a917e25741f8aa9a12c12e1cac8801500f2ca4f"},
	{1, false, "a6b9eecc25227ad788c99d3f236debc8da408849e9a5178978727a81457f7239"},
	{63, false, "1024c940be7341449b5010522b509f65bbdc1287b455c2bb7f72b2c92fd0d189"},
	{64, false, "52603b6cbfad4966cb044cb267568385cf35f21e6c45cf30aed19832cb51e9f5"},
	{65, false, "fff24d3cc729d395daf978b0157306cb495797e6c8dca1731d2f6f81b849baae"},
	{255, false, "25059f10605e67adfe681350666e15ae976a5a571c13cf5bc8053f430e120a52"},
	{0, true, "715cb13895aeb678f6124160bff21465b30f4f6874193fc851b4621043f09cc6"},
	{1, true, "40578ffa52bf51ae1866f4284d3a157fc1bcd36ac13cbdcb0377e4d0cd0b6603"},
	{63, true, "e85594700e3922a1e8e41eb8b064e7ac6d949d13b5a34523e5a6beac03c8ab29"},
	{64, true, "1d3701a5661bd31ab20562bd07b74dd19ac8f3524b73ce7bc996b788afd2f317"},
	{65, true, "874e1938033d7d383597a2a65f58b554e41106f6d1d50e9ba0eb685f6b6da071"},
	{255, true, "0c8a36597d7461c63a94732821c941856c668376606c86a52de0ee4104c615db"},
}

func TestBLAKE2spKAT(t *testing.T) {
	for _, tc := range blake2spKAT {
		var key []byte
		if tc.keyed {
			key = seqBytes(32)
		}
		h, err := NewBLAKE2sp(key)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(seqBytes(tc.n))
		if got := hex.EncodeToString(h.Sum(nil)); got != tc.out {
			t.Errorf("len %d keyed %v: got %s, want %s", tc.n, tc.keyed, got, tc.out)
		}
	}
}

// vectorsDir is the shared test-vector directory: $UNPACK_VECTORS, or
// "vectors" beside the corpus.
func vectorsDir() string {
	if d := os.Getenv("UNPACK_VECTORS"); d != "" {
		return d
	}
	return filepath.Join(testutil.CorpusPath(), "..", "vectors")
}

// TestBLAKE2spKATFile runs every BLAKE2sp vector of the reference KAT file
// (keyed and unkeyed, lengths 0..255), skipping when the file is absent.
func TestBLAKE2spKATFile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(vectorsDir(), "blake2s-blake2sp-kat.json"))
	if err != nil {
		t.Skipf("BLAKE2 KAT not found (set UNPACK_CORPUS or UNPACK_VECTORS): %v", err)
	}
	var kat []struct{ Hash, In, Key, Out string }
	if err := json.Unmarshal(raw, &kat); err != nil {
		t.Fatal(err)
	}
	forEachImpl(t, func(t *testing.T) {
		n := 0
		for _, v := range kat {
			if v.Hash != "blake2sp" {
				continue
			}
			h, err := NewBLAKE2sp(mustHex(t, v.Key))
			if err != nil {
				t.Fatal(err)
			}
			in := mustHex(t, v.In)
			for _, split := range []int{len(in), max(1, len(in)/2), 1} {
				h.Reset()
				for p := in; len(p) > 0; {
					k := min(split, len(p))
					h.Write(p[:k])
					p = p[k:]
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != v.Out {
					t.Fatalf("in len %d key %q split %d: got %s, want %s", len(in), v.Key, split, got, v.Out)
				}
			}
			n++
		}
		if n != 512 {
			t.Errorf("ran %d BLAKE2sp vectors, want 512", n)
		}
	})
}

func TestBLAKE2spKeySize(t *testing.T) {
	if _, err := NewBLAKE2sp(make([]byte, 33)); err != ErrKeySize {
		t.Errorf("33-byte key: err %v, want ErrKeySize", err)
	}
}

// TestXXHFrames compares XXH64 and XXH32 with the content checksums the zstd
// and lz4 tools wrote into frames of the 100003-byte pattern: zstd stores the
// low 32 bits of XXH64, lz4 the XXH32, both little-endian as the frame's last
// four bytes.
func TestXXHFrames(t *testing.T) {
	data := pattern(100003)
	for _, tc := range []struct {
		file  string
		kind  Kind
		magic string
		flag  func(frame []byte) bool
	}{
		{"pattern-100003-zstd.zst", XXH64, "\x28\xb5\x2f\xfd", func(f []byte) bool { return f[4]&0x04 != 0 }},
		{"pattern-100003-lz4.lz4", XXH32, "\x04\x22\x4d\x18", func(f []byte) bool { return f[4]&0x04 != 0 }},
	} {
		frame, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if len(frame) < 9 || string(frame[:4]) != tc.magic || !tc.flag(frame) {
			t.Fatalf("%s: not a frame with a content checksum", tc.file)
		}
		stored := binary.LittleEndian.Uint32(frame[len(frame)-4:])
		h := New(tc.kind)
		writeSplit(h, data, rand.New(rand.NewPCG(11, 12)))
		sum := h.Sum(nil)
		got := binary.BigEndian.Uint32(sum[len(sum)-4:]) // the low 32 bits
		if got != stored {
			t.Errorf("%s: %v low 32 bits %08x, frame stores %08x", tc.file, tc.kind, got, stored)
		}
	}
}
