package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/load"
)

const mcpTestdata = "../../vault/transfer/testdata/memory.jsonl"

// testAWSKey is an access key id the guard detects, built at run time so
// no file of the repository holds one.
var testAWSKey = "AKIA" + "UJZDEGXDNCF32EPF"

func TestImportMCPMemoryMakesOneCommit(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	r.addMemory("Existing memory", "already here")
	before, _ := r.head()
	out := r.ok("import", mcpTestdata, "--reason", "move from the MCP memory server")
	if !strings.Contains(out, "imported 15 memories from memory.jsonl (mcp-memory) in commit ") {
		t.Errorf("output:\n%s", out)
	}
	after, msg := r.head()
	if after == before {
		t.Fatal("no commit")
	}
	if parent, ok := gitCLI(t, r.root, "rev-parse", "HEAD~1"); ok && strings.TrimSpace(parent) != before {
		t.Errorf("the import made more than one commit: HEAD~1 = %s, want %s", parent, before)
	}
	if !strings.HasPrefix(msg, "memory: import 15 memories from memory.jsonl\n\nmove from the MCP memory server\n") ||
		strings.Count(msg, "Memory-Id: kg-") != 15 {
		t.Errorf("commit message:\n%s", msg)
	}
	if got := len(r.changedPaths()); got != 15 {
		t.Errorf("the commit changed %d paths, want 15", got)
	}
	if st, ok := gitCLI(t, r.root, "status", "--porcelain"); ok && st != "" {
		t.Errorf("work tree not clean after the import:\n%s", st)
	}

	// Again: everything is already there, nothing is committed.
	out = r.ok("import", mcpTestdata)
	if again, _ := r.head(); again != after || !strings.Contains(out, "imported 0 memories from memory.jsonl (mcp-memory, 15 skipped)") {
		t.Errorf("second import moved HEAD (%v) or said:\n%s", again != after, out)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	r.addMemory("Existing memory", "already here")
	before, _ := r.head()
	files := func() []string {
		var out []string
		_ = filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == load.CacheDirName {
				// The index cache is derived state any load may write, as
				// git status refreshes git's index.
				return filepath.SkipDir
			}
			out = append(out, p)
			return nil
		})
		return out
	}
	had := files()
	out := r.ok("import", mcpTestdata, "--dry-run")
	if !strings.Contains(out, "would import memory.jsonl:3 -> project/checkout-service.md (project) \"checkout-service\"") ||
		!strings.Contains(out, "would import 15 memories from memory.jsonl (mcp-memory); dry run, nothing written") {
		t.Errorf("dry-run output:\n%s", out)
	}
	if after, _ := r.head(); after != before {
		t.Error("a dry run made a commit")
	}
	if got := files(); !slices.Equal(got, had) {
		t.Errorf("a dry run changed the vault folder: %d entries, had %d", len(got), len(had))
	}
}

