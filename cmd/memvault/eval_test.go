package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// devCorpus is the shared development corpus beside the repository
// (../shared/eval in a checkout and in CI).
const devCorpus = "../../../shared/eval/dev-v1.json"

// TestEvalMeetsTargets runs `memvault eval` on the development corpus
// through the whole write and recall path and checks the acceptance
// figures: Recall@5 >= 0.93 and MRR@10 >= 0.88 overall, Recall@5 >= 0.90
// per language and >= 0.80 for paraphrase and mixed queries.
func TestEvalMeetsTargets(t *testing.T) {
	t.Parallel()
	path, err := filepath.Abs(devCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("development corpus not found at %s (it ships in ../shared beside the checkout): %v", path, err)
	}
	var out, errb bytes.Buffer
	m := NewMain(strings.NewReader(""), &out, &errb)
	m.Now = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	if code := m.Run(context.Background(), []string{"eval", path, "--json"}); code != 0 {
		t.Fatalf("eval exit %d: %s", code, errb.String())
	}
	type scores struct {
		R5  float64 `json:"recall@5"`
		MRR float64 `json:"mrr@10"`
		N   int     `json:"n"`
	}
	var rep struct {
		Overall scores            `json:"overall"`
		ByKind  map[string]scores `json:"by_kind"`
		ByLang  map[string]scores `json:"by_lang"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out.String())
	}
	t.Logf("eval: %s", out.String())
	checks := []struct {
		name      string
		got, want float64
	}{
		{"overall Recall@5", rep.Overall.R5, 0.93},
		{"overall MRR@10", rep.Overall.MRR, 0.88},
		{"zh Recall@5", rep.ByLang["zh"].R5, 0.90},
		{"en Recall@5", rep.ByLang["en"].R5, 0.90},
		{"paraphrase Recall@5", rep.ByKind["paraphrase"].R5, 0.80},
		{"mixed Recall@5", rep.ByKind["mixed"].R5, 0.80},
	}
	for _, c := range checks {
		if c.got < c.want {
			t.Errorf("%s = %.3f, want >= %.2f", c.name, c.got, c.want)
		}
	}
}

// TestEvalHookBinary runs `memvault eval --hook` through the built binary,
// which runs its own UserPromptSubmit hook as a process per question: the
// answers are injected, the questions no memory answers get nothing.
func TestEvalHookBinary(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	corpus := filepath.Join(t.TempDir(), "corpus.json")
	if err := os.WriteFile(corpus, []byte(`{"name": "tiny", "memories": [
  {"key": "m1", "lang": "zh", "layer": 3, "title": "结算模块用策略模式", "content": "每种促销是一个 PromotionStrategy，按优先级依次执行；放弃了 if/else 链和 Drools 规则引擎。", "tags": ["checkout", "结算"], "importance": 8},
  {"key": "m2", "lang": "en", "layer": 3, "title": "Deploys go through ops/deploy.sh", "content": "Production deploys are blue-green: ops/deploy.sh switches the ingress after health checks pass.", "tags": ["deploy"], "importance": 7}],
 "queries": [
  {"q": "结算模块怎么设计的", "lang": "zh", "kind": "paraphrase", "gold": ["m1"]},
  {"q": "how do production deploys work", "lang": "en", "kind": "paraphrase", "gold": ["m2"]},
  {"q": "write a haiku about autumn leaves", "lang": "en", "kind": "none", "gold": []},
  {"q": "continue", "lang": "en", "kind": "none", "gold": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runBinary(t, bin, "eval", corpus, "--hook", "--json")
	if code != 0 {
		t.Fatalf("eval --hook exit %d:\n%s", code, out)
	}
	var rep struct {
		Answered float64 `json:"answer_injected"`
		Silent   float64 `json:"nothing_injected"`
		Median   int     `json:"median_chars"`
		Largest  int     `json:"max_chars"`
		N        int     `json:"injections"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --hook --json: %v\n%s", err, out)
	}
	if rep.Answered != 1 || rep.Silent != 1 || rep.N != 2 || rep.Median <= 0 || rep.Largest > 2000 {
		t.Errorf("eval --hook: %+v, want both answers injected, nothing for the other two, two injections under 2,000 characters\n%s", rep, out)
	}
}
