package evalrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// Hook runs the UserPromptSubmit hook on the vault at dir with prompt, as
// Claude Code runs it, and returns the text it injected ("" for none).
type Hook func(ctx context.Context, dir, prompt string) (string, error)

// HookReport is what the prompt hook injected over a corpus: how often
// the answer was in it, how often nothing was injected for a question no
// memory answers, and how large the injections were.
type HookReport struct {
	Name string
	// Answerable counts the questions with gold memories, Answered those
	// whose injection named one of them (by id).
	Answerable, Answered int
	// None counts the questions no memory answers, Silent those that got
	// no injection at all.
	None, Silent int
	// Sizes are the lengths in characters (runes) of the non-empty
	// injections.
	Sizes []int
	// ByKind and ByLang split Answered/Silent the same way.
	ByKind, ByLang map[string]*HookScore
}

// HookScore is one group's share of a HookReport.
type HookScore struct{ Answerable, Answered, None, Silent int }

func (s *HookScore) add(gold bool, answered, silent bool) {
	if gold {
		s.Answerable++
		if answered {
			s.Answered++
		}
		return
	}
	s.None++
	if silent {
		s.Silent++
	}
}

// RunHook loads the corpus into a vault in a temporary folder, as Run
// does, and runs every query through hook. misses, when not nil, gets a
// line for every answerable query whose answer was not injected and every
// unanswerable one that got an injection.
func RunHook(ctx context.Context, c *Corpus, now func() time.Time, hook Hook, misses io.Writer) (*HookReport, error) {
	dir, err := os.MkdirTemp("", "memvault-eval-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	_, idToKey, err := load(ctx, c, dir, now)
	if err != nil {
		return nil, err
	}
	rep := &HookReport{Name: c.Name, ByKind: map[string]*HookScore{}, ByLang: map[string]*HookScore{}}
	overall := &HookScore{}
	for _, q := range c.Queries {
		text, err := hook(ctx, dir, q.Q)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Q, err)
		}
		var named []string
		for id, key := range idToKey {
			if strings.Contains(text, id) {
				named = append(named, key)
			}
		}
		answered := false
		for _, g := range q.Gold {
			answered = answered || slices.Contains(named, g)
		}
		if text != "" {
			rep.Sizes = append(rep.Sizes, len([]rune(text)))
		}
		gold := len(q.Gold) > 0
		for _, s := range []*HookScore{overall, hookGroup(rep.ByKind, q.Kind), hookGroup(rep.ByLang, q.Lang)} {
			s.add(gold, answered, text == "")
		}
		if misses != nil {
			sort.Strings(named)
			switch {
			case gold && !answered:
				fmt.Fprintf(misses, "answer not injected %q (%s/%s) gold %v, injected %v\n", q.Q, q.Kind, q.Lang, q.Gold, named)
			case !gold && text != "":
				fmt.Fprintf(misses, "injected for a question no memory answers %q (%s/%s): %v\n", q.Q, q.Kind, q.Lang, named)
			}
		}
	}
	rep.Answerable, rep.Answered, rep.None, rep.Silent = overall.Answerable, overall.Answered, overall.None, overall.Silent
	return rep, nil
}

func hookGroup(m map[string]*HookScore, key string) *HookScore {
	if m[key] == nil {
		m[key] = &HookScore{}
	}
	return m[key]
}

func share(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(a) / float64(n)
}

// median of the injection sizes, 0 for none.
func (r *HookReport) median() int {
	if len(r.Sizes) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(r.Sizes))
	return s[len(s)/2]
}

func (r *HookReport) largest() int {
	if len(r.Sizes) == 0 {
		return 0
	}
	return slices.Max(r.Sizes)
}

// JSON is the report as `eval --hook --json` prints it.
func (r *HookReport) JSON() map[string]any {
	group := func(m map[string]*HookScore) map[string]any {
		out := map[string]any{}
		for k, s := range m {
			g := map[string]any{}
			if s.Answerable > 0 {
				g["answer_injected"] = view.Round3(share(s.Answered, s.Answerable))
				g["n"] = s.Answerable
			}
			if s.None > 0 {
				g["nothing_injected"] = view.Round3(share(s.Silent, s.None))
				g["none"] = s.None
			}
			out[k] = g
		}
		return out
	}
	return map[string]any{
		"corpus": r.Name, "answerable": r.Answerable, "none": r.None,
		"answer_injected":  view.Round3(share(r.Answered, r.Answerable)),
		"nothing_injected": view.Round3(share(r.Silent, r.None)),
		"median_chars":     r.median(), "max_chars": r.largest(), "injections": len(r.Sizes),
		"by_kind": group(r.ByKind), "by_lang": group(r.ByLang),
	}
}

// Print writes the report as a table.
func (r *HookReport) Print(w io.Writer) {
	fmt.Fprintf(w, "corpus %s, the UserPromptSubmit hook as Claude Code runs it\n", r.Name)
	fmt.Fprintf(w, "%-16s %5s %16s %5s %17s\n", "group", "n", "answer injected", "none", "nothing injected")
	// rate is a share, or "-" for a group without such questions.
	rate := func(a, n int) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", share(a, n))
	}
	row := func(label string, s *HookScore) {
		fmt.Fprintf(w, "%-16s %5d %16s %5d %17s\n", label, s.Answerable, rate(s.Answered, s.Answerable), s.None, rate(s.Silent, s.None))
	}
	row("overall", &HookScore{r.Answerable, r.Answered, r.None, r.Silent})
	for _, part := range []struct {
		prefix string
		m      map[string]*HookScore
	}{{"kind", r.ByKind}, {"lang", r.ByLang}} {
		keys := make([]string, 0, len(part.m))
		for k := range part.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			row(part.prefix+"="+k, part.m[k])
		}
	}
	fmt.Fprintf(w, "injections %d: median %d characters, largest %d\n", len(r.Sizes), r.median(), r.largest())
}
