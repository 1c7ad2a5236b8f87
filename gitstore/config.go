package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// gitConfig is a stack of parsed config files, lowest precedence first, the
// order in which git reads them (system, XDG, global, local, worktree).
type gitConfig struct {
	files []*format.Config
}

// configContext is what includeIf conditions are evaluated against.
type configContext struct {
	gitDir string // "" outside a repository: gitdir conditions never match
	branch string // short branch name for onbranch conditions
}

const maxIncludeDepth = 10

// get returns the last value of section[.subsection].key across all files.
func (c *gitConfig) get(section, subsection, key string) string {
	for i := len(c.files) - 1; i >= 0; i-- {
		f := c.files[i]
		if !f.HasSection(section) {
			continue
		}
		sec := f.Section(section)
		if subsection == "" {
			if sec.HasOption(key) {
				return sec.Option(key)
			}
			continue
		}
		if sec.HasSubsection(subsection) && sec.Subsection(subsection).HasOption(key) {
			return sec.Subsection(subsection).Option(key)
		}
	}
	return ""
}

func (c *gitConfig) has(section, key string) bool {
	for _, f := range c.files {
		if f.HasSection(section) && f.Section(section).HasOption(key) {
			return true
		}
	}
	return false
}

// getBool interprets a boolean the way git does; a key present without a
// value ("[core]\n\tfilemode") is true.
func (c *gitConfig) getBool(section, key string, def bool) bool {
	if !c.has(section, key) {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(c.get(section, "", key))) {
	case "false", "no", "off", "0":
		return false
	case "true", "yes", "on", "1", "":
		return true
	}
	return def
}

// loadRepoConfig reads the repository's own config (and config.worktree
// when enabled), with includes.
func loadRepoConfig(commonDir, gitDir string) (*gitConfig, error) {
	c := &gitConfig{}
	ctx := configContext{gitDir: gitDir}
	if err := c.load(filepath.Join(commonDir, "config"), ctx, 0); err != nil {
		return nil, err
	}
	if c.getBool("extensions", "worktreeconfig", false) {
		if err := c.load(filepath.Join(gitDir, "config.worktree"), ctx, 0); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// loadUserConfig reads the system, XDG and global config files, honouring
// GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM as git does.
func loadUserConfig(gitDir string) (*gitConfig, error) {
	return loadUserConfigCtx(configContext{gitDir: gitDir})
}

func loadUserConfigCtx(ctx configContext) (*gitConfig, error) {
	c := &gitConfig{}
	if !envBool("GIT_CONFIG_NOSYSTEM") {
		sys := "/etc/gitconfig"
		if v, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
			sys = v
		}
		if sys != "" {
			if err := c.load(sys, ctx, 0); err != nil {
				return nil, err
			}
		}
	}
	if v, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if v != "" {
			if err := c.load(expandHome(v), ctx, 0); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		if err := c.load(filepath.Join(xdg, "git", "config"), ctx, 0); err != nil {
			return nil, err
		}
	}
	if home != "" {
		if err := c.load(filepath.Join(home, ".gitconfig"), ctx, 0); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func envBool(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// load parses one file (missing files are skipped) and the files it
// includes, which git treats as if their text stood at the include.
func (c *gitConfig) load(path string, ctx configContext, depth int) error {
	if depth > maxIncludeDepth {
		return fmt.Errorf("config %s: include depth exceeds %d", path, maxIncludeDepth)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	f := format.New()
	if err := format.NewDecoder(bytes.NewReader(b)).Decode(f); err != nil {
		return fmt.Errorf("parse config %s: %w", path, err)
	}
	c.files = append(c.files, f)
	var includes []string
	for _, sec := range f.Sections {
		switch {
		case sec.IsName("include"):
			includes = append(includes, sec.OptionAll("path")...)
		case sec.IsName("includeIf"):
			for _, sub := range sec.Subsections {
				if includeIfMatches(sub.Name, path, ctx) {
					includes = append(includes, sub.OptionAll("path")...)
				}
			}
		}
	}
	for _, inc := range includes {
		inc = expandHome(inc)
		if !filepath.IsAbs(inc) {
			inc = filepath.Join(filepath.Dir(path), inc)
		}
		if err := c.load(inc, ctx, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// includeIfMatches evaluates the gitdir, gitdir/i and onbranch conditions of
// an [includeIf "..."] section; other conditions never match.
func includeIfMatches(cond, cfgPath string, ctx configContext) bool {
	kind, pattern, ok := strings.Cut(cond, ":")
	if !ok {
		return false
	}
	switch kind {
	case "gitdir", "gitdir/i":
		if ctx.gitDir == "" {
			return false
		}
		pattern = expandHome(pattern)
		if rest, ok := strings.CutPrefix(pattern, "./"); ok {
			pattern = filepath.Join(filepath.Dir(cfgPath), rest)
		}
		pattern = filepath.ToSlash(pattern)
		if !strings.HasPrefix(pattern, "/") && !filepath.IsAbs(filepath.FromSlash(pattern)) {
			pattern = "**/" + pattern
		}
		if strings.HasSuffix(pattern, "/") {
			pattern += "**"
		}
		target := filepath.ToSlash(ctx.gitDir)
		return wildmatch(pattern, target, kind == "gitdir/i") || wildmatch(pattern, target+"/", kind == "gitdir/i")
	case "onbranch":
		if ctx.branch == "" {
			return false
		}
		if strings.HasSuffix(pattern, "/") {
			pattern += "**"
		}
		return wildmatch(pattern, ctx.branch, false)
	}
	return false
}

// wildmatch matches git's pathname globs: '*' and '?' stop at '/', "**/"
// spans any number of directories, "/**" at the end matches everything below.
func wildmatch(pattern, name string, fold bool) bool {
	var re strings.Builder
	if fold {
		re.WriteString("(?i)")
	}
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		switch {
		case strings.HasPrefix(pattern[i:], "**/"):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(".*")
			i++
		case ch == '*':
			re.WriteString("[^/]*")
		case ch == '?':
			re.WriteString("[^/]")
		case ch == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				re.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			re.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			re.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	re.WriteString("$")
	rx, err := regexp.Compile(re.String())
	return err == nil && rx.MatchString(name)
}