func TestImportFolderSkipsSecrets(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	src := t.TempDir()
	files := map[string]string{
		".env":                       "AWS_ACCESS_KEY_ID=" + testAWSKey + "\n",
		"deploy.pem":                 "not read\n",
		".ssh/config.md":             "not read\n",
		"memory-bank/progress.md":    "# Progress\n\n- [x] import\n",
		"memory-bank/techContext.md": "# Tech Context\n\nGo and git.\n",
		"ops.md":                     "# Ops\n\nThe deploy user is bot.\naws_access_key_id = " + testAWSKey + "\n",
		"drafts/wip.md":              "# WIP\n",
	}
	for rel, data := range files {
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out := r.run("", "import", src, "--skip", "drafts/", "--json")
	// ops.md was refused for its secret: exit 3 (issue 13, finding 15;
	// it was 0).
	if code != exitSkipped || !strings.Contains(r.lastStderr, "1 item of the source refused") {
		t.Fatalf("exit %d, want %d: %s", code, exitSkipped, r.lastStderr)
	}
	if strings.Contains(out, testAWSKey) || strings.Contains(r.lastStderr, testAWSKey) {
		t.Fatalf("the report echoes the secret:\n%s", out)
	}
	var rep importReportJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var skipped, imported []string
	for _, p := range rep.Skipped {
		skipped = append(skipped, p.Pos+": "+p.Reason)
	}
	for _, im := range rep.Imported {
		imported = append(imported, im.Path)
	}
	slices.Sort(imported)
	if want := []string{"project/tech-context.md", "short-term/progress.md"}; !slices.Equal(imported, want) {
		t.Errorf("imported %v, want %v", imported, want)
	}
	for _, want := range []string{
		`.env: not read: matches the secret-file pattern ".env*"`,
		`.ssh/: not read: matches the secret-file pattern ".ssh/"`,
		`deploy.pem: not read: matches the secret-file pattern "*.pem"`,
		`drafts/: not read: matches the secret-file pattern "drafts/"`,
		`ops.md:4:21: secret aws-access-key-id`,
	} {
		if !slices.Contains(skipped, want) {
			t.Errorf("skipped lacks %q; got %q", want, skipped)
		}
	}
	if got := len(r.changedPaths()); got != 4 { // two memories, .gitignore and .gitattributes
		t.Errorf("the commit changed %d paths, want 4", got)
	}
}

func TestExportImportRoundTripCLI(t *testing.T) {
	t.Parallel()
	a := newCLIRepo(t)
	var ids []string
	ids = append(ids, a.addMemory("结算使用策略模式", "每个地区一个支付策略。", "--tags", "架构,checkout", "--importance", "9"))
	a.tick(time.Hour)
	ids = append(ids, a.addMemory("Working on refunds", "Alipay refunds next.", "--layer", "short-term"))
	a.tick(time.Hour)
	ids = append(ids, a.addMemory("Use pnpm", "Not npm.", "--layer", "preference", "--supersedes", ids[0]))
	out := filepath.Join(t.TempDir(), "all.jsonl")
	a.ok("export", "--out", out)

	b := newCLIRepo(t)
	b.tick(48 * time.Hour)
	b.ok("import", out)
	for _, id := range ids {
		want, got := a.memory(id), b.memory(id)
		want.Hash, got.Hash = "", ""
		if fmt.Sprintf("%+v", want) != fmt.Sprintf("%+v", got) {
			t.Errorf("%s differs after export and import:\nwant %+v\ngot  %+v", id, want, got)
		}
		if wf, gf := readFile(t, filepath.Join(a.dir, want.Path)), readFile(t, filepath.Join(b.dir, got.Path)); wf != gf {
			t.Errorf("%s: files differ:\n%s\n---\n%s", want.Path, wf, gf)
		}
	}
	if m := b.memory(ids[0]); m.Status != vault.StatusSuperseded {
		t.Errorf("status %s, want superseded", m.Status)
	}
}

func TestImportExportUsageErrors(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	pem := filepath.Join(t.TempDir(), "server.pem")
	if err := os.WriteFile(pem, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"missing source", []string{"import", "/nonexistent/memory.jsonl"}, "no such file"},
		{"bad format", []string{"import", mcpTestdata, "--format", "csv"}, "--format"},
		{"bad layer", []string{"import", mcpTestdata, "--layer", "L9"}, "--layer"},
		{"secret file named", []string{"import", pem}, `secret-file pattern "*.pem"`},
		{"wrong format forced", []string{"import", mcpTestdata, "--format", "markdown"}, ""},
		{"no argument", []string{"import"}, "want FILE or DIR"},
		{"markdown export without --out", []string{"export", "--format", "markdown"}, "--out"},
		{"unknown export format", []string{"export", "--format", "xml"}, "--format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _ := r.run("", tt.args...)
			if tt.want == "" {
				return // must simply not crash; a forced format reads what it can
			}
			if code != exitUsage || !strings.Contains(r.lastStderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, r.lastStderr, exitUsage, tt.want)
			}
		})
	}
}

// TestImportExitStatus: import exits 3 when it refused items of the
// source, 0 when it skipped only on purpose (issue 13, finding 15).
func TestImportExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		twice bool // import the source again, and check that run
		want  int
	}{
		{name: "all imported", files: map[string]string{"a.md": "# A\n\nAlpha.\n"}, want: exitOK},
		{name: "again: already imported, unchanged", files: map[string]string{"a.md": "# A\n\nAlpha.\n"}, twice: true, want: exitOK},
		{name: "a secret-file pattern, unread", files: map[string]string{"a.md": "# A\n\nAlpha.\n", ".env": "X=1\n"}, want: exitOK},
		{name: "an empty file", files: map[string]string{"a.md": "# A\n\nAlpha.\n", "b.md": ""}, want: exitOK},
		{name: "an item with a secret", files: map[string]string{"a.md": "# A\n\nAlpha.\n", "ops.md": "# Ops\n\naws_access_key_id = " + testAWSKey + "\n"},
			want: exitSkipped},
		{name: "a secret, dry run", files: map[string]string{"ops.md": "# Ops\n\naws_access_key_id = " + testAWSKey + "\n"},
			args: []string{"--dry-run"}, want: exitSkipped},
		{name: "a malformed line", files: map[string]string{"m.jsonl": `{"type":"entity","name":"a","entityType":"t","observations":["o"]}` + "\n{oops\n"},
			want: exitSkipped},
		{name: "a changed item not overwritten", files: map[string]string{"a.md": "# A\n\nAlpha.\n"}, twice: true, args: []string{"--change"},
			want: exitSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newCLIRepo(t)
			src := t.TempDir()
			for rel, data := range tt.files {
				if err := os.WriteFile(filepath.Join(src, rel), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := src
			if _, ok := tt.files["m.jsonl"]; ok {
				target = filepath.Join(src, "m.jsonl")
			}
			args := []string{"import", target}
			change := slices.Contains(tt.args, "--change")
			for _, a := range tt.args {
				if a != "--change" {
					args = append(args, a)
				}
			}
			if tt.twice {
				if code, _ := r.run("", "import", target); code != exitOK {
					t.Fatalf("first import: exit %d: %s", code, r.lastStderr)
				}
				if change {
					if err := os.WriteFile(filepath.Join(src, "a.md"), []byte("# A\n\nAlpha, changed.\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			code, out := r.run("", args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.want, out, r.lastStderr)
			}
		})
	}
}
