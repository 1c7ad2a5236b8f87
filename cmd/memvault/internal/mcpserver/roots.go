package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// rootsInputID keys the roots request in a multi round-trip tool result.
const rootsInputID = "roots"

// rootsTimeout bounds one roots/list request to the client.
const rootsTimeout = 30 * time.Second

// httpRootsTimeout bounds one roots/list request over streamable HTTP.
// mcp-go's server sends it on the client's GET stream only (not on the
// response stream of a POST in progress), so a client that opens no GET
// stream never sees it: an answer that does come comes fast.
const httpRootsTimeout = 5 * time.Second

// discovery finds the project vault when --vault is not given: .memory at
// the git root of the working directory, else at the git root of the
// first root the client reports (MCP roots) that lies in a repository.
// Until one is found every tool call asks the client for its roots again,
// so a client that reports them late, or changes them, still gets served.
type discovery struct {
	open    func(dir string) *slot
	gitRoot func(dir string) (string, bool)
	logger  *slog.Logger
	// cwd is the working directory the server looked at first, for the
	// error message; "" when --vault or the working directory decided.
	cwd string
	// overHTTP is set when the server speaks streamable HTTP, where a
	// roots/list request reaches only a client with a GET stream open.
	overHTTP bool

	mu       sync.Mutex
	slot     *slot
	inflight chan struct{} // closed when the pending roots/list answer is in
	tried    []string      // roots looked at, each with why it did not do
	// settled is closed when the vault is found; made by the first
	// waiter.
	settled chan struct{}
	// asked is set once a tool call has asked for the roots with an input
	// request (protocol 2026-07-28): its retry may settle the vault soon.
	asked bool
}

// get returns the project vault's slot, nil while it is unknown.
func (d *discovery) get() *slot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.slot
}

// found settles the project vault at dir; the first answer wins.
func (d *discovery) found(dir string) *slot {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.slot == nil {
		d.slot = d.open(dir)
		d.logger.Info("project vault found", "vault", dir)
		if d.settled != nil {
			close(d.settled)
		}
	}
	return d.slot
}

// await waits, at most max, for the vault to be found, by the roots/list
// answer in flight (or the one answered closes) or by a tool call's retry
// with the roots, and returns it; nil when none settled it in time.
func (d *discovery) await(ctx context.Context, max time.Duration, answered <-chan struct{}) *slot {
	d.mu.Lock()
	if d.slot != nil {
		defer d.mu.Unlock()
		return d.slot
	}
	if d.settled == nil {
		d.settled = make(chan struct{})
	}
	settled, inflight := d.settled, d.inflight
	d.mu.Unlock()
	timer := time.NewTimer(max)
	defer timer.Stop()
	// A nil channel blocks for ever: only the other cases end the wait.
	select {
	case <-settled:
	case <-inflight:
	case <-answered:
	case <-ctx.Done():
	case <-timer.C:
	}
	return d.get()
}

// noteAsked records that a tool call asked the client for its roots.
func (d *discovery) noteAsked() {
	d.mu.Lock()
	d.asked = true
	d.mu.Unlock()
}

// answered says whether the client's roots were read (or the request
// for them failed) and none settled the vault: errNoVault says why.
func (d *discovery) answered() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.slot == nil && d.inflight == nil && len(d.tried) > 0
}

// pending says whether an answer that may settle the vault is expected:
// a roots/list request is out, or a tool call asked for the roots.
func (d *discovery) pending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inflight != nil || d.asked
}

