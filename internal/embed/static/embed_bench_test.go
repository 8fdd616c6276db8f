package static

// Benchmarks of static embedding inference on a synthetic model of 30,000
// tokens × 256 dims (float32 and int8) built in memory; no files needed.
//
//	go test -run='^$' -bench=BenchmarkEmbed -benchmem ./internal/embed/static
//
// "chunks" embeds batches of ~1 KB Go-like code chunks and reports
// chunks/s; "query" embeds one 8-word query per op, so ns/op is the query
// latency.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/embed"
)

// benchWords are common code words, given whole-word tokens.
var benchWords = strings.Fields(`func return if else for range var const type struct interface
	map string int error nil err ctx context package import defer go chan select case
	switch default break continue true false len append make new copy delete close
	server client request response handler http path file read write open config
	index search query token vector model embed chunk store db sql row rows scan
	value key name id count size buf bytes data result results list item items
	parse format print log debug info warn test bench fuzz want got diff the a to
	of and in is it that this with as on by from at be not or are was we can`)

// benchModel builds a 30k-token, 256-dim BERT-style model: the special
// tokens, benchWords, single letters and digits with their "##" forms (so
// any word of letters and digits is covered), then random 2–6 letter
// pieces, half of them continuations.
func benchModel(b *testing.B, int8s bool) *Model {
	const rows, dims = 30000, 256
	r := rand.New(rand.NewPCG(1, 2))
	vocab := map[string]int{}
	add := func(s string) {
		if _, ok := vocab[s]; !ok && len(vocab) < rows {
			vocab[s] = len(vocab)
		}
	}
	for _, s := range defaultSpecial {
		add(s)
	}
	add("[UNK]")
	for _, w := range benchWords {
		add(w)
	}
	for c := range "abcdefghijklmnopqrstuvwxyz0123456789" {
		s := string("abcdefghijklmnopqrstuvwxyz0123456789"[c])
		add(s)
		add("##" + s)
	}
	for _, p := range `.,;:()[]{}<>=!&|*+-/"'_%#@$^~?` + "`" {
		add(string(p))
	}
	for len(vocab) < rows {
		n := 2 + r.IntN(5)
		var sb strings.Builder
		if r.IntN(2) == 0 {
			sb.WriteString("##")
		}
		for range n {
			sb.WriteByte(byte('a' + r.IntN(26)))
		}
		add(sb.String())
	}
	tok, err := NewWordPiece(vocab, TokenizerOptions{
		Lowercase: true, StripAccents: true, CleanText: true, ChineseChars: true,
		Pre: BertPre, Unk: "[UNK]", Special: defaultSpecial,
	})
	if err != nil {
		b.Fatal(err)
	}
	m := Matrix{Rows: rows, Dims: dims}
	if int8s {
		m.I8 = make([]int8, rows*dims)
		m.Scale = make([]float32, rows)
		for i := range m.I8 {
			m.I8[i] = int8(r.IntN(256) - 128)
		}
		for i := range m.Scale {
			m.Scale[i] = r.Float32() / 127
		}
	} else {
		m.F32 = make([]float32, rows*dims)
		for i := range m.F32 {
			m.F32[i] = float32(r.NormFloat64())
		}
	}
	w := make([]float32, rows)
	for i := range w {
		w[i] = r.Float32()
	}
	md, err := NewModel("bench", tok, m, &Options{Weights: w})
	if err != nil {
		b.Fatal(err)
	}
	return md
}

// benchChunks returns n Go-like code chunks of about 1 KB with random
// camelCase identifiers.
func benchChunks(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	ident := func() string {
		var sb strings.Builder
		for i := range 1 + r.IntN(3) {
			w := benchWords[r.IntN(len(benchWords))]
			if i > 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			sb.WriteString(w)
		}
		return sb.String()
	}
	out := make([]string, n)
	for i := range out {
		var sb strings.Builder
		fmt.Fprintf(&sb, "// %s %s the %s of %s.\nfunc (s *%s) %s(ctx context.Context, %s string) (%s, error) {\n",
			ident(), ident(), ident(), ident(), ident(), ident(), ident(), ident())
		for sb.Len() < 1000 {
			switch r.IntN(4) {
			case 0:
				fmt.Fprintf(&sb, "\t%s, err := s.%s.%s(ctx, %s)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %%s: %%w\", %s, err)\n\t}\n",
					ident(), ident(), ident(), ident(), ident(), ident())
			case 1:
				fmt.Fprintf(&sb, "\tfor _, %s := range %s {\n\t\t%s = append(%s, %s[%d])\n\t}\n",
					ident(), ident(), ident(), ident(), ident(), r.IntN(100))
			case 2:
				fmt.Fprintf(&sb, "\t// %s %s %s %s.\n", ident(), ident(), ident(), ident())
			default:
				fmt.Fprintf(&sb, "\t%s := %s.%s{%s: %d, %s: %q}\n", ident(), ident(), ident(), ident(), r.IntN(1000), ident(), ident())
			}
		}
		sb.WriteString("\treturn nil, nil\n}\n")
		out[i] = sb.String()
	}
	return out
}

func BenchmarkEmbed(b *testing.B) {
	chunks := benchChunks(256)
	var bytes int
	for _, c := range chunks {
		bytes += len(c)
	}
	const query = "where does the server parse the request config"
	for _, int8s := range []bool{false, true} {
		dtype := "f32"
		if int8s {
			dtype = "i8"
		}
		m := benchModel(b, int8s)
		p := New(m, "")
		b.Run(fmt.Sprintf("dtype=%s/chunks=%d", dtype, len(chunks)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Embed(b.Context(), chunks, embed.Document); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(chunks)*b.N)/b.Elapsed().Seconds(), "chunks/s")
			b.ReportMetric(float64(bytes)/float64(len(chunks)), "bytes/chunk")
		})
		b.Run(fmt.Sprintf("dtype=%s/query", dtype), func(b *testing.B) {
			b.ReportAllocs()
			q := []string{query}
			for b.Loop() {
				if _, err := p.Embed(b.Context(), q, embed.Query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
