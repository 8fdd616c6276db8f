package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
)

// FileRow is a stored file as listings show it.
type FileRow struct {
	Path     string
	Language string
	Size     int64 // bytes
	Lines    int
}

// ListFiles returns every stored file, sorted by path.
func (db *DB) ListFiles(ctx context.Context) ([]FileRow, error) {
	return collect(ctx, db.r, "files", `SELECT path, language, size, lines FROM files ORDER BY path`, nil,
		func(rows *sql.Rows, f *FileRow) error { return rows.Scan(&f.Path, &f.Language, &f.Size, &f.Lines) })
}

// SymbolRow is a defined name of a chunk.
type SymbolRow struct {
	Path      string
	Kind      string
	Symbol    string // qualified, as the chunker wrote it
	Name      string // bare
	StartLine int    // 1-based, inclusive
	EndLine   int    // 1-based, inclusive
}

// Symbols returns the chunks that define a name (the first piece of a
// definition split into pieces), ordered by path and
// line, keeping only the given kinds (empty: all) and paths under prefix
// ("" all); at most limit (0: all).
func (db *DB) Symbols(ctx context.Context, kinds []string, prefix string, limit int) ([]SymbolRow, error) {
	where := ``
	var args []any
	if len(kinds) > 0 {
		where += ` AND kind IN ` + placeholders(len(kinds))
		args = kindArgs(kinds)
	}
	if prefix != "" {
		where += ` AND (path = ? OR path LIKE ? ESCAPE '\')`
		args = append(args, prefix, escapeLike(prefix)+"/%")
	}
	// Chunks that define a name, and the one-line names no such chunk
	// covers; not declarations without a body (names with a symbol),
	// which a definition lookup finds but a listing of definitions
	// leaves out.
	q := `SELECT path, kind, symbol, name, start_line, end_line FROM (
  SELECT f.path, c.kind, coalesce(c.symbol, c.name) AS symbol, c.name, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.name <> '' AND c.part <= 1
  UNION ALL
  SELECT f.path, n.kind, n.name, n.name, n.line, n.line FROM names n JOIN files f ON f.id = n.file_id
  WHERE n.symbol = '' AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id BETWEEN f.chunk_lo AND f.chunk_hi AND c.name = n.name AND c.start_line <= n.line AND n.line <= c.end_line)
) WHERE 1` + where + ` ORDER BY path, start_line`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	return collect(ctx, db.r, "symbols", q, args, func(rows *sql.Rows, s *SymbolRow) error {
		return rows.Scan(&s.Path, kindScan{&s.Kind}, &s.Symbol, &s.Name, &s.StartLine, &s.EndLine)
	})
}

// TypesMentioning returns type-like chunks (classes, structs,
// interfaces, traits, enums, types, impls, modules) whose summary line
// holds name, and Go ones whose body holds it as a term (embedded
// fields), at most limit.
func (db *DB) TypesMentioning(ctx context.Context, name string, limit int) ([]ChunkRow, error) {
	inBody, err := db.TermChunks(ctx, strings.ToLower(name), 1<<ColBody)
	if err != nil {
		return nil, err
	}
	ids, _ := json.Marshal(inBody)
	args := append(kindArgs(TypeKinds), "%"+escapeLike(name)+"%", string(ids), limit)
	return db.queryChunks(ctx, `c.kind IN `+placeholders(len(TypeKinds))+`
  AND (`+summarySQL+` LIKE ? ESCAPE '\' OR (f.language = 'go' AND c.id IN (SELECT value FROM json_each(?))))
  ORDER BY f.path, c.start_line LIMIT ?`, args...)
}

// TypeKinds are the chunk kinds that define a type others can extend,
// implement or name as an owner: classes, structs, interfaces, traits,
// enums, type declarations, impl blocks and modules.
var TypeKinds = []string{"class", "struct", "interface", "trait", "enum", "type", "impl", "module"}

