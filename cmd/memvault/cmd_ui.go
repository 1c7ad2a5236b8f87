package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/mcpserver"
	"github.com/memvault/memvault/cmd/memvault/internal/webui"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/review"
	"github.com/memvault/memvault/vault/staleness"
)

func (m *Main) uiCommand() *cobra.Command {
	var addr, token string
	var open, write bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a local web view of the vault: overview, search, each memory's story, timeline, review, diff",
		Long: `ui serves the web view of the vault of the current repository (or --vault)
and prints its URL on the first line of standard output. Pages: / (overview),
/search?q=, /m/ID (one memory: body, front matter, staleness, supersession
chain, rivals, history with reasons and diffs), /timeline (commits by day,
filters by layer, tag, author, client), /review and /diff?range=BASE...HEAD.
They are plain HTML; a small script offers a reload when the vault changes.

It listens on loopback only unless --addr says otherwise; then --token (or
$MEMVAULT_TOKEN, at least 16 bytes) is required, as for serve --http: open
the URL once with ?token=TOKEN and the browser keeps it in a cookie. The
view is read-only unless --write: then a memory page can confirm it, forget
it or resolve a rival, each through the same rules as the CLI and in one
commit. See docs/webui.md.`,
		Example: `  memvault ui
  memvault ui --open
  memvault ui --addr 127.0.0.1:7392 --write`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if token == "" {
				token = m.Getenv("MEMVAULT_TOKEN")
			}
			if err := mcpserver.CheckHTTPAddr(addr, token); err != nil {
				return usagef("ui: %s", strings.Replace(err.Error(), "--http", "--addr", 1))
			}
			dir, err := m.resolveVaultDir()
			if err != nil {
				return err
			}
			if !exists(dir) {
				return usagef("no vault at %s: run memvault init", dir)
			}
			g, err := m.needRepo(ctx, "ui")
			if err != nil {
				return err
			}
			g.Close()
			sv := m.openServedVault(ctx, vault.ProjectVault, dir, m.logger, func(vault.Change) {})
			defer sv.close()
			src := &uiSource{lookup: func() *servedVault { return sv }}
			srv, err := webui.New(webui.Config{Source: src, Now: m.Now, Write: write, Logger: m.logger, Dir: dir})
			if err != nil {
				return err
			}
			return mcpserver.ServePages(ctx, addr, srv.Handler(), mcpserver.HTTPOptions{Token: token, Listening: func(url string) {
				fmt.Fprintln(m.Stdout, url)
				if token != "" {
					fmt.Fprintf(m.Stderr, "memvault: open %s?token=... once with your token; the browser keeps it\n", url)
				}
				if open {
					openBrowser(url, m.logger.Warn)
				}
			}})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&addr, "addr", "127.0.0.1:0", "listen at this address (port 0: any free port)")
	fl.StringVar(&token, "token", "", "token every request must carry (default $MEMVAULT_TOKEN); required beyond loopback")
	fl.BoolVar(&open, "open", false, "open the URL in the default browser")
	fl.BoolVar(&write, "write", false, "allow confirm, forget and resolving rivals from the pages (one commit each)")
	return cmd
}

// openBrowser starts the system's URL opener and does not wait for it.
func openBrowser(url string, warn func(msg string, args ...any)) {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		warn("could not open a browser: open the URL yourself", "url", url, "err", err)
		return
	}
	go c.Wait()
}

// uiSource is a served vault as the web view's Source: the vault
// followed by the file watcher, its staleness tracker and review, and its
// repository for the history pages. Under serve, the project vault may
// open late (from the client's roots): lookup finds it once it has.
type uiSource struct {
	lookup func() *servedVault

	once sync.Once
	repo history.Repo
	err  error
}

var _ webui.Source = (*uiSource)(nil)

// errNoProjectVault answers the pages of a serve whose project vault is
// not open yet.
var errNoProjectVault = errors.New("no project vault open yet: start serve with --vault, or in the repository, or connect a client first")

func (u *uiSource) served() (*servedVault, error) {
	if sv := u.lookup(); sv != nil {
		return sv, nil
	}
	return nil, errNoProjectVault
}

// Ready implements webui.Source.
func (u *uiSource) Ready(ctx context.Context) (*vault.Vault, error) {
	sv, err := u.served()
	if err != nil {
		return nil, err
	}
	return sv.Ready(ctx)
}

// Staleness implements webui.Source.
func (u *uiSource) Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	sv, err := u.served()
	if err != nil {
		return nil, err
	}
	return sv.Staleness(ctx, ms)
}

// Review implements webui.Source.
func (u *uiSource) Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error) {
	sv, err := u.served()
	if err != nil {
		return review.Report{}, err
	}
	return sv.Review(ctx, v, now, days)
}

// NoteOwnCommit implements webui.Source.
func (u *uiSource) NoteOwnCommit(h string) {
	if sv, err := u.served(); err == nil {
		sv.NoteOwnCommit(h)
	}
}

// Repo implements webui.Source: the served vault's repository, once it
// is loaded; nil outside git.
func (u *uiSource) Repo(ctx context.Context) (history.Repo, error) {
	sv, err := u.served()
	if err != nil {
		return nil, err
	}
	select {
	case <-sv.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	u.once.Do(func() {
		if sv.store != nil {
			// The served vault owns the store and closes it.
			var g *gitrepo.Repo
			if g, u.err = gitrepo.New(sv.store, sv.dir); u.err == nil {
				u.repo = g
			}
		}
	})
	return u.repo, u.err
}

// pages is the web view of the project vault a serve opened, for serve
// --http to mount beside MCP (read-only: writes go through MCP there).
func (s *servedVaults) pages(m *Main, logger *slog.Logger, dir string) (http.Handler, error) {
	src := &uiSource{lookup: func() *servedVault {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, v := range s.list {
			if v.name == vault.ProjectVault {
				return v
			}
		}
		return nil
	}}
	srv, err := webui.New(webui.Config{Source: src, Now: m.Now, Logger: logger, Dir: dir})
	if err != nil {
		return nil, err
	}
	return srv.Handler(), nil
}
