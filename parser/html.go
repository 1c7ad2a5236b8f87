package parser

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// htmlMarkdown renders memory bodies for the web view. A memory file is
// untrusted input, so raw HTML is never passed through (goldmark leaves a
// comment in its place without html.WithUnsafe) and links whose scheme can
// run code (javascript:, vbscript:, data: other than images) lose their
// href. Wiki links stay as written ("[[name]]"); the page lists what they
// resolve to. Built at the first render: only the web view renders.
var htmlMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList),
		goldmark.WithRendererOptions(html.WithXHTML()),
	)
})

// HTML renders a memory body (Markdown, without front matter) as an HTML
// fragment safe to embed in a page: raw HTML is dropped and dangerous
// link schemes are removed. Bodies over the parser's bounds are cut and
// wrapped as Parse does, so a hostile body cannot make rendering slow.
func HTML(body []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := htmlMarkdown().Convert(markdownSource(body), &out); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return out.Bytes(), nil
}
