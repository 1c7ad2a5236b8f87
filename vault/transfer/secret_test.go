package transfer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRefusesSecretsInEveryField is issue 13's finding 2 through a
// JSONL import: a token inside links, supersedes, source.client, an
// unknown key or the path of a record, however it is written, is refused
// item by item; nothing in the vault holds it afterwards.
func TestImportRefusesSecretsInEveryField(t *testing.T) {
	t.Parallel()
	// Fake values of the right shape; not real credentials.
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	lines := []string{
		`{"id":"links","title":"L","body":"x","links":["` + token + `"]}`,
		`{"id":"supersedes","title":"S","body":"x","supersedes":["` + token + `"]}`,
		`{"id":"client","title":"C","body":"x","source":{"client":"` + token + `","kind":"import"}}`,
		`{"id":"client-zw","title":"Z","body":"x","source":{"client":"ghp_hGAkWvj7\u200bFAc9QeWJKY40uvSwMFLZDe1f8rES"}}`,
		`{"id":"extra","title":"E","body":"x","extra":{"deploy_key":"` + token + `"}}`,
		`{"id":"path","title":"P","body":"x","path":"project/` + token + `.md"}`,
		`{"id":"reason-like","title":"R","body":"log: {\"a\":\"x\\n` + token + `\"}"}`,
		`{"id":"clean","title":"Clean","body":"nothing secret"}`,
	}
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := openVault(t, dir)
	rep := importFile(t, v, src, ReadOptions{}, false)
	if len(rep.Imported) != 1 || rep.Imported[0].Memory.ID != "clean" {
		t.Errorf("imported %v, want only the clean record", rep.Imported)
	}
	if len(rep.Skipped) != len(lines)-1 {
		t.Fatalf("skipped %v, want %d records", rep.Skipped, len(lines)-1)
	}
	for _, p := range rep.Skipped {
		if !strings.Contains(p.Reason, "secret") || !strings.Contains(p.Reason, "github-token") {
			t.Errorf("skipped %s: %s; want a secret refusal", p.Pos, p.Reason)
		}
		if strings.Contains(p.Reason, token[4:]) {
			t.Errorf("skipped %s echoes the secret: %s", p.Pos, p.Reason)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), token[4:]) || strings.Contains(p, token[4:]) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Get("links"); err == nil {
		t.Error("the record with a token in links was imported")
	}
}
