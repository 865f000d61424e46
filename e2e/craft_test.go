package e2e

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands the scripts use to make damaged or crafted inputs that no tool
// writes.
var craftCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// flipbyte FILE OFFSET: flips the low bit of the byte at OFFSET
	// (negative: from the end).
	"flipbyte": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: flipbyte FILE OFFSET")
		}
		name := ts.MkAbs(args[0])
		b, err := os.ReadFile(name)
		ts.Check(err)
		off, err := strconv.Atoi(args[1])
		ts.Check(err)
		if off < 0 {
			off += len(b)
		}
		if off < 0 || off >= len(b) {
			ts.Fatalf("offset %s outside %s (%d bytes)", args[1], args[0], len(b))
		}
		b[off] ^= 1
		ts.Check(os.WriteFile(name, b, 0o644))
	},
	// zipspell FILE LOCAL CENTRAL [HIDDEN]: writes a stored zip of one
	// entry named LOCAL in its local header and CENTRAL in the central
	// directory; with HIDDEN, a second local entry of that name follows
	// that the central directory does not list.
	"zipspell": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 3 || len(args) > 4 {
			ts.Fatalf("usage: zipspell FILE LOCAL CENTRAL [HIDDEN]")
		}
		var out []byte
		data := []byte("data\n")
		first := local(&out, args[1], data)
		if len(args) == 4 {
			local(&out, args[3], []byte("hidden\n"))
		}
		cd := len(out)
		out = central(out, args[2], data, first)
		out = binary.LittleEndian.AppendUint32(out, 0x06054b50)
		out = append(out, 0, 0, 0, 0)
		out = binary.LittleEndian.AppendUint16(out, 1)
		out = binary.LittleEndian.AppendUint16(out, 1)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(out)-cd-12))
		out = binary.LittleEndian.AppendUint32(out, uint32(cd))
		out = append(out, 0, 0)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
	},
}

// local appends a stored entry's local header and data to out and
// returns the header's offset.
func local(out *[]byte, name string, data []byte) int {
	off := len(*out)
	b := binary.LittleEndian.AppendUint32(*out, 0x04034b50)
	b = binary.LittleEndian.AppendUint16(b, 10)   // version needed
	b = append(b, 0, 0, 0, 0, 0, 0)               // flags, method, time
	b = binary.LittleEndian.AppendUint16(b, 0x21) // date: 1980-01-01
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, 0, 0)
	b = append(b, name...)
	*out = append(b, data...)
	return off
}

// central appends the central record of a stored entry at offset off.
func central(b []byte, name string, data []byte, off int) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0x02014b50)
	b = binary.LittleEndian.AppendUint16(b, 3<<8|20) // made by Unix
	b = binary.LittleEndian.AppendUint16(b, 10)
	b = append(b, 0, 0, 0, 0, 0, 0) // flags, method, time
	b = binary.LittleEndian.AppendUint16(b, 0x21)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(data))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0) // extra, comment, disk, internal
	b = binary.LittleEndian.AppendUint32(b, 0o100644<<16)
	b = binary.LittleEndian.AppendUint32(b, uint32(off))
	return append(b, name...)
}
