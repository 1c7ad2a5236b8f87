package vault

import (
	"strings"
	"testing"
	"time"
)

func TestParseInstant(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "2026-12-01", want: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{in: " 2026-12-01T09:00:00+08:00 ", want: time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)},
		{in: "2026-12-01T09:30", want: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)},
		{in: "2026-12-01T09:30:05.5Z", want: time.Date(2026, 12, 1, 9, 30, 5, 5e8, time.UTC)},
		{in: "yesterday", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseInstant(tc.in)
		switch {
		case tc.wantErr && (err == nil || !strings.Contains(err.Error(), "RFC3339")):
			t.Errorf("ParseInstant(%q) = %v, %v; want an error naming the formats", tc.in, got, err)
		case !tc.wantErr && (err != nil || !got.Equal(tc.want) || got.Location() != time.UTC):
			t.Errorf("ParseInstant(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
