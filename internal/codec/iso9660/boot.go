package iso9660

import (
	"encoding/binary"
	"fmt"

	"github.com/unpack-dev/unpack/internal/archive"
)

// mediaNames names El Torito boot media types as 7-Zip does in its
// [BOOT]/Boot-TYPE.img entries.
var mediaNames = [...]string{"NoEmul", "1.2M", "1.44M", "2.88M", "HardDisk"}

// floppySizes are the image sizes of the floppy emulation types.
var floppySizes = map[byte]int64{1: 1200 << 10, 2: 1440 << 10, 3: 2880 << 10}

// maxBootEntries bounds the boot images listed (a catalog sector holds 64
// entries of 32 bytes).
const maxBootEntries = 63

// bootImage is one boot catalog entry.
type bootImage struct {
	media byte
	rba   uint32
	size  int64
}

// boot lists the boot images of the El Torito catalog at sector lba as
// [BOOT]/ entries. Their data are views of the image (often of a file in
// the tree, which the overlap check therefore does not compare them with).
func (w *walker) boot(lba uint32) error {
	b, err := w.sector(lba)
	if err != nil {
		return err
	}
	if b[0] != 0x01 || b[30] != 0x55 || b[31] != 0xAA {
		return archive.Corruptf("iso9660: El Torito boot catalog without its validation entry")
	}
	var sum uint16
	for i := 0; i < 32; i += 2 {
		sum += binary.LittleEndian.Uint16(b[i:])
	}
	if sum != 0 {
		return archive.Corruptf("iso9660: El Torito validation entry checksum does not add up")
	}
	var images []bootImage
	add := func(e []byte) {
		if e[0] != 0x88 && e[0] != 0x00 || e[1]&0x0F > 4 {
			return
		}
		img := bootImage{media: e[1] & 0x0F, rba: binary.LittleEndian.Uint32(e[8:])}
		img.size = int64(binary.LittleEndian.Uint16(e[6:])) * 512
		if s, ok := floppySizes[img.media]; ok {
			img.size = s
		}
		start := int64(img.rba) * sectorSize
		if start >= w.r.size || img.rba == 0 {
			return
		}
		img.size = min(img.size, w.r.size-start)
		images = append(images, img)
	}
	add(b[32:64])
	for off := 64; off+32 <= sectorSize && len(images) < maxBootEntries; {
		h := b[off : off+32]
		if h[0] != 0x90 && h[0] != 0x91 {
			break
		}
		n := int(binary.LittleEndian.Uint16(h[2:]))
		off += 32
		for i := 0; i < n && off+32 <= sectorSize && len(images) < maxBootEntries; i++ {
			add(b[off : off+32])
			off += 32
			for off+32 <= sectorSize && b[off] == 0x44 { // extension records
				off += 32
			}
		}
		if h[0] == 0x91 {
			break
		}
	}
	if len(images) == 0 {
		return nil
	}
	w.add(&file{entry: archive.Entry{Name: "[BOOT]", Type: archive.TypeDir, Mode: 0o755, PackedSize: -1}})
	for i, img := range images {
		name := "Boot-" + mediaNames[img.media] + ".img"
		if len(images) > 1 {
			name = fmt.Sprintf("Boot-%d-%s.img", i+1, mediaNames[img.media])
		}
		e := archive.Entry{Name: "[BOOT]/" + name, Type: archive.TypeFile, Mode: 0o644,
			Size: img.size, PackedSize: img.size, Method: "El Torito"}
		w.add(&file{entry: e, extents: []extent{{int64(img.rba) * sectorSize, img.size}}, boot: true})
	}
	return nil
}