// wait blocks while a roots/list request is out.
func (d *discovery) wait(ctx context.Context) {
	d.mu.Lock()
	ch := d.inflight
	d.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// fromRoots settles the vault from the client's roots: the first one
// inside a git repository decides.
func (d *discovery) fromRoots(roots []mcp.Root) (*slot, error) {
	if s := d.get(); s != nil {
		return s, nil
	}
	var tried []string
	for _, r := range roots {
		dir, why := rootDir(r.URI)
		if why != "" {
			tried = append(tried, fmt.Sprintf("%s (%s)", r.URI, why))
			continue
		}
		if top, ok := d.gitRoot(dir); ok {
			return d.found(filepath.Join(top, ".memory")), nil
		}
		tried = append(tried, fmt.Sprintf("%s (not in a git repository)", r.URI))
	}
	if len(roots) == 0 {
		tried = append(tried, "the client reported no roots")
	}
	d.mu.Lock()
	d.tried = tried
	d.mu.Unlock()
	return nil, d.errNoVault()
}

// rootDir turns a root's file:// URI into a local folder; why says what
// is wrong with it otherwise.
func rootDir(uri string) (dir, why string) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", "not a URI"
	}
	if u.Scheme != "file" {
		return "", "not a file:// URI"
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	if p == "" || !filepath.IsAbs(filepath.FromSlash(p)) {
		return "", "not an absolute path"
	}
	return filepath.Clean(filepath.FromSlash(p)), ""
}

// errNoVault says what was tried to find the project vault.
func (d *discovery) errNoVault() error {
	d.mu.Lock()
	tried := d.tried
	d.mu.Unlock()
	var b strings.Builder
	b.WriteString("no project vault: --vault was not given")
	if d.cwd != "" {
		fmt.Fprintf(&b, "; the working directory %s is not in a git repository", d.cwd)
	}
	if len(tried) > 0 {
		fmt.Fprintf(&b, "; client roots tried: %s", strings.Join(tried, ", "))
	} else {
		b.WriteString("; the client reports no roots")
	}
	b.WriteString(". Start the server inside the project's repository, pass --vault DIR, or open the project in the client so it reports it as a root")
	return fmt.Errorf("%s", b.String())
}

// request asks the client for its roots in the background, once at a
// time, and settles the vault from the answer. It returns a channel
// closed when the answer (of this request or the one already out) is in;
// nil when the vault is known. It is how clients of the
// protocol versions before 2026-07-28 are served: they are asked right
// after initialize, so the vault loads before the first tool call.
func (d *discovery) request(ctx context.Context, ask func(context.Context) (*mcp.ListRootsResult, error)) <-chan struct{} {
	d.mu.Lock()
	if d.slot != nil || d.inflight != nil {
		ch := d.inflight
		d.mu.Unlock()
		return ch
	}
	ch := make(chan struct{})
	d.inflight = ch
	d.mu.Unlock()
	go func() {
		defer func() {
			d.mu.Lock()
			d.inflight = nil
			d.mu.Unlock()
			close(ch)
		}()
		timeout := rootsTimeout
		if d.overHTTP {
			timeout = httpRootsTimeout
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		res, err := ask(ctx)
		if err != nil {
			d.logger.Warn("roots/list", "err", err)
			why := "roots/list failed: " + err.Error()
			if d.overHTTP && errors.Is(err, context.DeadlineExceeded) {
				why = fmt.Sprintf("roots/list got no answer within %s (over streamable HTTP the server can send it only "+
					"on the client's GET stream, and this client has none open)", timeout)
			}
			d.mu.Lock()
			d.tried = []string{why}
			d.mu.Unlock()
			return
		}
		if _, err := d.fromRoots(res.Roots); err != nil {
			d.logger.Warn("no vault among the client's roots", "err", err)
		}
	}()
	return ch
}

// isModern reports whether the request declares protocol 2026-07-28 or
// later, where the server asks for roots only within a request.
func isModern(ctx context.Context) bool {
	info := server.RequestProtocolInfoFromContext(ctx)
	return info != nil && info.Modern
}

// clientHasRoots reports whether the client declared the roots
// capability, per request (protocol 2026-07-28) or at initialize.
func clientHasRoots(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientCapabilities != nil {
		return info.ClientCapabilities.Roots != nil
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientCapabilities().Roots != nil
	}
	return false
}

// registerRoots asks clients for their roots once they are initialized,
// and again when they say their roots changed, while the project vault
// is unknown.
func (s *Server) registerRoots() {
	ask := func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if s.project.get() != nil || !clientHasRoots(ctx) {
			return
		}
		s.project.request(ctx, s.listRoots)
	}
	s.mcp.AddNotificationHandler(string(mcp.MethodNotificationInitialized), ask)
	s.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, ask)
}

