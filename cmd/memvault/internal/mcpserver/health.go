package mcpserver

import (
	"context"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// health describes the served vaults for GET /healthz: status is ok,
// loading (or waiting for the client's roots) or error, with the project
// vault's folder, memory count, load time, index size and age and git
// HEAD, and the user vault's under user_vault. failed is set when the
// project vault could not open.
func (s *Server) health(ctx context.Context) (out map[string]any, failed bool) {
	out = map[string]any{"status": "loading"}
	p := s.project.get()
	if p == nil {
		out["waiting_for"] = "roots"
		return out, false
	}
	failed = p.describe(ctx, out)
	if s.user != nil {
		u := map[string]any{}
		s.user.describe(ctx, u)
		out["user_vault"] = u
	}
	return out, failed
}

// describe fills into with the vault's health; it reports whether the
// vault failed to open.
func (p *slot) describe(ctx context.Context, into map[string]any) (failed bool) {
	v, done, err := p.Vault.Loaded()
	switch {
	case !done:
		into["status"] = "loading"
		return false
	case err != nil:
		into["status"], into["error"] = "error", err.Error()
		return true
	}
	st := v.Stats()
	into["status"], into["vault"], into["memories"], into["loaded_at"] = "ok", st.Dir, st.Total, view.Instant(st.LoadedAt)
	into["index_docs"] = st.Indexed
	into["index_age_seconds"] = max(0, time.Since(st.UpdatedAt).Round(time.Millisecond).Seconds())
	if p.Git != nil {
		if h, err := p.Git.Head(ctx); err == nil {
			into["git_head"] = h
		}
	}
	return false
}
