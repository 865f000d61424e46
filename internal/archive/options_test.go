package archive

import (
	"sync"
	"testing"
)

func TestAccepted(t *testing.T) {
	for _, tc := range []struct {
		name string
		pws  []string
		pw   string
		want int // -1: not called
	}{
		{"first", []string{"a", "b"}, "a", 0},
		{"second", []string{"a", "b", "c"}, "b", 1},
		{"listed twice", []string{"a", "b", "b"}, "b", 1},
		{"empty password", []string{"a", ""}, "", 1},
		{"not a candidate", []string{"a"}, "z", -1},
		{"no candidates", nil, "a", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := -1
			o := &Options{Passwords: tc.pws, PasswordAccepted: func(i int) { got = i }}
			o.Accepted(tc.pw)
			if got != tc.want {
				t.Errorf("Accepted(%q) told %d, want %d", tc.pw, got, tc.want)
			}
		})
	}
	var nilOpt *Options
	nilOpt.Accepted("a")                               // no panic
	(&Options{Passwords: []string{"a"}}).Accepted("a") // no hook: no panic
}

// TestPasswordListLeavesOptions: asking for the password changes nothing
// in Options, so formats on several goroutines may ask at once.
func TestPasswordListLeavesOptions(t *testing.T) {
	o := &Options{PasswordFunc: func() (string, error) { return "pw", nil }}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l, err := o.PasswordList(); err != nil || len(l) != 1 || l[0] != "pw" {
				t.Errorf("PasswordList = %v, %v", l, err)
			}
		}()
	}
	wg.Wait()
	if o.Passwords != nil {
		t.Errorf("PasswordList wrote Passwords: %v", o.Passwords)
	}
	got := -1
	o.PasswordAccepted = func(i int) { got = i }
	o.Accepted("pw")
	if got != 0 {
		t.Errorf("Accepted of the prompted password: index %d, want 0", got)
	}
}
