package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestScenarioAcrossSessions is the acceptance scenario, in
// English and in Chinese, against real server processes with a user
// vault (~/.memvault) and a project vault, among distracting memories:
//
//  1. a preference stated in one session is recalled by a new server
//     process, from the user vault;
//  2. a path (ops/deploy.sh) is recalled by a question worded differently
//     from the memory ("ship to production", "发布到生产环境");
//  3. a superseded rule is not returned as current, and its successor
//     names it.
func TestScenarioAcrossSessions(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)

	type lang struct {
		name             string
		pref             map[string]any
		prefQueries      []string
		deploy           map[string]any
		deployQueries    []string
		oldRule, newRule map[string]any
		ruleQueries      []string
		distractors      []map[string]any
	}
	langs := []lang{
		{
			name: "English",
			pref: map[string]any{"title": "Tests use pytest", "layer": "preference", "tags": []any{"testing"},
				"content": "The developer wants tests written and run with pytest (pytest -q), never unittest."},
			prefQueries: []string{"which test framework should I use", "what do I run the tests with"},
			deploy: map[string]any{"title": "Production deploys", "tags": []any{"ops"},
				"content": "Deploy to production by running ops/deploy.sh from the repository root once CI is green."},
			deployQueries: []string{"how do we ship to production", "release to prod"},
			oldRule: map[string]any{"title": "Lint with flake8", "tags": []any{"lint", "python"},
				"content": "Run flake8 before every commit."},
			newRule: map[string]any{"title": "Lint with ruff", "tags": []any{"lint", "python"},
				"content": "Run ruff check before every commit; flake8 is retired.", "reason": "ruff is faster"},
			ruleQueries: []string{"which linter do we use", "lint python code"},
			distractors: []map[string]any{
				{"title": "Database migrations", "content": "Write migrations with alembic; never edit an applied one."},
				{"title": "Branch names", "content": "Name branches feature/<ticket> or fix/<ticket>."},
				{"title": "Staging environment", "content": "Staging lives at staging.internal; reset it with make reset-staging."},
			},
		},
		{
			name: "Chinese",
			pref: map[string]any{"title": "测试用 pytest", "layer": "preference", "tags": []any{"测试"},
				"content": "开发者要求测试一律用 pytest 编写和运行，不要用 unittest。"},
			prefQueries: []string{"测试用什么框架", "单元测试怎么写"},
			deploy: map[string]any{"title": "上线流程", "tags": []any{"运维"},
				"content": "上线部署：CI 通过后在仓库根目录运行 ops/deploy.sh。"},
			deployQueries: []string{"怎么发布到生产环境", "生产环境怎么发版"},
			oldRule: map[string]any{"title": "代码格式用 black", "tags": []any{"格式化", "python"},
				"content": "提交前用 black 格式化 Python 代码。"},
			newRule: map[string]any{"title": "代码格式改用 ruff format", "tags": []any{"格式化", "python"},
				"content": "提交前用 ruff format 格式化 Python 代码，不再用 black。", "reason": "统一工具链"},
			ruleQueries: []string{"代码格式化用什么工具", "python 格式化"},
			distractors: []map[string]any{
				{"title": "数据库迁移", "content": "用 alembic 写迁移脚本，已执行的迁移不要修改。"},
				{"title": "分支命名", "content": "分支命名为 feature/<单号> 或 fix/<单号>。"},
				{"title": "预发环境", "content": "预发环境在 staging.internal，用 make reset-staging 重置。"},
			},
		},
	}

	for _, l := range langs {
		t.Run(l.name, func(t *testing.T) {
			// Each language gets its own developer (home with a user
			// vault) and project.
			t.Parallel()
			home := t.TempDir()
			initUserVault(t, home)
			env := []string{"HOME=" + home}
			repo := newRepo(t)

			// Session 1 states everything, then ends.
			s, _ := spawn(t, bin, spawnOptions{dir: repo, env: env})
			var pref, deploy, oldRule, newRule view.Write
			s.ok("remember", l.pref, &pref)
			s.ok("remember", l.deploy, &deploy)
			s.ok("remember", l.oldRule, &oldRule)
			for _, d := range l.distractors {
				s.ok("remember", d, nil)
			}
			successor := withArg(l.newRule, "supersedes", []any{oldRule.ID})
			s.ok("remember", successor, &newRule)
			if pref.Vault != userScope {
				t.Fatalf("preference went to the %s vault, want the user vault", pref.Vault)
			}
			s.c.Close()

			// Session 2 is a new process: only the repositories carry over.
			s, _ = spawn(t, bin, spawnOptions{dir: repo, env: env})
			recall := func(q string) []view.RecallResult {
				t.Helper()
				var out view.Recall
				s.ok("recall", map[string]any{"query": q, "limit": 5}, &out)
				return out.Results
			}
			top := func(rs []view.RecallResult, n int) []string {
				var ids []string
				for _, r := range rs[:min(n, len(rs))] {
					ids = append(ids, r.ID+" "+r.Title)
				}
				return ids
			}
			for _, q := range l.prefQueries {
				rs := recall(q)
				if len(rs) == 0 || rs[0].ID != pref.ID || rs[0].Vault != userScope {
					t.Errorf("preference: recall %q = %v, want %s (user vault) first", q, top(rs, 3), pref.ID)
				}
			}
			for _, q := range l.deployQueries {
				rs := recall(q)
				if len(rs) == 0 || rs[0].ID != deploy.ID {
					t.Errorf("path: recall %q = %v, want %s first", q, top(rs, 3), deploy.ID)
					continue
				}
				if !strings.Contains(rs[0].Snippet, "ops/deploy.sh") {
					t.Errorf("path: recall %q snippet %q does not show ops/deploy.sh", q, rs[0].Snippet)
				}
			}
			for _, q := range l.ruleQueries {
				rs := recall(q)
				var ids []string
				for _, r := range rs {
					ids = append(ids, r.ID)
				}
				if slices.Contains(ids, oldRule.ID) {
					t.Errorf("superseded: recall %q returned the old rule %s as current: %v", q, oldRule.ID, top(rs, 5))
				}
				if len(rs) == 0 || rs[0].ID != newRule.ID {
					t.Errorf("superseded: recall %q = %v, want the successor %s first", q, top(rs, 3), newRule.ID)
					continue
				}
				if !slices.ContainsFunc(rs[0].Supersedes, func(r view.Ref) bool { return r.ID == oldRule.ID }) {
					t.Errorf("superseded: successor %s names %v, want %s", newRule.ID, rs[0].Supersedes, oldRule.ID)
				}
			}
			// Asked for, the old rule is there, marked superseded.
			var all view.Recall
			s.ok("recall", map[string]any{"query": l.ruleQueries[0], "include_inactive": true}, &all)
			for _, r := range all.Results {
				if r.ID == oldRule.ID && (r.Status != "superseded" || !slices.ContainsFunc(r.SupersededBy, func(r view.Ref) bool { return r.ID == newRule.ID })) {
					t.Errorf("old rule with include_inactive = %+v, want status superseded by %s", r, newRule.ID)
				}
			}
		})
	}
}

// withArg returns a copy of m with k set to v.
func withArg(m map[string]any, k string, v any) map[string]any {
	out := maps.Clone(m)
	out[k] = v
	return out
}
