package clitext

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// recallFixture is a project vault and a user vault with a few memories,
// at a fixed clock, for the recall renderings.
func recallFixture(t *testing.T) (*vault.Set, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	open := func() *vault.Vault {
		v, err := vault.Open(t.Context(), t.TempDir(), vault.Options{Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	project, user := open(), open()
	for _, w := range []struct {
		v *vault.Vault
		n vault.NewMemory
	}{
		{project, vault.NewMemory{ID: "deploy-old", Title: "Deploy by hand", Content: "Deploys are run by hand from a laptop."}},
		{project, vault.NewMemory{ID: "deploy", Title: "Deploy with ops/deploy.sh", Tags: []string{"deploy"}, Importance: 8, Supersedes: []string{"deploy-old"},
			Content: "上线用 ops/deploy.sh 做蓝绿发布：先切 5% 流量，盯 Grafana 十分钟再全量。Roll back with ops/deploy.sh --rollback."}},
		{project, vault.NewMemory{ID: "grafana", Title: "Grafana dashboards", Content: "Dashboards live in ops/grafana; the deploy board shows error rates."}},
		{project, vault.NewMemory{ID: "index", Title: "Deploy index", Layer: vault.Meta, Links: []string{"freeze"},
			Content: "Everything about how we deploy: the deploy script, the freeze rule."}},
		{project, vault.NewMemory{ID: "freeze", Title: "No releases on Fridays", Content: "Code freeze from Friday noon."}},
		{project, vault.NewMemory{ID: "money", Title: "Money is int64 cents", Content: "Store money as int64 cents, never float64."}},
		{user, vault.NewMemory{ID: "pref", Title: "Answer in Chinese", Layer: vault.Preference, Content: "用中文回答。"}},
	} {
		if _, err := w.v.Create(t.Context(), w.n, vault.Author{}); err != nil {
			t.Fatalf("create %s: %v", w.n.ID, err)
		}
	}
	return vault.NewSet(vault.Member{Name: vault.ProjectVault, Vault: project}, vault.Member{Name: vault.UserVault, Vault: user}), now
}

// TestResultsGolden renders recall answers as `memvault recall` prints
// them: strong matches first, the weaker ones with their reasons, a
// question nothing answers strongly, and --explain.
func TestResultsGolden(t *testing.T) {
	set, now := recallFixture(t)
	var b strings.Builder
	for _, q := range []vault.Query{
		{Text: "how do we deploy"},
		{Text: "kubernetes helm deploy chart"},
		{Text: "怎么部署 ops/deploy.sh", Explain: true, Limit: 3},
		{Text: "deploy index", Explain: true, Limit: 4},
		{Text: "中文回答", Explain: true},
		{Text: "deploy by hand", Explain: true, IncludeInactive: true, Limit: 2},
		{Text: "terraform"},
	} {
		rs, err := set.Recall(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("$ memvault recall " + q.Text)
		if q.Explain {
			b.WriteString(" --explain")
		}
		if q.IncludeInactive {
			b.WriteString(" --include-inactive")
		}
		b.WriteString("\n")
		Results(&b, rs, now)
	}
	golden(t, filepath.Join("testdata", "recall.golden"), b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update and check the diff):\n%s", path, got)
	}
}