// NamesByName returns the names (see Name: one-line constants and
// variables, declarations without a body) named one of names (ignoring
// case), as chunk rows spanning their own lines (StartByte and EndByte
// -1: read them by line), at most limit.
func (db *DB) NamesByName(ctx context.Context, names []string, limit int) ([]ChunkRow, error) {
	if len(names) == 0 {
		return nil, nil
	}
	args := append(stringArgs(names), limit)
	q := `SELECT n.name, n.kind, n.symbol, n.breadcrumb, n.line, n.end_line, f.path, f.language, f.size, f.mtime FROM names n JOIN files f ON f.id = n.file_id
WHERE n.name COLLATE NOCASE IN ` + placeholders(len(names)) + ` ORDER BY f.path, n.line LIMIT ?`
	return collect(ctx, db.r, "names", q, args, func(rows *sql.Rows, r *ChunkRow) error {
		err := rows.Scan(&r.Name, kindScan{&r.Kind}, &r.Symbol, &r.Breadcrumb, &r.StartLine, &r.EndLine, &r.Path, &r.Language, &r.FileSize, &r.FileTime)
		if r.Symbol == "" {
			r.Symbol = r.Name
		}
		r.EndLine = max(r.EndLine, r.StartLine)
		r.StartByte, r.EndByte = -1, -1
		return err
	})
}

// FilesIn returns the indexed files directly in the slash directory dir
// ("." or "" for the root; not its subdirectories), ordered by path.
func (db *DB) FilesIn(ctx context.Context, dir string) ([]FileRow, error) {
	q := `SELECT path, language, size, lines FROM files WHERE path NOT LIKE '%/%' ORDER BY path`
	var args []any
	if dir != "" && dir != "." {
		p := escapeLike(strings.TrimSuffix(dir, "/")) + "/"
		q = `SELECT path, language, size, lines FROM files WHERE path LIKE ? ESCAPE '\' AND path NOT LIKE ? ESCAPE '\' ORDER BY path`
		args = []any{p + "%", p + "%/%"}
	}
	return collect(ctx, db.r, "files", q, args,
		func(rows *sql.Rows, f *FileRow) error { return rows.Scan(&f.Path, &f.Language, &f.Size, &f.Lines) })
}

// Declared is a name declared inside a chunk that is not the chunk's own
// (see [Name]: a Go const group's entries after the first, an interface's
// method, an enum's variant, a C prototype), with the chunk holding its
// first line.
type Declared struct {
	Name     string // the bare name, as written
	Kind     string // const, var, method, ...
	Symbol   string // qualified ("Reader.Read"); empty: Name, top level
	Crumb    string // the breadcrumb, as a chunk's
	Line     int    // the declaration's first line, 1-based
	ChunkID  int64  // the chunk holding Line
	Start    int    // that chunk's first byte, 0-based
	Path     string // slash path relative to the root
	Language string
}

// DeclaredChunks returns up to limit names named one of names (ignoring
// case, as [DB.ChunksByName]) with the chunk holding each, by path and
// line; a name no chunk holds (a file without chunks) and a name that is
// its chunk's own name (found by ChunksByName) are left out. One query:
// the names index, then each file's chunk id range.
func (db *DB) DeclaredChunks(ctx context.Context, names []string, limit int) ([]Declared, error) {
	if len(names) == 0 || limit <= 0 {
		return nil, nil
	}
	args := append(stringArgs(names), limit)
	q := `SELECT x.name, x.kind, x.symbol, x.breadcrumb, x.line, x.path, x.language, x.chunk, c.start_byte FROM (
  SELECT n.name, n.kind, n.symbol, n.breadcrumb, n.line, f.path, f.language,
    (SELECT c.id FROM chunks c WHERE c.id BETWEEN f.chunk_lo AND f.chunk_hi AND c.start_line <= n.line AND n.line <= c.end_line ORDER BY c.start_byte LIMIT 1) AS chunk
  FROM names n JOIN files f ON f.id = n.file_id
  WHERE n.name COLLATE NOCASE IN ` + placeholders(len(names)) + `
) x JOIN chunks c ON c.id = x.chunk
WHERE c.name <> x.name COLLATE NOCASE
ORDER BY x.path, x.line LIMIT ?`
	var out []Declared
	err := each(ctx, db.r, "declared names", q, args, func(rows *sql.Rows) error {
		var d Declared
		if err := rows.Scan(&d.Name, kindScan{&d.Kind}, &d.Symbol, &d.Crumb, &d.Line, &d.Path, &d.Language, &d.ChunkID, &d.Start); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	return out, err
}
