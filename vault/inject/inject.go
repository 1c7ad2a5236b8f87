package inject

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault"
)

// The limits of one injection.
const (
	// MaxMemories is the most memories one prompt's injection carries.
	MaxMemories = 8
	// FullRunes is the longest content injected whole; a longer one is
	// cut to a SummaryRunes summary around what matched.
	FullRunes    = 300
	SummaryRunes = 150
	// minTaskRunes is the shortest prompt that is read as a task: below
	// it ("ok", "继续", "y") there is nothing to recall with.
	minTaskRunes = 4
)

// The hint rule: when no memory is a strong match, the best weak one is
// shown as a one-line title hint only when it covers a good part of the
// prompt's concepts, its text answers the words typed nearly as an ideal
// match would, and it stands apart from the next result. docs/ranking.md
// ("What the prompt hook injects") gives the figures on dev-v1 and both
// halves of dev-v2 that chose these values, and the signals tried beside
// them.
const (
	hintCoverage = 0.3
	hintNorm     = 0.6
	hintRunnerUp = 0.9
)

// Item is one memory an injection carries.
type Item struct {
	vault.SetResult
	// Text is what the injection shows of the memory: its content whole
	// when it has at most FullRunes runes, else a summary of about
	// SummaryRunes runes around what matched; cleaned (Clean). Empty for
	// a hint, which shows the title alone.
	Text string
	// Hint marks a weak match shown as a one-line title hint.
	Hint bool
}

// Prompt is what one prompt's injection carries: nothing (Items empty)
// when the prompt is not a task or no memory answers it.
type Prompt struct {
	Items []Item
	// Withheld counts matching memories left out because they hold a
	// secret.
	Withheld int
}

// IsTask reports whether prompt reads as a task or a question worth a
// recall: not a slash command, not a bare acknowledgement ("continue",
// "好的") and not a few characters.
func IsTask(prompt string) bool {
	p := strings.TrimSpace(prompt)
	if strings.HasPrefix(p, "/") {
		return false
	}
	word := strings.ToLower(strings.Trim(p, " \t\n.!。！?？~…"))
	if acknowledgements[word] {
		return false
	}
	return utf8.RuneCountInString(word) >= minTaskRunes
}

// acknowledgements are prompts that carry on a conversation rather than
// start a task.
var acknowledgements = map[string]bool{
	"continue": true, "go on": true, "go ahead": true, "yes": true, "no": true, "okay": true, "thanks": true,
	"thank you": true, "sounds good": true, "looks good": true, "lgtm": true, "retry": true, "try again": true,
	"keep going": true, "proceed": true, "done": true, "next": true,
	"继续": true, "好的": true, "可以": true, "谢谢": true, "没问题": true, "继续吧": true, "好": true, "是的": true,
	"对": true, "行": true, "重试": true, "再试一次": true, "下一步": true,
}

// ForPrompt recalls with the prompt across set and returns what answers
// it: the strong matches, at most MaxMemories; when there is none, at
// most one weak match as a title hint (the hint rule above); nothing when
// the prompt is not a task (IsTask). Only memories in force now are
// considered, and a memory whose title or body holds a secret is
// withheld.
func ForPrompt(ctx context.Context, set *vault.Set, prompt string) (Prompt, error) {
	if !IsTask(prompt) {
		return Prompt{}, nil
	}
	q := strings.TrimSpace(prompt)
	if err := vault.CheckQuery(q); err != nil {
		// An oversized paste is not a question to recall with.
		return Prompt{}, nil
	}
	rs, err := set.Recall(ctx, vault.Query{Text: q, Limit: MaxMemories})
	if err != nil {
		return Prompt{}, fmt.Errorf("recall: %w", err)
	}
	var out Prompt
	for _, r := range rs {
		if r.Match != vault.MatchStrong || r.State != string(vault.StatusActive) {
			continue
		}
		if HoldsSecret(r.Memory) {
			out.Withheld++
			continue
		}
		out.Items = append(out.Items, Item{SetResult: r, Text: Excerpt(r.Memory, r.Snippet)})
	}
	if len(out.Items) > 0 || out.Withheld > 0 {
		return out, nil
	}
	if hint, ok := hintOf(rs); ok && !HoldsSecret(hint.Memory) {
		out.Items = []Item{{SetResult: hint, Hint: true}}
	}
	return out, nil
}

