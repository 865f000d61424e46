package rar4

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/rarcrypt"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// RAR 1.5 encryption has no sample in the corpus and no writer here: the
// archives below are written with rarcrypt's cipher, read back by our
// reader and, where it is installed, by unar (XADMaster's independent
// XADRAR15CryptHandle), which must give the same bytes.

// entries15 returns a stored entry and the compressed entry of
// Rar15.rar (the RAR 1.5 algorithm), each with its plain content.
func entries15(t *testing.T) []struct {
	e     rar3Entry
	plain []byte
} {
	plain := patternData(100<<10, 15)
	out := []struct {
		e     rar3Entry
		plain []byte
	}{{rar3Entry{name: "stored.txt", packed: plain, unpSize: int64(len(plain)), crc: crc32.ChecksumIEEE(plain), unpVer: 15, method: 0x30}, plain}}
	arc, err := os.ReadFile(filepath.Join("testdata", "sharpcompress-Rar15.rar"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := openBytes(arc, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	x := r.(*reader)
	for {
		if _, err := r.Next(); err != nil {
			t.Fatalf("no compressed RAR 1.5 entry: %v", err)
		}
		h := x.hdr
		if h.unpVer != 15 || h.method == 0x30 || h.unpSize == 0 {
			continue
		}
		packed := arc[x.dataPos : x.dataPos+h.packSize]
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		e := rar3Entry{name: "packed.bin", packed: packed, unpSize: h.unpSize, crc: h.crc, unpVer: 15, method: h.method, dictFlags: h.flags & fileDictMask}
		return append(out, struct {
			e     rar3Entry
			plain []byte
		}{e, data})
	}
}

// encrypt15 writes e encrypted with the RAR 1.5 cipher under password.
func encrypt15(e rar3Entry, password string) []byte {
	data := make([]byte, len(e.packed))
	rarcrypt.NewCipher15(password).XORKeyStream(data, e.packed)
	return archiveBytes(e, filePassword, nil, data)
}

func TestEncrypted15(t *testing.T) {
	unar, _ := exec.LookPath("unar")
	if !testutil.ProcessesOK(t) {
		unar = ""
	}
	for _, c := range entries15(t) {
		t.Run(c.e.name, func(t *testing.T) {
			arc := encrypt15(c.e, "pass15")
			r, err := openBytes(arc, &archive.Options{Passwords: []string{"pass15"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, c.plain) {
				t.Fatalf("read %d bytes, %v; equal %v", len(got), err, bytes.Equal(got, c.plain))
			}
			r.Close()

			// A wrong password fails the CRC (or the decoder) as a password error.
			r, err = openBytes(arc, &archive.Options{Passwords: []string{"wrong"}})
			if err != nil {
				t.Fatal(err)
			}
			r.Next()
			if _, err := io.ReadAll(r); !errors.Is(err, archive.ErrPassword) {
				t.Errorf("wrong password: %v", err)
			}
			r.Close()

			if unar == "" {
				t.Skip("unar not installed: no independent check")
			}
			path := filepath.Join(t.TempDir(), "enc15.rar")
			if err := os.WriteFile(path, arc, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(unar, "-q", "-o", "-", "-p", "pass15", path).Output()
			if err != nil {
				t.Fatalf("unar: %v", err)
			}
			if !bytes.Equal(out, c.plain) {
				t.Fatalf("unar read %d bytes that differ from ours", len(out))
			}
		})
	}
}
