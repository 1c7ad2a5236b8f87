package access

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func TestRecordRead(t *testing.T) {
	t.Parallel()
	type rec struct {
		at  time.Time
		ids []string
	}
	tests := []struct {
		name      string
		recs      []rec
		raw       string // appended after the records, as a crash or another writer left it
		wantSince time.Time
		wantLast  map[string]time.Time
		wantCount map[string]int
	}{
		{name: "nothing recorded", wantLast: map[string]time.Time{}, wantCount: map[string]int{}},
		{name: "last and count per id",
			recs:      []rec{{t0, []string{"a", "b"}}, {t0.Add(time.Hour), []string{"a"}}, {t0.Add(-time.Hour), []string{"c"}}},
			wantSince: t0.Add(-time.Hour),
			wantLast:  map[string]time.Time{"a": t0.Add(time.Hour), "b": t0, "c": t0.Add(-time.Hour)},
			wantCount: map[string]int{"a": 2, "b": 1, "c": 1}},
		{name: "no ids records nothing", recs: []rec{{t0, nil}}, wantLast: map[string]time.Time{}, wantCount: map[string]int{}},
		{name: "a line cut short by a crash is skipped",
			recs: []rec{{t0, []string{"a"}}}, raw: `{"at":1764600000,"ids":["b"`,
			wantSince: t0, wantLast: map[string]time.Time{"a": t0}, wantCount: map[string]int{"a": 1}},
		{name: "garbage lines are skipped",
			recs: []rec{{t0, []string{"a"}}}, raw: "not json\n{\"at\":-5,\"ids\":[\"x\"]}\n",
			wantSince: t0, wantLast: map[string]time.Time{"a": t0}, wantCount: map[string]int{"a": 1}},
		{name: "ids with spaces and CJK",
			recs:      []rec{{t0, []string{"project/my notes", "project/结算 模块"}}},
			wantSince: t0, wantLast: map[string]time.Time{"project/my notes": t0, "project/结算 模块": t0},
			wantCount: map[string]int{"project/my notes": 1, "project/结算 模块": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &Log{Path: filepath.Join(t.TempDir(), "memvault", "access.jsonl")}
			for _, r := range tt.recs {
				if err := l.Record(t.Context(), r.at, r.ids); err != nil {
					t.Fatal(err)
				}
			}
			if tt.raw != "" {
				f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tt.raw)
				f.Close()
			}
			s, err := l.Read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !s.Since.Equal(tt.wantSince) {
				t.Errorf("Since %s, want %s", s.Since, tt.wantSince)
			}
			if fmt.Sprint(s.Last) != fmt.Sprint(tt.wantLast) || fmt.Sprint(s.Count) != fmt.Sprint(tt.wantCount) {
				t.Errorf("Last %v Count %v, want %v %v", s.Last, s.Count, tt.wantLast, tt.wantCount)
			}
		})
	}
}

// TestConcurrentRecords: many writers appending at once (each with its own
// open file, as separate processes have) lose and tear no line.
func TestConcurrentRecords(t *testing.T) {
	t.Parallel()
	l := &Log{Path: filepath.Join(t.TempDir(), "access.jsonl")}
	const writers, each = 8, 200
	ids := make([]string, 40) // a long line: 40 ids of 26 characters
	for i := range ids {
		ids[i] = fmt.Sprintf("01M8K0GBM13DTGJ2M3RPA2F%03d", i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := l.Record(t.Context(), t0.Add(time.Duration(w*each+i)*time.Second), ids); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != writers*each {
		t.Errorf("%d lines, want %d", n, writers*each)
	}
	s, err := l.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if s.Count[id] != writers*each {
			t.Fatalf("%s counted %d times, want %d", id, s.Count[id], writers*each)
		}
	}
	if want := t0.Add(time.Duration(writers*each-1) * time.Second); !s.Last[ids[0]].Equal(want) {
		t.Errorf("last %s, want %s", s.Last[ids[0]], want)
	}
}

// TestCompact: a log past CompactAbove is rewritten as one line per
// memory, and says the same afterwards.
func TestCompact(t *testing.T) {
	t.Parallel()
	l := &Log{Path: filepath.Join(t.TempDir(), "access.jsonl")}
	ids := []string{"a", "b", "c"}
	line := fmt.Sprintf("{\"at\":%d,\"ids\":[\"a\",\"b\"]}\n", t0.Unix())
	big := strings.Repeat(line, CompactAbove/len(line)+1)
	if err := os.WriteFile(l.Path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Record(t.Context(), t0.Add(time.Hour), ids); err != nil {
		t.Fatal(err)
	}
	before, err := l.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1024 {
		t.Fatalf("log is %d bytes after a read past CompactAbove; want it compacted", fi.Size())
	}
	after, err := l.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !after.Since.Equal(before.Since) || fmt.Sprint(after.Last) != fmt.Sprint(before.Last) || fmt.Sprint(after.Count) != fmt.Sprint(before.Count) {
		t.Errorf("after compaction %+v, before %+v", after, before)
	}
	if after.Count["c"] != 1 || after.Count["a"] != CompactAbove/len(line)+2 {
		t.Errorf("counts %v", after.Count)
	}
}

// BenchmarkRecord is what a recall pays to record its results (8 ids).
func BenchmarkRecord(b *testing.B) {
	l := &Log{Path: filepath.Join(b.TempDir(), "access.jsonl")}
	ids := make([]string, 8)
	for i := range ids {
		ids[i] = fmt.Sprintf("01M8K0GBM13DTGJ2M3RPA2F%03d", i)
	}
	for b.Loop() {
		if err := l.Record(b.Context(), t0, ids); err != nil {
			b.Fatal(err)
		}
	}
}
