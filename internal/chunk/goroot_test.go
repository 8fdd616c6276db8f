package chunk

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/internal/discover"
)

// gorootFile reads a file of the Go distribution's source, skipping the
// test when the source is not installed.
func gorootFile(t testing.TB, rel string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(rel)))
	if err != nil {
		t.Skipf("GOROOT source missing: %v", err)
	}
	return src
}

// declLines finds, by searching the text, the lines of the declaration
// whose first line is exactly header: the first line of its doc comment,
// the header line, and the line of its closing brace (the first line
// after the header that is exactly indent+"}").
func declLines(t *testing.T, src []byte, header, indent string) (doc, head, end int) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		if l != header {
			continue
		}
		doc = i
		for doc > 0 && strings.HasPrefix(strings.TrimSpace(lines[doc-1]), "//") {
			doc--
		}
		end = i
		if !strings.HasSuffix(header, "}") {
			for end < len(lines) && lines[end] != indent+"}" {
				end++
			}
		}
		return doc + 1, i + 1, end + 1
	}
	t.Fatalf("no line %q", header)
	return 0, 0, 0
}

func TestGorootFiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, symbol, header, indent string
		kind                         Kind
		crumb, docPrefix             string
	}{
		{"net/http/server.go", "(*conn).serve", "func (c *conn) serve(ctx context.Context) {", "",
			KindMethod, "conn", "Serve a new connection."},
		{"net/http/server.go", "(*Server).Close", "func (s *Server) Close() error {", "",
			KindMethod, "Server", "Close immediately closes all active net.Listeners"},
		{"net/http/server.go", "ListenAndServe", "func ListenAndServe(addr string, handler Handler) error {", "",
			KindFunction, "", "ListenAndServe listens on the TCP network address"},
		{"go/ast/ast.go", "(*CommentGroup).Text", "func (g *CommentGroup) Text() string {", "",
			KindMethod, "CommentGroup", "Text returns the text of the comment."},
		{"go/ast/ast.go", "Ident", "\tIdent struct {", "\t",
			KindStruct, "", "An Ident node represents an identifier."},
		{"go/ast/ast.go", "(*Ident).Pos", "func (x *Ident) Pos() token.Pos    { return x.NamePos }", "",
			KindMethod, "Ident", ""},
	}
	c := New(nil)
	for _, tc := range cases {
		t.Run(tc.symbol, func(t *testing.T) {
			t.Parallel()
			src := gorootFile(t, tc.file)
			cs := chunkOK(t, c, discover.LangGo, src)
			var parts []Chunk
			for _, ch := range cs {
				if ch.Symbol == tc.symbol {
					parts = append(parts, ch)
				}
			}
			if len(parts) == 0 {
				t.Fatalf("%s: no chunk for %s", tc.file, tc.symbol)
			}
			doc, head, end := declLines(t, src, tc.header, tc.indent)
			first, last := parts[0], parts[len(parts)-1]
			if first.StartLine != doc || last.EndLine != end {
				t.Errorf("%s spans lines %d-%d, want %d-%d (header at %d)", tc.symbol, first.StartLine, last.EndLine, doc, end, head)
			}
			if len(parts) > 1 {
				for i, p := range parts {
					if p.Part != i+1 {
						t.Errorf("piece %d has Part %d", i, p.Part)
					}
				}
			}
			if first.Kind != tc.kind || first.Breadcrumb != tc.crumb {
				t.Errorf("kind %q crumb %q, want %q %q", first.Kind, first.Breadcrumb, tc.kind, tc.crumb)
			}
			if !strings.HasPrefix(first.Doc, tc.docPrefix) || tc.docPrefix == "" && first.Doc != "" {
				t.Errorf("doc = %q, want prefix %q", first.Doc, tc.docPrefix)
			}
			wantSig := strings.TrimSuffix(strings.TrimSpace(tc.header), " {")
			if i := strings.Index(wantSig, "{ return"); i >= 0 {
				wantSig = strings.TrimSpace(wantSig[:i])
			}
			if got := first.Signature; got != strings.Join(strings.Fields(wantSig), " ") && got != "type "+wantSig {
				t.Errorf("signature = %q", got)
			}
		})
	}
}
