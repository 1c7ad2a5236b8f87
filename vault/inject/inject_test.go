package inject

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault"
)

func TestIsTask(t *testing.T) {
	tests := []struct {
		prompt string
		want   bool
	}{
		{"帮我在新模块里加个测试文件", true},
		{"部署那个脚本在哪", true},
		{"how do we deploy?", true},
		{"fix the flaky checkout test", true},
		{"/compact", false},
		{"  /memvault:recall 部署", false},
		{"continue", false},
		{"Continue.", false},
		{"继续", false},
		{"好的！", false},
		{"ok", false},
		{"y", false},
		{"", false},
		{"   \n ", false},
		{"部署脚本", true}, // four runes of Chinese is a question
	}
	for _, tt := range tests {
		if got := IsTask(tt.prompt); got != tt.want {
			t.Errorf("IsTask(%q) = %v, want %v", tt.prompt, got, tt.want)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Use pytest, not unittest.", "Use pytest, not unittest."},
		{"white space folds", "a\n\n  b\tc\r\n", "a b c"},
		{"CSI colour and clear screen", "\x1b[31mred\x1b[0m \x1b[2Jgone", "red gone"},
		{"OSC title ended by BEL", "x\x1b]0;pwned\x07y", "xy"},
		{"OSC 8 hyperlink ended by ST", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"carriage return overwrite", "safe\rEVIL", "safe EVIL"},
		{"C0 and C1 controls", "a\x00b\x07c\u0085d\u009be", "abc de"},
		{"zero-width and bidi controls", "ab\u200bc\u202ed\ufeff", "abcd"},
		{"invalid UTF-8 dropped", "a\xffb", "ab"},
		{"Chinese kept", "  结算模块\u3000设计 ", "结算模块 设计"},
		{"ESC at the end", "x\x1b", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "\x1b[31mx", "\x1b]0;t\x07", "a\r\nb", "结算\u200b", "\x1b", "\x1b[", "\x1b]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Clean(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Clean(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if r == 0x1b || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("Clean(%q) = %q keeps %U", s, got, r)
			}
		}
		if got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("Clean(%q) = %q: white space not folded", s, got)
		}
		if Clean(got) != got {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}

func TestExcerpt(t *testing.T) {
	short := "Tests go under tests/ with pytest; file names test_*.py."
	long := strings.Repeat("部署脚本在 ops/deploy.sh。", 40)
	tests := []struct {
		name, body, snippet string
		wantWhole           bool
		maxRunes            int
	}{
		{"short content whole", short, "ignored", true, FullRunes},
		{"long content cut to the snippet", long, "…deploy.sh。部署脚本…", false, SummaryRunes + 2},
		{"long content without a snippet: its start", long, "", false, SummaryRunes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Excerpt(&vault.Memory{Body: tt.body}, tt.snippet)
			if n := utf8.RuneCountInString(got); n > tt.maxRunes {
				t.Errorf("excerpt has %d runes, want at most %d: %q", n, tt.maxRunes, got)
			}
			if (got == Clean(tt.body)) != tt.wantWhole {
				t.Errorf("excerpt %q: whole = %v, want %v", got, got == Clean(tt.body), tt.wantWhole)
			}
		})
	}
}

func TestHoldsSecret(t *testing.T) {
	tests := []struct {
		title, body string
		want        bool
	}{
		{"Deploy key", "The deploy key lives in the vault, ask ops.", false},
		{"S3 upload", "访问密钥 ID 是AKIAUXCSVVKJKD2U2Y5A，权限只有 PutObject。", true},
		{"aws_access_key_id = AKIAL5S6SIPNYTD3MRE3", "a key in the title", true},
		{"密码规则", "密码至少 12 位，不能写进代码。", false},
	}
	for _, tt := range tests {
		if got := HoldsSecret(&vault.Memory{Title: tt.title, Body: tt.body}); got != tt.want {
			t.Errorf("HoldsSecret(%q, %q) = %v, want %v", tt.title, tt.body, got, tt.want)
		}
	}
}

// clock is a fixed instant.
type clock time.Time

func (c clock) Now() time.Time { return time.Time(c) }

