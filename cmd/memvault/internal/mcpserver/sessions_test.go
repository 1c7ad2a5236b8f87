package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// rawSession speaks MCP over streamable HTTP by hand (protocol
// 2025-06-18, which has sessions), so that a test can send one token
// with another's session id.
type rawSession struct {
	t         *testing.T
	url       string
	token, id string
	next      int
}

// call posts a JSON-RPC request (a notification when notify) and returns
// the status and body.
func (c *rawSession) call(method string, params any, notify bool) (int, string) {
	c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if !notify {
		c.next++
		msg["id"] = c.next
	}
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequestWithContext(c.t.Context(), http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.id != "" {
		req.Header.Set(server.HeaderKeySessionID, c.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if method == "initialize" {
		c.id = res.Header.Get(server.HeaderKeySessionID)
	}
	return res.StatusCode, string(out)
}

// open initializes a session as the client called name.
func (c *rawSession) open(name string) {
	c.t.Helper()
	c.id = ""
	st, body := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}}, false)
	if st != http.StatusOK || c.id == "" {
		c.t.Fatalf("initialize %s: %d, session %q: %s", name, st, c.id, body)
	}
	if st, body := c.call("notifications/initialized", map[string]any{}, true); st != http.StatusAccepted {
		c.t.Fatalf("initialized: %d %s", st, body)
	}
}

// remember writes a memory through the session and returns the status.
func (c *rawSession) remember(title string) int {
	c.t.Helper()
	st, body := c.call("tools/call", map[string]any{"name": "remember", "arguments": map[string]any{"title": title, "content": "Written by " + title + "."}}, false)
	if st == http.StatusOK && strings.Contains(body, `"isError":true`) {
		c.t.Fatalf("remember %q: %s", title, body)
	}
	return st
}

// TestTeamSessions checks the team server's identities (issue 27 finding
// 9): a session serves only the token that opened it; a client name's
// address in angle brackets never reaches the Memory-Client trailer; a
// token removed from the tokens file stops working at once; a session
// idle too long ends; and opening more sessions than the limit ends the
// least recently used. Time is the test's clock.
func TestTeamSessions(t *testing.T) {
	t.Parallel()
	clock := newClock(t0)
	ts := newTestServer(t, clock, serverOptions{})
	tokensFile := filepath.Join(t.TempDir(), "tokens")
	both := adaToken + " Ada Lovelace ada@example.com\n" + bobToken + " Bob Builder bob@example.com\n"
	if err := os.WriteFile(tokensFile, []byte(both), 0o600); err != nil {
		t.Fatal(err)
	}
	callers, err := LoadTokens(tokensFile)
	if err != nil {
		t.Fatal(err)
	}
	lim := testLimits()
	lim.MaxBody = 1 << 20
	lim.MaxSessions, lim.SessionIdle = 3, 10*time.Minute
	ctx, cancel := context.WithCancel(t.Context())
	listening := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- ts.ServeHTTP(ctx, "127.0.0.1:0", HTTPOptions{Callers: callers, TokensFile: tokensFile, Limits: lim, Listening: func(url string) { listening <- url }})
	}()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	url := <-listening
	trailer := func() string {
		for l := range strings.SplitSeq(ts.project.commits.last(), "\n") {
			if c, ok := strings.CutPrefix(l, "Memory-Client: "); ok {
				return c
			}
		}
		return ""
	}

	ada := &rawSession{t: t, url: url, token: adaToken}
	ada.open("ada-client")
	bob := &rawSession{t: t, url: url, token: bobToken}
	bob.open("Bob Builder <bob@example.com>")
	if st := ada.remember("Ada's note"); st != http.StatusOK || trailer() != "ada-client" {
		t.Fatalf("Ada in her session: %d, trailer %q", st, trailer())
	}

	// Bob's token on Ada's session: refused, nothing written as her client.
	stolen := &rawSession{t: t, url: url, token: bobToken, id: ada.id, next: 10}
	if st := stolen.remember("Bob in Ada's session"); st != http.StatusNotFound {
		t.Errorf("Bob's token on Ada's session: status %d, want 404 (trailer %q)", st, trailer())
	}
	// Bob's own session: his client's name without the address.
	if st := bob.remember("Bob's note"); st != http.StatusOK || trailer() != "Bob Builder" {
		t.Errorf("Bob in his session: %d, trailer %q, want 200 \"Bob Builder\"", st, trailer())
	}

	// Bob leaves the team: his token stops working with the next request.
	if err := os.WriteFile(tokensFile, []byte(adaToken+" Ada Lovelace ada@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := bob.remember("Bob after leaving"); st != http.StatusUnauthorized {
		t.Errorf("a removed token: status %d, want 401", st)
	}
	if st := ada.remember("Ada after Bob left"); st != http.StatusOK {
		t.Errorf("a kept token after the reload: status %d", st)
	}

	// Idle for the limit: the session ends; a new one works.
	clock.set(t0.Add(lim.SessionIdle))
	if st := ada.remember("Ada after a break"); st != http.StatusNotFound {
		t.Errorf("a session idle for %s: status %d, want 404", lim.SessionIdle, st)
	}
	ada.open("ada-client")
	if st := ada.remember("Ada in a new session"); st != http.StatusOK {
		t.Errorf("a new session: status %d", st)
	}

	// Past the limit of 3 sessions the least recently used ends.
	var opened []*rawSession
	for i := range 3 {
		clock.set(t0.Add(lim.SessionIdle + time.Duration(i+1)*time.Second))
		s := &rawSession{t: t, url: url, token: adaToken}
		s.open("ada-client")
		opened = append(opened, s)
	}
	if st := ada.remember("Ada in her oldest session"); st != http.StatusNotFound {
		t.Errorf("the least recently used of 4 sessions (limit 3): status %d, want 404", st)
	}
	for i, s := range opened {
		if st := s.remember("Ada in session " + string(rune('a'+i))); st != http.StatusOK {
			t.Errorf("session %d of the 3 newest: status %d", i, st)
		}
	}
}

