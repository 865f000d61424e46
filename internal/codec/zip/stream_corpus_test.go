package zip

import (
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
)

// TestCorpusStream reads every readable corpus zip as a stream and compares
// the regular files with what the central directory reader gives. Archives
// the stream cannot follow (data before the first header, a stored entry
// of unknown size without a descriptor signature…) must fail cleanly.
func TestCorpusStream(t *testing.T) {
	rows := testutil.Manifest(t)
	var same, failed, differ int
	for _, row := range rows {
		if row.Format != "zip" || !row.IsFirstOfUnit() || row.UnitFirst != "" && row.HasFeature("multivolume") ||
			row.HasFeature("split-raw") || (row.Expect != "ok" && row.Expect != "ok?") {
			continue
		}
		opt := func() *archive.Options {
			o := &archive.Options{}
			if row.Password != "" {
				o.Passwords = []string{row.Password}
			}
			return o
		}
		r, done, err := openFile(t, row.Path, opt(), false)
		if err != nil {
			continue
		}
		want, err := readAll(r)
		done()
		if err != nil || len(want.errs) > 0 {
			continue
		}
		s, done, err := openFile(t, row.Path, opt(), true)
		if err != nil {
			t.Errorf("%s: stream open: %v", row.Local, err)
			continue
		}
		got, err := func() (x *extracted, err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", row.Local, p)
				}
			}()
			return readAll(s)
		}()
		done()
		if err == nil && len(got.errs) > 0 {
			err = got.errs[0]
		}
		if err != nil {
			failed++
			t.Logf("%s: stream: %v", row.Local, err)
			continue
		}
		ok := true
		for name, sum := range want.files {
			if got.files[name] != sum {
				ok = false
				t.Logf("%s: stream: %q differs", row.Local, name)
			}
		}
		if ok {
			same++
		} else {
			differ++
		}
	}
	t.Logf("corpus zip stream: %d same as central directory, %d failed cleanly, %d differ", same, failed, differ)
}
