package parser

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// TakeKeys makes each of keys in d what it is in src: src's entry lines,
// as CopyKey writes them, or no entry when src has no such key (as Delete).
// It does in one edit of the front matter what a loop of CopyKey and
// Delete calls does in one edit per key, each re-parsing the whole front
// matter: a three-way merge that takes many keys from one side stays
// linear in the size of the file.
//
// It returns the keys it could not take, which stay in d as they were: a
// bad key, or src's value holding an alias (the anchor lives in src), or a
// front matter (d's or src's) that is broken. When the edit cannot be made
// in one pass (a layout the line spans misjudge), it falls back to one
// CopyKey or Delete per key.
func (d *Document) TakeKeys(src *Document, keys []string) (refused []string) {
	srcAt := firstKeyAt(src.root)
	seen := make(map[string]bool, len(keys))
	var take []string
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		si, inSrc := srcAt[k]
		if checkKey(k) != nil || d.fmErr != nil || src.fmErr != nil || (inSrc && hasAlias(src.root.Content[si+1], 0)) {
			refused = append(refused, k)
			continue
		}
		take = append(take, k)
	}
	if len(take) == 0 {
		return refused
	}
	saved := d.save()
	if d.takeLines(src, srcAt, take) || d.takeTree(src, srcAt, take) {
		return refused
	}
	d.restore(saved)
	for _, k := range take {
		if _, ok := srcAt[k]; !ok {
			d.Delete(k)
		} else if err := d.CopyKey(k, src); err != nil {
			refused = append(refused, k)
		}
	}
	return refused
}

// firstKeyAt maps each top-level key of root to the index of its first
// occurrence in root.Content.
func firstKeyAt(root *yaml.Node) map[string]int {
	if root == nil {
		return nil
	}
	at := make(map[string]int, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode {
			if _, dup := at[k.Value]; !dup {
				at[k.Value] = i
			}
		}
	}
	return at
}

// takeLines is TakeKeys by line edits; it reports whether it made them,
// and leaves d to be restored when not.
func (d *Document) takeLines(src *Document, srcAt map[string]int, keys []string) bool {
	if d.root != nil && !d.lineEditable() {
		return false
	}
	if len(srcAt) > 0 && !src.lineEditable() {
		return false
	}
	col := 1
	if d.root != nil && len(d.root.Content) > 0 {
		col = d.root.Content[0].Column
	}
	dAt := map[string][]int{}
	if d.root != nil {
		for i := 0; i+1 < len(d.root.Content); i += 2 {
			k := d.root.Content[i].Value
			dAt[k] = append(dAt[k], i)
		}
	}
	d.ensureFM()
	fm := d.fm
	if len(fm) > 0 && !bytes.HasSuffix(fm, []byte{'\n'}) {
		fm = append(bytes.Clone(fm), d.eol...)
	}
	lines, srcLines := newLineIndex(fm), newLineIndex(src.fm)
	var edits []edit
	var appended []byte
	var added []string
	for _, k := range keys {
		var entry []byte
		if si, ok := srcAt[k]; ok {
			if src.root.Content[si].Column != col {
				return false
			}
			entry = src.entryLines(srcLines, si, d.eol)
		}
		idx := dAt[k]
		if len(idx) == 0 {
			if entry != nil {
				appended = append(appended, entry...)
				added = append(added, k)
			}
			continue
		}
		for n, i := range idx {
			s, e := d.span(lines, i)
			var text []byte
			if n == 0 {
				text = entry
			}
			edits = append(edits, edit{lines.start(s), lines.start(e + 1), text})
		}
	}
	if appended != nil {
		at := len(fm)
		if end := docEndLine(lines); end > 0 {
			at = lines.start(end)
		}
		edits = append(edits, edit{at, at, appended})
	}
	// The keys the result must have, in order: d's own (each once, those
	// src lacks gone), then the added ones.
	taken := make(map[string]bool, len(keys))
	for _, k := range keys {
		taken[k] = true
	}
	var want []string
	for _, k := range uniqueKeys(d.Keys()) {
		if _, inSrc := srcAt[k]; !taken[k] || inSrc {
			want = append(want, k)
		}
	}
	want = append(want, added...)
	d.fm = applyEdits(fm, edits)
	return d.refreshKeys(taken) == nil && slices.Equal(uniqueKeys(d.Keys()), want)
}

// entryLines returns the lines of d's entry at index i, with line ending
// eol, ending with one.
func (d *Document) entryLines(lines lineIndex, i int, eol string) []byte {
	start, end := d.span(lines, i)
	entry := bytes.Clone(d.fm[lines.start(start):lines.start(end+1)])
	if !bytes.HasSuffix(entry, []byte{'\n'}) {
		entry = append(entry, '\n')
	}
	entry = bytes.ReplaceAll(entry, []byte("\r\n"), []byte("\n"))
	if eol == "\r\n" {
		entry = bytes.ReplaceAll(entry, []byte("\n"), []byte("\r\n"))
	}
	return entry
}

// takeTree is TakeKeys by one edit of the node tree and one re-encoding;
// it reports whether it made it, and leaves d to be restored when not.
func (d *Document) takeTree(src *Document, srcAt map[string]int, keys []string) bool {
	d.ensureFM()
	taken := make(map[string]bool, len(keys))
	for _, k := range keys {
		taken[k] = true
	}
	err := d.rewriteTree(func(root *yaml.Node) error {
		content := make([]*yaml.Node, 0, len(root.Content))
		done := map[string]bool{}
		for i := 0; i+1 < len(root.Content); i += 2 {
			kn := root.Content[i]
			if kn.Kind != yaml.ScalarNode || !taken[kn.Value] {
				content = append(content, kn, root.Content[i+1])
				continue
			}
			si, inSrc := srcAt[kn.Value]
			if !inSrc || done[kn.Value] {
				continue
			}
			done[kn.Value] = true
			content = append(content, kn, src.root.Content[si+1])
		}
		for _, k := range keys {
			if si, inSrc := srcAt[k]; inSrc && !done[k] {
				content = append(content, scalarNode(k, 0), src.root.Content[si+1])
			}
		}
		root.Content = content
		return nil
	})
	return err == nil && d.refreshKeys(taken) == nil
}

// refreshKeys re-parses the edited front matter, as refresh does, and
// fails when a key of keys does not decode.
func (d *Document) refreshKeys(keys map[string]bool) error {
	diags := d.decodeFrontMatter(nil, nil)
	if d.fmErr != nil {
		return d.fmErr
	}
	for _, e := range diags {
		if keys[e.Field] && e.Err != nil && !errors.Is(e, ErrDuplicateKey) {
			return fmt.Errorf("%s: %w", e.Field, e.Err)
		}
	}
	return nil
}

// ensureFM gives a document without front matter an empty one.
func (d *Document) ensureFM() {
	if !d.hasFM {
		d.hasFM = true
		d.open = []byte("---" + d.eol)
		d.close = []byte("---" + d.eol)
		d.fm = nil
	}
}
