package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildID(t *testing.T) {
	for _, tc := range []struct {
		name, head, want string
	}{
		{"elf note", "\x7fELF....\x04\x00\x00\x00\x0b\x00\x00\x00\x04\x00\x00\x00Go\x00\x00abc/def/ghi....", "abc/def/ghi"},
		{"text string", "MZ....\xff Go build ID: \"abc/def\"\n \xff....", "abc/def"},
		{"another note's type", "\x04\x00\x00\x00\x03\x00\x00\x00\x03\x00\x00\x00GNU\x00abc", ""},
		{"empty note", "\x04\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00Go\x00\x00", ""},
		{"note cut short", "\x04\x00\x00\x00\x20\x00\x00\x00\x04\x00\x00\x00Go\x00\x00abc", ""},
		{"nothing", "plain bytes", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := buildID([]byte(tc.head)); got != tc.want {
				t.Errorf("buildID = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStampIsTheBuilds checks that the stamp of this test binary is its
// build ID as `go tool buildid` reads it, and that a copy of the binary
// elsewhere, with another modification time, has the same stamp.
func TestStampIsTheBuilds(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	want := "go-build-id\x00" + strings.TrimSpace(string(out))
	if got := ExecutableStamp(); got != want {
		t.Fatalf("ExecutableStamp() = %q, want %q", got, want)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.test")
	if err := os.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(cp, "-test.run", "^TestPrintStamp$", "-test.v").CombinedOutput()
	if err != nil {
		t.Fatalf("copy: %v\n%s", err, got)
	}
	if !strings.Contains(string(got), "stamp="+strings.TrimSpace(string(out))+"\n") {
		t.Errorf("the copy's stamp is not the build's:\n%s", got)
	}
}

// TestPrintStamp prints the stamp, for TestStampIsTheBuilds's copy.
func TestPrintStamp(t *testing.T) {
	t.Logf("\nstamp=%s\n", strings.TrimPrefix(ExecutableStamp(), "go-build-id\x00"))
}
