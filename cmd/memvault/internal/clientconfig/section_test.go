package clientconfig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeSection(t *testing.T) {
	const sec = SectionBegin + "\nnew\n" + SectionEnd
	crlf := strings.ReplaceAll(sec, "\n", "\r\n")
	tests := []struct {
		name    string
		in      string
		add     bool
		want    string
		wantRes Result
		wantErr string
	}{
		{name: "empty file", in: "", add: true, want: sec + "\n", wantRes: Added},
		{name: "blank file", in: "\n\n", add: true, want: sec + "\n", wantRes: Added},
		{name: "other text: appended after a blank line", in: "# Rules\n\nUse tabs.\n", add: true, want: "# Rules\n\nUse tabs.\n\n" + sec + "\n", wantRes: Added},
		{name: "no final newline", in: "# Rules", add: true, want: "# Rules\n\n" + sec + "\n", wantRes: Added},
		{name: "blank line already there", in: "# Rules\n\n", add: true, want: "# Rules\n\n" + sec + "\n", wantRes: Added},
		{name: "second run", in: "# Rules\n\n" + sec + "\n", add: true, want: "# Rules\n\n" + sec + "\n", wantRes: Unchanged},
		{
			name: "section edited by hand: replaced, the rest kept", add: true, wantRes: Updated,
			in:   "# Rules\n" + SectionBegin + "\nold, edited\n\nmore\n" + SectionEnd + "\n\n## After\nkeep me\n",
			want: "# Rules\n" + sec + "\n\n## After\nkeep me\n",
		},
		{
			name: "markers mid-line kept where they are", add: true, wantRes: Updated,
			in:   "a " + SectionBegin + "x" + SectionEnd + " b",
			want: "a " + sec + " b",
		},
		{name: "CRLF file gets CRLF", in: "# Rules\r\n", add: true, want: "# Rules\r\n\r\n" + crlf + "\r\n", wantRes: Added},
		{name: "CRLF second run", in: "# Rules\r\n\r\n" + crlf + "\r\n", add: true, want: "# Rules\r\n\r\n" + crlf + "\r\n", wantRes: Unchanged},
		{name: "only the first section replaced", in: sec + "\n" + SectionBegin + "\nx\n" + SectionEnd, add: true, want: sec + "\n" + SectionBegin + "\nx\n" + SectionEnd, wantRes: Unchanged},
		{name: "no markers, add false: kept", in: "---\nalwaysApply: false\n---\nmine\n", want: "---\nalwaysApply: false\n---\nmine\n", wantRes: Kept},
		{name: "markers, add false: replaced", in: "---\nx: 1\n---\n" + SectionBegin + "\nold\n" + SectionEnd + "\n", want: "---\nx: 1\n---\n" + sec + "\n", wantRes: Updated},
		{name: "begin without end", in: "# Rules\n\n" + SectionBegin + "\nrest of the file\n", add: true, wantErr: ":3:1: " + SectionBegin + " has no " + SectionEnd},
		{name: "end before begin", in: SectionEnd + "\n" + SectionBegin + "\n", add: true, wantErr: ":2:1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res, err := MergeSection([]byte(tt.in), sec, tt.add)
			if tt.wantErr != "" {
				var inv *InvalidError
				if !errors.As(err, &inv) || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want an *InvalidError with prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res != tt.wantRes || string(out) != tt.want {
				t.Errorf("got %v:\n%q\nwant %v:\n%q", res, out, tt.wantRes, tt.want)
			}
			again, res, err := MergeSection(out, sec, tt.add)
			if err != nil || (res != Unchanged && res != Kept) || !bytes.Equal(again, out) {
				t.Errorf("second merge: %v, %v, changed %v", res, err, !bytes.Equal(again, out))
			}
		})
	}
}

// TestSectionText checks what the section tells the model: when to
// recall, when to remember, always with the reason, between the markers.
func TestSectionText(t *testing.T) {
	s := Section()
	if !strings.HasPrefix(s, SectionBegin+"\n") || !strings.HasSuffix(s, "\n"+SectionEnd) || strings.Count(s, SectionBegin) != 1 || strings.Count(s, SectionEnd) != 1 {
		t.Fatalf("section is not one marked block:\n%s", s)
	}
	for _, w := range []string{"Before a task", "before choosing", "`recall`", "`remember`", "why", "alternatives rejected", "Chinese"} {
		if !strings.Contains(s, w) {
			t.Errorf("section lacks %q:\n%s", w, s)
		}
	}
	if n := len(s); n > 1200 {
		t.Errorf("section is %d bytes; keep it short, it is in every request", n)
	}
}

