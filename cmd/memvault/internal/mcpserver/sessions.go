package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Sessions of the streamable HTTP transport (Mcp-Session-Id). mcp-go's
// default mints session ids and checks none of them, so on a team server
// any token could use another person's session, and the clientInfo that
// session's initialize gave (which names the client in the Memory-Client
// trailer); and it keeps every session until the client deletes it. The
// sessionTable below is the transport's SessionIdManager: a session is
// bound to the token that opened it (a request with another token, or an
// unknown or ended session, is answered 404, as the transport answers a
// session it does not know, and the client starts a new one); a session
// idle for longer than HTTPLimits.SessionIdle ends; and at most
// HTTPLimits.MaxSessions are kept: opening one more ends the least
// recently used.

// ownerKey is the context key of the SHA-256 digest of the token a
// request carried (see tokens.check).
type ownerKey struct{}

// owner is the digest of the token that authenticated the request in
// ctx; the zero digest when the server asks for none.
func owner(ctx context.Context) [32]byte {
	d, _ := ctx.Value(ownerKey{}).([32]byte)
	return d
}

// internalKey marks the requests the table itself sends to the transport
// to end a session.
type internalKey struct{}

type sessionRec struct {
	owner [32]byte
	last  time.Time
	// streams counts the GET streams open on the session: a session
	// with one is in use however long ago its last request came.
	streams int
}

// sessionTable is the transport's sessions; see above.
type sessionTable struct {
	now  func() time.Time
	idle time.Duration
	max  int
	// end tells the transport a session ended, so it drops what it keeps
	// of it (set by wrap).
	end func(id string)

	mu   sync.Mutex
	byID map[string]*sessionRec
}

func newSessionTable(now func() time.Time, lim HTTPLimits) *sessionTable {
	if now == nil {
		now = time.Now
	}
	return &sessionTable{now: now, idle: lim.SessionIdle, max: lim.MaxSessions, byID: map[string]*sessionRec{}}
}

// errNoSession is what Validate says of a session that is unknown, ended
// or another token's.
var errNoSession = errors.New("no such session for this token")

// ResolveSessionIdManager gives the transport the manager for r's token;
// r is nil when the transport ends sessions itself (at shutdown).
func (t *sessionTable) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	m := sessionManager{t: t, internal: r == nil}
	if r != nil {
		m.owner = owner(r.Context())
		m.internal = r.Context().Value(internalKey{}) != nil
	}
	return m
}

// sessionManager is the table as seen by one request.
type sessionManager struct {
	t        *sessionTable
	owner    [32]byte
	internal bool
}

func (m sessionManager) Generate() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	id := "mv-" + hex.EncodeToString(b[:])
	m.t.mu.Lock()
	m.t.byID[id] = &sessionRec{owner: m.owner, last: m.t.now()}
	m.t.mu.Unlock()
	return id
}

func (m sessionManager) Validate(id string) (bool, error) {
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	if rec, ok := m.t.byID[id]; ok && (m.internal || rec.owner == m.owner) {
		return false, nil
	}
	return false, errNoSession
}

func (m sessionManager) Terminate(id string) (bool, error) {
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	rec, ok := m.t.byID[id]
	if ok && !m.internal && rec.owner != m.owner {
		return true, nil // not this token's to end
	}
	delete(m.t.byID, id)
	return false, nil
}

// use checks that the session id may serve a request with owner's token,
// and marks it used. A session idle too long is ended here.
func (t *sessionTable) use(id string, owner [32]byte) bool {
	t.mu.Lock()
	rec, ok := t.byID[id]
	expired := ok && t.expired(rec, t.now())
	if expired {
		delete(t.byID, id)
	}
	ok = ok && !expired && rec.owner == owner
	if ok {
		rec.last = t.now()
	}
	t.mu.Unlock()
	if expired {
		t.end(id)
	}
	return ok
}

// expired reports whether rec has been idle too long at now; the caller
// holds t.mu.
func (t *sessionTable) expired(rec *sessionRec, now time.Time) bool {
	return t.idle > 0 && rec.streams == 0 && now.Sub(rec.last) >= t.idle
}

// makeRoom ends the sessions idle too long, then, while the table is
// full, the least recently used one without an open stream, so that a
// session can be opened. It reports false when every session has a
// stream open: the new one is refused.
func (t *sessionTable) makeRoom() bool {
	t.mu.Lock()
	now := t.now()
	var ended []string
	for id, rec := range t.byID {
		if t.expired(rec, now) {
			delete(t.byID, id)
			ended = append(ended, id)
		}
	}
	room := true
	for t.max > 0 && len(t.byID) >= t.max {
		oldest := ""
		for id, rec := range t.byID {
			if rec.streams == 0 && (oldest == "" || rec.last.Before(t.byID[oldest].last)) {
				oldest = id
			}
		}
		if oldest == "" {
			room = false
			break
		}
		delete(t.byID, oldest)
		ended = append(ended, oldest)
	}
	t.mu.Unlock()
	for _, id := range ended {
		t.end(id)
	}
	return room
}

// stream notes a GET stream opening (+1) or closing (-1) on session id.
func (t *sessionTable) stream(id string, delta int) {
	t.mu.Lock()
	if rec, ok := t.byID[id]; ok {
		rec.streams += delta
		rec.last = t.now()
	}
	t.mu.Unlock()
}

// wrap puts the table in front of the transport h: a request naming a
// session must be its token's, and one that may open a session (no
// session named) first makes room for it. Ending a session tells h, as a
// client's DELETE would, so that the transport drops its state too.
func (t *sessionTable) wrap(ctx context.Context, h http.Handler) http.Handler {
	t.end = func(id string) {
		r, err := http.NewRequestWithContext(context.WithValue(context.WithoutCancel(ctx), internalKey{}, true), http.MethodDelete, "/mcp", nil)
		if err != nil {
			return
		}
		r.Header.Set(server.HeaderKeySessionID, id)
		h.ServeHTTP(discardResponse{http.Header{}}, r)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		switch {
		case id != "":
			if !t.use(id, owner(r.Context())) {
				http.Error(w, "no such session for this token: initialize a new one", http.StatusNotFound)
				return
			}
			if r.Method == http.MethodGet {
				t.stream(id, 1)
				defer t.stream(id, -1)
			}
		case r.Method == http.MethodPost || r.Method == http.MethodGet:
			if !t.makeRoom() {
				http.Error(w, "too many open sessions: try again later", http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// discardResponse is the response writer of the table's own requests.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header         { return d.h }
func (d discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (d discardResponse) WriteHeader(int)             {}
