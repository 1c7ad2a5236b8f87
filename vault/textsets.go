package vault

import "github.com/memvault/memvault/vault/memo"

// textSets remembers the token sets of memories' texts (title and plain
// text) that the near-duplicate check compares: a recall tokenized the
// top results' whole texts anew each time (issue 25). The key is what
// the text derives from (the title, the body as written and the plain
// text when the memory keeps it), so a changed memory is a new key,
// never a stale set.
type textSets memo.Memo[textKey, map[string]bool]

type textKey struct{ title, body, text string }

// of is m's text's token set; callers must not change it. A nil t
// computes it.
func (t *textSets) of(m *Memory) map[string]bool {
	return (*memo.Memo[textKey, map[string]bool])(t).Get(textKey{m.Title, m.Body, m.text}, func(textKey) map[string]bool {
		return tokenSet(m.Title + "\n" + m.PlainText())
	})
}
