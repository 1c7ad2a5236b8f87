package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/reviewtext"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/review"
)

// reviewURI is the project vault's review, in Markdown.
const reviewURI = "memory://review"

// Reviewer is a Repo that reviews its vault from git: staleness, the
// clone's access record. A Repo without it gets a review without them.
type Reviewer interface {
	Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error)
}

// AccessRecorder is a Repo that records which memories recall returned,
// for the review's unused section.
type AccessRecorder interface {
	RecordAccess(ctx context.Context, at time.Time, ids []string) error
}

func reviewResource() mcp.Resource {
	return mcp.NewResource(reviewURI, "Memory review",
		mcp.WithResourceDescription(fmt.Sprintf("What in the project vault needs a person's attention, as `memvault review --markdown` prints it: "+
			"merge conflicts, stale memories (the code they name changed) with the reason, rival rules, rules expiring or taking effect "+
			"in the next %d days, duplicates to consolidate with a suggested title, dangling links, and memories no recall returned in %d days. "+
			"Read it when asked to tidy the memory; it changes nothing.", review.DefaultDays, review.DefaultDays)),
		mcp.WithMIMEType("text/markdown"))
}

func (s *Server) readReview(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	vs, err := s.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	mb, ok := vs.Member(vault.ProjectVault)
	if !ok || mb.Vault == nil {
		return nil, fmt.Errorf("%s: no project vault", reviewURI)
	}
	v, now := mb.Vault, vs.Instant()
	var r review.Report
	if rv, ok := vs.slot(vault.ProjectVault).Git.(Reviewer); ok {
		if r, err = rv.Review(ctx, v, now, review.DefaultDays); err != nil {
			return nil, err
		}
	} else {
		r = review.Build(review.Input{Memories: v.All(), Conflicted: v.Conflicted(), Recall: v.Recall, Now: now})
	}
	var b strings.Builder
	if err := reviewtext.Markdown(&b, r, reviewtext.Where(v.Dir())); err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: reviewURI, MIMEType: "text/markdown", Text: b.String()}}, nil
}

// recordAccess records, in each vault's access log, the results a recall
// returned from it. It is advice for the review: a failure is logged.
func (s *Server) recordAccess(ctx context.Context, vs *openVaults, rs []vault.SetResult) {
	byVault := map[string][]string{}
	for _, r := range rs {
		byVault[r.Vault] = append(byVault[r.Vault], r.Memory.ID)
	}
	for name, ids := range byVault {
		sl := vs.slot(name)
		if sl == nil {
			continue
		}
		if ar, ok := sl.Git.(AccessRecorder); ok {
			if err := ar.RecordAccess(ctx, vs.Instant(), ids); err != nil {
				s.logger.Warn("record access", "vault", name, "err", err)
			}
		}
	}
}
