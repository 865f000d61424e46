package testutil

import (
	"os"
	"testing"
)

// NoProcessesEnv names the environment variable that forbids tests to start
// processes; its value says why. scripts/cross.sh sets it when it runs the
// linux/386 tests under qemu-i386, whose emulation of waitid and epoll
// crashes a Go 386 program that starts one (the runtime dies in exitsyscall
// or netpoll), so those tests cannot run there.
const NoProcessesEnv = "UNPACK_TEST_NO_PROCESSES"

// ProcessesOK reports whether the test may start a process. When it may
// not, it logs why: a test that only cross-checks against a reference tool
// carries on without it.
func ProcessesOK(t testing.TB) bool {
	t.Helper()
	if why := os.Getenv(NoProcessesEnv); why != "" {
		t.Logf("no process started: %s=%s", NoProcessesEnv, why)
		return false
	}
	return true
}

// StartsProcess skips the test when it may not start a process.
func StartsProcess(t testing.TB) {
	t.Helper()
	if why := os.Getenv(NoProcessesEnv); why != "" {
		t.Skipf("starts a process: %s=%s", NoProcessesEnv, why)
	}
}
