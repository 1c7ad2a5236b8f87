package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The environment variables that point the harness at its tools, and the
// one that says it runs in CI.
const (
	// EnvChromium names the browser's executable; else the first of
	// chromiumNames on PATH is used.
	EnvChromium = "MEMVAULT_CHROMIUM"
	// EnvAxe names axe-core's axe.min.js; else it is looked for in the
	// global npm folder (`npm root -g`).
	EnvAxe = "MEMVAULT_AXE_JS"
	// EnvArtifacts is the folder for screenshots kept after the tests.
	EnvArtifacts = "MEMVAULT_ARTIFACTS"
	// EnvCI is set by CI (.ci/run runs with CI=true): a missing tool
	// fails the test instead of skipping it.
	EnvCI = "CI"
)

// AxeVersion is the axe-core release .ci/run installs.
const AxeVersion = "4.14.1"

// chromiumNames are the browser's command names, Debian's first.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

var (
	// ErrMissing is wrapped by Find's error when the browser or axe-core is
	// not installed.
	ErrMissing = errors.New("not installed")
)

// Env says where the tools are.
type Env struct {
	// Chromium is the path of the browser's executable.
	Chromium string
	// Axe is the path of axe-core's axe.min.js.
	Axe string
}

// Find looks for the browser and axe-core (see EnvChromium and EnvAxe). Its
// error, wrapping ErrMissing, names each missing piece and how to install
// it.
func Find(ctx context.Context) (Env, error) {
	var env Env
	var missing []string
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, fmt.Sprintf("the browser $%s names (%v)", EnvChromium, err))
		} else {
			env.Chromium = p
		}
	} else {
		for _, name := range chromiumNames {
			if p, err := exec.LookPath(name); err == nil {
				env.Chromium = p
				break
			}
		}
		if env.Chromium == "" {
			missing = append(missing, "chromium (apt-get install chromium fonts-noto-cjk, or set $"+EnvChromium+")")
		}
	}
	axe, err := findAxe(ctx)
	if err != nil {
		missing = append(missing, err.Error())
	} else {
		env.Axe = axe
	}
	if len(missing) > 0 {
		return env, fmt.Errorf("browser tests: %w: %s", ErrMissing, strings.Join(missing, "; "))
	}
	return env, nil
}

func findAxe(ctx context.Context) (string, error) {
	install := "axe-core (npm install -g axe-core@" + AxeVersion + ", or set $" + EnvAxe + " to its axe.min.js)"
	if p := os.Getenv(EnvAxe); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("the axe.min.js $%s names (%v)", EnvAxe, err)
		}
		return p, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", errors.New(install + "; npm is not installed either")
	}
	out, err := exec.CommandContext(ctx, "npm", "root", "-g").Output()
	if err != nil {
		return "", fmt.Errorf("%s: npm root -g: %v", install, err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "axe-core", "axe.min.js")
	if _, err := os.Stat(p); err != nil {
		return "", errors.New(install)
	}
	return p, nil
}

// Options are the browser's settings; the zero value is English, default
// timeouts.
type Options struct {
	// AcceptLanguage is sent with every request ("zh-CN,zh", "en");
	// empty sends "en".
	AcceptLanguage string
	// PageTimeout bounds each page's load and each check on it; zero means
	// 90 s, generous because CI is a loaded 2-core machine.
	PageTimeout time.Duration
}

// Browser is a running headless Chromium.
type Browser struct {
	ctx    context.Context // the browser's chromedp context
	cancel context.CancelFunc
	axe    string // axe.min.js's source
	opts   Options
}

// Start starts the browser of env. ctx bounds the start only: the browser
// runs until Close.
func Start(ctx context.Context, env Env, opts Options) (*Browser, error) {
	axe, err := os.ReadFile(env.Axe)
	if err != nil {
		return nil, fmt.Errorf("read axe-core: %w", err)
	}
	if opts.AcceptLanguage == "" {
		opts.AcceptLanguage = "en"
	}
	if opts.PageTimeout == 0 {
		opts.PageTimeout = 90 * time.Second
	}
	allocOpts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(env.Chromium),
		// Tests run as root in containers, where Chromium's sandbox
		// cannot start; the pages are the test's own.
		chromedp.NoSandbox,
		chromedp.Flag("lang", strings.Split(opts.AcceptLanguage, ",")[0]),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		// Every tab in one renderer process: a test opens a tab per page,
		// and a renderer per tab (Chromium's default) paid its start and
		// its fonts each time (docs/performance.md, "Test and CI time, issue 25").
		chromedp.Flag("process-per-site", true),
		chromedp.Flag("renderer-process-limit", "1"),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	b := &Browser{
		ctx:    bctx,
		cancel: func() { cancelBrowser(); cancelAlloc() },
		axe:    string(axe),
		opts:   opts,
	}
	// The first action on bctx starts the browser and ties its life to
	// bctx, so the start's deadline comes from ctx through AfterFunc.
	stop := context.AfterFunc(ctx, b.cancel)
	err = chromedp.Do(bctx)
	if !stop() || err != nil {
		b.cancel()
		if err == nil {
			err = context.Cause(ctx)
		}
		return nil, fmt.Errorf("start %s: %w", env.Chromium, err)
	}
	return b, nil
}

// WithLanguage returns a view of the same browser whose pages send
// Accept-Language lang; closing either closes both.
func (b *Browser) WithLanguage(lang string) *Browser {
	c := *b
	c.opts.AcceptLanguage = lang
	return &c
}

// Close stops the browser and waits for it to exit.
func (b *Browser) Close() {
	b.cancel()
}

// New starts a browser for t and closes it when t ends. Where the browser or
// axe-core is missing it skips t naming what is missing, or, under CI, fails;
// under -short it skips t.
func New(t testing.TB, opts Options) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("a real browser takes a minute or more; runs without -short, as CI does")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := Find(ctx)
	if errors.Is(err, ErrMissing) {
		if os.Getenv(EnvCI) != "" {
			t.Fatalf("%v (.ci/run installs them; CI must not skip the browser tests)", err)
		}
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(ctx, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// ArtifactDir returns the folder for t's artefacts (screenshots), created:
// $MEMVAULT_ARTIFACTS/<t's name> when set, else a temporary folder removed
// after the test. It logs the path.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv(EnvArtifacts)
	if root == "" {
		dir := t.TempDir()
		t.Logf("artefacts in %s (removed after the test; set $%s to keep them)", dir, EnvArtifacts)
		return dir
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, t.Name())
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artefacts folder: %v", err)
	}
	t.Logf("artefacts in %s", dir)
	return dir
}
