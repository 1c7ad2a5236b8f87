package main

import (
	"context"
	"fmt"
	"path"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// Scores from different vaults do not compare: relevance weighs each
// query term by how rare it is in its own vault, and in a user vault of
// a dozen preferences every term is common, so its best match scores a
// fraction of what the same memory would score in the project vault.
// rescore ranks the candidates of every vault again on one shared pool,
// so that one corpus weighs the terms for all of them.

// rescore replaces the scores of rs (from two or more vaults) by the
// scores they get when recalled together for q, at now. A candidate the
// pool cannot score (two vaults holding the same id) keeps its own.
func rescore(ctx context.Context, q vault.Query, rs []scopedResult, now time.Time) ([]scopedResult, error) {
	files := make([]vault.File, 0, len(rs))
	for i, r := range rs {
		data, err := memoryFile(r.Memory)
		if err != nil {
			return nil, err
		}
		// Distinct names in the same layer folder: the same path may
		// exist in both vaults.
		rel := path.Join(path.Dir(r.Memory.Path), fmt.Sprintf("%d-%s", i, path.Base(r.Memory.Path)))
		files = append(files, vault.File{Rel: rel, Data: data, ModTime: r.Memory.UpdatedAt})
	}
	pool, err := vault.OpenSnapshot(ctx, "recall-pool", files, vault.Options{Now: func() time.Time { return now }})
	if err != nil {
		return nil, fmt.Errorf("rank the vaults together: %w", err)
	}
	scores := map[string]float64{}
	for _, r := range pool.Recall(vault.Query{Text: q.Text, Limit: len(files), AsOf: q.AsOf, IncludeInactive: true}) {
		scores[r.Memory.ID] = r.Score
	}
	out := make([]scopedResult, len(rs))
	for i, r := range rs {
		out[i] = r
		if s, ok := scores[r.Memory.ID]; ok {
			out[i].Score = s
		}
	}
	return out, nil
}

// memoryFile renders the fields ranking uses as a memory file.
func memoryFile(m *vault.Memory) ([]byte, error) {
	doc := parser.New([]byte(m.Body))
	fields := []struct {
		key string
		val any
		set bool
	}{
		{"id", m.ID, true},
		{"title", m.Title, true},
		{"layer", m.Layer.String(), true},
		{"importance", m.Importance, true},
		{"tags", m.Tags, len(m.Tags) > 0},
		{"aliases", m.Aliases, len(m.Aliases) > 0},
		{"created_at", m.CreatedAt.UTC(), !m.CreatedAt.IsZero()},
		{"updated_at", m.UpdatedAt.UTC(), !m.UpdatedAt.IsZero()},
		{"effective_at", m.EffectiveAt.UTC(), !m.EffectiveAt.IsZero()},
		{"expires_at", m.ExpiresAt.UTC(), !m.ExpiresAt.IsZero()},
		{"status", string(m.Status), m.Status != ""},
		{"supersedes", m.Supersedes, len(m.Supersedes) > 0},
		{"version", m.Version, m.Version > 0},
	}
	for _, f := range fields {
		if f.set {
			if err := doc.Set(f.key, f.val); err != nil {
				return nil, fmt.Errorf("render %s for ranking: %w", f.key, err)
			}
		}
	}
	return doc.Format(), nil
}
