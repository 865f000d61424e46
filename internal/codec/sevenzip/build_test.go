package sevenzip

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// build7z makes an archive of one pack stream and a plain header.
func build7z(pack, header []byte) []byte {
	out := make([]byte, sigHeaderSize, sigHeaderSize+len(pack)+len(header))
	copy(out, magic)
	out[7] = 4
	binary.LittleEndian.PutUint64(out[12:], uint64(len(pack)))
	binary.LittleEndian.PutUint64(out[20:], uint64(len(header)))
	binary.LittleEndian.PutUint32(out[28:], crc32.ChecksumIEEE(header))
	binary.LittleEndian.PutUint32(out[8:], crc32.ChecksumIEEE(out[12:32]))
	out = append(out, pack...)
	return append(out, header...)
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// twoFileHeader describes "hello" as files a ("he") and b ("llo") in one
// folder of a coder with the given 3-byte ID, with a folder CRC.
func twoFileHeader(id []byte, folderCRC uint32) []byte {
	return twoFileHeaderPack(id, folderCRC, nil)
}

// twoFileHeaderPack is twoFileHeader with an optional pack stream CRC.
func twoFileHeaderPack(id []byte, folderCRC uint32, packCRC []byte) []byte {
	packInfo := []byte{idPackInfo, 0, 1, idSize, 5, idEnd}
	if packCRC != nil {
		packInfo = cat([]byte{idPackInfo, 0, 1, idSize, 5, idCRC, 1}, packCRC, []byte{idEnd})
	}
	return cat(
		[]byte{idHeader, idMainStreamsInfo},
		packInfo,
		[]byte{idUnpackInfo, idFolder, 1, 0, 1, 0x03}, id,
		[]byte{idCodersUnpackSize, 5, idCRC, 1}, le32(folderCRC), []byte{idEnd},
		[]byte{idSubStreamsInfo, idNumUnpackStream, 2, idSize, 2, idCRC, 1},
		le32(crc32.ChecksumIEEE([]byte("he"))), le32(crc32.ChecksumIEEE([]byte("llo"))), []byte{idEnd},
		[]byte{idEnd},
		[]byte{idFilesInfo, 2, idName, 9, 0, 'a', 0, 0, 0, 'b', 0, 0, 0, idEnd},
		[]byte{idEnd},
	)
}

// TestFolderCRC: a folder CRC over several entries is checked at the
// folder's end and the error names the entries it affects.
func TestFolderCRC(t *testing.T) {
	copyID := []byte{0, 0, 0} // Copy, written with a 3-byte ID
	for _, tt := range []struct {
		crc     uint32
		wantErr bool
	}{
		{crc32.ChecksumIEEE([]byte("hello")), false},
		{0x12345678, true},
	} {
		r, err := openBytes(build7z([]byte("hello"), twoFileHeader(copyID, tt.crc)), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = extractAll(r)
		if !tt.wantErr {
			if err != nil {
				t.Errorf("good folder CRC: %v", err)
			}
			continue
		}
		var fe *FolderError
		var me *verify.MismatchError
		if !errors.Is(err, verify.ErrChecksum) || !errors.As(err, &fe) || !slices.Equal(fe.Entries, []string{"a", "b"}) || !errors.As(err, &me) {
			t.Errorf("bad folder CRC: got %v", err)
		}
	}
}

// TestUnknownMethod: an unknown coder is ErrUnsupported naming its ID.
func TestUnknownMethod(t *testing.T) {
	r, err := openBytes(build7z([]byte("hello"), twoFileHeader([]byte{0x7F, 0x12, 0x34}, 0)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, r)
	var me *archive.MethodError
	if !errors.Is(err, archive.ErrUnsupported) || !errors.As(err, &me) || me.Method != "7F1234" {
		t.Fatalf("got %v", err)
	}
}

// TestPackCRC: a pack stream CRC, when present, is verified.
func TestPackCRC(t *testing.T) {
	good := crc32.ChecksumIEEE([]byte("hello"))
	for _, tt := range []struct {
		crc     uint32
		wantErr bool
	}{{good, false}, {good ^ 1, true}} {
		r, err := openBytes(build7z([]byte("hello"), twoFileHeaderPack([]byte{0, 0, 0}, good, le32(tt.crc))), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = extractAll(r)
		if (err != nil) != tt.wantErr || tt.wantErr && !errors.Is(err, verify.ErrChecksum) {
			t.Errorf("pack CRC %08x: %v", tt.crc, err)
		}
	}
}
