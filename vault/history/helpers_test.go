package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/commitmsg"
)

// t0 is the tests' first instant.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// mem is a memory file's fields, as the tests write them.
type mem struct {
	id, title, layer string
	importance       int
	tags, supersedes []string
	status           string
	version          int
	body             string
}

// file renders the memory file.
func (m mem) file() string {
	layer, status, importance, version := m.layer, m.status, m.importance, m.version
	if layer == "" {
		layer = "project"
	}
	if status == "" {
		status = "active"
	}
	if importance == 0 {
		importance = 5
	}
	if version == 0 {
		version = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\ntitle: %q\nlayer: %s\nimportance: %d\n", m.id, m.title, layer, importance)
	if len(m.tags) > 0 {
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(m.tags, ", "))
	}
	fmt.Fprintf(&b, "created_at: %s\nupdated_at: %s\nstatus: %s\n", t0.Format(time.RFC3339), t0.Format(time.RFC3339), status)
	if len(m.supersedes) > 0 {
		fmt.Fprintf(&b, "supersedes: [%s]\n", strings.Join(m.supersedes, ", "))
	}
	fmt.Fprintf(&b, "version: %d\n---\n%s", version, m.body)
	return b.String()
}

// msg is the message memvault's write path commits for a write of m.
func msg(verb string, m mem, reason, client string, supersedes ...string) string {
	layer := m.layer
	if layer == "" {
		layer = "project"
	}
	return commitmsg.Write{Verb: verb, Layer: layer, Title: m.title, ID: m.id, Reason: reason, Client: client,
		Supersedes: supersedes}.Message().String()
}
