package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// openVaultOnRepo opens the vault in root/.memory with its own
// gitstore.Store, as a separate memvault process would.
func openVaultOnRepo(t testing.TB, root, client string) (*vault.Vault, *gitstore.Store) {
	t.Helper()
	s, err := gitstore.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after the caller's TempDir, so it runs before its removal.
	t.Cleanup(func() {
		if err := s.WaitHousekeeping(context.Background()); err != nil {
			t.Error(err)
		}
	})
	v, err := vault.Open(context.Background(), filepath.Join(root, ".memory"), vault.Options{Client: client,
		Committer: gitrepo.Committer{Store: s, Author: &gitstore.Signature{Name: "T", Email: "t@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	return v, s
}

// TestTwoWritersOnOneRepository runs two vaults, each with its own git
// store (as two server processes have), writing 100 memories each at the
// same time. Every write must land as its own commit on one linear
// history, and nothing may be left uncommitted.
func TestTwoWritersOnOneRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	root := newRepo(t)
	const perWriter = 100
	var wg sync.WaitGroup
	errs := make(chan error, 2*perWriter)
	ids := make([][]string, 2)
	for w := range 2 {
		v, st := openVaultOnRepo(t, root, fmt.Sprintf("writer-%d", w))
		defer st.Close()
		wg.Go(func() {
			for i := range perWriter {
				res, err := v.Create(context.Background(), vault.NewMemory{
					Title:   fmt.Sprintf("Writer %d note %d", w, i),
					Content: fmt.Sprintf("决定 %d-%d: use the outbox pattern for event %d.", w, i, i),
					Tags:    []string{fmt.Sprintf("w%d", w)},
				}, vault.Author{Reason: "concurrency test"})
				if err != nil {
					errs <- fmt.Errorf("writer %d write %d: %w", w, i, err)
					return
				}
				ids[w] = append(ids[w], res.Memory.ID)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	s, err := gitstore.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hist, err := s.History(context.Background(), ".memory", gitstore.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2*perWriter {
		t.Fatalf("%d commits touch .memory, want %d", len(hist), 2*perWriter)
	}
	// Linear: every commit but the first has exactly one parent, the next
	// one in the list.
	for i, c := range hist {
		msg := c.Message
		if !strings.Contains(msg, "Memory-Id: ") {
			t.Fatalf("commit %s has no Memory-Id trailer:\n%s", c.Hash, msg)
		}
		if i+1 < len(hist) {
			parent, err := s.Resolve(context.Background(), c.Hash+"^")
			if err != nil || parent != hist[i+1].Hash {
				t.Fatalf("history not linear at %s: parent %s, err %v, want %s", c.Hash, parent, err, hist[i+1].Hash)
			}
		}
	}
	fresh, err := vault.Open(context.Background(), filepath.Join(root, ".memory"), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for w := range 2 {
		for _, id := range ids[w] {
			if _, err := fresh.Get(id); err != nil {
				t.Fatalf("memory %s of writer %d missing: %v", id, w, err)
			}
			data, err := s.ReadFile(context.Background(), "HEAD", filepath.ToSlash(filepath.Join(".memory", mustMem(t, fresh, id).Path)))
			if err != nil || len(data) == 0 {
				t.Fatalf("memory %s not committed: %v", id, err)
			}
		}
	}
	dirty, err := s.Dirty(context.Background(), filepath.Join(root, ".memory"))
	if err != nil || len(dirty) != 0 {
		t.Fatalf("uncommitted files after the writes: %v, %v", dirty, err)
	}
	if out, ok := gitCLI(t, root, "status", "--porcelain"); ok && out != "" {
		t.Fatalf("git status not clean:\n%s", out)
	}
	if out, ok := gitCLI(t, root, "fsck", "--strict"); ok && strings.Contains(out, "error") {
		t.Fatalf("git fsck:\n%s", out)
	}
}

// TestStaleUpdateAcrossWriters: a second vault (process) that has not
// seen the first one's update is refused, naming the current version.
func TestStaleUpdateAcrossWriters(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	a, sa := openVaultOnRepo(t, root, "cursor")
	defer sa.Close()
	res, err := a.Create(context.Background(), vault.NewMemory{Title: "Queue is Kafka", Content: "Kafka 3.8."}, vault.Author{Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	b, sb := openVaultOnRepo(t, root, "claude-code")
	defer sb.Close()
	title := "Queue is Kafka 3.9"
	if _, err := a.Update(context.Background(), res.Memory.ID, 1, vault.Patch{Title: &title}, vault.Author{Reason: "upgrade"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(root, ".memory", res.Memory.Path))
	other := "Queue is RabbitMQ"
	_, err = b.Update(context.Background(), res.Memory.ID, 1, vault.Patch{Title: &other}, vault.Author{Reason: "switch"})
	if !errors.Is(err, vault.ErrConflict) || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("stale update from the second writer: %v, want a conflict naming version 2", err)
	}
	after, _ := os.ReadFile(filepath.Join(root, ".memory", res.Memory.Path))
	if string(after) != string(before) {
		t.Fatalf("the refused update changed the file")
	}
}

func mustMem(t testing.TB, v *vault.Vault, id string) *vault.Memory {
	t.Helper()
	m, err := v.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
