package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// notifier tells clients when the vaults change: every client gets
// notifications/resources/list_changed when memories appear or disappear,
// and a client subscribed to memory://memories/{id} or memory://context
// gets notifications/resources/updated for it. It learns of changes from
// each vault's changes (Opener's changed), so writes through the tools,
// reloads after another process committed and the file watcher's
// refreshes all count.
type notifier struct {
	srv    *server.MCPServer
	logger *slog.Logger

	mu   sync.Mutex
	subs map[string]map[string]bool // session id -> URIs from resources/subscribe
	// listens holds the URIs of open subscriptions/listen streams
	// (protocol 2026-07-28), per session and stream request id.
	listens map[string]map[string][]string
}

func newNotifier(logger *slog.Logger) *notifier {
	return &notifier{logger: logger, subs: map[string]map[string]bool{}, listens: map[string]map[string][]string{}}
}

// hook records resources/subscribe and resources/unsubscribe per session;
// mcp-go acknowledges them but leaves the bookkeeping to the server.
func (n *notifier) hook(h *server.Hooks) {
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			n.subscribe(s.SessionID(), req.Params.URI)
		}
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			n.unsubscribe(s.SessionID(), req.Params.URI)
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		n.mu.Lock()
		delete(n.subs, s.SessionID())
		delete(n.listens, s.SessionID())
		n.mu.Unlock()
	})
	// Clients of protocol 2026-07-28 name their resources in a
	// subscriptions/listen stream, open until they cancel it.
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			n.listen(s.SessionID(), fmt.Sprint(id), req.Params.Notifications.ResourceSubscriptions)
		}
	})
	h.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		if s := server.ClientSessionFromContext(ctx); s != nil {
			n.listen(s.SessionID(), fmt.Sprint(id), nil)
		}
	})
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if s := server.ClientSessionFromContext(ctx); s != nil && method == mcp.MethodSubscriptionsListen {
			n.listen(s.SessionID(), fmt.Sprint(id), nil)
		}
	})
}

// listen records (or, with no URIs, forgets) one listen stream's URIs.
func (n *notifier) listen(session, stream string, uris []string) {
	n.logger.Info("resource subscriptions", "session", session, "stream", stream, "uris", uris)
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(uris) == 0 {
		delete(n.listens[session], stream)
		return
	}
	if n.listens[session] == nil {
		n.listens[session] = map[string][]string{}
	}
	n.listens[session][stream] = slices.Clone(uris)
}

func (n *notifier) subscribe(session, uri string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.subs[session] == nil {
		n.subs[session] = map[string]bool{}
	}
	n.subs[session][uri] = true
}

func (n *notifier) unsubscribe(session, uri string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.subs[session], uri)
}

// changed sends the notifications one vault change calls for. The list of
// resources changes when memories appear or disappear: the change says so
// itself (vault.Change.Added and Removed).
func (n *notifier) changed(c vault.Change) {
	if n.srv == nil {
		return
	}
	if c.Full || len(c.Added) > 0 || len(c.Removed) > 0 {
		n.srv.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
	}
	ids := make(map[string]bool, len(c.IDs))
	for _, id := range c.IDs {
		ids[id] = true
	}
	type send struct{ session, uri string }
	seen := map[send]bool{}
	var out []send
	consider := func(session, uri string) {
		id, isMemory := strings.CutPrefix(uri, memoryURIPrefix)
		// The digest and the review may change with any memory; a
		// memory's own resource only when it is among the changed ones.
		if k := (send{session, uri}); !seen[k] && (uri == contextURI || uri == reviewURI || (isMemory && (c.Full || ids[id]))) {
			seen[k] = true
			out = append(out, k)
		}
	}
	n.mu.Lock()
	for session, uris := range n.subs {
		for uri := range uris {
			consider(session, uri)
		}
	}
	for session, streams := range n.listens {
		for _, uris := range streams {
			for _, uri := range uris {
				consider(session, uri)
			}
		}
	}
	n.mu.Unlock()
	for _, s := range out {
		err := n.srv.SendNotificationToSpecificClient(s.session, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": s.uri})
		if err != nil {
			n.logger.Warn("notify", "uri", s.uri, "session", s.session, "err", err)
		}
	}
}
