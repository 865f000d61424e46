package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/unpack-dev/unpack/internal/verify"
)

func TestClassify(t *testing.T) {
	mismatch := &verify.MismatchError{Kind: verify.CRC32, Want: []byte{1}, Got: []byte{2}}
	for _, tt := range []struct {
		name string
		err  error
		want Category
	}{
		{"nil", nil, OK},
		{"plain", errors.New("disk full"), Other},
		{"path error", &fs.PathError{Op: "read", Path: "x", Err: errors.New("EIO")}, Other},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), Interrupted},
		{"corrupt", Corruptf("x: bad"), Corrupt},
		{"truncated", Truncated("gzip"), Corrupt},
		{"mismatch", mismatch, Checksum},
		{"mismatch in entry", &EntryError{Archive: "a", Entry: "e", Err: mismatch}, Checksum},
		{"mismatch wrapped by Errorf", Errorf(ErrCorrupt, "zip: %w", mismatch), Checksum},
		{"password over checksum", errors.Join(ErrPassword, mismatch), Password},
		{"need password", ErrNeedPassword, Password},
		{"limit", Limitf("too big"), Limit},
		{"unsupported", Unsupportedf("nope"), Unsupported},
		{"not archive", ErrNotArchive, NotArchive},
		{"missing volume", Errorf(ErrMissingVolume, "a.r01"), MissingVolume},
		{"refused", Errorf(ErrRefused, "insecure path"), Refused},
		{"io error keeps its category", &IOError{Stage: "sink", Err: Limitf("x")}, Limit},
	} {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestErrorfWraps(t *testing.T) {
	mismatch := &verify.MismatchError{Kind: verify.CRC32, Want: []byte{1}, Got: []byte{2}}
	err := Errorf(ErrCorrupt, "zip: %q: %w", "a.txt", mismatch)
	var me *verify.MismatchError
	if !errors.As(err, &me) || me != mismatch || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Errorf with %%w lost the wrapped error or the category: %v", err)
	}
	if want := `zip: "a.txt": ` + mismatch.Error(); err.Error() != want {
		t.Errorf("text %q, want %q", err, want)
	}
	plain := Errorf(ErrLimit, "over %d", 3)
	if plain.Error() != "over 3" || !errors.Is(plain, ErrLimit) || errors.Is(plain, ErrCorrupt) {
		t.Errorf("Errorf without %%w: %v", plain)
	}
}

func TestDecoded(t *testing.T) {
	ioErr := &IOError{Stage: "source", Err: errors.New("EIO")}
	if got := Decoded("xz", ioErr); got != ioErr {
		t.Errorf("an I/O error was reclassified: %v", got)
	}
	pe := &fs.PathError{Op: "read", Path: "f", Err: errors.New("EIO")}
	if got := Decoded("xz", pe); got != pe {
		t.Errorf("a path error was reclassified: %v", got)
	}
	c := Corruptf("xz: bad")
	if got := Decoded("xz", c); got != c {
		t.Errorf("a categorised error was rewrapped: %v", got)
	}
	if got := Decoded("xz", io.EOF); got != io.EOF {
		t.Errorf("io.EOF became %v", got)
	}
	got := Decoded("gzip", io.ErrUnexpectedEOF)
	if !errors.Is(got, ErrCorrupt) || !errors.Is(got, io.ErrUnexpectedEOF) || got.Error() != "gzip: unexpected end of data" {
		t.Errorf("truncation: %v", got)
	}
	foreign := errors.New("huffman table broken")
	got = Decoded("zstd", foreign)
	if Classify(got) != Corrupt || !errors.Is(got, foreign) || got.Error() != "zstd: huffman table broken" {
		t.Errorf("foreign decoder error: %v (%v)", got, Classify(got))
	}
}
