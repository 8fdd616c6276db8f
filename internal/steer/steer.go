// Package steer holds what ctx asks a language model and how it reads the
// replies: splitting a complex question into sub-queries, one-line
// summaries of results, and answers grounded in a pack of code excerpts.
// It builds prompts and parses text; it sends nothing itself (the engine
// sends what it builds through an llm.Client, after spend checks and
// secret masking).
//
// Every prompt carries a version ([PromptVersion]) that is part of the
// summary cache key, so changing a prompt never serves summaries written
// for the old one.
package steer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctx-dev/ctx/internal/analyze"
)

// PromptVersion changes whenever a prompt's wording changes.
//
//	1: first version.
const PromptVersion = 1

// MaxSubQueries is the most sub-queries a question is split into: each is
// a search, and past three the fused list drifts from the question.
const MaxSubQueries = 3

// minComplexWords is the fewest words a natural-language question needs
// before it is worth an LLM round trip (about 0.3-1 s) to split it:
// shorter questions name one thing, which the search already handles.
const minComplexWords = 8

// Complex reports whether a query is worth splitting into sub-queries: a
// natural-language question of [minComplexWords] words or more, or an
// issue-sized text. Symbol and path lookups never are.
func Complex(q *analyze.Query) bool {
	switch q.Kind {
	case analyze.QueryLong:
		return true
	case analyze.QueryNatural:
		return q.Words >= minComplexWords
	}
	return false
}

// DecomposePrompt returns the system and user prompts that ask for up to
// [MaxSubQueries] search queries answering question.
func DecomposePrompt(question string) (system, user string) {
	system = `You turn a developer's question about a code repository into short search queries for a code search engine.
Each query names one concrete thing to look for: a behaviour, a component, an identifier or an error message, in the words code would use.
Reply with a JSON object only: {"queries": ["...", "..."]}, at most ` + fmt.Sprint(MaxSubQueries) + ` queries of 2 to 10 words each. If the question already names one thing, reply with one query.`
	user = "Question:\n" + question
	return system, user
}

// ParseSubQueries reads the model's reply to [DecomposePrompt]: a JSON
// object {"queries": [...]}, a bare JSON array, or (from a model that
// ignored the format) one query per line. Empty, duplicate and
// over-long (over 200 bytes) entries are dropped, and at most
// [MaxSubQueries] are kept. Errors: a reply with no usable query.
func ParseSubQueries(reply string) ([]string, error) {
	body := jsonBody(reply)
	var raw []string
	var obj struct {
		Queries []string `json:"queries"`
	}
	switch {
	case json.Unmarshal([]byte(body), &obj) == nil && len(obj.Queries) > 0:
		raw = obj.Queries
	case json.Unmarshal([]byte(body), &raw) == nil:
	default:
		for _, l := range strings.Split(reply, "\n") {
			l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*0123456789.)"))
			l = strings.Trim(l, "\"`")
			if l != "" && !strings.HasPrefix(l, "{") && !strings.HasPrefix(l, "```") {
				raw = append(raw, l)
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, q := range raw {
		q = strings.Join(strings.Fields(q), " ")
		k := strings.ToLower(q)
		if q == "" || len(q) > 200 || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, q)
		if len(out) == MaxSubQueries {
			break
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the model's reply held no search query")
	}
	return out, nil
}

// Excerpt is a piece of code shown to the model: Path relative to the
// root, lines 1-based and inclusive.
type Excerpt struct {
	Path      string
	StartLine int
	EndLine   int
	Language  string
	Symbol    string
	Code      string
}

// Format renders an excerpt as the prompts show it: a heading with the
// citation form the model is asked to use, then the code fenced. Token
// budgets count this text.
func (x Excerpt) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s:L%d-L%d", x.Path, x.StartLine, x.EndLine)
	if x.Symbol != "" {
		b.WriteString(" (" + x.Symbol + ")")
	}
	fence := "```"
	for strings.Contains(x.Code, fence) {
		fence += "`"
	}
	b.WriteString("\n" + fence + x.Language + "\n" + strings.TrimRight(x.Code, "\n") + "\n" + fence + "\n")
	return b.String()
}

// AnswerPrompt returns the prompts that ask the model to answer question
// from the excerpts alone, citing them.
func AnswerPrompt(question string, excerpts []Excerpt) (system, user string) {
	system = `You answer questions about a code repository using only the code excerpts provided.
Cite the code behind every claim as path:Lstart-Lend, using the paths and line numbers shown in the excerpt headings (a narrower range inside an excerpt is fine).
Never cite a file or lines that are not in the excerpts. If the excerpts do not answer the question, say so plainly and say what to search for instead.
Be concise: a short paragraph or a few bullet points.`
	var b strings.Builder
	b.WriteString("Code excerpts:\n\n")
	for _, x := range excerpts {
		b.WriteString(x.Format())
		b.WriteString("\n")
	}
	b.WriteString("Question: " + question)
	return system, b.String()
}

// SummaryPrompt returns the prompts that ask for one line per excerpt
// saying what the code does.
func SummaryPrompt(excerpts []Excerpt) (system, user string) {
	system = `You summarise code for a developer scanning search results.
For each numbered excerpt write one line of at most 20 words saying what the code does (not how), without repeating its name or path.
Reply with a JSON object only: {"summaries": ["...", ...]}, one string per excerpt, in order.`
	var b strings.Builder
	for i, x := range excerpts {
		fmt.Fprintf(&b, "Excerpt %d:\n%s\n", i+1, x.Format())
	}
	return system, b.String()
}

// maxSummaryBytes bounds one summary line.
const maxSummaryBytes = 300

// ParseSummaries reads the reply to [SummaryPrompt] for n excerpts: a
// JSON object {"summaries": [...]} or a bare array. Each line is cut to
// one line of at most 300 bytes. Errors: a reply that is not such JSON or
// holds another number of summaries than n.
func ParseSummaries(reply string, n int) ([]string, error) {
	body := jsonBody(reply)
	var obj struct {
		Summaries []string `json:"summaries"`
	}
	var list []string
	switch {
	case json.Unmarshal([]byte(body), &obj) == nil && obj.Summaries != nil:
		list = obj.Summaries
	case json.Unmarshal([]byte(body), &list) == nil:
	default:
		return nil, errors.New("the model's summaries are not the JSON asked for")
	}
	if len(list) != n {
		return nil, fmt.Errorf("the model wrote %d summaries for %d results", len(list), n)
	}
	for i, s := range list {
		s = strings.Join(strings.Fields(s), " ")
		if len(s) > maxSummaryBytes {
			s = s[:maxSummaryBytes]
			for !utf8.ValidString(s) {
				s = s[:len(s)-1]
			}
			s += "…"
		}
		list[i] = s
	}
	return list, nil
}

// jsonBody returns the JSON inside a reply that wrapped it in a Markdown
// fence or in prose: from the first { or [ to the last } or ].
func jsonBody(reply string) string {
	s := strings.TrimSpace(reply)
	i := strings.IndexAny(s, "{[")
	j := strings.LastIndexAny(s, "}]")
	if i < 0 || j < i {
		return s
	}
	return s[i : j+1]
}