// TestForPrompt checks the selection on a small vault: the strong answer
// in full, nothing for an unrelated prompt or a non-task, the superseded
// rule never, a memory holding a secret withheld.
func TestForPrompt(t *testing.T) {
	ctx := t.Context()
	now := clock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	v, err := vault.Open(ctx, t.TempDir(), vault.Options{Now: now.Now})
	if err != nil {
		t.Fatal(err)
	}
	add := func(n vault.NewMemory) string {
		t.Helper()
		res, err := v.Create(ctx, n, vault.Author{Reason: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	pytest := add(vault.NewMemory{Title: "Python tests use pytest", Content: "测试用 pytest：测试文件放在 tests/ 下，文件名 test_*.py，不用 unittest。", Layer: vault.Project, Tags: []string{"python", "testing", "测试"}, Importance: 8})
	deploy := add(vault.NewMemory{Title: "部署脚本", Content: "部署用 ops/deploy.sh，先在 staging 跑一遍。The deploy script is ops/deploy.sh.", Layer: vault.Project, Tags: []string{"deploy", "部署"}})
	old := add(vault.NewMemory{Title: "Python 版本要求 3.8", Content: "项目要求 Python 3.8。", Layer: vault.Project, Tags: []string{"python"}})
	py311 := add(vault.NewMemory{Title: "Python 版本要求 3.11", Content: "项目要求 Python 3.11，不再支持 3.8。", Layer: vault.Project, Tags: []string{"python"}, Supersedes: []string{old}})
	// A hand edit the write path never saw (it refuses a secret): the
	// file is written directly and the vault opened again.
	hand := "---\ntitle: S3 upload credentials\ncreated_at: 2026-11-01T00:00:00Z\nlayer: project\ntags: [s3, upload]\n---\nS3 upload uses the access key AKIAUXCSVVKJKD2U2Y5A with PutObject only.\n"
	if err := os.WriteFile(filepath.Join(v.Dir(), "project", "s3-upload-credentials.md"), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err = vault.Open(ctx, v.Dir(), vault.Options{Now: now.Now}); err != nil {
		t.Fatal(err)
	}
	set := vault.NewSet(vault.Member{Name: vault.ProjectVault, Vault: v})
	set.Now = now.Now
	if p, err := ForPrompt(ctx, set, "which credentials does the S3 upload use"); err != nil || len(p.Items) != 0 || p.Withheld != 1 {
		t.Errorf("a memory holding a secret: injected %d, withheld %d (%v); want 0 and 1", len(p.Items), p.Withheld, err)
	}

	ids := func(p Prompt) []string {
		var out []string
		for _, it := range p.Items {
			out = append(out, it.Memory.ID)
		}
		return out
	}
	tests := []struct {
		prompt string
		want   string // an id that must be injected, "" for nothing
		not    string // an id that must not be
	}{
		{"帮我在新模块里加个测试文件", pytest, ""},
		{"部署那个脚本在哪", deploy, ""},
		{"当前项目的 Python 版本要求是什么", py311, old},
		{"what's the weather like on Mars tomorrow", "", ""},
		{"continue", "", ""},
		{"/memvault:recall 部署", "", ""},
	}
	for _, tt := range tests {
		p, err := ForPrompt(ctx, set, tt.prompt)
		if err != nil {
			t.Fatalf("%q: %v", tt.prompt, err)
		}
		got := ids(p)
		if tt.want == "" && len(got) > 0 {
			t.Errorf("%q injects %v, want nothing", tt.prompt, got)
		}
		if tt.want != "" && !strings.Contains(strings.Join(got, " "), tt.want) {
			t.Errorf("%q injects %v, want %s", tt.prompt, got, tt.want)
		}
		if tt.not != "" && strings.Contains(strings.Join(got, " "), tt.not) {
			t.Errorf("%q injects the superseded %s: %v", tt.prompt, tt.not, got)
		}
		if len(p.Items) > MaxMemories {
			t.Errorf("%q injects %d memories, over %d", tt.prompt, len(p.Items), MaxMemories)
		}
	}
}

func TestSessionRules(t *testing.T) {
	for _, tt := range []struct {
		source string
		afresh bool
	}{{"startup", true}, {"clear", true}, {"", true}, {"resume", false}, {"compact", false}} {
		if got := StartsAfresh(tt.source); got != tt.afresh {
			t.Errorf("StartsAfresh(%q) = %v, want %v", tt.source, got, tt.afresh)
		}
	}
	if got := NewsShare(3000); got != 1000 {
		t.Errorf("NewsShare(3000) = %d, want 1000", got)
	}
	if got := NewsShare(-5); got != 0 {
		t.Errorf("NewsShare(-5) = %d, want 0", got)
	}
}