// TestPlanRule checks Cursor's rule file: created with front matter that
// always applies it; memvault's section replaced in a file the user
// edited around it; a file without markers, the user's own, left alone.
func TestPlanRule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".cursor", "rules", "memvault.mdc")
	ch, err := PlanRule(path)
	if err != nil || ch.Result != Created {
		t.Fatalf("plan a new rule: %v, %v; want created", ch.Result, err)
	}
	if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	front, body, ok := strings.Cut(strings.TrimPrefix(string(data), "---\n"), "\n---\n")
	if !strings.HasPrefix(string(data), "---\n") || !ok {
		t.Fatalf("no front matter:\n%s", data)
	}
	if !strings.Contains(front, "\nalwaysApply: true") || !strings.HasPrefix(front, "description: ") {
		t.Errorf("front matter = %q, want a description and alwaysApply: true", front)
	}
	if body != Section()+"\n" {
		t.Errorf("body = %q, want the section", body)
	}
	if ch, err := PlanRule(path); err != nil || ch.Result != Unchanged {
		t.Errorf("second plan: %v, %v; want unchanged", ch.Result, err)
	}

	// Edited by the user: front matter changed, a line added after the
	// section, and the section itself edited.
	edited := strings.Replace(string(data), "alwaysApply: true", "alwaysApply: false\nglobs: src/**", 1)
	edited = strings.Replace(edited, "## Project memory", "## Our memory", 1) + "\nAlso: ask Ann.\n"
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err = PlanRule(path)
	if err != nil || ch.Result != Updated {
		t.Fatalf("plan an edited rule: %v, %v; want updated", ch.Result, err)
	}
	if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(edited, "## Our memory", "## Project memory", 1)
	if string(got) != want {
		t.Errorf("rule after update:\n%s\nwant:\n%s", got, want)
	}

	// The user's own rule under memvault's name: not touched.
	own := "---\ndescription: ours\nalwaysApply: true\n---\nCall recall first.\n"
	if err := os.WriteFile(path, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch, err := PlanRule(path); err != nil || ch.Result != Kept {
		t.Fatalf("plan a rule without markers: %v, %v; want kept", ch.Result, err)
	} else if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != own {
		t.Errorf("the user's rule was changed:\n%s", got)
	}
}

// TestWriteSection checks the file side for CLAUDE.md: created, then
// unchanged; a broken section refused with its path and left alone.
func TestWriteSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "CLAUDE.md")
	if res, err := WriteSection(path); err != nil || res != Created {
		t.Fatalf("first write: %v, %v; want created", res, err)
	}
	if res, err := WriteSection(path); err != nil || res != Unchanged {
		t.Errorf("second write: %v, %v; want unchanged", res, err)
	}
	bad := "# Notes\n" + SectionBegin + "\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := WriteSection(path)
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Path != path || inv.Line != 2 {
		t.Fatalf("err = %v, want *InvalidError at %s:2", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("refused file was changed:\n%s", data)
	}
}

// FuzzMergeSection: whatever the file holds, the merge refuses it or
// keeps the text outside the section and is idempotent.
func FuzzMergeSection(f *testing.F) {
	f.Add([]byte(""), true)
	f.Add([]byte("# Rules\n\nUse tabs.\n"), true)
	f.Add([]byte("a\r\nb"+SectionBegin+"\r\nx\r\n"+SectionEnd+"\r\nc"), false)
	f.Add([]byte(SectionEnd+SectionBegin), true)
	// A final CR: the newline appended after it made a CRLF, and the
	// next run rewrote the section with CRLF ends.
	f.Add([]byte("0\r"), true)
	f.Fuzz(func(t *testing.T, data []byte, add bool) {
		sec := Section()
		out, res, err := MergeSection(data, sec, add)
		if err != nil {
			return
		}
		switch res {
		case Unchanged, Kept:
			if !bytes.Equal(out, data) {
				t.Fatalf("%v but rewritten", res)
			}
			return
		case Added:
			if len(bytes.TrimSpace(data)) > 0 && !bytes.HasPrefix(out, data) {
				t.Fatalf("added section lost the text before it")
			}
		case Updated:
			begin := bytes.Index(data, []byte(SectionBegin))
			end := begin + bytes.Index(data[begin:], []byte(SectionEnd)) + len(SectionEnd)
			if !bytes.HasPrefix(out, data[:begin]) || !bytes.HasSuffix(out, data[end:]) {
				t.Fatalf("text around the section changed")
			}
		}
		again, res, err := MergeSection(out, sec, add)
		if err != nil || res != Unchanged || !bytes.Equal(again, out) {
			t.Fatalf("second merge: %v, %v", res, err)
		}
	})
}

// TestWriteSectionThroughLink: a CLAUDE.md that links to AGENTS.md stays
// a link; the section goes into the file it points to.
func TestWriteSectionThroughLink(t *testing.T) {
	dir := t.TempDir()
	agents, claude := filepath.Join(dir, AgentsFile), filepath.Join(dir, "CLAUDE.md")
	if err := os.WriteFile(agents, []byte("# Agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(AgentsFile, claude); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	ch, err := PlanSection(claude)
	if err != nil || ch.Result != Added {
		t.Fatalf("plan: %v, %v; want added", ch.Result, err)
	}
	if want, _ := filepath.EvalSymlinks(agents); ch.Target != want {
		t.Errorf("target = %s, want %s", ch.Target, want)
	}
	if err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(claude); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v, %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(agents); !strings.Contains(string(data), Section()) || !strings.HasPrefix(string(data), "# Agents\n") {
		t.Errorf("AGENTS.md:\n%s", data)
	}
}
