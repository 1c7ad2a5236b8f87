package vault

import (
	"context"
	"fmt"

	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/index"
)

// Limits on a recall query. A query is a question, a sentence or a
// pasted paragraph; the index searches its 64 heaviest terms and tracks
// 32 of its concepts, so a longer text adds work, not answers. The caps
// keep the work of one recall small (docs/hardening.md): a query past
// either is refused with a *QueryTooLargeError.
const (
	// MaxQueryBytes is the largest query text, in bytes: about 1,300
	// English words or 2,700 Chinese characters.
	MaxQueryBytes = 8 << 10
	// MaxQueryTerms is the most distinct terms (words, identifier parts,
	// Chinese bigrams, as index.Tokenize finds them) a query may have.
	// Natural text at MaxQueryBytes has under 1,000 in either language;
	// only made-up input (every word different, identifier soup) reaches
	// it.
	MaxQueryTerms = 2048
)

// QueryTooLargeError is the error of a recall whose query is past
// MaxQueryBytes or MaxQueryTerms.
type QueryTooLargeError struct {
	// Unit is "bytes" or "distinct terms".
	Unit string
	// Size is how many the query has; Limit how many it may have.
	Size, Limit int
}

func (e *QueryTooLargeError) Error() string {
	return fmt.Sprintf("query too large: %d %s, limit %d: ask with the question itself, not a whole document", e.Size, e.Unit, e.Limit)
}

// ErrorKind says the caller can shorten the query.
func (e *QueryTooLargeError) ErrorKind() string { return string(fault.Invalid) }

// CheckQuery returns a *QueryTooLargeError when text is past
// MaxQueryBytes or MaxQueryTerms, else nil. Its work is bounded by
// MaxQueryBytes whatever the size of text.
func CheckQuery(text string) error {
	if len(text) > MaxQueryBytes {
		return &QueryTooLargeError{Unit: "bytes", Size: len(text), Limit: MaxQueryBytes}
	}
	if n := index.DistinctTerms(text); n > MaxQueryTerms {
		return &QueryTooLargeError{Unit: "distinct terms", Size: n, Limit: MaxQueryTerms}
	}
	return nil
}

// RecallContext is Recall for a query from outside: it refuses a query
// past the limits (CheckQuery) and stops once ctx is done, returning
// ctx's error. Recall's scoring is linear in the query's length, and
// RecallContext looks at ctx while it plans the query, before each
// term's postings and every few thousand candidates, so a client that
// gives up, a deadline or a shutdown ends the work and releases the
// vault's read lock for the writes waiting on it.
func (v *Vault) RecallContext(ctx context.Context, q Query) ([]Result, error) {
	if err := CheckQuery(q.Text); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	return v.recallContext(ctx, q, defaultCut)
}
