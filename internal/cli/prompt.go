package cli

import (
	"bytes"
	"fmt"
	"io"
)

// maxSecret bounds the length of a typed password.
const maxSecret = 4096

// readLine reads up to a newline (not included, nor a '\r' before it: a
// Windows console ends lines with "\r\n"), at most maxSecret bytes.
func readLine(r io.Reader) (string, error) {
	var buf [256]byte
	var line []byte
	for {
		n, err := r.Read(buf[:])
		end := bytes.IndexByte(buf[:n], '\n')
		if end >= 0 {
			n = end
		}
		line = append(line, buf[:n]...)
		if len(line) > maxSecret {
			return "", fmt.Errorf("password longer than %d bytes", maxSecret)
		}
		if end >= 0 {
			return string(bytes.TrimSuffix(line, []byte("\r"))), nil
		}
		if err == io.EOF {
			if len(line) == 0 {
				return "", io.ErrUnexpectedEOF
			}
			return string(line), nil
		}
		if err != nil {
			return "", err
		}
	}
}
