package store

import (
	"context"
	"fmt"
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
	rows, err := db.r.QueryContext(ctx, `SELECT path, language, size, lines FROM files ORDER BY path`)
	if err != nil {
		return nil, fmt.Errorf("listing files: %v", err)
	}
	defer rows.Close()
	var out []FileRow
	for rows.Next() {
		var f FileRow
		if err := rows.Scan(&f.Path, &f.Language, &f.Size, &f.Lines); err != nil {
			return nil, fmt.Errorf("listing files: %v", err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing files: %v", err)
	}
	return out, nil
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
	q := `SELECT f.path, c.kind, c.symbol, c.name, c.start_line, c.end_line FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.name <> '' AND c.part <= 1`
	var args []any
	if len(kinds) > 0 {
		q += ` AND c.kind IN (?` + strings.Repeat(",?", len(kinds)-1) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	if prefix != "" {
		q += ` AND (f.path = ? OR f.path LIKE ? ESCAPE '\')`
		args = append(args, prefix, escapeLike(prefix)+"/%")
	}
	q += ` ORDER BY f.path, c.start_line`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing symbols: %v", err)
	}
	defer rows.Close()
	var out []SymbolRow
	for rows.Next() {
		var s SymbolRow
		if err := rows.Scan(&s.Path, &s.Kind, &s.Symbol, &s.Name, &s.StartLine, &s.EndLine); err != nil {
			return nil, fmt.Errorf("listing symbols: %v", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing symbols: %v", err)
	}
	return out, nil
}

// TypesMentioning returns type-like chunks (classes, structs,
// interfaces, traits, enums, types, impls, modules) whose summary line
// holds name, and Go ones whose body holds it as a term (embedded
// fields), at most limit.
func (db *DB) TypesMentioning(ctx context.Context, name string, limit int) ([]ChunkRow, error) {
	return db.queryChunks(ctx, `c.kind IN ('class','struct','interface','trait','enum','type','impl','module') AND c.part <= 1
  AND (c.summary LIKE ? ESCAPE '\' OR (f.language = 'go' AND c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)))
  ORDER BY f.path, c.start_line LIMIT ?`, "%"+escapeLike(name)+"%", `body : "`+strings.ReplaceAll(strings.ToLower(name), `"`, `""`)+`"`, limit)
}
