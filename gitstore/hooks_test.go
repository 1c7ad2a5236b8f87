package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestHooksDirFromConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config, want string // want is relative to the repository root
	}{
		{"default", "", ".git/hooks"},
		{"core.hooksPath", "[core]\n\thooksPath = githooks\n[user]\n\thooksPath = no\n", "githooks"},
		{"absolute", "[core]\n\thooksPath = /opt/hooks\n", "/opt/hooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, s := newRepo(t)
			appendFile(t, filepath.Join(dir, ".git", "config"), tt.config)
			want := tt.want
			if !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			if got, err := s.configHooksDir(); err != nil || got != want {
				t.Errorf("configHooksDir = %q, %v; want %q", got, err, want)
			}
			if gitPath() == "" {
				return
			}
			// The git CLI, which runs the hooks, agrees.
			if got, err := s.HooksDir(t.Context()); err != nil || got != want {
				t.Errorf("HooksDir = %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestInstallHook(t *testing.T) {
	t.Parallel()
	h := Hook{Name: "pre-commit", Marker: "# ours", Script: "#!/bin/sh\n# ours\nexit 0\n"}
	ctx := t.Context()
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	absent := func(t *testing.T, p string) {
		t.Helper()
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	notOurs := func(t *testing.T, s *Store) {
		t.Helper()
		if _, _, err := s.UninstallHook(ctx, h.Name, h.Marker); !errors.Is(err, ErrNotOurHook) {
			t.Errorf("UninstallHook: %v, want ErrNotOurHook", err)
		}
	}

	t.Run("fresh, again, uninstall", func(t *testing.T) {
		t.Parallel()
		dir, s := newRepo(t)
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		for range 2 {
			res, err := s.InstallHook(ctx, h)
			if err != nil || res.Path != hook || res.Chained != "" {
				t.Fatalf("InstallHook = %+v, %v", res, err)
			}
		}
		if fi, err := os.Stat(hook); err != nil || fi.Mode()&0o111 == 0 || read(hook) != h.Script {
			t.Fatalf("hook %v, %v", fi, err)
		}
		p, restored, err := s.UninstallHook(ctx, h.Name, h.Marker)
		if err != nil || p != hook || restored {
			t.Fatalf("UninstallHook = %q, %v, %v", p, restored, err)
		}
		absent(t, hook)
		notOurs(t, s)
	})

	t.Run("someone else's hook is chained and restored", func(t *testing.T) {
		t.Parallel()
		dir, s := newRepo(t)
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		theirs := "#!/bin/sh\necho theirs\n"
		writeFile(t, hook, theirs)
		res, err := s.InstallHook(ctx, h)
		if err != nil || res.Chained != hook+ChainedHookSuffix {
			t.Fatalf("InstallHook = %+v, %v", res, err)
		}
		if _, err := s.InstallHook(ctx, h); err != nil {
			t.Fatalf("second InstallHook: %v", err)
		}
		if read(hook+ChainedHookSuffix) != theirs || read(hook) != h.Script {
			t.Errorf("after install: %q and %q", read(hook), read(hook+ChainedHookSuffix))
		}
		if _, restored, err := s.UninstallHook(ctx, h.Name, h.Marker); err != nil || !restored {
			t.Fatalf("UninstallHook: restored %v, %v", restored, err)
		}
		if read(hook) != theirs {
			t.Errorf("after uninstall: %q, want their hook back", read(hook))
		}
		absent(t, hook+ChainedHookSuffix)
		notOurs(t, s)
	})

	t.Run("both names taken", func(t *testing.T) {
		t.Parallel()
		dir, s := newRepo(t)
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		writeFile(t, hook, "#!/bin/sh\n")
		writeFile(t, hook+ChainedHookSuffix, "#!/bin/sh\n")
		if res, err := s.InstallHook(ctx, h); !errors.Is(err, ErrHookTaken) || res.Path != hook {
			t.Errorf("InstallHook = %+v, %v; want ErrHookTaken", res, err)
		}
		if read(hook) != "#!/bin/sh\n" {
			t.Error("their hook was overwritten")
		}
	})
}