// listRoots sends the client a roots/list request.
func (s *Server) listRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	return s.mcp.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
}

// projectSlot returns the project vault's slot. While it is unknown it
// uses the roots in responses (a multi round-trip retry), else reports
// ask: the caller returns a roots input request, which mcp-go turns into
// a roots/list request for older clients.
func (s *Server) projectSlot(ctx context.Context, responses mcp.InputResponses) (p *slot, ask bool, err error) {
	if p := s.project.get(); p != nil {
		return p, false, nil
	}
	if s.project.overHTTP && responses == nil && clientHasRoots(ctx) && !isModern(ctx) {
		// mcp-go would turn the input request into a roots/list on the
		// GET stream and wait for the answer without a time limit: a
		// client with no GET stream would hang. Ask with a bound instead.
		answered := s.project.request(ctx, s.listRoots) // or the one out
		if p := s.project.await(ctx, httpRootsTimeout+time.Second, answered); p != nil {
			return p, false, nil
		}
		return nil, false, s.project.errNoVault()
	}
	s.project.wait(ctx)
	if p := s.project.get(); p != nil {
		return p, false, nil
	}
	if roots := server.RootsResponse(responses, rootsInputID); roots != nil {
		p, err := s.project.fromRoots(roots.Roots)
		return p, false, err
	}
	if responses == nil && clientHasRoots(ctx) {
		return nil, true, nil
	}
	return nil, false, s.project.errNoVault()
}

// defaultDiscoveryWait bounds how long a resource read waits for the
// client's roots to settle the project vault.
const defaultDiscoveryWait = 5 * time.Second

// readyVaults waits for the vaults and brings them up to date. Resource
// reads cannot ask the client for its roots with an input request the way
// tool calls do, so while the project vault is unknown they wait for it a
// little (awaitProject) and then fail, saying what to do.
func (s *Server) readyVaults(ctx context.Context) (*openVaults, error) {
	if s.project.get() == nil {
		if err := s.awaitProject(ctx); err != nil {
			return nil, err
		}
	}
	vs, _, err := s.vaults(ctx, nil)
	return vs, err
}

// awaitProject waits, for at most discoveryWait and while ctx lasts, for
// the client's roots to settle the project vault. A client of a protocol
// before 2026-07-28 is sent roots/list after initialize; the read waits
// for that answer, or sends the request itself when none is out (it was
// answered without a vault, or the read came first). A newer client can
// only be asked during a tool call: the read waits only when one has.
func (s *Server) awaitProject(ctx context.Context) error {
	if !clientHasRoots(ctx) {
		return s.project.errNoVault()
	}
	wait := s.wait
	modern := isModern(ctx)
	switch {
	case !modern:
		answered := s.project.request(ctx, s.listRoots) // unless one is out
		s.project.await(ctx, wait, answered)
	case s.project.pending():
		s.project.await(ctx, wait, nil)
	}
	if s.project.get() != nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("waiting for the client's roots to find the project vault: %w", err)
	}
	if s.project.answered() {
		return s.project.errNoVault()
	}
	if !modern {
		why := ""
		if s.project.overHTTP {
			why = " (over streamable HTTP the server can send it only on the client's GET stream; a client with none open never answers)"
		}
		return fmt.Errorf("the project vault is not known yet: the client did not answer roots/list within %s%s. "+
			"Read again shortly, or start memvault serve inside the project's repository or with --vault DIR", wait, why)
	}
	return errors.New("the project vault is not known yet: the client has not reported its roots " +
		"(with protocol 2026-07-28 the server can ask for them only during a tool call). Call a tool first " +
		"(memory_stats will do) and read again, or start memvault serve inside the project's repository or with --vault DIR")
}
