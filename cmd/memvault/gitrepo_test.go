package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestServedAsOfLogsWhatItRead checks that the server reads the past
// through vault/history and logs what it read with its own logger,
// nothing on the CLI's streams.
func TestServedAsOfLogsWhatItRead(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	r.addMemory("Deploy script", "Deploy with ops/deploy.sh.")
	var stderr, logs bytes.Buffer
	m := NewMain(strings.NewReader(""), &stderr, &stderr)
	m.Now = func() time.Time { return gitTestNow }
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	asOf := m.servedAsOf(r.dir, projectScope, logger)

	v, err := asOf(t.Context(), gitTestNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v.Stats().Total != 1 {
		t.Errorf("the vault as of now has %d memories, want 1", v.Stats().Total)
	}
	head, _ := r.head()
	if want := "msg=\"reading the vault as recorded at " + shortHash(head) + " (2026-11-30T12:00:00Z)\" vault=project"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	logs.Reset()
	v, err = asOf(t.Context(), gitTestNow.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v.Stats().Total != 0 {
		t.Errorf("the vault before its first commit has %d memories", v.Stats().Total)
	}
	if want := "msg=\"nothing was recorded at or before 2026-11-30T11:00:00Z\" vault=project"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("the server wrote to the CLI's streams: %q", stderr.String())
	}
}
