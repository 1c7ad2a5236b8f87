package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/diskwrite"
)

// The regression tests of issue 13's "Secrets reached git history": each
// door that put a secret into a commit, and the check that now refuses it.
// A refused write leaves no commit and no file holding the secret.

// secretsInGit fails the test when a recorded commit message or a file
// under dir holds one of the fake secrets (or its telling middle part).
func secretsInGit(t *testing.T, dir string, c *recordingCommitter, secrets ...string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range secrets {
		for _, cm := range c.commits {
			if strings.Contains(cm.message, s) {
				t.Errorf("a commit message holds %q:\n%s", s, cm.message)
			}
		}
		for _, p := range memoryFiles(t, dir) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds %q:\n%s", p, s, data)
			}
		}
	}
}

func commitCount(c *recordingCommitter) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.commits)
}

// Finding 1: the reason (the commit body) was never scanned.
func TestReasonWithSecretIsRefused(t *testing.T) {
	t.Parallel()
	reason := "rotated to " + fakeToken
	tests := []struct {
		name  string
		write func(ctx context.Context, v *Vault, id string) error
	}{
		{"create", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.Create(ctx, NewMemory{Title: "t", Content: "clean"}, Author{Reason: reason})
			return err
		}},
		{"update", func(ctx context.Context, v *Vault, id string) error {
			c := "clean, changed"
			_, err := v.Update(ctx, id, 0, Patch{Content: &c}, Author{Reason: reason})
			return err
		}},
		{"forget (archive)", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Forget(ctx, id, false, Author{Reason: reason})
			return err
		}},
		{"forget (delete)", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Forget(ctx, id, true, Author{Reason: reason})
			return err
		}},
		{"batch (import --reason)", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.CreateBatch(ctx, Batch{Items: []BatchItem{{Memory: NewMemory{Title: "i", Content: "clean"}}}, Source: "x.jsonl"}, Author{Reason: reason})
			return err
		}},
		{"reason in JSON escapes", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.Create(ctx, NewMemory{Title: "t", Content: "clean"}, Author{Reason: `{"note":"x\n` + fakeToken + `"}`})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			base := mustCreate(t, v, NewMemory{Title: "Base", Content: "Deploys go through CI."})
			before := commitCount(c)
			err := tt.write(t.Context(), v, base.ID)
			if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), "reason: github-token at line 1") {
				t.Fatalf("error = %v, want ErrSecret naming the reason", err)
			}
			if strings.Contains(err.Error(), fakeToken[4:]) {
				t.Errorf("the error echoes the secret: %v", err)
			}
			if n := commitCount(c); n != before {
				t.Errorf("%d commits after the refused write, want %d", n, before)
			}
			secretsInGit(t, dir, c, fakeToken[4:])
		})
	}
}

// Finding 2: links, supersedes and the fields only an import carries
// were not scanned on write.
func TestIDListsAndImportedFieldsWithSecretAreRefused(t *testing.T) {
	t.Parallel()
	token := []string{fakeToken}
	tests := []struct {
		name  string
		write func(ctx context.Context, v *Vault, id string) error
		want  string
	}{
		{"create links", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.Create(ctx, NewMemory{Title: "t", Content: "clean", Links: token}, Author{Reason: "r"})
			return err
		}, "links[0]: github-token"},
		{"create supersedes", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.Create(ctx, NewMemory{Title: "t", Content: "clean", Supersedes: token}, Author{Reason: "r"})
			return err
		}, "supersedes[0]: github-token"},
		{"update links", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Update(ctx, id, 0, Patch{Links: &token}, Author{Reason: "r"})
			return err
		}, "links[0]: github-token"},
		{"update supersedes", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Update(ctx, id, 0, Patch{Supersedes: &token}, Author{Reason: "r"})
			return err
		}, "supersedes[0]: github-token"},
		{"link with a space (the id check quoted it)", func(ctx context.Context, v *Vault, _ string) error {
			_, err := v.Create(ctx, NewMemory{Title: "t", Content: "clean", Links: []string{"x " + fakeToken}}, Author{Reason: "r"})
			return err
		}, "links[0]: github-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			base := mustCreate(t, v, NewMemory{Title: "Base", Content: "Deploys go through CI."})
			before := commitCount(c)
			err := tt.write(t.Context(), v, base.ID)
			if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want ErrSecret naming %q", err, tt.want)
			}
			if strings.Contains(err.Error(), fakeToken[4:]) {
				t.Errorf("the error echoes the secret: %v", err)
			}
			if n := commitCount(c); n != before {
				t.Errorf("%d commits after the refused write, want %d", n, before)
			}
			secretsInGit(t, dir, c, fakeToken[4:])
		})
	}
}

