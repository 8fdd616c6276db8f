package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApplyRowsOfEachFile checks what Apply writes without foreign-key
// checks: every row names a file that exists, a path written twice in
// one batch keeps only its second version's rows, enough rows for
// several multi-row statements are all written, and the connection has
// its checks back afterwards.
func TestApplyRowsOfEachFile(t *testing.T) {
	t.Parallel()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	update := func(path string, n int) Update {
		u := Update{File: File{Path: path, Language: "go", Hash: make([]byte, 32)}}
		for i := range n {
			u.Chunks = append(u.Chunks, Chunk{Name: fmt.Sprintf("F%d", i), Terms: [NumColumns]string{ColBody: fmt.Sprintf("body t%d", i)}})
			u.Names = append(u.Names, Name{Name: fmt.Sprintf("C%d", i), Kind: "const", Line: i + 1})
			u.Imports = append(u.Imports, Import{Spec: fmt.Sprintf("pkg%d", i), Line: i + 1})
			u.Secrets = append(u.Secrets, Secret{Rule: "token", Line: i + 1})
		}
		return u
	}
	counts := func() map[string]int {
		out := map[string]int{}
		for _, table := range []string{"files", "chunks", "names", "imports", "secrets"} {
			var n int
			if err := db.r.QueryRowContext(t.Context(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}
	for _, step := range []struct {
		name    string
		updates []Update
		want    map[string]int
	}{
		{
			name:    "new files",
			updates: []Update{update("a.go", 300), update("b.go", 2)},
			want:    map[string]int{"files": 2, "chunks": 302, "names": 302, "imports": 302, "secrets": 302},
		},
		{
			name:    "a path twice",
			updates: []Update{update("c.go", 5), update("a.go", 200), update("c.go", 3)},
			want:    map[string]int{"files": 3, "chunks": 205, "names": 205, "imports": 205, "secrets": 205},
		},
		{
			name:    "deleted",
			updates: []Update{{File: File{Path: "a.go"}, Delete: true}},
			want:    map[string]int{"files": 2, "chunks": 5, "names": 5, "imports": 5, "secrets": 5},
		},
	} {
		if err := db.Apply(t.Context(), step.updates); err != nil {
			t.Fatalf("%s: Apply: %v", step.name, err)
		}
		if diff := cmp.Diff(step.want, counts()); diff != "" {
			t.Errorf("%s: rows per table (-want +got):\n%s", step.name, diff)
		}
		rows, err := collect(t.Context(), db.w, "foreign keys", `PRAGMA foreign_key_check`, nil, func(rows *sql.Rows, s *string) error {
			var table, parent string
			var rowid, fk sql.NullInt64
			err := rows.Scan(&table, &rowid, &parent, &fk)
			*s = fmt.Sprintf("%s row %d names no %s", table, rowid.Int64, parent)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 0 {
			t.Errorf("%s: rows of no file: %q", step.name, rows)
		}
		var on int
		if err := db.w.QueryRowContext(t.Context(), `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 1 {
			t.Errorf("%s: foreign_keys after Apply = %d, %v; want 1", step.name, on, err)
		}
	}
}
