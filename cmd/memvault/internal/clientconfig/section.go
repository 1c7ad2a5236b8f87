package clientconfig

import (
	"bytes"
	"strings"
)

// The markers around memvault's section of an instructions file. HTML
// comments: Markdown renderers hide them, and the models read them.
const (
	SectionBegin = "<!-- memvault:begin -->"
	SectionEnd   = "<!-- memvault:end -->"
)

// AgentsFile is the instructions file other agents read (Codex, Cursor,
// and more). init adds memvault's section to it where it exists.
const AgentsFile = "AGENTS.md"

// Section is memvault's section of an assistant's instructions, markers
// included, without a final newline. The one sentence that raises how
// often a model calls a memory tool is the one telling it when: before a
// task and before a choice for recall, after a decision for remember,
// always with the reason.
func Section() string {
	return SectionBegin + `
## Project memory (memvault)

This project keeps its decisions, rules and conventions in ` + "`.memory/`" + `, served by the memvault MCP server.

- Before a task, and before choosing between approaches, search the memory with the ` + "`recall`" + ` tool (keywords in English or Chinese) and follow the memories in force; ` + "`get_memory`" + ` gives a memory's whole text.
- When a durable decision is made (a rule, a convention, a choice between options), record it with ` + "`remember`" + `: what was decided, why, and the alternatives rejected with the reason for each.
- When a memory is wrong or out of date, update it (` + "`update_memory`" + `, or ` + "`remember`" + ` with ` + "`supersedes`" + `) rather than work around it.

memvault init writes this section and replaces it when run again; write your own text outside the markers.
` + SectionEnd
}

// RuleFile is the content of Cursor's project rule for memvault when
// init creates it: front matter that applies it to every request, then
// Section.
func RuleFile() string {
	return `---
description: Project memory (memvault) - recall before a task or a choice, remember decisions with their reason
alwaysApply: true
---
` + Section() + "\n"
}

// WriteSection puts Section into the instructions file at path, as
// MergeSection does, creating the file when missing.
func WriteSection(path string) (Result, error) {
	ch, err := PlanSection(path)
	if err != nil {
		return 0, err
	}
	return ch.Result, ch.Apply()
}

// PlanSection computes what WriteSection would write, without writing.
func PlanSection(path string) (Change, error) {
	return plan(path, func(data []byte) ([]byte, Result, error) { return MergeSection(data, Section(), true) })
}

// PlanRule computes what init writes in Cursor's rule file at path:
// RuleFile when the file is missing; in a file that has memvault's
// markers, Section in their place, as in any instructions file (the
// user's front matter and text around the markers kept). A file without
// the markers is the user's own rule, and is Kept as it is.
func PlanRule(path string) (Change, error) {
	return plan(path, func(data []byte) ([]byte, Result, error) {
		if len(bytes.TrimSpace(data)) == 0 {
			return []byte(RuleFile()), Added, nil
		}
		return MergeSection(data, Section(), false)
	})
}

// MergeSection returns data, a Markdown file's content (empty for a new
// file), with section (markers included) in place of the text from
// SectionBegin to SectionEnd: a section edited by hand is replaced, and
// the text around it is never touched. A file without the markers gets
// section at its end after a blank line when add is true, and is returned
// as it is with Kept when add is false. A file with CRLF line ends gets
// them in the section too. When nothing changes it returns data itself.
// A begin marker without an end after it is an *InvalidError: replacing
// to the end of the file could remove the user's text.
func MergeSection(data []byte, section string, add bool) ([]byte, Result, error) {
	// CRLF where the file has it, or where appending a newline to a
	// final CR would make one: the next run must see the same ends.
	nl := "\n"
	begin := bytes.Index(data, []byte(SectionBegin))
	if bytes.Contains(data, []byte("\r\n")) || begin < 0 && add && bytes.HasSuffix(data, []byte("\r")) {
		nl = "\r\n"
		section = strings.ReplaceAll(section, "\n", nl)
	}
	if begin < 0 {
		if !add {
			return data, Kept, nil
		}
		var out bytes.Buffer
		if len(bytes.TrimSpace(data)) > 0 {
			out.Write(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				out.WriteString(nl)
			}
			if !bytes.HasSuffix(out.Bytes(), []byte(nl+nl)) {
				out.WriteString(nl)
			}
		}
		out.WriteString(section + nl)
		return out.Bytes(), Added, nil
	}
	end := bytes.Index(data[begin:], []byte(SectionEnd))
	if end < 0 {
		line, col := lineColumn(data, int64(begin))
		return nil, 0, &InvalidError{Line: line, Column: col, Msg: SectionBegin + " has no " + SectionEnd + " after it"}
	}
	end += begin + len(SectionEnd)
	if string(data[begin:end]) == section {
		return data, Unchanged, nil
	}
	out := make([]byte, 0, len(data)-(end-begin)+len(section))
	out = append(out, data[:begin]...)
	out = append(out, section...)
	out = append(out, data[end:]...)
	return out, Updated, nil
}
