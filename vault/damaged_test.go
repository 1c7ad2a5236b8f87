package vault

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeHistory is a LastGoodReader over versions of files, newest first,
// each in a commit named c<i>.
type fakeHistory struct {
	versions map[string][]string
	calls    atomic.Int32
}

func (f *fakeHistory) LastGood(_ context.Context, rel string, good func([]byte) bool) ([]byte, string, error) {
	f.calls.Add(1)
	for i, v := range f.versions[rel] {
		if good([]byte(v)) {
			return []byte(v), fmt.Sprintf("c%d", i), nil
		}
	}
	return nil, "", fmt.Errorf("%s: %w", rel, ErrNotFound)
}

const (
	goodDeploys   = "---\nid: deploys\ntitle: Deploys need two approvals\nimportance: 8\ntags: [deploy]\n---\nTwo approvals from on-call.\n"
	brokenDeploys = "---\nid: deploys\ntitle: Deploys: two approvals\nimportance: 8\ntags: [deploy]\n---\nTwo approvals from on-call.\n"
)

// TestDamagedFileServesItsLastGoodVersion is issue 24's finding 2 in the
// vault: a file whose front matter stopped parsing is served as the last
// committed version that parsed, under its own id and labelled; a file
// with no such version is not served at all; lint's diagnostic says
// what is served and how to fix it. With the index cache, a warm load
// gives the same answer.
func TestDamagedFileServesItsLastGoodVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		disk     string
		history  []string // newest first
		wantID   string   // "" when nothing is served
		label    string
		diagWant []string
	}{
		{"colon in title", brokenDeploys, []string{brokenDeploys, goodDeploys}, "deploys",
			"project/deploys.md:3: invalid front matter: mapping values are not allowed in this context",
			[]string{"served as its last version that parsed, from commit c1", `quote the value (line 3: title: "Deploys: two approvals")`}},
		{"unclosed", "---\nid: deploys\ntitle: x\nTwo approvals.\n", []string{goodDeploys}, "deploys",
			`project/deploys.md:1: front matter not closed: no closing "---" line`,
			[]string{"from commit c0", `end the front matter with a "---" line`}},
		{"never parsed", brokenDeploys, []string{brokenDeploys}, "", "",
			[]string{"not served: no committed version of it parses", "quote the value"}},
		{"not committed", brokenDeploys, nil, "", "",
			[]string{"not served: no committed version of it parses"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"project/deploys.md": tt.disk, "project/other.md": "---\nid: other\ntitle: Other\n---\nx\n"})
			h := &fakeHistory{versions: map[string][]string{"project/deploys.md": tt.history}}
			for _, load := range []string{"cold", "warm"} {
				v, err := Open(t.Context(), dir, Options{LastGood: h, IndexCache: true})
				if err != nil {
					t.Fatal(err)
				}
				if load == "warm" && !v.load.stats.FromCache {
					t.Errorf("%s load: index not from the cache", load)
				}
				all := v.All()
				var served *Memory
				for _, m := range all {
					if m.Path == "project/deploys.md" {
						served = m
					}
				}
				switch {
				case tt.wantID == "" && served != nil:
					t.Errorf("%s load: served %s (%q), want nothing", load, served.ID, served.Title)
				case tt.wantID != "" && served == nil:
					t.Fatalf("%s load: nothing served, want %s", load, tt.wantID)
				case served != nil:
					if served.ID != tt.wantID || served.Title != "Deploys need two approvals" || served.Importance != 8 || served.Damaged != tt.label {
						t.Errorf("%s load: served %s %q importance %d damaged %q; want %s, its last good title, 8, %q",
							load, served.ID, served.Title, served.Importance, served.Damaged, tt.wantID, tt.label)
					}
					rs := v.Recall(Query{Text: "two approvals"})
					if len(rs) == 0 || rs[0].Memory.ID != tt.wantID || rs[0].Memory.Damaged == "" {
						t.Errorf("%s load: recall = %v; want %s labelled damaged", load, rs, tt.wantID)
					}
				}
				d := v.Diagnostics()
				if len(d) != 1 {
					t.Fatalf("%s load: diagnostics %v, want one", load, d)
				}
				for _, w := range tt.diagWant {
					if !strings.Contains(d[0].Error(), w) {
						t.Errorf("%s load: diagnostic %q, want it to contain %q", load, d[0], w)
					}
				}
			}
			// Fixed: served as it is, with no label.
			writeFiles(t, dir, map[string]string{"project/deploys.md": goodDeploys})
			v, err := Open(t.Context(), dir, Options{LastGood: h, IndexCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if m, err := v.Get("deploys"); err != nil || m.Damaged != "" || len(v.Diagnostics()) != 0 {
				t.Errorf("after the fix: %+v, %v, diagnostics %v; want served unlabelled", m, err, v.Diagnostics())
			}
		})
	}
}

// TestDamagedFileInARunningVault: a served vault that saw the file parse
// keeps the version it had, now labelled damaged too.
func TestDamagedFileInARunningVault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/deploys.md": goodDeploys})
	v, err := Open(t.Context(), dir, Options{LastGood: &fakeHistory{}})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/deploys.md": brokenDeploys})
	if err := v.Refresh(t.Context(), []string{"project/deploys.md"}); err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("deploys")
	if err != nil || m.Title != "Deploys need two approvals" || !strings.HasPrefix(m.Damaged, "project/deploys.md:3: invalid front matter") {
		t.Errorf("after the break: %+v, %v; want the last good version labelled damaged", m, err)
	}
	if got := m.Labels(); len(got) != 1 || !strings.HasPrefix(got[0], "damaged: project/deploys.md:3: ") {
		t.Errorf("Labels = %q", got)
	}
}
