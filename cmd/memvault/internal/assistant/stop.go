package assistant

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
)

// StopReason is what a blocked Stop tells the model; its first words also
// mark, in the transcript, that this session was asked once already.
const StopReason = "memvault: this session changed code and recorded no memory. " +
	"If it made a durable decision (a convention, an interface, a library chosen or dropped, a command that works), " +
	"record each with the remember tool: what was decided, why, and the alternatives rejected. " +
	"If nothing is worth keeping beyond this session, stop without recording anything."

// stopMark finds StopReason in a transcript.
const stopMark = "memvault: this session changed code and recorded no memory"

// Session is what a transcript shows of the session, for the Stop rule.
type Transcript struct {
	// ChangedCode is set when the session edited files or committed.
	ChangedCode bool
	// WroteMemory is set when it wrote a memory (memvault's remember or
	// update_memory tools, or memvault add/update in a shell).
	WroteMemory bool
	// Asked is set when a Stop hook already asked for a memory.
	Asked bool
}

// editTools are Claude Code's tools that change files.
var editTools = map[string]bool{"Edit": true, "MultiEdit": true, "Write": true, "NotebookEdit": true}

// shellCommit and shellMemory find a commit or a memvault write in a
// shell command; compiled at first use, as only the Stop hook reads them.
var (
	shellCommit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgit\s+(?:-\S+\s+)*(?:commit|merge|rebase|cherry-pick|am|apply)\b`)
	})
	shellMemory = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bmemvault\s+(?:--\S+\s+)*(?:add|update)\b`) })
)

// memoryTool reports whether an MCP tool name is memvault's remember or
// update_memory, under whatever server name the client gave it
// (mcp__memvault__remember, mcp__plugin_memvault_memvault__remember).
func memoryTool(name string) bool {
	if !strings.HasPrefix(name, "mcp__") || !strings.Contains(name, "memvault") {
		return false
	}
	return strings.HasSuffix(name, "__remember") || strings.HasSuffix(name, "__update_memory")
}

// maxTranscriptLine bounds one transcript line: a tool result can hold a
// large file.
const maxTranscriptLine = 64 << 20

// ReadTranscript reads a Claude Code session transcript (JSON lines) and
// says what the session did. Lines it cannot read are skipped: the format
// is Claude Code's and may grow.
func ReadTranscript(path string) (Transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return Transcript{}, fmt.Errorf("read the transcript: %w", err)
	}
	defer f.Close()
	return scanTranscript(f)
}

func scanTranscript(r io.Reader) (Transcript, error) {
	var t Transcript
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscriptLine)
	for sc.Scan() {
		line := sc.Bytes()
		if !t.Asked && strings.Contains(string(line), stopMark) {
			t.Asked = true
		}
		var entry struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &entry) != nil || entry.Type != "assistant" {
			continue
		}
		var blocks []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Input struct {
				Command string `json:"command"`
			} `json:"input"`
		}
		if json.Unmarshal(entry.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_use" {
				continue
			}
			switch {
			case editTools[b.Name]:
				t.ChangedCode = true
			case memoryTool(b.Name):
				t.WroteMemory = true
			case b.Name == "Bash":
				if shellMemory().MatchString(b.Input.Command) {
					t.WroteMemory = true
				} else if shellCommit().MatchString(b.Input.Command) {
					t.ChangedCode = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("read the transcript: %w", err)
	}
	return t, nil
}

// ShouldBlock is the Stop rule: ask once for the session's decisions when
// it changed code and wrote no memory; never when a Stop hook already
// keeps the session going (stop_hook_active) or asked before.
func ShouldBlock(e Event, t Transcript) bool {
	return !e.StopHookActive && !t.Asked && t.ChangedCode && !t.WroteMemory
}
