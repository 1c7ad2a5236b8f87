package parser

import (
	"bytes"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// CopyKey sets the top-level key of d to the value it has in src, as src
// writes it: the lines of src's entry (key line, value lines, the comment
// at the end of the key's line) replace d's entry, or are appended at the
// end of d's front matter when d has no such key. Duplicates of the key in
// d are removed. It is what a three-way merge needs to take one side's
// field without reformatting it, whatever its type: a nested mapping or a
// list of mappings that Set cannot write.
//
// Line endings follow d. When either front matter cannot be edited line by
// line, or the key sits at another indentation in src, the value's node is
// copied into d's tree and the front matter re-encoded (as Set does).
// CopyKey refuses, leaving d unchanged, when src has no such key or broken
// front matter (ErrValue), when d's front matter is broken (ErrSyntax) or
// when src's value holds an alias (ErrValue: the anchor lives in src).
func (d *Document) CopyKey(key string, src *Document) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("copy %q: %w", key, err)
	}
	if d.fmErr != nil {
		return fmt.Errorf("copy %q: %w", key, d.fmErr)
	}
	if src.root == nil || src.fmErr != nil {
		return fmt.Errorf("copy %q: %w: the source has no front matter", key, ErrValue)
	}
	si := findKey(src.root, key)
	if si < 0 {
		return fmt.Errorf("copy %q: %w: the source has no such key", key, ErrValue)
	}
	if hasAlias(src.root.Content[si+1], 0) {
		return fmt.Errorf("copy %q: %w: the value holds an alias", key, ErrValue)
	}
	saved := d.save()
	if !d.hasFM {
		d.hasFM = true
		d.open = []byte("---" + d.eol)
		d.close = []byte("---" + d.eol)
		d.fm = nil
	}
	wantKeys := d.Keys()
	if !slices.Contains(wantKeys, key) {
		wantKeys = append(wantKeys, key)
	}
	inTree := func() error {
		node := src.root.Content[si+1]
		err := d.rewriteTree(func(root *yaml.Node) error {
			idx := keyIndices(root, key)
			if len(idx) == 0 {
				root.Content = append(root.Content, scalarNode(key, 0), node)
				return nil
			}
			for _, i := range slices.Backward(idx[1:]) {
				root.Content = slices.Delete(root.Content, i, i+2)
			}
			root.Content[idx[0]+1] = node
			return nil
		})
		if err != nil {
			return err
		}
		return d.refresh(key)
	}
	var err error
	if entry, ok := d.srcEntry(src, si); ok && (d.root == nil || d.lineEditable()) {
		d.fm = d.replaceEntry(key, entry)
		err = d.refresh(key)
		if err != nil || !slices.Equal(uniqueKeys(d.Keys()), uniqueKeys(wantKeys)) {
			d.fm, d.root = saved.fm, saved.root
			err = inTree()
		}
	} else {
		err = inTree()
	}
	if err != nil {
		d.restore(saved)
		return fmt.Errorf("copy %q: %w", key, err)
	}
	return nil
}

// srcEntry returns the lines of src's entry at index si, with d's line
// endings, when they can be pasted into d's front matter: src is line
// editable and the key sits at the column d's keys use.
func (d *Document) srcEntry(src *Document, si int) ([]byte, bool) {
	if !src.lineEditable() {
		return nil, false
	}
	col := 1
	if d.root != nil && len(d.root.Content) > 0 {
		col = d.root.Content[0].Column
	}
	if src.root.Content[si].Column != col {
		return nil, false
	}
	return src.entryLines(newLineIndex(src.fm), si, d.eol), true
}

// replaceEntry returns d's front matter with the first entry of key
// replaced by entry and its duplicates removed, or entry appended.
func (d *Document) replaceEntry(key string, entry []byte) []byte {
	lines := newLineIndex(d.fm)
	var idx []int
	if d.root != nil {
		idx = keyIndices(d.root, key)
	}
	if len(idx) == 0 {
		fm := d.fm
		at := len(fm)
		if end := docEndLine(lines); end > 0 {
			at = lines.start(end)
		} else if len(fm) > 0 && !bytes.HasSuffix(fm, []byte{'\n'}) {
			fm = append(bytes.Clone(fm), d.eol...)
			at = len(fm)
		}
		return applyEdits(fm, []edit{{at, at, entry}})
	}
	var edits []edit
	for n, i := range idx {
		s, e := d.span(lines, i)
		var text []byte
		if n == 0 {
			text = entry
		}
		edits = append(edits, edit{lines.start(s), lines.start(e + 1), text})
	}
	return applyEdits(d.fm, edits)
}
