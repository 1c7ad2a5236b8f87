package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBodySpool(t *testing.T) {
	big := strings.Repeat("大块内容 big body ", spoolBuffer/20) // over the buffer: forces a write
	bodies := []string{"short body\n", "", big, "中文正文\n", big + "x"}
	tests := []struct {
		name string
		// before runs after the first two parks, before the rest.
		before func(t *testing.T, s *Spool)
		// onHeap says which bodies must stay on the heap (not parked).
		onHeap []bool
	}{
		{"all parked", nil, []bool{false, true, false, false, false}},
		{"no name left to truncate", func(t *testing.T, s *Spool) {
			// The spool's name went as it was made: nobody can
			// truncate the file under its mapping.
			if s.name != "" {
				t.Errorf("the spool kept its name %q", s.name)
			}
		}, []bool{false, true, false, false, false}},
		{"writes fail", func(t *testing.T, s *Spool) {
			s.f.Close() // every later write fails
		}, []bool{true, true, true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := OpenSpool(dir)
			if s == nil {
				t.Fatal("no spool")
			}
			ms := slices.Clone(bodies)
			for i := range ms {
				if i == 2 && tt.before != nil {
					tt.before(t, s)
				}
				s.Park(&ms[i])
			}
			for i, m := range ms {
				switch {
				case tt.onHeap[i] && m != bodies[i]:
					t.Errorf("body %d left the heap: %d bytes, want %d", i, len(m), len(bodies[i]))
				case !tt.onHeap[i] && m != "":
					t.Errorf("body %d not parked", i)
				}
			}
			if err := s.Restore(); err != nil {
				t.Fatal(err)
			}
			for i, m := range ms {
				if m != bodies[i] {
					t.Errorf("body %d after restore: %d bytes, want %d", i, len(m), len(bodies[i]))
				}
			}
			cache := filepath.Join(dir, DirName)
			left, _ := filepath.Glob(filepath.Join(cache, "*"))
			if want := []string{filepath.Join(cache, ".gitignore")}; !slices.Equal(left, want) {
				// The .gitignore keeps a spool that a killed process
				// leaves out of git.
				t.Errorf("files in the cache folder after restore: %v, want %v", left, want)
			}
			s.Release() // bodies stay readable after their pages are dropped
			for i, m := range ms {
				if m != bodies[i] {
					t.Errorf("body %d after release differs", i)
				}
			}
		})
	}
}

func TestBodySpoolNoFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := OpenSpool(filepath.Join(file, "cache")) // a file where the folder should be
	if s != nil {
		t.Fatal("spool created under a file")
	}
	body := "kept"
	s.Park(&body) // a nil spool parks nothing
	if err := s.Restore(); err != nil || body != "kept" {
		t.Fatalf("nil spool: %v, body %q", err, body)
	}
}
