package staleness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

type fakeFiles map[string]string // path -> content; folders end in "/"

func (f fakeFiles) Exists(_ context.Context, _ string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range paths {
		for k := range f {
			if k == p || strings.HasPrefix(k, p+"/") {
				out[p] = true
			}
		}
	}
	return out, nil
}

func (f fakeFiles) ReadFile(_ context.Context, _, p string) ([]byte, error) {
	c, ok := f[p]
	if !ok {
		return nil, errors.New("not a file")
	}
	return []byte(c), nil
}

func TestPropose(t *testing.T) {
	t.Parallel()
	files := fakeFiles{"internal/cache.go": goSrc, "docs/cache.md": "x", "cmd/tool/main.go": "package main"}
	tests := []struct {
		name, text string
		have, want []string
	}{
		{"backticked file and symbol", "`Get` in `internal/cache.go` returns the key.", nil, []string{"internal/cache.go#Get"}},
		{"plain path and folder", "See docs/cache.md and the cmd/tool/ folder.", nil, []string{"docs/cache.md", "cmd/tool/"}},
		{"unknown paths are not proposed", "`internal/gone.go` and lib/x.go are old; `Get` too.", nil, nil},
		{"identifier the file does not define", "`Fetch` lives in internal/cache.go.", nil, []string{"internal/cache.go"}},
		{"already there", "internal/cache.go", []string{"internal/cache.go"}, nil},
		{"prose with dots is not a path", "Use it. Then stop, e.g. now.", nil, nil},
		{"Chinese text around a path", "缓存逻辑在 internal/cache.go 里。", nil, []string{"internal/cache.go"}},
	}
	for _, tc := range tests {
		got, err := Propose(t.Context(), files, tc.text, tc.have)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Propose(%q) = %q, want %q", tc.name, tc.text, got, tc.want)
		}
	}
}
