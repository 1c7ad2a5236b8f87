package memory

import (
	"fmt"
	"strings"

	"github.com/memvault/memvault/vault/diskwrite"
)

// Limits on a memory's refs. Every ref costs work in each staleness check
// of the memory (matching every changed path of every commit walked), so
// the caps keep one memory's share of that work small whatever its file
// says (docs/hardening.md). A write past them is refused with an error
// naming the limit; a file past them is loaded with the refs that fit,
// and lint names the rest.
const (
	// MaxRefs is the most refs one memory may have: far more than the
	// few files a memory is about.
	MaxRefs = 64
	// MaxRefGlobstars is the most "**" segments one ref may have
	// ("cmd/**/internal/**/*.go" has two).
	MaxRefGlobstars = 4
	// MaxRefBytes is the longest ref, in bytes: a repository path's limit
	// (MaxPathBytes) plus room for "#Symbol".
	MaxRefBytes = diskwrite.MaxPathBytes + 256
)

// CheckRefs returns an error wrapping ErrInvalid, naming the limit, when
// refs are past MaxRefs or one of them past MaxRefBytes or
// MaxRefGlobstars; nil otherwise. Its work is linear in the refs' size.
func CheckRefs(refs []string) error {
	if len(refs) > MaxRefs {
		return fmt.Errorf("%w: refs: %d refs, limit %d (vault.MaxRefs): name the files and folders the memory is about, or one folder or glob for many", diskwrite.ErrInvalid, len(refs), MaxRefs)
	}
	for _, r := range refs {
		if err := checkRef(r); err != nil {
			return fmt.Errorf("%w: refs: %w", diskwrite.ErrInvalid, err)
		}
	}
	return nil
}

// checkRef says which limit one ref is past, or nil.
func checkRef(r string) error {
	if len(r) > MaxRefBytes {
		return fmt.Errorf("a ref of %d bytes, limit %d (vault.MaxRefBytes)", len(r), MaxRefBytes)
	}
	if n := globstars(r); n > MaxRefGlobstars {
		return fmt.Errorf("ref %q has %d \"**\" segments, limit %d (vault.MaxRefGlobstars)", r, n, MaxRefGlobstars)
	}
	return nil
}

// globstars counts the "**" segments of a ref, the ones that match any
// number of folders.
func globstars(r string) int {
	n := 0
	for seg := range strings.SplitSeq(strings.TrimSpace(r), "/") {
		if seg == "**" {
			n++
		}
	}
	return n
}

// capRefs keeps the refs of a file within the limits: those past
// MaxRefBytes or MaxRefGlobstars are dropped, and the ones after the
// first MaxRefs that remain. problems says what was dropped, one line
// each for the first few refs and one for the count.
func capRefs(refs []string) (kept []string, problems []string) {
	const maxNamed = 8 // a hostile file must not turn into thousands of warnings
	dropped := 0
	for _, r := range refs {
		if err := checkRef(r); err != nil {
			if dropped++; dropped <= maxNamed {
				problems = append(problems, err.Error()+": ignored")
			}
			continue
		}
		kept = append(kept, r)
	}
	if dropped > maxNamed {
		problems = append(problems, fmt.Sprintf("%d more refs past the limits ignored", dropped-maxNamed))
	}
	if len(kept) > MaxRefs {
		problems = append(problems, fmt.Sprintf("%d refs, limit %d (vault.MaxRefs): the %d after the first %d are ignored", len(kept), MaxRefs, len(kept)-MaxRefs, MaxRefs))
		kept = kept[:MaxRefs:MaxRefs]
	}
	return kept, problems
}
