package archive

// WarnKind names a kind of irregularity a reader tolerates, the way GNU tar
// or bsdtar read past it with a warning. The CLI prints each kind once per
// archive and, with --strict, turns any of them into a failure (exit 3).
type WarnKind string

// Tolerated irregularities.
const (
	// WarnLoneZeroBlock: a tar archive ends at one zero block, the next
	// block being missing or not zero (GNU tar: "A lone zero block").
	WarnLoneZeroBlock WarnKind = "lone-zero-block"
	// WarnPaxRecordIgnored: a pax extended header record is malformed (its
	// framing, or a value such as a time with non-digits); it is ignored and
	// the ustar header's field kept.
	WarnPaxRecordIgnored WarnKind = "pax-record-ignored"
	// WarnTarBadField: a numeric field of a tar header other than the size
	// and checksum cannot be parsed; it is taken as unknown (a zero time,
	// no mode bits).
	WarnTarBadField WarnKind = "tar-bad-field"
	// WarnTarHeaderSkipped: a tar header unpack does not act on was skipped
	// with its data: a GNU multi-volume continuation, the listing of a GNU
	// incremental dump directory, an obsolete GNU names header.
	WarnTarHeaderSkipped WarnKind = "tar-header-skipped"
	// WarnTarUnknownType: a tar entry of an unknown type was read as a
	// regular file, as POSIX and GNU tar do.
	WarnTarUnknownType WarnKind = "tar-unknown-type"
	// WarnTrailingData: bytes after a complete, verified gzip member,
	// bzip2 stream, lz4 frame or zstd frame that are no member or frame
	// (gzip and bzip2 ignore them with a warning).
	WarnTrailingData WarnKind = "trailing-data"
	// WarnNoCentralDirectory: a zip file without an end of central
	// directory record was read by its local headers.
	WarnNoCentralDirectory WarnKind = "no-central-directory"
	// WarnAbsoluteName: entry names lost a leading "/" or drive letter.
	WarnAbsoluteName WarnKind = "absolute-name"
)

// Tolerate reports a tolerated irregularity of the given kind: to Warning
// when it is set, else to Warn with the message alone.
func (o *Options) Tolerate(kind WarnKind, msg string) {
	if o == nil {
		return
	}
	if o.Warning != nil {
		o.Warning(kind, msg)
		return
	}
	o.Warnf(msg)
}
