package chunk

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readSample returns the one source file of testdata/lang/<lang>.txtar.
func readSample(t testing.TB, lang string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "lang", lang+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := parseTxtar(data)
	if len(files) != 1 {
		t.Fatalf("%s.txtar: %d files, want 1", lang, len(files))
	}
	return files[0].name, files[0].data
}

type txtarFile struct {
	name string
	data []byte
}

// parseTxtar reads the txtar format (a comment, then "-- name --" marker
// lines each followed by the file's content); it saves the module a
// dependency on golang.org/x/tools for twenty lines.
func parseTxtar(data []byte) []txtarFile {
	var files []txtarFile
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(t, []byte("-- ")) && bytes.HasSuffix(t, []byte(" --")) && len(t) > 6 {
			files = append(files, txtarFile{name: string(t[3 : len(t)-3])})
			continue
		}
		if len(files) > 0 {
			f := &files[len(files)-1]
			f.data = append(f.data, line...)
		}
	}
	return files
}

// definitions keeps the chunks that carry a symbol.
func definitions(cs []Chunk) []brief {
	var out []brief
	for _, c := range cs {
		if c.Symbol != "" {
			out = append(out, briefOf(c))
		}
	}
	return out
}

func TestLanguages(t *testing.T) {
	t.Parallel()
	c := New(nil)
	for _, tc := range langCases {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			name, src := readSample(t, tc.lang)
			cs, err := c.Chunk(t.Context(), name, tc.lang, src)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, src, cs)
			if diff := cmp.Diff(tc.want, definitions(cs)); diff != "" {
				t.Errorf("definitions (-want +got):\n%s\nall chunks:\n%s", diff, dumpChunks(cs))
			}
		})
	}
}

func TestSignatures(t *testing.T) {
	t.Parallel()
	cases := []struct{ lang, symbol, sig string }{
		{"go", "(*Store).Get", "func (s *Store) Get(key string) (string, error)"},
		{"go", "Store", "type Store struct"},
		{"go", "ErrNotFound", `var ErrNotFound = errorString("not found")`},
		{"python", "fib", "def fib(n: int) -> int"},
		{"python", "LRU", "class LRU(OrderedDict)"},
		{"javascript", "notFound", "const notFound = (req)"},
		{"typescript", "UserService", "abstract class UserService"},
		{"typescript", "UserService.load", "async load(id: ID): Promise<User>"},
		{"java", "Cache", `@SuppressWarnings("unchecked") public class Cache<K, V>`},
		{"rust", "Queue.fmt", "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result"},
		{"rust", "Queue", "pub struct Queue<T>"},
		{"c", "buf_grow", "int buf_grow(struct buf *b, size_t n)"},
		{"cpp", "Circle.area", "double Circle::area() const"},
		{"csharp", "Account.ToString", "public override string ToString()"},
		{"ruby", "Base.build", "def self.build(*args)"},
		{"php", "UserRepo.find", "public function find(int $id): ?User"},
		{"kotlin", "Repo.find", "suspend fun find(id: Long): User"},
		{"swift", "Store", "final class Store: Storing"},
		{"scala", "Grid.add", "def add(s: Shape): Grid"},
		{"lua", "M.push", "function M:push(v)"},
		{"elixir", "Demo.Stack.start_link", "def start_link(items) when is_list(items)"},
		{"bash", "deploy", "function deploy"},
		{"markdown", "License", "License -------"},
	}
	c := New(nil)
	for _, tc := range cases {
		_, src := readSample(t, tc.lang)
		cs := chunkOK(t, c, tc.lang, src)
		found := false
		for _, ch := range cs {
			if ch.Symbol == tc.symbol && ch.Part <= 1 {
				found = true
				if ch.Signature != tc.sig {
					t.Errorf("%s %s: signature %q, want %q", tc.lang, tc.symbol, ch.Signature, tc.sig)
				}
				break
			}
		}
		if !found {
			t.Errorf("%s: no chunk %s", tc.lang, tc.symbol)
		}
	}
}
