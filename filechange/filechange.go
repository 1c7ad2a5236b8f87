package filechange

import "fmt"

// Kind says how a file changed between two trees or commits.
type Kind int

// The kinds of change. The zero Kind is none of them, so a change whose kind
// was never set is not silently read as an addition.
const (
	Added Kind = iota + 1
	Modified
	Deleted
	Renamed
)

// String returns the kind in lower case ("added", ...), as git's
// --name-status words it in full.
func (k Kind) String() string {
	switch k {
	case Added:
		return "added"
	case Modified:
		return "modified"
	case Deleted:
		return "deleted"
	case Renamed:
		return "renamed"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}
