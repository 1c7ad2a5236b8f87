package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/vault"
)

// FindMemoryFile finds memory id's file in the vault folder dir without
// loading the vault: a hand-written file's id is its path; otherwise only
// files that contain the id are parsed. It returns nil when there is none.
func FindMemoryFile(ctx context.Context, dir, id string) (*vault.Memory, error) {
	parse := func(rel string) (*vault.Memory, bool) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, false
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, false
		}
		m, _ := vault.ParseMemory(rel, data, fi.ModTime())
		return m, m != nil && m.ID == id
	}
	if rel := id + ".md"; vault.IsMemoryPath(rel) {
		if m, ok := parse(rel); ok {
			return m, nil
		}
	}
	var found *vault.Memory
	needle := []byte(id)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !vault.IsMemoryPath(rel) || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, needle) {
			return nil
		}
		if m, ok := parse(rel); ok {
			found = m
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("look for %s in %s: %w", id, dir, err)
	}
	return found, nil
}