// Finding 2 through an import: each item carrying a secret in a field
// only the rendered file shows is skipped with ErrSecret; the clean item
// is committed.
func TestBatchSkipsItemsWithSecretsInAnyField(t *testing.T) {
	t.Parallel()
	clean := NewMemory{Title: "Clean", Content: "nothing to see"}
	items := []BatchItem{
		{Memory: NewMemory{Title: "Links", Content: "x", Links: []string{fakeToken}}},
		{Memory: NewMemory{Title: "Supersedes", Content: "x", Supersedes: []string{fakeToken}}},
		{Memory: NewMemory{Title: "Client", Content: "x"}, Keep: &Imported{Source: &Source{Client: fakeToken, Kind: "import"}}},
		{Memory: NewMemory{Title: "Kind", Content: "x"}, Keep: &Imported{Source: &Source{Client: "cli", Kind: "k " + fakeToken}}},
		{Memory: NewMemory{Title: "Extra value", Content: "x"}, Keep: &Imported{Extra: []ExtraField{{Key: "note", Value: fakeToken}}}},
		{Memory: NewMemory{Title: "Extra name", Content: "x"}, Keep: &Imported{Extra: []ExtraField{{Key: fakeToken, Value: "v"}}}},
		// Neither the key nor the value alone, only the rendered line
		// "api_key: Xk9#mP2$vLq7" is a secret.
		{Memory: NewMemory{Title: "Extra pair", Content: "x"}, Keep: &Imported{Extra: []ExtraField{{Key: "api_key", Value: "Xk9#mP2$vLq7"}}}},
		{Memory: clean},
	}
	dir := t.TempDir()
	v, c := openRecorded(t, dir)
	res, err := v.CreateBatch(t.Context(), Batch{Items: items, Source: "memory.jsonl"}, Author{Reason: "import"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Created) != 1 || res.Created[0].Title != "Clean" {
		t.Errorf("created %v, want only the clean item", res.Created)
	}
	if len(res.Skipped) != len(items)-1 {
		t.Fatalf("skipped %d items, want %d: %v", len(res.Skipped), len(items)-1, res.Skipped)
	}
	for i, s := range res.Skipped {
		if s.Index != i || !errors.Is(s.Err, ErrSecret) {
			t.Errorf("skip %d = %d, %v; want item %d refused with ErrSecret", i, s.Index, s.Err, i)
		}
		if strings.Contains(s.Err.Error(), fakeToken[4:]) || strings.Contains(s.Err.Error(), "Xk9#") {
			t.Errorf("skip %d echoes the secret: %v", i, s.Err)
		}
	}
	if n := commitCount(c); n != 1 {
		t.Errorf("%d commits, want the clean item's", n)
	}
	secretsInGit(t, dir, c, fakeToken[4:], "Xk9#mP2$vLq7")
}

// Finding 3, first half: recovery committed a file as it was on disk, so
// a hand edit made after a crash reached git through the next write.
func TestRecoveryRefusesASecretEditedInAfterTheCrash(t *testing.T) {
	t.Parallel()
	const (
		oldA   = "---\nid: a\ntitle: A\n---\nold A\n"
		newA   = "---\nid: a\ntitle: A\nversion: 2\n---\nnew A\n"
		edited = "---\nid: a\ntitle: A\n---\nThe CI token:\n\n    " + fakeToken + "\n"
	)
	for _, door := range []string{"Recover (doctor --fix)", "the next write"} {
		t.Run(door, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			mustCreate(t, v, NewMemory{Title: "Scaffolding"})
			mustMkdir(t, filepath.Join(dir, "project"))
			a := filepath.Join(dir, "project", "a.md")
			if err := os.WriteFile(a, []byte(oldA), 0o644); err != nil {
				t.Fatal(err)
			}
			ops := []diskwrite.Op{{Path: "project/a.md", Data: []byte(newA), Before: diskwrite.Hash([]byte(oldA))}}
			putJournal(t, v, diskwrite.Journal{Message: "memory(project): update \"A\"\n", Paths: []string{"project/a.md"}, Commit: true, Ops: ops})
			// The crash happened; then someone edits the file by hand.
			if err := os.WriteFile(a, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			before := commitCount(c)
			var err error
			if door == "the next write" {
				_, err = v.Create(t.Context(), NewMemory{Title: "Ordinary", Content: "clean"}, Author{Reason: "r"})
			} else {
				_, err = v.Recover(t.Context())
			}
			if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), "project/a.md: github-token at line 7") {
				t.Fatalf("error = %v, want ErrSecret naming project/a.md line 7", err)
			}
			if n := commitCount(c); n != before {
				t.Errorf("%d commits, want %d", n, before)
			}
			if got, _ := os.ReadFile(a); string(got) != edited {
				t.Errorf("the edited file changed:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(dir, JournalName)); err != nil {
				t.Errorf("the journal is gone (%v): the write could never be finished", err)
			}
			// Once the secret is removed, the interrupted write finishes.
			fixed := strings.Replace(edited, fakeToken, "(in the CI settings)", 1)
			if err := os.WriteFile(a, []byte(fixed), 0o644); err != nil {
				t.Fatal(err)
			}
			if done, err := v.Recover(t.Context()); err != nil || len(done) != 1 {
				t.Fatalf("Recover after the fix = %v, %v; want project/a.md committed", done, err)
			}
			c.mu.Lock()
			last := c.commits[len(c.commits)-1].message
			c.mu.Unlock()
			if !strings.Contains(last, commitmsg.KeyRecovered) {
				t.Errorf("last commit %q is not the recovery", last)
			}
		})
	}
}

