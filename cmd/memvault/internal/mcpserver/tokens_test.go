package mcpserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

const (
	adaToken = "ada-0123456789abcdef"
	bobToken = "bob-0123456789abcdef"
)

func TestLoadTokens(t *testing.T) {
	t.Parallel()
	good := "# the team\n\n" + adaToken + "  Ada Lovelace  ada@example.com\n" + bobToken + "\t李 明\t<li.ming@example.com>\n"
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		want    []Caller
		wantErr string
	}{
		{name: "people", content: good, mode: 0o600,
			want: []Caller{{adaToken, "Ada Lovelace", "ada@example.com"}, {bobToken, "李 明", "li.ming@example.com"}}},
		{name: "readable by others", content: good, mode: 0o644, wantErr: "readable or writable by group or others (mode 0644)"},
		{name: "readable by the group", content: good, mode: 0o640, wantErr: "chmod 600"},
		{name: "short token", content: "short Ada ada@example.com\n", mode: 0o600, wantErr: ":1: the token is 5 bytes"},
		{name: "token twice", content: good + adaToken + " Eve eve@example.com\n", mode: 0o600, wantErr: ":5: the token of line 3 again"},
		{name: "no name", content: adaToken + " ada@example.com\n", mode: 0o600, wantErr: ":1: want a token, a name and an email"},
		{name: "not an email", content: adaToken + " Ada Lovelace\n", mode: 0o600, wantErr: `:1: "Lovelace" is not an email address`},
		{name: "comments only", content: "# nobody yet\n", mode: 0o600, wantErr: "no tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && tt.mode&0o077 != 0 {
				t.Skip("no group or others bits on Windows")
			}
			path := filepath.Join(t.TempDir(), "tokens")
			if err := os.WriteFile(path, []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tt.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			got, err := LoadTokens(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				for _, tok := range []string{adaToken, bobToken} {
					if strings.Contains(err.Error(), tok) {
						t.Errorf("the error shows a token: %v", err)
					}
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestGuardTeamTokens: each person's token opens the server and carries
// the person to the handler; the shared token carries nobody; a wrong
// token is refused.
func TestGuardTeamTokens(t *testing.T) {
	t.Parallel()
	who := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := vault.PersonOf(r.Context())
		fmt.Fprintf(w, "%v %s <%s>", ok, p.Name, p.Email)
	})
	callers := []Caller{{adaToken, "Ada Lovelace", "ada@example.com"}, {bobToken, "Bob", "bob@example.com"}}
	srv := httptest.NewServer(newGuardedServer(who, newTokens("shared-0123456789abcdef", callers), testLimits()).Handler)
	defer srv.Close()
	for _, tt := range []struct {
		token, want string
		status      int
	}{
		{adaToken, "true Ada Lovelace <ada@example.com>", 200},
		{bobToken, "true Bob <bob@example.com>", 200},
		{"shared-0123456789abcdef", "false  <>", 200},
		{"ada-0123456789abcdeF", "", 401},
		{"", "", 401},
	} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := make([]byte, 200)
		n, _ := res.Body.Read(body)
		res.Body.Close()
		if res.StatusCode != tt.status || (tt.status == 200 && string(body[:n]) != tt.want) {
			t.Errorf("token %q: %d %q, want %d %q", tt.token, res.StatusCode, body[:n], tt.status, tt.want)
		}
	}
}

func TestCheckTeamHTTPAddr(t *testing.T) {
	t.Parallel()
	if err := CheckTeamHTTPAddr("0.0.0.0:7391", ""); err != nil {
		t.Errorf("a team server beyond loopback, every caller with a checked token: %v", err)
	}
	if err := CheckHTTPAddr("0.0.0.0:7391", ""); err == nil {
		t.Error("without a tokens file, no token beyond loopback was accepted")
	}
	if err := CheckTeamHTTPAddr("0.0.0.0:7391", "short"); err == nil {
		t.Error("a short shared token beside the tokens file was accepted")
	}
	if err := CheckTeamHTTPAddr("7391", ""); err == nil {
		t.Error("an address without a host was accepted")
	}
}
