// Package reviewtext renders a vault review (vault/review) for people:
// plain text for the terminal and Markdown to paste into an issue or a
// pull request. Both group the entries by what to do about them, most
// urgent first, each section saying what to do, and keep long sections
// short (the JSON lists everything).
package reviewtext
