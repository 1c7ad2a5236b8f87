package access

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// CompactAbove is the size past which Read rewrites the log as one line
// per memory.
const CompactAbove = 4 << 20

// maxLine bounds one line: a recall returns at most 50 memories.
const maxLine = 64 << 10

// Log is the access record of one vault, kept in the file at Path.
type Log struct {
	Path string
}

// line is one record: ids were returned at At (Unix seconds). N, when set,
// counts the accesses each id stands for (compacted lines); 1 otherwise.
type line struct {
	At  int64    `json:"at"`
	IDs []string `json:"ids"`
	N   []int    `json:"n,omitempty"`
}

// Record appends that ids were recalled at at, in one write. No ids is a
// no-op. The folder is created when missing.
func (l *Log) Record(ctx context.Context, at time.Time, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := json.Marshal(line{At: at.Unix(), IDs: ids})
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if len(data) > maxLine {
		return fmt.Errorf("access: record of %d ids is too long", len(ids))
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(l.Path), 0o755); err == nil {
			f, err = os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("access: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("access: %w", werr)
	}
	return nil
}

// Summary is what the log says: since when it records, and for each
// memory recalled, the last time and how often.
type Summary struct {
	// Since is the first access recorded; zero when there is none.
	Since time.Time
	Last  map[string]time.Time
	Count map[string]int
}

// Read folds the log into a Summary; a missing file is an empty one. Lines
// that do not parse (cut short by a crash) are skipped. A log larger than
// CompactAbove is rewritten as one line per memory.
func (l *Log) Read(ctx context.Context) (Summary, error) {
	s := Summary{Last: map[string]time.Time{}, Count: map[string]int{}}
	f, err := os.Open(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("access: %w", err)
	}
	defer f.Close()
	size, err := fold(ctx, f, &s)
	if err != nil {
		return s, fmt.Errorf("access %s: %w", l.Path, err)
	}
	if size > CompactAbove {
		_ = l.compact(s) // on failure the log stays as it was, only longer
	}
	return s, nil
}

// fold adds the lines of r to s and returns how many bytes it read.
func fold(ctx context.Context, r io.Reader, s *Summary) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var size int64
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return size, err
			}
		}
		b, err := br.ReadSlice('\n')
		size += int64(len(b))
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line this long was not written by Record: skip it.
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				size += int64(len(b))
			}
			continue
		}
		if len(b) > 0 && b[len(b)-1] == '\n' {
			add(s, bytes.TrimSpace(b))
		}
		if errors.Is(err, io.EOF) {
			return size, nil
		}
		if err != nil {
			return size, err
		}
	}
}

// add folds one line into s.
func add(s *Summary, b []byte) {
	var ln line
	if len(b) == 0 || json.Unmarshal(b, &ln) != nil || ln.At <= 0 {
		return
	}
	at := time.Unix(ln.At, 0).UTC()
	if s.Since.IsZero() || at.Before(s.Since) {
		s.Since = at
	}
	for i, id := range ln.IDs {
		n := 1
		if i < len(ln.N) && ln.N[i] > 0 {
			n = ln.N[i]
		}
		s.Count[id] += n
		if at.After(s.Last[id]) {
			s.Last[id] = at
		}
	}
}

// compact rewrites the log from s: a line keeping Since, then one line per
// memory with its last access and count.
func (l *Log) compact(s Summary) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(line{At: s.Since.Unix(), IDs: []string{}}); err != nil {
		return err
	}
	ids := make([]string, 0, len(s.Last))
	for id := range s.Last {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := enc.Encode(line{At: s.Last[id].Unix(), IDs: []string{id}, N: []int{s.Count[id]}}); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(l.Path), ".access-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), l.Path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
