package diskwrite

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateRel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rel     string
		wantErr error // nil: valid
	}{
		{"project/checkout.md", nil},
		{"preferences/中文笔记.md", nil},
		{"project/....md", nil},
		{"", ErrInvalid},
		{"../escape.md", ErrOutsideVault},
		{"project/../../etc/passwd", ErrOutsideVault},
		{"project/..", ErrOutsideVault},
		{"/etc/passwd", ErrOutsideVault},
		{"//server/share", ErrOutsideVault},
		{`project\..\x.md`, ErrInvalid},
		{"project/./x.md", ErrInvalid},
		{"project//x.md", ErrInvalid},
		{"project/x.md/", ErrInvalid},
		{".", ErrInvalid},
		{"project/x\x00.md", ErrInvalid},
		{"project/\xff.md", ErrInvalid},
		{strings.Repeat("a/", MaxPathBytes/2) + "x.md", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			err := ValidateRel(tt.rel)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("ValidateRel(%q) = %v, want nil", tt.rel, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ValidateRel(%q) = %v, want %v", tt.rel, err, tt.wantErr)
			}
		})
	}
}
