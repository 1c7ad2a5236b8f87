package rank

import (
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memo"
)

// TextMemo remembers what recalls derive from memories' texts, across
// the recalls of a server (SetCache): the token sets the near-duplicate
// and rival checks compare and the analyses snippets are cut from. Each recall
// derived them anew for its top results (issue 25). The key is what the
// text derives from (the title, the body as written and the plain text
// when the memory keeps it), so a changed memory is a new key, never a
// stale value. A nil *TextMemo remembers nothing.
type TextMemo struct {
	sets   memo.Memo[textKey, map[string]bool]
	titles memo.Memo[string, map[string]bool]
	snips  memo.Memo[textKey, *index.SnippetText]
}

type textKey struct{ title, body, text string }

func keyOf(m *Memory) textKey { return textKey{m.Title, m.Body, m.KeptText()} }

// set is m's text's token set; callers must not change it.
func (t *TextMemo) set(m *Memory) map[string]bool {
	f := func(textKey) map[string]bool { return tokenSet(m.Title + "\n" + m.PlainText()) }
	if t == nil {
		return f(textKey{})
	}
	return t.sets.Get(keyOf(m), f)
}

// titleSet is the token set of m's title; callers must not change it.
func (t *TextMemo) titleSet(m *Memory) map[string]bool {
	if t == nil {
		return tokenSet(m.Title)
	}
	return t.titles.Get(m.Title, tokenSet)
}

// snippet is index.Snippet of m's plain text.
func (t *TextMemo) snippet(m *Memory, terms []string, runes int) string {
	if t == nil {
		return index.Snippet(m.PlainText(), terms, runes)
	}
	return t.snips.Get(keyOf(m), func(textKey) *index.SnippetText {
		return index.AnalyseSnippetText(m.PlainText())
	}).Snippet(terms, runes)
}
