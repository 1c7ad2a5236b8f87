package clitext

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/transfer"
)

// Import reports an import from src: with list, every memory imported;
// notes and what was skipped; then a summary line.
func Import(w io.Writer, rep transfer.Report, src *transfer.Source, list bool) {
	verb := "imported"
	if rep.DryRun {
		verb = "would import"
	}
	if list {
		for _, im := range rep.Imported {
			fmt.Fprintf(w, "%s %s -> %s (%s) %q\n", verb, im.Pos, im.Memory.Path, im.Memory.Layer, im.Memory.Title)
		}
	}
	for _, im := range rep.Imported {
		for _, n := range im.Notes {
			fmt.Fprintf(w, "note %s: %s\n", im.Pos, n)
		}
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s\n", p)
	}
	summary := fmt.Sprintf("%s %s from %s (%s", verb, CountMemories(len(rep.Imported)), src.Name, src.Format)
	if len(rep.Skipped) > 0 {
		summary += fmt.Sprintf(", %d skipped", len(rep.Skipped))
	}
	summary += ")"
	switch {
	case rep.DryRun:
		summary += "; dry run, nothing written"
	case rep.Commit != "":
		summary += " in commit " + history.ShortHash(rep.Commit)
	}
	fmt.Fprintln(w, summary)
}

// CountMemories is "1 memory" or "n memories".
func CountMemories(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}

// Progress draws "label [=====>    ] 450/1000" on a terminal, at most
// every 100 ms; on anything else (a pipe, a file, a test buffer) it draws
// nothing. Hand-rolled: a dozen lines do not justify a dependency.
type Progress struct {
	w     io.Writer
	label string
	on    bool
	now   func() time.Time // wall clock for the redraw throttle
	last  time.Time
	drawn bool
}

// NewProgress returns the bar for w, drawn only when w is a terminal.
func NewProgress(w io.Writer, label string) *Progress {
	f, ok := w.(*os.File)
	return &Progress{w: w, label: label, on: ok && term.IsTerminal(int(f.Fd())), now: time.Now}
}

// Set draws done of total.
func (b *Progress) Set(done, total int) {
	if !b.on || total == 0 {
		return
	}
	now := b.now()
	if done < total && now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	const width = 30
	fill := width * done / total
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	fmt.Fprintf(b.w, "\r%s [%s] %d/%d", b.label, bar, done, total)
	b.drawn = true
}

// Done clears the bar's line.
func (b *Progress) Done() {
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
