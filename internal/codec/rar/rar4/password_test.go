package rar4

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"sort"
	"sync"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// acceptLog records the candidates reported through Options.Accepted.
type acceptLog struct {
	mu sync.Mutex
	m  map[int]bool
}

func (a *acceptLog) add(i int) {
	a.mu.Lock()
	a.m[i] = true
	a.mu.Unlock()
}

func (a *acceptLog) list() []int {
	var l []int
	for i := range a.m {
		l = append(l, i)
	}
	sort.Ints(l)
	return l
}

// TestPasswordCandidates reads the corpus's RAR 3 archives whose file
// data are encrypted with candidates "wrong1", "wrong2" and the right
// one, sequentially and through Open: every file matches, and only the
// third candidate is reported as accepted.
func TestPasswordCandidates(t *testing.T) {
	rows := testutil.Manifest(t)
	n := 0
	for _, row := range rows {
		if row.Format != "rar4" || !row.IsFirstOfUnit() || row.Password == "" || row.Expect != "ok" ||
			!row.HasFeature("encrypted-data") || row.HasFeature("rar-algo-2.0") {
			continue
		}
		n++
		t.Run(row.Local, func(t *testing.T) {
			data, err := loadUnit(row, rows)
			if err != nil {
				t.Fatal(err)
			}
			want, err := testutil.ExpectedFiles(row.Expected)
			if err != nil || want == nil {
				t.Skipf("no expected file list (%v)", err)
			}
			// Empty files decide nothing: no candidate is reported.
			wantAccepted := "[]"
			for _, sum := range want {
				if sum != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
					wantAccepted = "[2]"
				}
			}
			pws := []string{"wrong1", "wrong2", row.Password}
			log := &acceptLog{m: map[int]bool{}}
			opt := &archive.Options{Passwords: pws, PasswordAccepted: log.add}
			r, err := openTest(t, row.Path, data, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			res := readAll(r)
			if res.err != nil {
				t.Fatalf("sequential: %v", res.err)
			}
			for name, sum := range want {
				if res.files[name] != sum {
					t.Errorf("sequential: %s: sha256 %s, want %s", name, res.files[name], sum)
				}
			}
			if got := fmt.Sprint(log.list()); got != wantAccepted {
				t.Errorf("sequential: accepted %v, want %s", got, wantAccepted)
			}
			ra, ok := r.(archive.RandomAccess)
			if !ok {
				return
			}
			r2, err := openTest(t, row.Path, data, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			ra = r2.(archive.RandomAccess)
			entries, err := ra.Entries()
			if errors.Is(err, archive.ErrUnsupported) {
				return // solid or multi-volume: sequential only
			}
			if err != nil {
				t.Fatal(err)
			}
			log.m = map[int]bool{}
			for i, e := range entries {
				if e.Type != archive.TypeFile {
					continue
				}
				rc, err := ra.Open(i)
				if err != nil {
					t.Fatalf("Open(%d) %s: %v", i, e.Name, err)
				}
				h := sha256.New()
				_, err = io.Copy(h, rc)
				rc.Close()
				if err != nil {
					t.Fatalf("Open(%d) %s: %v", i, e.Name, err)
				}
				if got := hex.EncodeToString(h.Sum(nil)); got != want[e.Name] {
					t.Errorf("Open: %s: sha256 %s, want %s", e.Name, got, want[e.Name])
				}
			}
			if got := fmt.Sprint(log.list()); got != wantAccepted {
				t.Errorf("Open: accepted %v, want %s", got, wantAccepted)
			}
			// No right candidate: a password error, through Open too.
			r3, err := openTest(t, row.Path, data, &archive.Options{Passwords: []string{"wrong1", "wrong2"}})
			if err != nil {
				t.Fatal(err)
			}
			defer r3.Close()
			for i, e := range entries {
				if e.Type != archive.TypeFile || e.Size == 0 {
					continue
				}
				rc, err := r3.(archive.RandomAccess).Open(i)
				if err == nil {
					_, err = io.Copy(io.Discard, rc)
					rc.Close()
				}
				if !errors.Is(err, archive.ErrPassword) {
					t.Errorf("Open(%d) %s without the right candidate: %v, want a password error", i, e.Name, err)
				}
			}
		})
	}
	if n == 0 {
		t.Skip("no encrypted RAR 3 rows")
	}
}

// TestPasswordCandidatesDamaged truncates and flips bytes of the corpus's
// RAR 3 archives with encrypted file data, read with three candidates
// (sequentially and through Open): errors have a category, never a panic.
func TestPasswordCandidatesDamaged(t *testing.T) {
	rows := testutil.Manifest(t)
	for _, row := range rows {
		if row.Format != "rar4" || !row.IsFirstOfUnit() || row.Password == "" || row.Expect != "ok" ||
			!row.HasFeature("encrypted-data") || row.HasFeature("encrypted-headers") || row.HasFeature("multivolume") {
			continue
		}
		data, err := loadUnit(row, rows)
		if err != nil {
			t.Fatal(err)
		}
		opt := &archive.Options{Passwords: []string{"wrong1", "wrong2", row.Password}}
		check := func(what string, b []byte) {
			r, err := openTest(t, row.Path, b, opt)
			if err != nil {
				if !archive.Categorized(err) {
					t.Errorf("%s %s: open: uncategorized %v", row.Local, what, err)
				}
				return
			}
			defer r.Close()
			if res := readAll(r); res.err != nil && !archive.Categorized(res.err) {
				t.Errorf("%s %s: uncategorized %v", row.Local, what, res.err)
			}
			ra := r.(archive.RandomAccess)
			entries, err := ra.Entries()
			if err != nil {
				return
			}
			for i := range entries {
				rc, err := ra.Open(i)
				if err == nil {
					_, err = io.Copy(io.Discard, rc)
					rc.Close()
				}
				if err != nil && !archive.Categorized(err) {
					t.Errorf("%s %s: Open(%d): uncategorized %v", row.Local, what, i, err)
				}
			}
		}
		for cut := len(data) - 1; cut > 0; cut -= 1 + len(data)/40 {
			check(fmt.Sprintf("cut at %d", cut), data[:cut])
		}
		rng := rand.New(rand.NewSource(3))
		for k := 0; k < 40; k++ {
			b := append([]byte(nil), data...)
			pos := rng.Intn(len(b))
			b[pos] ^= byte(1 << rng.Intn(8))
			check(fmt.Sprintf("bit flip at %d", pos), b)
		}
	}
}

// TestFirstBlockCheck feeds the first-block check random bytes (what a
// wrong key gives): LZ headers hardly ever pass as strong, rarely as weak;
// PPMd headers pass (weak) about half the time.
func TestFirstBlockCheck(t *testing.T) {
	rng := rand.New(rand.NewSource(29))
	var br bitReader
	var bl huffman
	buf := make([]byte, probeLen)
	var lz, lzWeak, lzStrong, ppm, ppmPass int
	for i := 0; i < 20000; i++ {
		rng.Read(buf)
		br.resetBytes(buf)
		g := firstBlock29(&br, &bl, archive.DefaultMemLimit)
		if buf[0]&0x80 != 0 {
			ppm++
			if g != gradeFail {
				ppmPass++
			}
			if g == gradeStrong {
				t.Fatal("a PPMd header graded strong")
			}
		} else {
			lz++
			switch g {
			case gradeWeak:
				lzWeak++
			case gradeStrong:
				lzStrong++
			}
		}
	}
	t.Logf("random LZ headers: %d strong, %d weak of %d; PPMd: %d weak of %d", lzStrong, lzWeak, lz, ppmPass, ppm)
	if lzStrong*1000 > lz || lzWeak*5 > lz {
		t.Errorf("random LZ headers: %d strong, %d weak of %d", lzStrong, lzWeak, lz)
	}
	if ppmPass*3 > ppm*2 {
		t.Errorf("%d of %d random PPMd headers pass", ppmPass, ppm)
	}
	// Short input never passes as LZ tables.
	for n := 0; n < 8; n++ {
		br.resetBytes(make([]byte, n))
		if firstBlock29(&br, &bl, archive.DefaultMemLimit) != gradeFail {
			t.Errorf("%d zero bytes pass", n)
		}
	}
}

// FuzzFirstBlock29 runs the first-block check on any input (seeded with
// the corpus's packed 2.9 streams): no panic, no hang.
func FuzzFirstBlock29(f *testing.F) {
	f.Add([]byte{0x00, 0x00})
	f.Add([]byte{0xa5, 0x10, 0x00, 0x00, 0x00, 0x00})
	f.Add(make([]byte, 300))
	for _, s := range packedSeeds29(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var br bitReader
		var bl huffman
		br.resetBytes(b)
		firstBlock29(&br, &bl, 1<<20)
	})
}

