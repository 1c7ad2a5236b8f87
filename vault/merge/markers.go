package merge

import "bytes"

// MarkerLine returns the 1-based line of the first git conflict marker in
// data, 0 when there is none. Markers are lines that start with seven '<',
// '>' or '|' followed by a space or the end of the line. The "======="
// between them is not looked for: it comes after an opening marker, which
// is reported first, and alone it underlines a Markdown heading. Markers
// count anywhere in the file, fenced code included: a memory holding them
// is a merge left half done, or a hazard for the next one.
func MarkerLine(data []byte) int {
	if !bytes.Contains(data, []byte("<<<<<<<")) && !bytes.Contains(data, []byte(">>>>>>>")) &&
		!bytes.Contains(data, []byte("|||||||")) {
		return 0 // the common case, at memchr speed
	}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if marker(line, '<') || marker(line, '>') || marker(line, '|') {
			return n
		}
	}
	return 0
}

// marker reports whether line is seven c's followed by a space or nothing.
func marker(line []byte, c byte) bool {
	if len(line) < 7 {
		return false
	}
	for _, b := range line[:7] {
		if b != c {
			return false
		}
	}
	return len(line) == 7 || line[7] == ' '
}
