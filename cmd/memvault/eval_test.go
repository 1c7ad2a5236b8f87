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
