package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares in testdata/script/*.txtar")

// The sample vault's README sets "today" to 2026-11-30: the scripts run the
// CLI at that instant so its expired, future and live memories stay so
// whatever the real date is.
const (
	scriptNow = "2026-11-30T12:00:00Z"
	// sampleModTime is given to every copied sample file: hand-written files
	// without dates take their modification time as created_at, and a copy
	// made "now" would lie after scriptNow and not exist yet at that instant.
	sampleModTime = "2026-11-20T00:00:00Z"
	// nowEnv pins the clock of the memvault command run by the scripts.
	nowEnv = "MEMVAULT_TEST_NOW"
)

// TestMain lets the test binary act as the memvault command inside scripts,
// so `exec memvault` runs the real command line, in a separate process. It
// also gives the package the folder its one built memvault binary lives
// in (see buildMemvault), a git identity of its own (see
// withIsolatedGit), and more parallel tests at once (see moreParallel).
func TestMain(m *testing.M) {
	testscript.Main(moreParallel{withIsolatedGit{withBinaryDir{m}}}, map[string]func(){
		"memvault": func() {
			mv := NewMain(os.Stdin, os.Stdout, os.Stderr)
			if s := os.Getenv(nowEnv); s != "" {
				now, err := time.Parse(time.RFC3339, s)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", nowEnv, err)
					os.Exit(exitInternal)
				}
				mv.Now = func() time.Time { return now }
			}
			os.Exit(mv.Run(context.Background(), os.Args[1:]))
		},
	})
}

// moreParallel runs up to four parallel tests per CPU at once (the
// default is one), unless -parallel says otherwise. Most tests here spend
// their time waiting for the memvault processes they start, and a
// parallel test holds its slot while it waits: TestCrashSafety's 20 s of
// writes and kills, the 5 s a server waits for a roots/list answer that
// cannot come. With one slot per CPU the CPUs idled while tests queued
// behind those waits. testscript calls Run only in the top-level test
// process.
type moreParallel struct{ next interface{ Run() int } }

func (w moreParallel) Run() int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	return w.next.Run()
}

// withIsolatedGit runs the tests in a process whose HOME and global git
// config are a temporary folder holding a git identity: the developer's
// git config and ~/.memvault stay out of every test, and no test needs
// t.Setenv, so every test can run in parallel. No test writes into that
// HOME: one that needs a user vault gives its memvault a HOME of its own.
// Go's own folders keep their paths, so the builds the tests run stay
// warm. testscript calls Run only in the top-level test process.
type withIsolatedGit struct{ next interface{ Run() int } }

func (w withIsolatedGit) Run() int {
	home, err := os.MkdirTemp("", "memvault-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "memvault tests:", err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := isolateProcessGit(home); err != nil {
		fmt.Fprintln(os.Stderr, "memvault tests:", err)
		return 1
	}
	code := w.next.Run()
	// The tests run in parallel and all see this HOME: one that wrote
	// into it (a ~/.memvault, say) would change what the others find.
	if written := writtenToHome(home); len(written) > 0 {
		fmt.Fprintf(os.Stderr, "memvault tests: a test wrote into the shared HOME %s: %v; give it a HOME of its own\n", home, written)
		return 1
	}
	return code
}

// writtenToHome lists what is in home besides the git config
// isolateProcessGit put there and Go's own files (the go command the
// tests run keeps its telemetry under the config folder).
func writtenToHome(home string) []string {
	var out []string
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(home, p)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("%s (%v)", rel, err))
		case rel == "." || rel == ".gitconfig" || rel == "xdg":
		case rel == filepath.Join("xdg", "go"):
			return fs.SkipDir
		default:
			out = append(out, rel)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return out
}

// isolateProcessGit points the process at home, as isolateGit does for
// one test.
func isolateProcessGit(home string) error {
	// Without the go command there is nothing to keep warm.
	if goDirs, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output(); err == nil {
		for i, v := range strings.SplitN(strings.TrimSpace(string(goDirs)), "\n", 4) {
			os.Setenv([]string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}[i], v)
		}
	}
	cfg := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(cfg, []byte(testGitConfig), 0o644); err != nil {
		return err
	}
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_GLOBAL", cfg)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	for _, k := range gitEnvToClear {
		os.Unsetenv(k)
	}
	return nil
}

// TestScript runs the end-to-end scripts in testdata/script. Their 250
// or so commands, each a process start, cost about 30 s of CPU: too much
// for the -short inner loop, so they run without -short, as CI does.
func TestScript(t *testing.T) {
	if testing.Short() {
		t.Skip("the scripts cost about 30 s of CPU; they run without -short, as CI does")
	}
	t.Parallel()
	sample, err := filepath.Abs(filepath.Join("..", "..", "sample-vault"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sample, "README.md")); err != nil {
		t.Fatalf("sample vault: %v", err)
	}
	bin := scriptMemvaultDir(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// A private HOME with a git identity: commits work and the
			// developer's own git config does not leak into the scripts.
			home := filepath.Join(env.WorkDir, ".home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			// No automatic maintenance, as in testGitConfig.
			gitconfig := "[user]\n\tname = Script Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n[maintenance]\n\tauto = false\n"
			if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("MEMVAULT_AUTHOR", "")
			env.Setenv(nowEnv, scriptNow)
			env.Setenv("SAMPLE", sample)
			if bin != "" {
				env.Setenv("PATH", bin+string(filepath.ListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copysample": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: copysample DIR")
				}
				ts.Check(copySample(sample, ts.MkAbs(args[0])))
			},
			"json":        cmdJSON,
			"exits":       cmdExits,
			"writequoted": cmdWriteQuoted,
		},
	})
}

// copySample copies the sample vault to dst with every file dated
// sampleModTime.
func copySample(src, dst string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copy sample vault: %w", err)
	}
	mod, err := time.Parse(time.RFC3339, sampleModTime)
	if err != nil {
		return err
	}
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, mod, mod)
	})
}

// cmdExits runs a program like exec and checks its exit status, which
// `! exec` cannot tell apart (1 is a usage error, 2 an internal one):
//
//	exits STATUS PROG [ARG...]
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS PROG [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdWriteQuoted writes bytes a txtar file cannot hold (NUL, invalid
// UTF-8), given as a Go string literal:
//
//	writequoted FILE '"---\x00\xff"'
func cmdWriteQuoted(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: writequoted FILE GO-STRING-LITERAL")
	}
	data, err := strconv.Unquote(args[1])
	ts.Check(err)
	file := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(file), 0o755))
	ts.Check(os.WriteFile(file, []byte(data), 0o644))
}

// cmdJSON checks the JSON of the last command's standard output:
//
//	json PATH            PATH exists (with !, it does not)
//	json PATH WANT       the value at PATH matches the regexp ^(?:WANT)$;
//	                     strings are matched as they are, other values as
//	                     compact JSON
//	json -keys PATH K... the object at PATH has every key K
//
// PATH is dot-separated: object keys, array indexes, '#' for the length of
// an array or object, and KEY=VALUE for the first array element whose
// field KEY is the string VALUE. "." is the whole document.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	keys := len(args) > 0 && args[0] == "-keys"
	if keys {
		args = args[1:]
	}
	if len(args) < 1 || (!keys && len(args) > 2) || (keys && len(args) < 2) {
		ts.Fatalf("usage: json PATH [WANT] | json -keys PATH KEY...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &doc); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	got, err := jsonPath(doc, args[0])
	switch {
	case keys:
		ts.Check(err)
		obj, ok := got.(map[string]any)
		if !ok {
			ts.Fatalf("%s is %s, not an object", args[0], compact(got))
		}
		for _, k := range args[1:] {
			if _, has := obj[k]; has == neg {
				ts.Fatalf("%s: key %q present = %v, want %v (object %s)", args[0], k, has, !neg, compact(got))
			}
		}
	case len(args) == 1:
		if (err == nil) == neg {
			ts.Fatalf("%s: found = %v, want %v (%v)", args[0], err == nil, !neg, err)
		}
	default:
		ts.Check(err)
		s, isString := got.(string)
		if !isString {
			s = compact(got)
		}
		re, err := regexp.Compile("^(?:" + args[1] + ")$")
		ts.Check(err)
		if re.MatchString(s) == neg {
			ts.Fatalf("%s = %s, want match %v for %q", args[0], compact(got), !neg, args[1])
		}
	}
}

// jsonPath walks a decoded JSON document along a cmdJSON path.
func jsonPath(doc any, path string) (any, error) {
	if path == "." {
		return doc, nil
	}
	cur := doc
	for _, seg := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			if seg == "#" {
				cur = float64(len(v))
				continue
			}
			next, ok := v[seg]
			if !ok {
				return nil, fmt.Errorf("%s: no key %q", path, seg)
			}
			cur = next
		case []any:
			if seg == "#" {
				cur = float64(len(v))
				continue
			}
			if k, want, ok := strings.Cut(seg, "="); ok {
				found := false
				for _, e := range v {
					if o, isObj := e.(map[string]any); isObj && o[k] == want {
						cur, found = e, true
						break
					}
				}
				if !found {
					return nil, fmt.Errorf("%s: no element with %s", path, seg)
				}
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return nil, fmt.Errorf("%s: no index %q in an array of %d", path, seg, len(v))
			}
			cur = v[i]
		default:
			return nil, fmt.Errorf("%s: %q applied to %s", path, seg, compact(cur))
		}
	}
	return cur, nil
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
