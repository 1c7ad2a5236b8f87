// Package docscheck finds the links in the project's Markdown that lead
// nowhere: a relative link to a file that does not exist, or an #anchor
// naming no heading of the Markdown file it points into (headings are
// slugged as GitHub slugs them). Its test runs it over README.md and
// docs/*.md, so a renamed section or a moved file fails CI with the file,
// the line and the link.
package docscheck
