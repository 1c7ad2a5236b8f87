package secret

import (
	"regexp"
	"strings"
	"testing"
)

// TestRuleExamples runs every rule's own examples: positives are found by
// that rule, negatives by no rule.
func TestRuleExamples(t *testing.T) {
	t.Parallel()
	for _, r := range rules {
		t.Run(r.id, func(t *testing.T) {
			if len(r.positives) == 0 || len(r.negatives) == 0 {
				t.Errorf("rule %s needs positive and negative examples", r.id)
			}
			for _, p := range r.positives {
				if !hasRule(Scan([]byte(p)), r.id) {
					t.Errorf("positive not found by %s: %q\n got %v", r.id, p, Scan([]byte(p)))
				}
			}
			for _, n := range r.negatives {
				if got := Scan([]byte(n)); len(got) != 0 {
					t.Errorf("negative flagged: %q\n got %v", n, got)
				}
			}
		})
	}
}

func TestRuleTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.id] {
			t.Errorf("duplicate rule id %s", r.id)
		}
		seen[r.id] = true
		if r.description == "" || len(r.keywords) == 0 {
			t.Errorf("rule %s needs a description and keywords", r.id)
		}
		for _, k := range r.keywords {
			if k != strings.ToLower(k) {
				t.Errorf("rule %s: keyword %q must be lower case", r.id, k)
			}
		}
		if anchored := strings.HasPrefix(strings.TrimPrefix(r.re.String(), "(?i)"), "^"); anchored != r.anchored {
			t.Errorf("rule %s: anchored = %v but regexp %q", r.id, r.anchored, r.re)
		}
		if r.group > r.re.NumSubexp() {
			t.Errorf("rule %s: group %d of %d", r.id, r.group, r.re.NumSubexp())
		}
	}
	if got := len(Rules()); got != len(rules) {
		t.Errorf("Rules() = %d rules, want %d", got, len(rules))
	}
}

func hasRule(fs []Finding, id string) bool {
	for _, f := range fs {
		if f.Rule == id {
			return true
		}
	}
	return false
}

// TestExpressionsCompile compiles every expression of the package: they are
// compiled on first use (lazyre.go), so a broken one would otherwise show
// only when a scan first met its keyword.
func TestExpressionsCompile(t *testing.T) {
	all := map[string]*lazyRegexp{"endMarker": endMarker, "gcpPrivateKey": gcpPrivateKey, "urlUser": urlUser, "identifier": identifier}
	for _, r := range rules {
		all["rule "+r.id] = r.re
	}
	for name, l := range all {
		if _, err := regexp.Compile(l.String()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
