package cli

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// entryJSON is one line of --json output.
type entryJSON struct {
	Archive    string `json:"archive"`
	Name       string `json:"name"`
	Type       string `json:"type"`
	Size       int64  `json:"size"`
	PackedSize int64  `json:"packed_size"`
	MTime      string `json:"mtime,omitempty"`
	Mode       string `json:"mode"`
	Method     string `json:"method,omitempty"`
	Encrypted  bool   `json:"encrypted"`
	Link       string `json:"link,omitempty"`
	Checksum   string `json:"checksum"`
	SHA256     string `json:"sha256,omitempty"`
	Expected   string `json:"expected,omitempty"`
	Actual     string `json:"actual,omitempty"`
	Status     string `json:"status"`
	Error      string `json:"error,omitempty"`
}

type summaryJSON struct {
	Summary struct {
		Archive string `json:"archive"`
		Format  string `json:"format"`
		Entries int    `json:"entries"`
		Failed  int    `json:"failed"`
		Bytes   int64  `json:"bytes"`
		Status  string `json:"status"`
		Error   string `json:"error,omitempty"`
		// PasswordCandidates are the numbers (from 1) of the candidates
		// that passed the format's password check.
		PasswordCandidates []int `json:"password_candidates,omitempty"`
		// Warnings are the kinds of irregularity read past (each once).
		Warnings []string `json:"warnings,omitempty"`
	} `json:"summary"`
}

// jsonOut writes --json output: a line per entry, then a summary per
// archive. A nil *jsonOut writes nothing.
type jsonOut struct{ enc *json.Encoder }

// entry writes an entry's line; sha is its SHA-256 ("" when not
// collected), streamChecked whether a stream check covers its data.
func (o *jsonOut) entry(arch string, e *archive.Entry, size int64, err error, sha string, streamChecked bool) {
	if o == nil {
		return
	}
	j := entryJSON{
		Archive: arch, Name: e.Name, Type: e.Type.String(), Size: size, PackedSize: e.PackedSize,
		Mode: e.Mode.String(), Method: e.Method, Encrypted: e.Encrypted, Link: e.Linkname,
		Checksum: e.Checksum.String(), Status: status(err), SHA256: sha,
	}
	if e.Copy { // a file of its own, made by the sink
		j.Type, j.Link = archive.TypeFile.String(), ""
	}
	if err == nil && e.Type == archive.TypeFile && e.Checksum == verify.None && !streamChecked {
		j.Status = "unverifiable"
	}
	if !e.ModTime.IsZero() {
		j.MTime = e.ModTime.UTC().Format(time.RFC3339Nano)
	}
	if e.ChecksumValue != nil {
		j.Expected = hex.EncodeToString(e.ChecksumValue)
		if err == nil && size >= 0 {
			j.Actual = j.Expected
		}
	}
	var me *verify.MismatchError
	if errors.As(err, &me) {
		j.Checksum, j.Expected, j.Actual = me.Kind.String(), hex.EncodeToString(me.Want), hex.EncodeToString(me.Got)
	}
	if err != nil {
		j.Error = err.Error()
	}
	o.enc.Encode(j)
}

// summary writes an archive's summary line: st its counts, passed the
// numbers of the password candidates that passed.
func (o *jsonOut) summary(arch string, format archive.Format, st *archiveState, passed []int, code ExitCode, err error) {
	if o == nil {
		return
	}
	var s summaryJSON
	s.Summary.Archive, s.Summary.Format = arch, string(format)
	s.Summary.Entries, s.Summary.Failed, s.Summary.Bytes = st.entries, st.failed, st.bytes
	s.Summary.PasswordCandidates = passed
	for _, k := range st.warnings {
		s.Summary.Warnings = append(s.Summary.Warnings, string(k))
	}
	s.Summary.Status = "ok"
	if code != ExitOK {
		s.Summary.Status = "failed"
	}
	if err != nil {
		s.Summary.Status, s.Summary.Error = status(err), err.Error()
	}
	o.enc.Encode(s)
}
