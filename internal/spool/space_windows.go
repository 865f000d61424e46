package spool

import (
	"errors"

	"golang.org/x/sys/windows"
)

// diskSpace reads the free and total bytes of dir's volume.
func diskSpace(dir string) (free, total uint64, ok bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, 0, false
	}
	var totalFree uint64
	if windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree) != nil {
		return 0, 0, false
	}
	return free, total, true
}

func noSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}
