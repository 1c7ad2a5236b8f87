package merge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/parser"
)

// TestFilesRefusals: what cannot be merged field by field is refused with
// an error that matches ErrUnmergeable and names the limit (issue 27
// findings 2 and 10).
func TestFilesRefusals(t *testing.T) {
	_, _, many := manyKeys(MaxKeys + 1)
	_, _, atLimit := manyKeys(MaxKeys)
	base := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\nimportance: 5\n---\nMoney is int64 cents, never float64.\n")
	big := func(c string) []byte {
		return append([]byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\n---\n"), strings.Repeat(c+" line of a long body\n", 600<<10/22)...)
	}
	tests := []struct {
		name               string
		base, ours, theirs []byte
		wantErr            error
		wantText           string
	}{
		{"theirs over MaxKeys", base, base, many, ErrTooManyKeys, "theirs has 1001, limit 1000 (merge.MaxKeys)"},
		{"ours over MaxKeys", base, many, base, ErrTooManyKeys, "ours has 1001, limit 1000"},
		{"both bodies rewritten past the size limit", nil, big("a"), big("b"), ErrTooLarge, "limit 1048576 (parser.MaxFileSize)"},
		{"at MaxKeys", base, base, atLimit, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Files(tt.base, tt.ours, tt.theirs)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Files: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || !errors.Is(err, ErrUnmergeable) || !strings.Contains(err.Error(), tt.wantText) {
				t.Fatalf("Files: %v; want %v (ErrUnmergeable) saying %q", err, tt.wantErr, tt.wantText)
			}
		})
	}
}

// TestFilesStopsWhenCancelled: a merge under a done context stops with
// the context's error.
func TestFilesStopsWhenCancelled(t *testing.T) {
	base, ours, theirs := manyKeys(MaxKeys)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := FilesContext(ctx, base, ours, theirs); !errors.Is(err, context.Canceled) {
		t.Fatalf("FilesContext after cancel: %v", err)
	}
}

// TestKeep: resolve's answer to a pair that cannot be merged keeps the
// side that parses and the other whole in the record.
func TestKeep(t *testing.T) {
	good := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys need two approvals\n---\nBody.\n")
	broken := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys: two approvals\n---\nBody, edited.\n")
	tests := []struct {
		name, wantKept     string
		ours, theirs, want []byte
	}{
		{"theirs broken", "ours", good, broken, broken},
		{"ours broken", "theirs", broken, good, broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, kept, err := Keep(tt.ours, tt.theirs)
			if err != nil || kept != tt.wantKept {
				t.Fatalf("Keep: kept %q, %v; want %q", kept, err, tt.wantKept)
			}
			d, _ := parser.Parse("kept", res.Data)
			fields, theirs := Record(d)
			if d == nil || d.Meta.Title != "Deploys need two approvals" || len(fields) != 1 || fields[0] != FileField || theirs[FileField] != string(tt.want) {
				t.Errorf("kept file:\n%s\nrecord %v %q", res.Data, fields, theirs)
			}
		})
	}
	// An earlier merge's record stays beside the file.
	recorded := []byte("---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys need two approvals\nconflict: {fields: title, theirs_title: Deploys}\n---\nBody.\n")
	res, _, err := Keep(recorded, broken)
	d, _ := parser.Parse("kept", res.Data)
	if fields, theirs := Record(d); err != nil || strings.Join(fields, ",") != "title,file" || theirs["title"] != "Deploys" || theirs[FileField] != string(broken) {
		t.Errorf("Keep over a record: %v\n%s", err, res.Data)
	}
	if _, _, err := Keep(broken, broken); err == nil {
		t.Error("Keep of two broken sides succeeded")
	}
}

// TestDriverWritesMarkers: when the sides cannot be merged, the driver
// leaves both whole between markers, which the loader and lint see.
func TestDriverWritesMarkers(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"base":   "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys\n---\nBody.\n",
		"ours":   "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys\nimportance: 8\n---\nBody.\n",
		"theirs": "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Deploys: two approvals\n---\nBody.\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Driver(t.Context(), filepath.Join(dir, "base"), filepath.Join(dir, "ours"), filepath.Join(dir, "theirs"))
	if !errors.Is(err, ErrUnmergeable) {
		t.Fatalf("Driver: %v, want ErrUnmergeable", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "ours"))
	if err != nil {
		t.Fatal(err)
	}
	want := "<<<<<<< ours\n" + files["ours"] + "=======\n" + files["theirs"] + ">>>>>>> theirs\n"
	if string(got) != want {
		t.Errorf("ours after the driver:\n%s\nwant:\n%s", got, want)
	}
	if MarkerLine(got) != 1 {
		t.Errorf("MarkerLine = %d, want 1", MarkerLine(got))
	}
}