// TestFirstBlockCorpus runs the first-block check on the packed data of
// every unencrypted, non-solid entry compressed by the 2.9 algorithm in
// the corpus's RAR 3/4 archives: the encoder's blocks must all pass.
func TestFirstBlockCorpus(t *testing.T) {
	rows := testutil.Manifest(t)
	var br bitReader
	var bl huffman
	checked, strong := 0, 0
	for _, row := range rows {
		if row.Format != "rar4" || !row.IsFirstOfUnit() || row.HasFeature("split-raw") {
			continue
		}
		data, err := loadUnit(row, rows)
		if err != nil {
			t.Fatal(err)
		}
		r, err := openTest(t, row.Path, data, &archive.Options{})
		if err != nil {
			continue
		}
		r4 := r.(*reader)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			h := r4.hdr
			if r4.multi || h.encrypted() || h.method == 0x30 || h.unpVer != 29 && h.unpVer != 36 || h.flags&fileSolid != 0 || h.unpSize == 0 || h.isDir {
				continue
			}
			n := min(int64(probeLen), h.packSize)
			pos := r4.dataPos
			if pos+n > int64(len(data)) {
				continue
			}
			br.resetBytes(data[pos : pos+n])
			checked++
			if g := firstBlock29(&br, &bl, archive.DefaultMemLimit); g == gradeFail {
				t.Errorf("%s: %s: first block fails the check", row.Local, h.name)
			} else if g == gradeStrong {
				strong++
			}
		}
		r.Close()
	}
	t.Logf("%d entries checked, %d strong", checked, strong)
}

// BenchmarkFirstBlock29 measures the check of one candidate's decrypted
// block start (random bytes: a wrong key).
func BenchmarkFirstBlock29(b *testing.B) {
	buf := make([]byte, probeLen)
	rand.New(rand.NewSource(1)).Read(buf)
	buf[0] &^= 0x80 // LZ tables
	var br bitReader
	var bl huffman
	b.SetBytes(probeLen)
	b.ReportAllocs()
	for b.Loop() {
		br.resetBytes(buf)
		firstBlock29(&br, &bl, archive.DefaultMemLimit)
	}
}
