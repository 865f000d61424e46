//go:build !darwin && !linux

package quarantine

import (
	"errors"
	"os"
)

func getxattr(string, string, []byte) (int, error) { return 0, errors.ErrUnsupported }

func fsetxattr(*os.File, string, []byte) error { return errors.ErrUnsupported }

func isRange(error) bool { return false }
