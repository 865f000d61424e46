// Command benchzip extracts every file of a zip archive to standard output
// (or, with -j N > 1, to nothing, through N goroutines calling Open), using
// internal/codec/zip with full verification. It exists for
// scripts/bench-zip.sh, to compare the decoder with unzip, 7zz and bsdtar
// before the CLI drives it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/zip"
)

func main() {
	jobs := flag.Int("j", 1, "goroutines opening entries (1: sequential Next/Read)")
	profile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchzip:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchzip [-j N] FILE.zip")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *jobs); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "benchzip:", err)
		os.Exit(1)
	}
}

func run(path string, jobs int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	in := &archive.Input{R: bufio.NewReader(f), RA: f, Size: st.Size(), Path: path, Name: path}
	r, err := zip.Open(in, &archive.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	if jobs <= 1 {
		w := bufio.NewWriterSize(os.Stdout, 1<<16)
		buf := make([]byte, 1<<16)
		for {
			e, err := r.Next()
			if err == io.EOF {
				return w.Flush()
			}
			if err != nil {
				return err
			}
			if e.Type != archive.TypeFile {
				continue
			}
			if _, err := io.CopyBuffer(w, r, buf); err != nil {
				return fmt.Errorf("%s: %w", e.Name, err)
			}
		}
	}
	ra := r.(archive.RandomAccess)
	entries, err := ra.Entries()
	if err != nil {
		return err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<16)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(entries) {
					return
				}
				if entries[i].Type != archive.TypeFile {
					continue
				}
				rc, err := ra.Open(i)
				if err == nil {
					_, err = io.CopyBuffer(io.Discard, rc, buf)
					rc.Close()
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", entries[i].Name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
