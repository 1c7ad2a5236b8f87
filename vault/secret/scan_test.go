package secret

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const ghToken = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"

func TestScanPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"none", "just notes about the build", nil},
		{"first line", ghToken, []string{"github-token at line 1, column 1"}},
		{"third line", "a\nb\nexport T=" + ghToken, []string{"github-token at line 3, column 10"}},
		{"chinese column in characters", "令牌：" + ghToken, []string{"github-token at line 1, column 4"}},
		{"crlf", "x\r\n  " + ghToken, []string{"github-token at line 2, column 3"}},
		{"two", "AKIAUJZDEGXDNCF32EPF\n" + ghToken, []string{"aws-access-key-id at line 1, column 1", "github-token at line 2, column 1"}},
		{"generic yields to specific", "github_token = " + ghToken, []string{"github-token at line 1, column 16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Scan([]byte(tt.in)) {
				got = append(got, f.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Scan(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFindingNeverCarriesSecret(t *testing.T) {
	t.Parallel()
	for _, f := range Scan([]byte("token: " + ghToken)) {
		if s := f.String(); strings.Contains(s, ghToken[4:12]) {
			t.Errorf("String() = %q contains the secret", s)
		}
	}
}

func TestAllowMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"same line", ghToken + " <!-- memvault:allow-secret -->", 0},
		{"line above", "<!-- memvault:allow-secret -->\n" + ghToken, 0},
		{"two lines below", "<!-- memvault:allow-secret -->\n\n" + ghToken, 1},
		{"no marker", ghToken, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(Scan([]byte(tt.in))); got != tt.want {
				t.Errorf("findings = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"token " + ghToken + " end", "token [REDACTED:github-token] end"},
		{"postgres://app:Zq8v2Lr7mN0p@db/app", "postgres://app:[REDACTED:url-password]@db/app"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Uw4Yo1dQ8VpW3sN9cLxE6hRgT0k\n-----END RSA PRIVATE KEY-----\nafter",
			"[REDACTED:private-key]\nafter"},
		{"nothing here", "nothing here"},
		// The first key runs into the second: it has no word boundary
		// where it ends until the second is replaced (found by FuzzScan).
		{"支付密钥 sk_live_rBhSmopn8fwyAyNZYrLZqi2V211itOVKBds12ZlrBzJx1l8HhWsk_live_OqYfonFy6tOyZMdGqZGj",
			"支付密钥 [REDACTED:stripe-live-key][REDACTED:stripe-live-key]"},
	}
	for _, tt := range tests {
		if got := string(Redact([]byte(tt.in))); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Scan(Redact([]byte(tt.in))); len(got) != 0 {
			t.Errorf("Scan(Redact(%q)) = %v, want none", tt.in, got)
		}
	}
}
