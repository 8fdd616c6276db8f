package setup

import (
	"bytes"
	"fmt"
)

// The instruction section is delimited by these markers so that a later run
// finds and replaces it, and leaves the rest of the file alone.
const (
	beginMarker = "<!-- ctx:begin"
	endMarker   = "<!-- ctx:end -->"
)

// section is the instruction text setup keeps in each client's instruction
// file: when to reach for ctx's MCP tools instead of grep, and when not to.
const section = beginMarker + ` (written by ctx setup; edits inside this block are replaced on the next run) -->
## Code search with ctx

This repository is indexed by ctx, which is connected as the MCP server ` + "`ctx`" + `.

- For a question about the code in plain language ("where is auth handled", "how are retries configured") or about a symbol, call ` + "`codebase_retrieval`" + ` first, before grepping or reading whole files. It returns the files and line ranges that answer the question; read those ranges.
- For a named symbol, ` + "`get_symbol_definition`" + ` finds where it is defined, ` + "`find_references`" + ` where it is used, and ` + "`symbol_graph`" + ` its callers, callees and imports.
- If results look wrong, stale or empty, call ` + "`index_status`" + `: it says whether the index is fresh and what to run.
- Use grep for exact string literals (error messages, log lines, config keys) and when you need every occurrence.
- Without the MCP tools, the same search runs in a shell: ` + "`ctx find \"QUESTION\" --json`" + `.
` + endMarker + "\n"

// mergeSection returns doc with its ctx section replaced by section, or
// with the section appended after a blank line when it has none. A new (or
// empty) file starts with head. The rest of doc is left as it was, so a
// second run returns doc unchanged.
func mergeSection(doc []byte, head string) ([]byte, error) {
	nl := eol(doc)
	text := withEOL(section, nl)
	b := bytes.Index(doc, []byte(beginMarker))
	if b < 0 {
		if len(bytes.TrimSpace(doc)) == 0 {
			return []byte(withEOL(head, nl) + text), nil
		}
		return appendBlock(doc, section), nil
	}
	e := bytes.Index(doc[b:], []byte(endMarker))
	if e < 0 {
		line, _ := lineCol(doc, b)
		return nil, fmt.Errorf("the ctx section that begins at line %d has no %s; remove the section or add the marker", line, endMarker)
	}
	e += b + len(endMarker)
	// The section owns the end marker's line ending.
	switch {
	case bytes.HasPrefix(doc[e:], []byte("\r\n")):
		e += 2
	case bytes.HasPrefix(doc[e:], []byte("\n")):
		e++
	}
	if bytes.Contains(doc[e:], []byte(beginMarker)) {
		return nil, fmt.Errorf("it has more than one ctx section; keep one")
	}
	return splice(doc, b, e, text), nil
}
