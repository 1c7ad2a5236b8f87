package vault

import (
	"fmt"
	"strings"
	"time"
)

// ParseInstant reads an instant as people and models write one in a
// query or a flag: RFC 3339 (2026-12-01T09:00:00Z), the same without a
// zone or seconds (read as UTC), or a plain date (midnight UTC). The
// result is in UTC.
func ParseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC3339 instant (2026-12-01T09:00:00Z) or a date (2026-12-01)", s)
}
