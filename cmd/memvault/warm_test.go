package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/vault/load"
)

// TestRecallWarmMatchesFull runs the same recalls (Chinese and English;
// text, --explain, --json, --include-inactive) on the sample vault
// through a load from the files (the index cache removed first) and
// through loads that take what they can from the cache, and requires the
// same output byte for byte: on the vault as it is, then after a body
// edited, a memory added, one removed, one superseded by a new rule and
// one expired. After each change the first warm run finds the cache of
// the step before (stat data that no longer matches, a folder listing
// that changed, an index to patch); the second finds the cache that run
// wrote, dated ahead so that no file is racily clean, and reads no file.
// (The folders here changed a moment ago, so their listings are never
// taken from the cache: TestCacheParity in package vault covers that.)
func TestRecallWarmMatchesFull(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "sample-vault"))); err != nil {
		t.Fatal(err)
	}
	r := &cliRepo{t: t, root: dir, dir: dir, now: gitTestNow, home: t.TempDir()}
	queries := [][]string{
		{"结算模块怎么设计的"},
		{"how do we deploy", "--explain"},
		{"订单状态", "--json"},
		{"order status refunded", "--include-inactive", "--json"},
		{"怎么部署 deploy", "--explain", "--limit", "3"},
		{"kafka topic naming", "--json", "--explain"},
		{"money float64 金额"},
	}
	recallAll := func() []string {
		t.Helper()
		var outs []string
		for _, q := range queries {
			outs = append(outs, r.ok(append([]string{"recall"}, q...)...))
		}
		return outs
	}
	cacheDir := filepath.Join(dir, load.CacheDirName)
	full := func() []string {
		t.Helper()
		if err := os.RemoveAll(cacheDir); err != nil {
			t.Fatal(err)
		}
		return recallAll()
	}
	ageCache := func() {
		t.Helper()
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(cacheDir, "index-v2"), later, later); err != nil {
			t.Fatal(err)
		}
	}
	file := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	edit := func(t *testing.T, rel, old, new string) {
		t.Helper()
		b, err := os.ReadFile(file(rel))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s holds no %q", rel, old)
		}
		if err := os.WriteFile(file(rel), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(t *testing.T, rel, s string) {
		t.Helper()
		if err := os.WriteFile(file(rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"as it is", func(*testing.T) {}},
		{"a body edited", func(t *testing.T) {
			edit(t, "project/shipping-to-production-ops-deploy-sh-blue-green-deploy.md", "\n# ", "\nDeploy only from main; 部署前先跑冒烟测试。\n\n# ")
		}},
		{"a memory added", func(t *testing.T) {
			write(t, "project/deploy-freeze-during-double-12.md", "---\nid: deploy-freeze\ntitle: Deploy freeze during 双 12\nlayer: project\nimportance: 7\n"+
				"tags: [deploy, 部署]\ncreated_at: 2026-11-20T08:00:00Z\n---\n\n# Deploy freeze during 双 12\n\nNo deploy from 12-10 to 12-13; 订单状态 changes wait too.\n")
		}},
		{"a memory removed", func(t *testing.T) {
			if err := os.Remove(file("project/kafka-topic-naming.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a memory superseded", func(t *testing.T) {
			write(t, "project/money-is-decimal-strings-at-the-api.md", "---\nid: money-api\ntitle: Money crosses the API as decimal strings\nlayer: project\n"+
				"importance: 8\ncreated_at: 2026-11-25T08:00:00Z\nsupersedes: [01M1JYSK001JFGN6A8F2MM0K3R]\n---\n\n# Money crosses the API as decimal strings\n\n"+
				"金额在 API 里用字符串，订单状态 refunded 的退款金额也一样; float64 never.\n")
		}},
		{"a memory expired", func(t *testing.T) {
			edit(t, "project/shipping-to-production-ops-deploy-sh-blue-green-deploy.md", "\nid: ", "\nexpires_at: 2026-11-01T00:00:00Z\nid: ")
		}},
	}
	var prev []string
	for i, st := range steps {
		st.change(t)
		warm := recallAll() // the cache of the step before
		want := full()
		for j, out := range want {
			if strings.TrimSpace(out) == "" || strings.Contains(out, `"results": []`) || strings.HasPrefix(out, "no memories found") {
				t.Fatalf("%s: recall %q found nothing:\n%s", st.name, queries[j], out)
			}
		}
		if i > 0 && cmp.Equal(want, prev) {
			t.Errorf("%s: no recall changed: the step tests nothing", st.name)
		}
		prev = want
		if diff := cmp.Diff(want, warm); diff != "" {
			t.Fatalf("%s: recall with the cache of the step before differs from a load from the files (-files +cache):\n%s", st.name, diff)
		}
		ageCache()
		if diff := cmp.Diff(want, recallAll()); diff != "" {
			t.Fatalf("%s: recall with an up-to-date cache differs from a load from the files (-files +cache):\n%s", st.name, diff)
		}
	}
}
