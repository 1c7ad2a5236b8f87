package transfer

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestExportToFile(t *testing.T) {
	t.Parallel()
	failed := errors.New("write failed")
	tests := []struct {
		name    string
		write   func(io.Writer) (ExportStats, error)
		want    string // the file's content; "" means no file
		wantErr error
	}{
		{"written", func(w io.Writer) (ExportStats, error) {
			_, err := io.WriteString(w, "{}\n")
			return ExportStats{Memories: 1}, err
		}, "{}\n", nil},
		{"failed half way leaves no file", func(w io.Writer) (ExportStats, error) {
			io.WriteString(w, "{")
			return ExportStats{}, failed
		}, "", failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "out.jsonl")
			_, err := ExportToFile(path, tt.write)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			data, rerr := os.ReadFile(path)
			if tt.want == "" {
				if rerr == nil {
					t.Errorf("a file was left: %q", data)
				}
			} else if string(data) != tt.want {
				t.Errorf("file = %q (%v), want %q", data, rerr, tt.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 1 || (tt.want == "" && len(ents) > 0) {
				t.Errorf("temporary files left: %v", ents)
			}
		})
	}
}
