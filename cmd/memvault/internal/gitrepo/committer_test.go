package gitrepo

import "testing"

func TestParseAuthor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, name, email string
		wantErr         bool
	}{
		{in: ""},
		{in: "  "},
		{in: "Ada Lovelace <ada@example.com>", name: "Ada Lovelace", email: "ada@example.com"},
		{in: "ada@example.com", wantErr: true}, // no name
		{in: "Ada <not an address", wantErr: true},
	}
	for _, tt := range tests {
		a, err := ParseAuthor(tt.in)
		switch {
		case tt.wantErr:
			if err == nil {
				t.Errorf("ParseAuthor(%q) = %+v, want an error", tt.in, a)
			}
		case err != nil:
			t.Errorf("ParseAuthor(%q): %v", tt.in, err)
		case tt.name == "" && a != nil:
			t.Errorf("ParseAuthor(%q) = %+v, want none", tt.in, a)
		case tt.name != "" && (a == nil || a.Name != tt.name || a.Email != tt.email):
			t.Errorf("ParseAuthor(%q) = %+v, want %s <%s>", tt.in, a, tt.name, tt.email)
		}
	}
}
