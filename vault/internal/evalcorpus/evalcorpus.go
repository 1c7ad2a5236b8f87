// Package evalcorpus reads the shared evaluation corpora (shared/eval,
// beside the clone) for the eval tests of vault and its packages, and
// splits their questions into the two halves the ranking and injection
// rules are tuned on and checked on. Only tests import it.
package evalcorpus

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"testing"
)

// Memory is one memory of a corpus.
type Memory struct {
	Key        string   `json:"key"`
	Lang       string   `json:"lang"`
	Layer      int      `json:"layer"`
	Title      string   `json:"title"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	Importance int      `json:"importance"`
}

// Query is one question of a corpus; Gold lists the keys of the
// memories that answer it, none for a question of kind "none".
type Query struct {
	Q    string   `json:"q"`
	Lang string   `json:"lang"`
	Kind string   `json:"kind"`
	Gold []string `json:"gold"`
}

// Corpus is a labelled corpus: memories and the questions asked of them.
type Corpus struct {
	Name     string   `json:"name"`
	Memories []Memory `json:"memories"`
	Queries  []Query  `json:"queries"`
}

// Load reads the corpus at path. The corpora live outside the
// repository: a test is skipped, with a message saying so, when the file
// is missing.
func Load(t testing.TB, path string) *Corpus {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("eval corpus %s not found: it lives in shared/eval beside the clone", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var c Corpus
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return &c
}

// SplitHalves splits queries into two halves, alternating within each
// kind and language so that both halves have the same mix: tune on one,
// check on the other.
func SplitHalves(qs []Query) (a, b []Query) {
	seen := map[string]int{}
	for _, q := range qs {
		g := q.Kind + "/" + q.Lang
		if seen[g]%2 == 0 {
			a = append(a, q)
		} else {
			b = append(b, q)
		}
		seen[g]++
	}
	return a, b
}
