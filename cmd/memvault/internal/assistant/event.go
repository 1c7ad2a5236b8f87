package assistant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Event is what Claude Code writes on a hook's standard input. Fields an
// event does not have stay empty.
type Event struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Prompt is the user's prompt (UserPromptSubmit).
	Prompt string `json:"prompt"`
	// Source is how the session started (SessionStart): startup,
	// resume, clear or compact.
	Source string `json:"source"`
	// StopHookActive is set when the session goes on because a Stop hook
	// blocked it already (Stop).
	StopHookActive bool `json:"stop_hook_active"`
}

// maxEvent bounds what ReadEvent reads: a prompt is at most a few hundred
// KiB even when a file is pasted into it.
const maxEvent = 8 << 20

// ReadEvent decodes the hook's input. Empty input is an empty event, so a
// hook run by hand does nothing harmful.
func ReadEvent(r io.Reader) (Event, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxEvent+1))
	if err != nil {
		return Event{}, fmt.Errorf("read the hook's input: %w", err)
	}
	if len(data) > maxEvent {
		return Event{}, fmt.Errorf("the hook's input is over %d MiB", maxEvent>>20)
	}
	var e Event
	if len(data) == 0 {
		return e, nil
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return Event{}, fmt.Errorf("the hook's input is not Claude Code's hook JSON: %w", err)
	}
	return e, nil
}

// The hook events' names in Claude Code's output.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
)

// contextOutput is what a hook prints to add context.
type contextOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// ReadContext reads what WriteContext wrote for event: the text, "" for
// no output at all, or an error for output that is not that.
func ReadContext(data []byte, event string) (string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", nil
	}
	var out contextOutput
	if err := json.Unmarshal(data, &out); err != nil || out.HookSpecificOutput.HookEventName != event {
		return "", fmt.Errorf("not Claude Code's %s hook output: %q", event, data)
	}
	return out.HookSpecificOutput.AdditionalContext, nil
}

// WriteContext writes text as the context Claude Code adds for event
// (hookSpecificOutput.additionalContext); nothing at all for empty text,
// so that nothing reaches the model.
func WriteContext(w io.Writer, event, text string) error {
	if text == "" {
		return nil
	}
	var out contextOutput
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	return json.NewEncoder(w).Encode(out)
}

// WriteBlock writes a Stop hook's decision to keep the session going,
// with the reason the model reads.
func WriteBlock(w io.Writer, reason string) error {
	return json.NewEncoder(w).Encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason})
}
