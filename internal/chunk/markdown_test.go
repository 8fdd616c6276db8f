package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	src := []byte(`---
title: ctx
---
Intro before any heading.

# ctx ##

A context engine.

## Install

    # not a heading: indented code

` + "```sh" + `
# not a heading: fenced
go install ./cmd/ctx
` + "```" + `

Usage
-----

Run it.

### Flags
#### --json
Prints JSON.

Design
======

Text.
- item
---
`)
	cs := chunkOK(t, New(nil), discover.LangMarkdown, src)
	want := []brief{
		{Kind: KindSection, Start: 1, End: 4}, // front matter and intro
		{Kind: KindSection, Symbol: "ctx", Name: "ctx", Start: 6, End: 8},
		{Kind: KindSection, Symbol: "Install", Name: "Install", Crumb: "ctx", Start: 10, End: 17},
		{Kind: KindSection, Symbol: "Usage", Name: "Usage", Crumb: "ctx", Start: 19, End: 22},
		{Kind: KindSection, Symbol: "Flags", Name: "Flags", Crumb: "ctx > Usage", Start: 24, End: 24},
		{Kind: KindSection, Symbol: "--json", Name: "--json", Crumb: "ctx > Usage > Flags", Start: 25, End: 26},
		// "---" after a list item is a thematic break, not a heading.
		{Kind: KindSection, Symbol: "Design", Name: "Design", Start: 28, End: 33},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s\n%s", diff, dumpChunks(cs))
	}
	if got := cs[3].Signature; got != "Usage -----" {
		t.Errorf("setext signature = %q", got)
	}
	if got := cs[1].Signature; got != "# ctx ##" {
		t.Errorf("ATX signature = %q", got)
	}
}

func TestMarkdownLongSection(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Top\n\n## Long\n")
	for i := range 200 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	b.WriteString("## After\nend\n")
	src := []byte(b.String())
	cs := chunkOK(t, New(nil), discover.LangMarkdown, src)
	want := []brief{
		{Kind: KindSection, Symbol: "Top", Name: "Top", Start: 1, End: 1},
		{Kind: KindSection, Symbol: "Long", Name: "Long", Crumb: "Top", Start: 3, End: 62, Part: 1},
		{Kind: KindSection, Symbol: "Long", Name: "Long", Crumb: "Top", Start: 63, End: 122, Part: 2},
		{Kind: KindSection, Symbol: "Long", Name: "Long", Crumb: "Top", Start: 123, End: 182, Part: 3},
		{Kind: KindSection, Symbol: "Long", Name: "Long", Crumb: "Top", Start: 183, End: 203, Part: 4},
		{Kind: KindSection, Symbol: "After", Name: "After", Crumb: "Top", Start: 204, End: 205},
	}
	if diff := cmp.Diff(want, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMarkdownNoHeadings(t *testing.T) {
	t.Parallel()
	cs := chunkOK(t, New(nil), discover.LangMarkdown, []byte("just\ntext\n"))
	if diff := cmp.Diff([]brief{{Kind: KindSection, Start: 1, End: 2}}, briefs(cs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
