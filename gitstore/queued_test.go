package gitstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/go-git/go-git/v5/plumbing"
)

// gatedFS is the real syncFS, except that object files wait for gate to
// close before they are synced and renamed, and that while failing is set
// the syncs of the index's lock file (and of object files, with
// failObjects) fail.
type gatedFS struct {
	osFS
	gate        chan struct{}
	gitDir      string
	failing     atomic.Bool
	failObjects bool
}

func (g *gatedFS) syncFile(f *os.File) error {
	object := strings.Contains(f.Name(), "tmp_obj_")
	if object {
		<-g.gate
	}
	err := g.osFS.syncFile(f)
	if g.failing.Load() && (isIndexLockFile(g.gitDir, f.Name()) || object && g.failObjects) {
		err = errInjected
	}
	return err
}

// objectFiles lists the files below the repository's objects directory,
// relative to it.
func objectFiles(t *testing.T, s *Store) []string {
	t.Helper()
	var files []string
	dir := filepath.Join(s.commonDir, "objects")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p[len(dir)+1:])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// openGated opens the repository at root with a gatedFS. Inside a
// synctest bubble, so the gate and the Store's syncs belong to it: a
// goroutine waiting on either is durably blocked.
func openGated(t *testing.T, root string) (*Store, *gatedFS) {
	t.Helper()
	s, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := &gatedFS{gate: make(chan struct{}), gitDir: s.gitDir}
	s.fsys = g
	return s, g
}

// TestCommitWaitsForQueuedWrites fails a commit while the object writes it
// queued are still being synced: Commit must not return before they are
// renamed into .git/objects, must return their errors itself, and must
// leave none of them to the next commit.
func TestCommitWaitsForQueuedWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		failObjects bool
		wantErr     []string // in the failed commit's error text
	}{
		{name: "index sync fails", wantErr: []string{"write index"}},
		{name: "index and object syncs fail", failObjects: true, wantErr: []string{"write index", "write object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, s := newRepo(t)
			commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
			root := s.Root()
			s.Close()
			synctest.Test(t, func(t *testing.T) {
				s, g := openGated(t, root)
				g.failObjects = tt.failObjects
				g.failing.Store(true)
				p := filepath.Join(root, "mem", "b.md")
				writeFile(t, p, "b\n")
				type outcome struct {
					err     error
					objects []string // under .git/objects when Commit returned
				}
				done := make(chan outcome, 1)
				go func() {
					_, err := s.Commit(context.Background(), Change{Paths: []string{p}, Message: "second", Author: testAuthor})
					done <- outcome{err, objectFiles(t, s)}
				}()
				// Every goroutine now waits: the object syncs on the gate,
				// Commit on them (or it has returned).
				synctest.Wait()
				var got outcome
				select {
				case got = <-done:
					t.Error("Commit returned while the object files it queued were still being synced")
					close(g.gate)
				default:
					close(g.gate)
					got = <-done
				}
				synctest.Wait()
				if got.err == nil || !errors.Is(got.err, errInjected) {
					t.Fatalf("Commit error = %v, want the injected failure", got.err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(got.err.Error(), w) {
						t.Errorf("Commit error = %q, want it to say %q", got.err, w)
					}
				}
				if after := objectFiles(t, s); !slices.Equal(after, got.objects) {
					t.Errorf("files under .git/objects changed after Commit returned:\nat return %q\nafter      %q", got.objects, after)
				}
				g.failing.Store(false)
				writeFile(t, p, "b again\n")
				if _, err := s.Commit(context.Background(), Change{Paths: []string{p}, Message: "third", Author: testAuthor}); err != nil {
					t.Errorf("next Commit: %v, want success (the failed commit's errors are its own)", err)
				}
			})
		})
	}
}

// TestCloseWaitsForQueuedWrites queues an object write and closes the
// Store: Close must not return before the object is in place.
func TestCloseWaitsForQueuedWrites(t *testing.T) {
	t.Parallel()
	_, s := newRepo(t)
	root := s.Root()
	s.Close()
	synctest.Test(t, func(t *testing.T) {
		s, g := openGated(t, root)
		h, err := s.writeObject(plumbing.BlobObject, []byte("queued\n"))
		if err != nil {
			t.Fatal(err)
		}
		closed := make(chan struct{})
		go func() {
			s.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Error("Close returned while an object write was still queued")
		default:
		}
		close(g.gate)
		<-closed
		synctest.Wait()
		if _, err := os.Stat(s.loosePath(h)); err != nil {
			t.Errorf("queued object after Close: %v", err)
		}
	})
}
