package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memvault/memvault/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fakeSecret is an AWS access key id the guard detects; built at run time
// so no file of the repository holds one.
var fakeSecret = "AKIA" + "UJZDEGXDNCF32EPF"

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; -update rewrites it):\n%s", p, diff)
	}
}

// describe renders items and problems for golden files.
func describe(items []Item, probs []Problem) string {
	var b strings.Builder
	for _, it := range items {
		n := it.Batch.Memory
		fmt.Fprintf(&b, "== %s\nid: %s\ntitle: %s\nlayer: %s\nimportance: %d\ntags: %s\n", it.Pos, n.ID, n.Title, n.Layer, n.Importance, strings.Join(n.Tags, ", "))
		if len(n.Links) > 0 {
			fmt.Fprintf(&b, "links: %s\n", strings.Join(n.Links, ", "))
		}
		fmt.Fprintf(&b, "body:\n%s\n", strings.TrimRight(n.Content, "\n"))
	}
	for _, p := range probs {
		fmt.Fprintf(&b, "!! %s\n", p)
	}
	return b.String()
}

func openVault(t *testing.T, dir string) *vault.Vault {
	t.Helper()
	v, err := vault.Open(t.Context(), dir, vault.Options{Now: func() time.Time { return testNow }, Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseMCPGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/memory.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, probs := ParseMCP("memory.jsonl", data, MCPOptions{})
	if len(probs) != 0 {
		t.Errorf("problems in a well-formed file: %v", probs)
	}
	if got := strings.Count(string(data), `"type":"entity"`); len(items) != got {
		t.Errorf("%d memories from %d entities", len(items), got)
	}
	golden(t, "memory.jsonl.golden", describe(items, probs))
}

func TestParseMCPProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		wantItems int
		wantProbs []string
	}{
		{"malformed json", "{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"t\",\"observations\":[]}\n{not json\n", 1, []string{"f.jsonl:2: malformed JSON"}},
		{"entity without name", `{"type":"entity","entityType":"t","observations":["x"]}`, 0, []string{"f.jsonl:1: entity without name"}},
		{"observations not strings", `{"type":"entity","name":"a","entityType":"t","observations":[1]}`, 0, []string{"f.jsonl:1: field \"observations"}},
		{"relation without to", "\n\n" + `{"type":"relation","from":"a","relationType":"r"}`, 0, []string{"f.jsonl:3: relation without"}},
		{"unknown type", `{"type":"note","text":"x"}`, 0, []string{`f.jsonl:1: unknown record type "note"`}},
		{"invalid utf-8", "{\"type\":\"entity\",\"name\":\"\xff\"}", 0, []string{"f.jsonl:1: not valid UTF-8"}},
		{"line too long", `{"type":"entity","name":"` + strings.Repeat("a", MaxLineBytes) + `"}`, 0, []string{"f.jsonl:1: line of"}},
		{"duplicate entity merged", `{"type":"entity","name":"a","entityType":"t","observations":["x"]}` + "\n" +
			`{"type":"entity","name":"a","entityType":"t","observations":["x","y"]}`, 1, nil},
		{"crlf and bom", "\xEF\xBB\xBF" + `{"type":"entity","name":"a","entityType":"t","observations":["x"]}` + "\r\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, probs := ParseMCP("f.jsonl", []byte(tt.in), MCPOptions{})
			wantParse(t, items, probs, tt.wantItems, tt.wantProbs)
		})
	}
}

func TestParseJSONLProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		wantItems int
		wantProbs []string
	}{
		{"good", `{"id":"a","title":"A","layer":"project","body":"x\n"}`, 1, nil},
		{"bad layer", `{"id":"a","title":"A","layer":"L9","body":"x"}`, 0, []string{"f.jsonl:1: invalid layer"}},
		{"bad status", `{"id":"a","title":"A","status":"gone","body":"x"}`, 0, []string{"f.jsonl:1: invalid memory: unknown status"}},
		{"no id", `{"title":"A","body":"x"}`, 0, []string{"f.jsonl:1: invalid memory: no id"}},
		{"wrong type", `{"id":"a","title":"A","importance":"high","body":"x"}`, 0, []string{`f.jsonl:1: field "importance"`}},
		{"two values", `{"id":"a","body":"x"} {"id":"b","body":"y"}`, 0, []string{"f.jsonl:1: more than one JSON value"}},
		{"nested extra kept as JSON text", `{"id":"a","title":"A","body":"x","extra":{"deep":{"k":{"x":1}}}}`, 1, nil},
		{"fraction extra kept as a string", `{"id":"a","title":"A","body":"x","extra":{"score":0.5}}`, 1, nil},
		{"truncated", `{"id":"a","title":"A","body":"x` + "\n" + `{"id":"b","title":"B","body":"y"}`, 1, []string{"f.jsonl:1: malformed JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, probs := ParseJSONL("f.jsonl", []byte(tt.in))
			wantParse(t, items, probs, tt.wantItems, tt.wantProbs)
		})
	}
}

