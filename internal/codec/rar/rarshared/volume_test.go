package rarshared

import "testing"

func TestVolumeNames(t *testing.T) {
	tests := []struct {
		path  string
		index int
		names []string // volumes 0, 1, 2…
	}{
		{"a/x.part1.rar", 0, []string{"a/x.part1.rar", "a/x.part2.rar", "a/x.part3.rar"}},
		{"x.part02.rar", 1, []string{"x.part01.rar", "x.part02.rar", "x.part03.rar"}},
		{"x.part9.rar", 8, []string{"x.part1.rar"}},
		{"X.PART001.RAR", 0, []string{"X.PART001.RAR", "X.PART002.RAR"}},
		{"x.rar", 0, []string{"x.rar", "x.r00", "x.r01"}},
		{"x.r05", 6, []string{"x.rar", "x.r00", "x.r01"}},
		{"X.R99", 100, []string{"X.RAR", "X.R00"}},
		{"x.s01", 102, []string{"x.rar"}},
		{"x.part1.exe", 0, []string{"x.part1.exe", "x.part2.exe"}},
		{"x.exe", 0, []string{"x.exe", "x.r00"}},
	}
	for _, tc := range tests {
		v, i := ParseVolumeName(tc.path, false)
		if i != tc.index {
			t.Errorf("%s: index %d, want %d", tc.path, i, tc.index)
		}
		for j, want := range tc.names {
			if got := v.Name(j); got != want {
				t.Errorf("%s: volume %d is %s, want %s", tc.path, j, got, want)
			}
		}
	}
	v, _ := ParseVolumeName("x.rar", false)
	if got := v.Name(101); got != "x.s00" {
		t.Errorf("volume 101: %s", got)
	}
	v, _ = ParseVolumeName("x.part9.rar", false)
	if got := v.Name(9); got != "x.part10.rar" {
		t.Errorf("widening: %s", got)
	}
	v, i := ParseVolumeName("x.rar", true)
	if i != 0 || v.Name(1) != "x.part2.rar" {
		t.Errorf("new style from x.rar: %d %s", i, v.Name(1))
	}
}
