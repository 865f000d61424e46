package wim

import (
	"encoding/binary"
	"encoding/xml"
	"strconv"
	"strings"
	"unicode/utf16"
)

// imageNames reads the names of the images from the WIM's XML data
// (UTF-16LE: <WIM><IMAGE INDEX="n"><NAME>…</NAME></IMAGE>…</WIM>). The
// XML is informative (the metadata resources are the images): when it
// cannot be read, there are no names and a warning says why.
func (r *Reader) imageNames() []string {
	p := r.parts[0]
	if p.hdr.xml.size == 0 {
		return nil
	}
	b, err := r.readResource(p, p.hdr.xml, "XML data")
	if err != nil {
		r.opt.Warnf("wim: image names not read: " + err.Error())
		return nil
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	if len(u) > 0 && u[0] == 0xFEFF {
		u = u[1:]
	}
	var doc struct {
		Images []struct {
			Index string `xml:"INDEX,attr"`
			Name  string `xml:"NAME"`
		} `xml:"IMAGE"`
	}
	if err := xml.Unmarshal([]byte(string(utf16.Decode(u))), &doc); err != nil {
		r.opt.Warnf("wim: image names not read: XML data: " + err.Error())
		return nil
	}
	names := make([]string, len(r.meta))
	for _, im := range doc.Images {
		if i, err := strconv.Atoi(im.Index); err == nil && i >= 1 && i <= len(names) {
			names[i-1] = im.Name
		}
	}
	return names
}

// Comment names the images: "image N: NAME", one a line, for those that
// have a name in the XML data.
func (r *Reader) Comment() string {
	if r.names == nil {
		r.names = r.imageNames()
		if r.names == nil {
			r.names = []string{}
		}
	}
	var s []string
	for i, n := range r.names {
		if n != "" {
			s = append(s, "image "+strconv.Itoa(i+1)+": "+n)
		}
	}
	return strings.Join(s, "\n")
}