// wantParse fails t unless a parse gave wantItems items and one problem
// per wantProbs entry, each starting with that entry.
func wantParse(t *testing.T, items []Item, probs []Problem, wantItems int, wantProbs []string) {
	t.Helper()
	if len(items) != wantItems {
		t.Errorf("got %d items, want %d", len(items), wantItems)
	}
	if len(probs) != len(wantProbs) {
		t.Fatalf("problems = %v, want %v", probs, wantProbs)
	}
	for i, p := range probs {
		if !strings.HasPrefix(p.String(), wantProbs[i]) {
			t.Errorf("problem %q, want prefix %q", p, wantProbs[i])
		}
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Format
	}{
		{`{"type":"entity","name":"a","entityType":"t","observations":[]}`, FormatMCP},
		{"\n" + `{"type":"relation","from":"a","to":"b","relationType":"r"}`, FormatMCP},
		{`{"id":"01J","title":"x","body":"y"}`, FormatJSONL},
		{"garbage\n" + `{"id":"01J","title":"x","body":"y"}`, FormatJSONL},
		{"# a markdown file", ""},
		{`{"foo":1}`, ""},
	}
	for _, tt := range tests {
		got, err := Detect([]byte(tt.in))
		if got != tt.want || (tt.want == "") != (err != nil) {
			t.Errorf("Detect(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSkipped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rel  string
		dir  bool
		want string
	}{
		{".env", false, ".env*"},
		{"config/.env.production", false, ".env*"},
		{"certs/server.PEM", false, "*.pem"},
		{"keys/deploy.key", false, "*.key"},
		{"id_rsa", false, "id_rsa*"},
		{"home/id_rsa.pub", false, "id_rsa*"},
		{"secrets", true, "secrets/"},
		{"a/.ssh", true, ".ssh/"},
		{"a/.aws", true, ".aws/"},
		{"secrets.md", false, ""},     // a file named like the folder pattern
		{"notes/env.md", false, ""},   // not .env*
		{"keyboard.md", false, ""},    // not *.key
		{"docs/.aws.md", false, ""},   // folder patterns match folders only
		{"memory-bank", true, ""},     // an ordinary folder
		{"private", true, "private/"}, // from --skip
		{"draft-notes.md", false, "draft-*"},
	}
	patterns := append(slices.Clone(DefaultSkip), "private/", "draft-*")
	for _, tt := range tests {
		if got := skipped(tt.rel, tt.dir, patterns); got != tt.want {
			t.Errorf("skipped(%q, dir=%v) = %q, want %q", tt.rel, tt.dir, got, tt.want)
		}
	}
}

// notesCopy copies testdata/notes into a temporary folder and adds what
// cannot live in the repository: a note with a secret, and symbolic links
// inside and outside the folder.
func notesCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "notes")
	if err := os.CopyFS(dir, os.DirFS("testdata/notes")); err != nil {
		t.Fatal(err)
	}
	write := func(rel, s string) {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/deploy.md", "# Deploy\n\nThe CI user is deploy-bot.\n部署密钥：aws_access_key_id = "+fakeSecret+"\n")
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("# Outside\n\nmust not be imported\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "docs", "outside-link.md")); err != nil {
		t.Skipf("symbolic links unsupported: %v", err)
	}
	if err := os.Symlink("../memory-bank/progress.md", filepath.Join(dir, "docs", "progress-link.md")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadFolderGolden(t *testing.T) {
	t.Parallel()
	dir := notesCopy(t)
	s, err := Read(t.Context(), dir, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := describe(s.Items, s.Problems)
	if strings.Contains(got, fakeSecret) || strings.Contains(got, "MUST NEVER BE READ") || strings.Contains(got, "must not be imported") {
		t.Errorf("the report quotes a secret or an unreadable file:\n%s", got)
	}
	for _, want := range []string{
		`!! .env.local: not read: matches the secret-file pattern ".env*"`,
		`!! id_rsa.md: not read: matches the secret-file pattern "id_rsa*"`,
		`!! secrets/: not read: matches the secret-file pattern "secrets/"`,
		`!! docs/outside-link.md: symbolic link to outside the source folder, not followed`,
		`!! docs/progress-link.md: symbolic link to a file inside the folder: imported from the file itself`,
		`!! docs/deploy.md:4:26: secret aws-access-key-id`,
		`!! CLAUDE.md:21: empty section`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	golden(t, "notes.golden", got)
}

func TestReadSkipsVaultGitAndDependencies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, rel := range []string{"notes/a.md", ".git/description.md", "node_modules/pkg/README.md", ".memory/project/x.md"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+rel+"\n\ntext\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Read(t.Context(), dir, ReadOptions{Exclude: []string{filepath.Join(dir, ".memory")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Items) != 1 || s.Items[0].Pos != "notes/a.md" || len(s.Problems) != 0 {
		t.Errorf("items %v, problems %v; want only notes/a.md", s.Items, s.Problems)
	}
}

func TestReadRefusesSecretFileAndUnknownFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{"prod.pem": "x", "notes.txt": "hello"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"prod.pem", "notes.txt"} {
		if _, err := Read(t.Context(), filepath.Join(dir, name), ReadOptions{}); err == nil {
			t.Errorf("Read(%s): no error", name)
		}
	}
	if _, err := Read(t.Context(), dir, ReadOptions{Skip: []string{"[bad"}}); err == nil {
		t.Error("a malformed --skip pattern was accepted")
	}
}

func importFile(t *testing.T, v *vault.Vault, path string, opts ReadOptions, dry bool) Report {
	t.Helper()
	s, err := Read(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Import(t.Context(), v, s, vault.Author{Reason: "test"}, ImportOptions{DryRun: dry})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestImportMCPMemoryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v := openVault(t, dir)
	rep := importFile(t, v, "testdata/memory.jsonl", ReadOptions{}, false)
	if len(rep.Imported) != 15 || len(rep.Skipped) != 0 {
		t.Fatalf("imported %d, skipped %v", len(rep.Imported), rep.Skipped)
	}
	byTitle := map[string]*vault.Memory{}
	for _, m := range v.All() {
		byTitle[m.Title] = m
	}
	co := byTitle["checkout-service"]
	if co == nil || co.Layer != vault.Project || !slices.Contains(co.Tags, "service") || len(co.Links) != 5 {
		t.Fatalf("checkout-service = %+v", co)
	}
	for _, want := range []string{"- 结算服务按地区选择支付策略，新增地区只需注册一个策略\n", "- integrates_with → [[支付宝]]\n", "- [[Alice Chen]] leads → checkout-service\n"} {
		if !strings.Contains(co.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, co.Body)
		}
	}
	// Wiki links resolve to the imported memories.
	var related []string
	for _, r := range v.Related(co) {
		related = append(related, r.Title)
	}
	if !slices.Contains(related, "支付宝") || !slices.Contains(related, "Alice Chen") {
		t.Errorf("Related(checkout-service) = %v", related)
	}
	if m := byTitle["default_user"]; m == nil || m.Layer != vault.Preference {
		t.Errorf("default_user = %+v, want the preference layer", m)
	}
	if m := byTitle["用户偏好"]; m == nil || m.Layer != vault.Preference || m.Source.Kind != "import" {
		t.Errorf("用户偏好 = %+v", m)
	}
	// Chinese recall finds an imported observation.
	if res := v.Recall(vault.Query{Text: "退款流程 审查"}); len(res) == 0 || res[0].Memory.Title != "Alice Chen" {
		t.Errorf("recall 退款流程 审查: %v", res)
	}

	again := importFile(t, v, "testdata/memory.jsonl", ReadOptions{}, false)
	if len(again.Imported) != 0 || len(again.Skipped) != 15 {
		t.Errorf("second import: imported %d, skipped %d; want 0 and 15", len(again.Imported), len(again.Skipped))
	}
	if len(v.All()) != 15 {
		t.Errorf("vault holds %d memories after a second import, want 15", len(v.All()))
	}
	if got := again.Skipped[2].Reason; got != "already imported (id kg-checkout-service-abd30c75, unchanged)" {
		t.Errorf("skip reason %q", got)
	}

	// The graph gained an observation: the memory is reported as changed,
	// not overwritten.
	data, err := os.ReadFile("testdata/memory.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "memory.jsonl")
	data = []byte(strings.Replace(string(data), `"Handles payment for the web shop"`, `"Handles payment for the web shop","新观察"`, 1))
	if err := os.WriteFile(changed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	third := importFile(t, v, changed, ReadOptions{}, false)
	if got := third.Skipped[2].Reason; !strings.Contains(got, "already exists with different content; not overwritten") {
		t.Errorf("skip reason for a changed entity %q", got)
	}
}

func TestImportDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".memory")
	v := openVault(t, dir)
	rep := importFile(t, v, notesCopy(t), ReadOptions{}, true)
	if len(rep.Imported) == 0 || !rep.DryRun || rep.Commit != "" {
		t.Fatalf("dry run report: %d imported, commit %q", len(rep.Imported), rep.Commit)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("dry run created %s", dir)
	}
	if len(v.All()) != 0 {
		t.Errorf("dry run indexed %d memories", len(v.All()))
	}
}

func TestImportLayerOverride(t *testing.T) {
	t.Parallel()
	v := openVault(t, t.TempDir())
	rep := importFile(t, v, "testdata/memory.jsonl", ReadOptions{Layer: vault.Meta}, false)
	for _, im := range rep.Imported {
		if im.Memory.Layer != vault.Meta {
			t.Errorf("%s in layer %s, want meta", im.Memory.Title, im.Memory.Layer)
		}
	}
}

// sourceVault builds a vault with the shapes an export must carry: memories
// written by Create in every committed layer, Chinese text, a superseded
// one, a hand-written file without front matter, and a file with unknown
// keys, odd spacing and inline tags.
func sourceVault(t *testing.T) *vault.Vault {
	t.Helper()
	dir := t.TempDir()
	clock := testNow.Add(-40 * 24 * time.Hour)
	v, err := vault.Open(t.Context(), dir, vault.Options{Now: func() time.Time { return clock }, Client: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	add := func(n vault.NewMemory) string {
		t.Helper()
		res, err := v.Create(t.Context(), n, vault.Author{Reason: "setup"})
		if err != nil {
			t.Fatal(err)
		}
		clock = clock.Add(time.Hour)
		return res.Memory.ID
	}
	old := add(vault.NewMemory{Title: "Payments use a switch", Content: "One switch per region.", Tags: []string{"payments"}})
	add(vault.NewMemory{Title: "结算使用策略模式", Content: "每个地区一个支付策略。\n\nSee [[payments]].", Tags: []string{"架构", "checkout"},
		Aliases: []string{"strategy pattern"}, Importance: 9, Supersedes: []string{old}, Links: []string{old},
		EffectiveAt: testNow.Add(-30 * 24 * time.Hour)})
	add(vault.NewMemory{Title: "Working on refunds", Content: "Alipay refunds next.", Layer: vault.ShortTerm})
	add(vault.NewMemory{Title: "Use pnpm", Content: "Not npm.", Layer: vault.Preference, ExpiresAt: testNow.Add(300 * 24 * time.Hour)})
	add(vault.NewMemory{Title: "Index of decisions", Content: "- [[结算使用策略模式]]", Layer: vault.Meta})
	files := map[string]string{
		"project/hand-written.md": "# Hand written note\n\nNo front matter here. #ops\n",
		"project/extras.md": "---\nid: 01JEXTRAS0000000000000000\ntitle: \"Extras: kept\"\nlayer: project\nreviewer: alice   # who checked it\n" +
			"refs: [ADR-1, ADR-2]\nscore: 3\nmeta:\n  team: payments\n  since: \"2024\"\ncreated_at: 2026-01-02T03:04:05Z\nstatus: archived\nversion: 3\n---\n\n# Extras: kept\n\nBody with #inline-tag and trailing blank lines.\n\n\n",
	}
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := testNow.Add(-50 * 24 * time.Hour)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	return v
}

// comparable strips what legitimately differs between two vaults.
func comparableMemory(m *vault.Memory) vault.Memory {
	c := *m
	c.Hash = ""
	return c
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src := sourceVault(t)
	for _, format := range []string{"jsonl", "markdown"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "export")
			var st ExportStats
			var err error
			if format == "jsonl" {
				var buf bytes.Buffer
				st, err = ExportJSONL(t.Context(), &buf, src, ExportOptions{})
				if err == nil {
					out += ".jsonl"
					err = os.WriteFile(out, buf.Bytes(), 0o644)
				}
			} else {
				st, err = ExportMarkdown(t.Context(), out, src, ExportOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Memories != len(src.All()) {
				t.Errorf("exported %d of %d memories", st.Memories, len(src.All()))
			}
			dst := openVault(t, filepath.Join(t.TempDir(), ".memory"))
			rep := importFile(t, dst, out, ReadOptions{}, false)
			if len(rep.Skipped) != 0 {
				t.Errorf("skipped: %v", rep.Skipped)
			}
			want, got := src.All(), dst.All()
			if len(got) != len(want) {
				t.Fatalf("imported %d memories, want %d", len(got), len(want))
			}
			for _, w := range want {
				g, err := dst.Get(w.ID)
				if err != nil {
					t.Errorf("%s (%s) missing after the round trip", w.ID, w.Title)
					continue
				}
				if diff := cmp.Diff(comparableMemory(w), comparableMemory(g), cmpopts.IgnoreUnexported(vault.Memory{})); diff != "" {
					t.Errorf("%s differs after the round trip (-want +got):\n%s", w.Path, diff)
				}
				wr := RecordOf(w, mustRead(t, src.Dir(), w.Path))
				gr := RecordOf(g, mustRead(t, dst.Dir(), g.Path))
				if diff := cmp.Diff(wr, gr); diff != "" {
					t.Errorf("%s: export records differ (-want +got):\n%s", w.Path, diff)
				}
			}
		})
	}
}

func mustRead(t *testing.T, dir, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestExportJSONLGolden(t *testing.T) {
	t.Parallel()
	src := sourceVault(t)
	var buf bytes.Buffer
	if _, err := ExportJSONL(t.Context(), &buf, src, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	// Ids of memories made by Create are random ULIDs: name them by title.
	out := buf.String()
	for _, m := range src.All() {
		if len(m.ID) == 26 && !strings.HasPrefix(m.ID, "01JEXTRAS") {
			out = strings.ReplaceAll(out, m.ID, "<id of "+m.Title+">")
		}
	}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("invalid JSON line: %s", line)
		}
	}
	golden(t, "export.jsonl.golden", out)
}

func TestExportRedact(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A hand-edited file: the write guard never saw it.
	leak := "---\nid: leak\ntitle: Deploy\nnote: key " + fakeSecret + "\n---\n\naws_access_key_id = " + fakeSecret + "\n"
	if err := os.WriteFile(filepath.Join(dir, "project", "leak.md"), []byte(leak), 0o644); err != nil {
		t.Fatal(err)
	}
	v := openVault(t, dir)
	for _, format := range []string{"jsonl", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var got string
			var st ExportStats
			var err error
			if format == "jsonl" {
				var buf bytes.Buffer
				st, err = ExportJSONL(t.Context(), &buf, v, ExportOptions{Redact: true})
				got = buf.String()
			} else {
				out := filepath.Join(t.TempDir(), "md")
				st, err = ExportMarkdown(t.Context(), out, v, ExportOptions{Redact: true})
				got = string(mustRead(t, out, "project/leak.md"))
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got, fakeSecret) || strings.Count(got, "[REDACTED:aws-access-key-id]") != 2 || st.Redacted != 1 {
				t.Errorf("redacted export (%d redacted):\n%s", st.Redacted, got)
			}
		})
	}
}

func TestImportSkipsSecretMemory(t *testing.T) {
	t.Parallel()
	line := func(id, body string) string {
		b, _ := json.Marshal(Record{ID: id, Title: id, Layer: "project", Body: body})
		return string(b)
	}
	p := filepath.Join(t.TempDir(), "in.jsonl")
	data := line("clean", "nothing to see\n") + "\n" + line("leaky", "first line\nkey: aws_access_key_id = "+fakeSecret+"\n") + "\n"
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	v := openVault(t, t.TempDir())
	rep := importFile(t, v, p, ReadOptions{}, false)
	if len(rep.Imported) != 1 || len(rep.Skipped) != 1 {
		t.Fatalf("imported %d, skipped %v", len(rep.Imported), rep.Skipped)
	}
	want := "in.jsonl:2: secret aws-access-key-id at line 2, column 26 of the body"
	if got := rep.Skipped[0].String(); got != want {
		t.Errorf("skip = %q, want %q", got, want)
	}
	if _, err := v.Get("leaky"); err == nil {
		t.Error("the memory with a secret was written")
	}
}

func TestExportMarkdownRefusesNonEmptyFolder(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ExportMarkdown(context.Background(), out, openVault(t, t.TempDir()), ExportOptions{}); err == nil {
		t.Error("export into a non-empty folder: no error")
	}
}

func TestSecretPositionInSections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, data, want string
	}{
		{"second section of CLAUDE.md", "CLAUDE.md",
			"# CLAUDE.md\n\n## Build\n\nmake\n\n## Deploy\n\nCI user: bot\nkey = " + fakeSecret + "\n",
			"CLAUDE.md:10:7: secret aws-access-key-id"},
		{"note with front matter", "note.md",
			"---\ntitle: Deploy\n---\n\nline\n  " + fakeSecret + "\n",
			"note.md:6:3: secret aws-access-key-id"},
		{"title", "t.md", "---\ntitle: key " + fakeSecret + "\n---\n\nbody\n",
			"t.md: secret aws-access-key-id at line 1, column 5 of the title"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Read(t.Context(), p, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, pr := range s.Problems {
				got = append(got, pr.String())
			}
			if !slices.Contains(got, tt.want) {
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
}

func TestImportKeepsAwkwardExtraKeysWithNotes(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x.jsonl")
	rec := `{"id":"x1","title":"X","body":"x\n","extra":{"score":0.5,"deep":{"a":{"b":1}},"nums":[1,2],"gone":null,"ok":"yes"}}`
	if err := os.WriteFile(p, []byte(rec+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	v := openVault(t, dir)
	rep := importFile(t, v, p, ReadOptions{}, false)
	if len(rep.Imported) != 1 {
		t.Fatalf("imported %d, skipped %v", len(rep.Imported), rep.Skipped)
	}
	wantNotes := []string{
		`extra key "deep": the nested value is written as JSON text`,
		`extra key "gone": a null value is dropped`,
		`extra key "nums": list items are written as strings`,
		`extra key "score": the number is written as a string`,
	}
	if diff := cmp.Diff(wantNotes, rep.Imported[0].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	file := string(mustRead(t, dir, rep.Imported[0].Memory.Path))
	for _, want := range []string{`deep: '{"a":{"b":1}}'`, `score: "0.5"`, "ok: \"yes\"", "nums:"} {
		if !strings.Contains(file, want) {
			t.Errorf("file lacks %q:\n%s", want, file)
		}
	}
	if strings.Contains(file, "gone") {
		t.Errorf("the null key was written:\n%s", file)
	}
}
