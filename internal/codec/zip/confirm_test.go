package zip

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// streamVerdicts reads b with a StreamReader and returns each entry's
// verdict by name, checking that every entry but a directory was Pending
// and settled once.
func streamVerdicts(t *testing.T, b []byte) (map[string]error, error) {
	t.Helper()
	s := NewStreamReader(bytes.NewReader(b), nil)
	got := map[string]error{}
	pending := map[*archive.Entry]bool{}
	var end error
	for {
		e, err := s.Next()
		if err != nil {
			if err != io.EOF {
				end = err
			}
			break
		}
		if e.Type != archive.TypeDir {
			if !e.Pending {
				t.Errorf("%s not Pending", e.Name)
			}
			pending[e] = true
		}
		io.Copy(io.Discard, s)
	}
	for _, v := range s.Settled() {
		if !pending[v.Entry] {
			t.Errorf("%s settled twice or never returned", v.Entry.Name)
		}
		delete(pending, v.Entry)
		got[v.Entry.Name] = v.Err
	}
	for e := range pending {
		t.Errorf("%s never settled", e.Name)
	}
	return got, end
}

func TestStreamConfirm(t *testing.T) {
	// A name that differs between the headers is refused as Reader refuses it.
	got, _ := streamVerdicts(t, spelledZip("evil_local.txt", 0, "benign.txt", 0, "data"))
	if err := got["evil_local.txt"]; !errors.Is(err, ErrHeaderMismatch) {
		t.Errorf("evil_local.txt: %v, want ErrHeaderMismatch", err)
	}
	// Two spellings of one name agree.
	got, _ = streamVerdicts(t, spelledZip("\x81ber.txt", 0, "über.txt", flagUTF8, "data"))
	if len(got) != 1 {
		t.Errorf("CP437/UTF-8 spellings: %v", got)
	}
	for n, err := range got {
		if err != nil {
			t.Errorf("%s: %v, want confirmed", n, err)
		}
	}

	// A normal zip, with a self-extractor stub before it: all confirmed.
	var buf bytes.Buffer
	buf.WriteString("#!/bin/sh\nexit 0\n")
	zw := zip.NewWriter(&buf)
	zw.SetOffset(int64(buf.Len()))
	for _, n := range []string{"a.txt", "d/", "d/b.txt"} {
		w, _ := zw.Create(n)
		io.WriteString(w, n)
	}
	zw.Close()
	got, end := streamVerdicts(t, buf.Bytes())
	if end != nil || len(got) != 2 || got["a.txt"] != nil || got["d/b.txt"] != nil {
		t.Errorf("plain zip: %v, %v", got, end)
	}

	// Cut before its central directory: nothing to confirm against, as a
	// file without an end record is read.
	full := buf.Bytes()
	got, end = streamVerdicts(t, full[:bytes.Index(full, []byte("PK\x01\x02"))])
	if end != nil || len(got) != 2 || got["a.txt"] != nil {
		t.Errorf("no central directory: %v, %v", got, end)
	}

	// A local entry the directory does not list.
	b := spelledZip("a.txt", 0, "a.txt", 0, "data")
	cd := bytes.Index(b, []byte("PK\x01\x02"))
	hidden := spelledZip("smuggled.txt", 0, "smuggled.txt", 0, "x")
	hiddenLocal := hidden[:bytes.Index(hidden, []byte("PK\x01\x02"))]
	// The end record's directory offset moves by the inserted bytes.
	withHidden := append(append(append([]byte(nil), b[:cd]...), hiddenLocal...), b[cd:]...)
	eocd := len(withHidden) - endLen
	off := int(withHidden[eocd+16]) | int(withHidden[eocd+17])<<8
	off += len(hiddenLocal)
	withHidden[eocd+16], withHidden[eocd+17] = byte(off), byte(off>>8)
	got, _ = streamVerdicts(t, withHidden)
	if got["a.txt"] != nil || !errors.Is(got["smuggled.txt"], ErrNotListed) || !errors.Is(got["smuggled.txt"], archive.ErrRefused) {
		t.Errorf("local-only entry: %v", got)
	}
}