// TestSessionTable checks the table's rules one by one: the owner, the
// idle limit (a session with an open stream is never idle), and the cap
// (least recently used first; refused when every session streams). Each
// ended session is told to the transport.
func TestSessionTable(t *testing.T) {
	t.Parallel()
	a, b := [32]byte{1}, [32]byte{2}
	tests := []struct {
		name string
		// steps: "open OWNER", "use ID OWNER", "stream ID", "wait" (the
		// idle limit), "room"; ids are the order of the opens
		steps []string
		// results of each use/room step, and the ids ended at the end
		want  []bool
		ended []string
	}{
		{"owner only", []string{"open a", "use 0 a", "use 0 b", "use 9 a"}, []bool{true, false, false}, nil},
		{"idle ends", []string{"open a", "wait", "use 0 a", "use 0 a"}, []bool{false, false}, []string{"0"}},
		{"a stream is not idle", []string{"open a", "stream 0", "wait", "use 0 a"}, []bool{true}, nil},
		{"least recently used first", []string{"open a", "open b", "use 0 a", "room", "use 1 b", "use 0 a"}, []bool{true, true, false, true}, []string{"1"}},
		{"every session streams", []string{"open a", "open b", "stream 0", "stream 1", "room"}, []bool{false}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := t0
			tab := newSessionTable(func() time.Time { return now }, HTTPLimits{MaxSessions: 2, SessionIdle: time.Minute})
			var ended []string
			var ids []string
			name := func(id string) string {
				for i, x := range ids {
					if x == id {
						return string(rune('0' + i))
					}
				}
				return id
			}
			tab.end = func(id string) { ended = append(ended, name(id)) }
			id := func(s string) string {
				if i := int(s[0] - '0'); i < len(ids) {
					return ids[i]
				}
				return "unknown"
			}
			who := map[string][32]byte{"a": a, "b": b}
			var got []bool
			for _, s := range tc.steps {
				f := strings.Fields(s)
				now = now.Add(time.Second)
				switch f[0] {
				case "open":
					m := sessionManager{t: tab, owner: who[f[1]]}
					ids = append(ids, m.Generate())
				case "use":
					got = append(got, tab.use(id(f[1]), who[f[2]]))
				case "stream":
					tab.stream(id(f[1]), 1)
				case "wait":
					now = now.Add(time.Minute)
				case "room":
					got = append(got, tab.makeRoom())
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || fmt.Sprint(ended) != fmt.Sprint(tc.ended) {
				t.Errorf("results %v, ended %v; want %v, %v", got, ended, tc.want, tc.ended)
			}
		})
	}
}
