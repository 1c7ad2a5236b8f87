package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/assistant"
	"github.com/memvault/memvault/cmd/memvault/internal/evalrun"
)

func (m *Main) evalCommand() *cobra.Command {
	var k int
	var asJSON, verbose, hook bool
	cmd := &cobra.Command{
		Use:   "eval CORPUS.json",
		Short: "Measure recall quality on a labelled corpus",
		Long: `eval loads the corpus's memories into a temporary vault through the normal
write path, runs every query through recall, and prints Recall@1, Recall@k and
MRR@10 overall, per query kind and per language. A query counts as found at
rank r when any of its gold memories is at rank r. strong_recall@1 and
strong_recall@5 count a gold memory only when recall marks it a strong
match. Overall and per-language figures cover the answerable queries; the
queries no memory answers (kind none, no gold) are reported apart, as the
share that got no strong result (abstain).

With --hook, each query is sent instead to the UserPromptSubmit hook
(memvault hook user-prompt-submit), run as Claude Code runs it: a process of
this binary with the event as JSON on stdin. eval reports how often the
injected text names a gold memory (answer injected), how often a question no
memory answers gets no injection at all (nothing injected), and the median
and largest injection in characters.`,
		Example: `  memvault eval ../shared/eval/dev-v1.json
  memvault eval ../shared/eval/dev-v1.json --json
  memvault eval ../shared/eval/dev-v2.json --hook`,
		Args: exactArgs(1, "CORPUS.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if k < 1 || k > 10 {
				return usagef("--k: %d is outside 1..10", k)
			}
			c, err := evalrun.ReadCorpus(args[0])
			if err != nil {
				return usageError{err}
			}
			misses := m.Stderr
			if !verbose {
				misses = nil
			}
			var rep interface {
				JSON() map[string]any
				Print(io.Writer)
			}
			if hook {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find this binary to run its hook: %w", err)
				}
				rep, err = evalrun.RunHook(cmd.Context(), c, m.Now, promptHook(exe), misses)
				if err != nil {
					return err
				}
			} else if rep, err = evalrun.Run(cmd.Context(), c, k, m.Now, misses); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, rep.JSON())
			}
			rep.Print(m.Stdout)
			return nil
		},
	}
	cmd.Flags().IntVar(&k, "k", 5, "the k of Recall@k")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&hook, "hook", false, "measure what the UserPromptSubmit hook injects, run as Claude Code runs it")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list the queries whose gold memory is not ranked first (on stderr)")
	return cmd
}

// promptHook runs the binary exe's UserPromptSubmit hook as Claude Code
// does: a process in the project's folder, the event as JSON on stdin,
// the injection as JSON on stdout.
func promptHook(exe string) evalrun.Hook {
	return func(ctx context.Context, dir, prompt string) (string, error) {
		event, err := json.Marshal(map[string]any{"session_id": "eval", "hook_event_name": assistant.UserPromptSubmit, "cwd": dir, "prompt": prompt})
		if err != nil {
			return "", err
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, exe, "--vault", dir, "hook", "user-prompt-submit", "--no-user-vault")
		cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, bytes.NewReader(event), &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("the hook failed: %w: %s", err, stderr.Bytes())
		}
		if stderr.Len() > 0 {
			return "", fmt.Errorf("the hook wrote on stderr: %s", stderr.Bytes())
		}
		return assistant.ReadContext(stdout.Bytes(), assistant.UserPromptSubmit)
	}
}