// Finding 3, second half: a journal whose second operation has a bad
// path had its first operation applied before the second was refused.
func TestRecoveryChecksEveryOperationFirst(t *testing.T) {
	t.Parallel()
	good := "---\nid: g\ntitle: G\n---\nbody\n"
	tests := []struct {
		name string
		j    diskwrite.Journal
		want string
	}{
		{"second op escapes the vault", diskwrite.Journal{Message: "m\n", Commit: true, Paths: []string{"project/g.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}, {Path: "../../x.md", Data: []byte("x")}}}, "../../x.md"},
		{"second op is not a memory file", diskwrite.Journal{Message: "m\n", Commit: true, Paths: []string{"project/g.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}, {Path: ".git/hooks/pre-commit", Data: []byte("x")}}}, ".git/hooks"},
		{"a committed path escapes", diskwrite.Journal{Message: "m\n", Commit: true, Paths: []string{"project/g.md", "../y.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}}}, "../y.md"},
		{"second op writes a secret", diskwrite.Journal{Message: "m\n", Commit: true, Paths: []string{"project/g.md", "project/s.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}, {Path: "project/s.md", Data: []byte("---\nid: s\n---\n" + fakeToken + "\n")}}}, "project/s.md: github-token"},
		{"the message holds a secret", diskwrite.Journal{Message: "m\n\nrotated to " + fakeToken + "\n", Commit: true, Paths: []string{"project/g.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}}}, "its commit message: github-token"},
		{"a later op rewrites the same file with a secret", diskwrite.Journal{Message: "m\n", Commit: true, Paths: []string{"project/g.md"},
			Ops: []diskwrite.Op{{Path: "project/g.md", Data: []byte(good)}, {Path: "project/g.md", Data: []byte(good + fakeToken + "\n"), Before: diskwrite.Hash([]byte(good))}}}, "project/g.md: github-token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			mustCreate(t, v, NewMemory{Title: "Scaffolding"})
			putJournal(t, v, tt.j)
			before := commitCount(c)
			_, err := v.Recover(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Recover error = %v, want one naming %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "project", "g.md")); err == nil {
				t.Error("the first operation was applied before the journal was refused")
			}
			if n := commitCount(c); n != before {
				t.Errorf("%d commits, want %d", n, before)
			}
			secretsInGit(t, dir, c, fakeToken[4:])
		})
	}
}

// The hand-edit commit (doctor --fix) checks the files as they are.
func TestRefuseSecretsInFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, _ := openRecorded(t, dir)
	mustMkdir(t, filepath.Join(dir, "project"))
	files := map[string]string{
		"project/clean.md":  "---\ntitle: Clean\n---\nnothing\n",
		"project/leaked.md": "---\ntitle: Leaked\n---\n\nkey: AKIA\u200bUJZDEGXDNCF32EPF\n",
	}
	for rel, s := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.RefuseSecretsInFiles(t.Context(), []string{"project/clean.md", "project/deleted.md"}); err != nil {
		t.Errorf("clean and deleted files: %v", err)
	}
	err := v.RefuseSecretsInFiles(t.Context(), []string{"project/clean.md", "project/leaked.md"})
	if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), "project/leaked.md: aws-access-key-id at line 5, column 6") {
		t.Errorf("error = %v, want ErrSecret naming project/leaked.md line 5", err)
	}
}

// A memory someone edited a secret into by hand is not committed by the
// next write that rewrites it (an update of its tags, an archive, a
// supersede): the write checks the whole file it commits.
func TestRewriteOfAHandEditedSecretIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		write func(ctx context.Context, v *Vault, id string) error
	}{
		{"update tags", func(ctx context.Context, v *Vault, id string) error {
			tags := []string{"ci"}
			_, err := v.Update(ctx, id, 0, Patch{Tags: &tags}, Author{Reason: "r"})
			return err
		}},
		{"archive", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Forget(ctx, id, false, Author{Reason: "r"})
			return err
		}},
		{"supersede", func(ctx context.Context, v *Vault, id string) error {
			_, err := v.Create(ctx, NewMemory{Title: "New CI", Content: "clean", Supersedes: []string{id}}, Author{Reason: "r"})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			m := mustCreate(t, v, NewMemory{Title: "CI", Content: "CI runs on push."})
			p := filepath.Join(dir, m.Path)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "token: "+fakeToken+"\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			before := commitCount(c)
			err = tt.write(t.Context(), v, m.ID)
			if !errors.Is(err, ErrSecret) || !strings.Contains(err.Error(), m.Path+": github-token") {
				t.Fatalf("error = %v, want ErrSecret naming %s", err, m.Path)
			}
			if n := commitCount(c); n != before {
				t.Errorf("%d commits, want %d", n, before)
			}
		})
	}
}

// Finding 4: the client name went into the commit and source.client as
// given: line breaks could forge trailers, a token went along.
func TestClientNameIsSanitised(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, client, want string
	}{
		{"forged trailers", "evil\nMemory-Supersedes: 01FORGED\r\nMemory-Id: x", "evil Memory-Supersedes: 01FORGED Memory-Id: x"},
		{"unicode line breaks", "evil\u0085Memory-Supersedes: 01A\u2028Memory-Supersedes: 01B", "evil Memory-Supersedes: 01A Memory-Supersedes: 01B"},
		{"control and format characters", "cur\x00sor\u200b-\u202eide\x1b", "cursor-ide"},
		{"token", "bot " + fakeToken, "bot [REDACTED:github-token]"},
		{"token split by a zero-width space", "bot ghp_hGAkWvj7FAc9\u200bQeWJKY40uvSwMFLZDe1f8rES", "bot [REDACTED:github-token]"},
		{"long", strings.Repeat("客户端", 40), strings.Repeat("客户端", 40)[:MaxClientRunes*3]},
		{"only blanks", " \n\t ", "cli"},
		{"plain", "claude-code", "claude-code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			v, c := openRecorded(t, dir)
			res, err := v.Create(t.Context(), NewMemory{Title: "t", Content: "clean"}, Author{Reason: "r", Client: tt.client})
			if err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			msg := commitmsg.Parse(c.commits[len(c.commits)-1].message)
			c.mu.Unlock()
			if got := msg.Values(commitmsg.KeyClient); len(got) != 1 || got[0] != tt.want {
				t.Errorf("Memory-Client trailers = %q, want [%q]", got, tt.want)
			}
			if got := msg.Values(commitmsg.KeySupersedes); len(got) != 0 {
				t.Errorf("forged Memory-Supersedes trailers: %q", got)
			}
			if got := msg.Values(commitmsg.KeyID); len(got) != 1 || got[0] != res.Memory.ID {
				t.Errorf("Memory-Id trailers = %q, want [%s]", got, res.Memory.ID)
			}
			if res.Memory.Source.Client != tt.want {
				t.Errorf("source.client = %q, want %q", res.Memory.Source.Client, tt.want)
			}
			secretsInGit(t, dir, c, fakeToken[4:], "QeWJKY40")
		})
	}
	t.Run("vault option", func(t *testing.T) {
		t.Parallel()
		c := &recordingCommitter{}
		v, err := Open(t.Context(), t.TempDir(), Options{Committer: c, Client: "x\nMemory-Id: forged " + fakeToken})
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, v, NewMemory{Title: "t", Content: "clean"})
		msg := commitmsg.Parse(c.commits[0].message)
		if got := msg.Values(commitmsg.KeyClient); len(got) != 1 || got[0] != "x Memory-Id: forged [REDACTED:github-token]" {
			t.Errorf("Memory-Client = %q", got)
		}
	})
}

func TestSanitizeClientCapsLength(t *testing.T) {
	t.Parallel()
	for _, in := range []string{strings.Repeat("a", 500), strings.Repeat("é", 500), strings.Repeat("x ", 500)} {
		if got := SanitizeClient(in); len([]rune(got)) > MaxClientRunes {
			t.Errorf("SanitizeClient(%.20q...) has %d runes, limit %d", in, len([]rune(got)), MaxClientRunes)
		}
	}
}

// Deleting is how a secret leaves the tree: a file whose name or content
// holds one can always be deleted, while archiving it (a rewrite) is
// refused.
func TestDeletingAFileWithASecretIsAllowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, "project"))
	rel := filepath.Join("project", fakeToken+".md")
	if err := os.WriteFile(filepath.Join(dir, rel), []byte("---\nid: leaked\ntitle: Leaked\n---\n\n"+fakeToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, c := openRecorded(t, dir)
	if _, err := v.Forget(t.Context(), "leaked", false, Author{Reason: "archive"}); !errors.Is(err, ErrSecret) {
		t.Errorf("archive error = %v, want ErrSecret", err)
	}
	if _, err := v.Forget(t.Context(), "leaked", true, Author{Reason: "remove the leaked token"}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
		t.Error("the file is still there")
	}
	if n := commitCount(c); n != 1 {
		t.Errorf("%d commits, want the deletion", n)
	}
}

// TestSanitizeClientStripsAddresses: a client name cannot pass for a
// person's identity in a trailer (issue 27 finding 9).
func TestSanitizeClientStripsAddresses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"Bob Builder <bob@example.com>", "Bob Builder"},
		{"<bob@example.com>", ""},
		{"claude-code", "claude-code"},
		{"a <x> b <y@z> c", "a b c"},
		{"half <open", "half open"},
		{"close> only", "close only"},
		{"two <<bob@example.com>>", "two"},
	} {
		if got := SanitizeClient(tt.in); got != tt.want {
			t.Errorf("SanitizeClient(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