// hintOf returns the weak match worth a title hint, if any (the hint
// rule).
func hintOf(rs []vault.SetResult) (vault.SetResult, bool) {
	if len(rs) == 0 || rs[0].Match != vault.MatchWeak || rs[0].State != string(vault.StatusActive) || rs[0].Score <= 0 {
		return vault.SetResult{}, false
	}
	top := rs[0]
	runnerUp := 0.0
	if len(rs) > 1 {
		runnerUp = rs[1].Score / top.Score
	}
	if hintWorthy(top.Coverage, top.Norm(), runnerUp) {
		return top, true
	}
	return vault.SetResult{}, false
}

// hintWorthy is the hint rule on the best weak result's features: the
// share of the prompt's concepts it covers, its Norm, and the next
// result's score as a share of its own (0 when there is none).
func hintWorthy(coverage, norm, runnerUp float64) bool {
	return coverage >= hintCoverage && norm >= hintNorm && runnerUp <= hintRunnerUp
}

// Excerpt is what an injection shows of m: its plain text whole when it
// has at most FullRunes runes, else snippet (recall's summary around what
// matched, about SummaryRunes runes) or, without one, the text's first
// SummaryRunes runes; cleaned either way.
func Excerpt(m *vault.Memory, snippet string) string {
	text := Clean(m.PlainText())
	if utf8.RuneCountInString(text) <= FullRunes {
		return text
	}
	if s := Clean(snippet); s != "" {
		return s
	}
	return Cut(text, SummaryRunes)
}

// Cut shortens s to at most n runes, ending with "…" when it cut.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// HoldsSecret is vault.HoldsSecret, the one rule of every door: a memory
// whose file holds a secret (edited by hand, committed with --no-verify,
// pulled from a teammate) is never shown to an assistant, not even
// redacted.
func HoldsSecret(m *vault.Memory) bool { return vault.HoldsSecret(m) }

// Clean makes s safe to hand to a model and to print: control characters
// (C0 but newline, C1), escape sequences and invisible format characters
// are removed, every run of white space becomes one space, and the ends
// are trimmed. Injected memory is data: a hand-written file must not
// carry terminal escapes or hidden text into the prompt.
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == 0x1b: // ESC: drop the sequence it starts (CSI, OSC, ...)
			i += escapeLength(s[i:])
			continue
		case r == utf8.RuneError && size == 1:
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// escapeLength is how many bytes after an ESC belong to its sequence: a
// CSI (ESC [ ... final byte 0x40–0x7e), an OSC or other string (ESC ] ...
// ended by BEL or ESC \), or a single character.
func escapeLength(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '[':
		for i := 1; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']', 'P', '_', '^', 'X':
		for i := 1; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	}
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// The session start's budget in characters: what it injects by default,
// and the most it may, under Claude Code's cap of 10,000 characters for a
// hook's context.
const (
	DefaultSessionBudget = 4000
	MaxSessionBudget     = 9000
)

// NewsShare is the part of the session start's budget (after its frame)
// that what changed since the last session may take: the rules in force
// keep the larger part.
func NewsShare(budget int) int { return max(budget, 0) / 3 }

// StartsAfresh reports whether a session start of this source (Claude
// Code's startup, resume, clear, compact) begins a new session, which
// moves the "changed since your last session" point. Resume and compact
// go on with a session whose model may have lost what it was told, so
// they show the same news again.
func StartsAfresh(source string) bool {
	return source == "" || source == "startup" || source == "clear"
}
