package testutil

import "testing"

func TestStartsProcess(t *testing.T) {
	t.Setenv(NoProcessesEnv, "")
	var allowed, forbidden *testing.T
	t.Run("allowed", func(t *testing.T) {
		allowed = t
		if !ProcessesOK(t) {
			t.Error("ProcessesOK false with the variable empty")
		}
		StartsProcess(t)
	})
	t.Run("forbidden", func(t *testing.T) {
		forbidden = t
		t.Setenv(NoProcessesEnv, "qemu-i386")
		if ProcessesOK(t) {
			t.Error("ProcessesOK true with the variable set")
		}
		StartsProcess(t)
		t.Error("StartsProcess did not skip")
	})
	if allowed.Skipped() || !forbidden.Skipped() {
		t.Errorf("skipped: allowed %v, forbidden %v", allowed.Skipped(), forbidden.Skipped())
	}
}
