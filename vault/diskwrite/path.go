package diskwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxPathBytes bounds a vault-relative path. Slugs are at most 60 runes
// (180 bytes) plus a layer folder, so real paths stay far below it.
const MaxPathBytes = 1024

// ValidateRel checks a vault-relative slash path that comes from a caller
// or a file (the journal, an import): not empty, valid UTF-8 without NUL,
// no backslash, not absolute, no empty, "." or ".." segment. It does not
// look at the disk; CheckPath does.
func ValidateRel(rel string) error {
	switch {
	case rel == "":
		return fmt.Errorf("%w: empty path", ErrInvalid)
	case len(rel) > MaxPathBytes:
		return fmt.Errorf("%w: path longer than %d bytes", ErrInvalid, MaxPathBytes)
	case !utf8.ValidString(rel) || strings.ContainsRune(rel, 0):
		return fmt.Errorf("%w: path %q is not valid UTF-8 text", ErrInvalid, rel)
	case strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "":
		return fmt.Errorf("%w: %q is absolute; paths are relative to the vault", ErrOutsideVault, rel)
	case strings.Contains(rel, `\`):
		return fmt.Errorf("%w: path %q contains a backslash; use / between folders", ErrInvalid, rel)
	}
	for seg := range strings.SplitSeq(rel, "/") {
		switch seg {
		case "..":
			return fmt.Errorf("%w: %q climbs out through a .. segment", ErrOutsideVault, rel)
		case "", ".":
			return fmt.Errorf("%w: path %q has an empty or . segment", ErrInvalid, rel)
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		// Reserved names such as NUL on Windows.
		return fmt.Errorf("%w: %q is not a plain local path", ErrOutsideVault, rel)
	}
	return nil
}

// CheckPath turns the vault-relative rel, already checked by ValidateRel,
// into the absolute path under the vault folder dir, walking the parts
// that exist on disk and refusing any symbolic link among them: a link
// leading outside the vault would make a write land elsewhere, and even a
// link inside it would be replaced by a plain file (the file) or refused
// by git (a folder). Parts that do not exist yet are fine: the write
// creates them.
//
// CheckPath gives the precise message; it is not what keeps a write
// inside the vault. The write itself goes through Root, whose folder
// handles refuse a link planted after this check just the same.
func CheckPath(dir, rel string) (string, error) {
	cur := dir
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("check %s: %w", rel, err)
		}
		part := strings.Join(segs[:i+1], "/")
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", symlinkError(dir, cur, part)
		}
		if i < len(segs)-1 && !fi.IsDir() {
			return "", fmt.Errorf("%w: %s: %s is a file, not a folder", ErrInvalid, rel, part)
		}
		if i == len(segs)-1 && !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%w: %s is not a regular file (%s)", ErrInvalid, rel, fi.Mode().Type())
		}
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// symlinkError explains why a write will not go through the symbolic link
// at abs (part, relative to the vault folder dir).
func symlinkError(dir, abs, part string) error {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("%w: %s is a symbolic link that does not resolve (%v); memvault does not follow links when writing", ErrOutsideVault, part, err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil || !within(realDir, target) {
		return fmt.Errorf("%w: %s is a symbolic link to %s, outside the vault; memvault does not follow it", ErrOutsideVault, part, target)
	}
	return fmt.Errorf("%w: %s is a symbolic link (to %s inside the vault); memvault writes only plain files and folders, so replace the link with its target", ErrInvalid, part, target)
}

// within reports whether the clean absolute path p is root or lies below
// it. Both must already have their symbolic links resolved.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
