package merge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/memvault/memvault/parser"
)

// Driver is git's merge driver for a memory file: it merges the files git
// names for the common ancestor (%O), ours (%A) and theirs (%B) with
// Files and writes the result over ours, where git takes it from.
//
// On ErrUnmergeable (a side that does not parse, two memories at one
// path, too many keys, a result too large) it writes both sides whole
// between git conflict markers (Markers) and returns the error: git keeps
// the path unmerged, lint and the pre-commit hook refuse the markers, so
// a `git add -A && git commit` cannot drop their side silently, and
// memvault resolve reads both sides from git's index.
//
// It stops once ctx is done, without writing: the reading and merging run
// aside, so a signal ends the driver however long a file takes to read.
// It is the package's one function that touches files.
func Driver(ctx context.Context, basePath, oursPath, theirsPath string) (Result, error) {
	type outcome struct {
		res    Result
		ours   []byte
		theirs []byte
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		var in [3][]byte
		for i, p := range []string{basePath, oursPath, theirsPath} {
			b, err := os.ReadFile(p)
			if err != nil {
				done <- outcome{err: fmt.Errorf("read: %w", err)}
				return
			}
			in[i] = b
		}
		res, err := FilesContext(ctx, in[0], in[1], in[2])
		done <- outcome{res, in[1], in[2], err}
	}()
	var o outcome
	select {
	case <-ctx.Done():
		return Result{}, fmt.Errorf("merge stopped, ours left as it was: %w", context.Cause(ctx))
	case o = <-done:
	}
	data := o.res.Data
	switch {
	case errors.Is(o.err, ErrUnmergeable):
		data = Markers(o.ours, o.theirs)
	case o.err != nil:
		return Result{}, o.err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("merge stopped, ours left as it was: %w", context.Cause(ctx))
	}
	if err := os.WriteFile(oursPath, data, 0o644); err != nil {
		return Result{}, fmt.Errorf("write the result: %w", err)
	}
	return o.res, o.err
}

// Markers returns ours and theirs whole between git conflict markers, as
// git writes a conflict: what the driver leaves when it cannot merge.
func Markers(ours, theirs []byte) []byte {
	var b bytes.Buffer
	line := func(side []byte) {
		b.Write(side)
		if len(side) > 0 && !bytes.HasSuffix(side, []byte{'\n'}) {
			b.WriteByte('\n')
		}
	}
	b.WriteString("<<<<<<< ours\n")
	line(ours)
	b.WriteString("=======\n")
	line(theirs)
	b.WriteString(">>>>>>> theirs\n")
	return b.Bytes()
}

// Keep is what resolve does with a pair Files cannot merge field by field
// (one side does not parse, or has too many keys): the side that parses
// stays whole, ours when both do, and the other side's whole file goes
// into its conflict record under FileField, so that nothing is lost, the
// memory is served (labelled conflicted) and lint names it until a person
// chooses. It returns the result and the side kept ("ours" or "theirs").
// It fails when neither side parses, the other side is not text a record
// can hold, or the result would pass the size limit.
func Keep(ours, theirs []byte) (Result, string, error) {
	other, kept := theirs, "ours"
	d, err := side("ours", ours, MaxKeys)
	if err != nil {
		var terr error
		if d, terr = side("theirs", theirs, MaxKeys); terr != nil {
			return Result{}, "", fmt.Errorf("neither side can be kept: %w", errors.Join(err, terr))
		}
		other, kept = ours, "theirs"
	}
	// An earlier merge's record stays, with the file added to it.
	fields, vals := Record(d)
	fields = slices.DeleteFunc(fields, func(f string) bool { return f == ConflictKey || f == FileField })
	var record []parser.KV
	for _, f := range fields {
		if v, ok := vals[f]; ok {
			record = append(record, parser.KV{Key: "theirs_" + f, Value: v})
		}
	}
	record = append([]parser.KV{{Key: "fields", Value: strings.Join(append(fields, FileField), ", ")}}, record...)
	record = append(record, parser.KV{Key: "theirs_" + FileField, Value: string(other)})
	if err := d.Set(ConflictKey, record); err != nil {
		return Result{}, "", fmt.Errorf("record the other side's file: %w", err)
	}
	data := d.Format()
	if len(data) > parser.MaxFileSize {
		return Result{}, "", fmt.Errorf("%w: %d bytes with the other side in the record, limit %d (parser.MaxFileSize)", ErrTooLarge, len(data), parser.MaxFileSize)
	}
	if err := check(data, d.Meta.ID); err != nil {
		return Result{}, "", err
	}
	return Result{Data: data, Conflicts: []string{FileField}}, kept, nil
}
