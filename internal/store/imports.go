package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// ImportRow is a stored import statement with its file.
type ImportRow struct {
	ID       int64 // rowid
	Path     string
	Language string
	Spec     string
	Line     int // 1-based
	// Target is the repository path the import resolves to ("" when it
	// does not); Internal reports whether it should resolve inside the
	// repository (graph.Resolution).
	Target   string
	Internal bool
}

// Resolution is a resolved import's target and whether it is internal.
type Resolution struct {
	Target   string
	Internal bool
}

// ImportScope names the imports a run of a few files can have changed
// the answer of (see [DB.ResolveImports]).
type ImportScope struct {
	// Files: the imports of these files (changed or added).
	Files []string
	// Unresolved adds every import that resolves nowhere now: an added
	// file may be its target.
	Unresolved bool
	// Targets adds every import that resolves to one of these paths
	// (deleted files and their directories).
	Targets []string
}

// ResolveImports calls resolve for every stored import, or with scope
// not nil only for the imports it names, and stores the answers that
// changed, in one transaction. It returns the number of imports in the
// whole index, of internal ones and of internal ones that resolved.
// Imports are read and written resolveImportsPage rows at a time, so
// memory does not grow with the repository.
func (db *DB) ResolveImports(ctx context.Context, scope *ImportScope, resolve func(ImportRow) Resolution) (total, internal, resolved int, err error) {
	if db.w == nil {
		return 0, 0, 0, ErrReadOnly
	}
	query, args := importCols+` WHERE i.rowid > ?1`, []any(nil)
	if scope != nil {
		files, _ := json.Marshal(append([]string{}, scope.Files...))
		targets, _ := json.Marshal(append([]string{}, scope.Targets...))
		query += ` AND (f.path IN (SELECT value FROM json_each(?3)) OR (?4 AND i.target = '') OR i.target IN (SELECT value FROM json_each(?5)))`
		args = []any{string(files), scope.Unresolved, string(targets)}
	}
	query += ` ORDER BY i.rowid LIMIT ?2`
	pageRows := cmp.Or(db.importPage, resolveImportsPage)
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("resolving imports: %v", err)
	}
	defer tx.Rollback()
	update, err := tx.PrepareContext(ctx, `UPDATE imports SET target = ?, internal = ? WHERE rowid = ?`)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("resolving imports: %v", err)
	}
	defer update.Close()
	for after := int64(0); ; {
		page, err := collect(ctx, tx, "imports", query, append([]any{after, pageRows}, args...), scanImport)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, r := range page {
			res := resolve(r)
			total++
			if res.Internal {
				internal++
				if res.Target != "" {
					resolved++
				}
			}
			if res.Target != r.Target || res.Internal != r.Internal {
				if _, err := update.ExecContext(ctx, res.Target, res.Internal, r.ID); err != nil {
					return 0, 0, 0, fmt.Errorf("resolving imports: %v", err)
				}
			}
		}
		if len(page) < pageRows {
			break
		}
		after = page[len(page)-1].ID
	}
	if scope != nil {
		// The counts are of the whole index, not of the scope.
		if total, internal, resolved, err = importCountsIn(ctx, tx); err != nil {
			return 0, 0, 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, 0, fmt.Errorf("resolving imports: %v", err)
	}
	return total, internal, resolved, nil
}

// resolveImportsPage is how many imports [DB.ResolveImports] holds at
// once (about 1 MB).
const resolveImportsPage = 4096

// importCountsIn counts the stored imports, the internal ones and the
// internal ones that resolved.
func importCountsIn(ctx context.Context, tx *sql.Tx) (total, internal, resolved int, err error) {
	err = tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(internal), 0), coalesce(sum(internal AND target <> ''), 0) FROM imports`).Scan(&total, &internal, &resolved)
	if err != nil {
		err = fmt.Errorf("counting imports: %v", err)
	}
	return total, internal, resolved, err
}

// ImportsOf returns the import statements of the file at path, in line
// order.
func (db *DB) ImportsOf(ctx context.Context, path string) ([]ImportRow, error) {
	return db.queryImports(ctx, `f.path = ? ORDER BY i.line`, path)
}

// ImportersOf returns the import statements that resolve to path or, for
// a Go package, to the directory dir holding it ("" to skip), ordered by
// importing file and line.
func (db *DB) ImportersOf(ctx context.Context, path, dir string) ([]ImportRow, error) {
	return db.queryImports(ctx, `i.target IN (?, ?) AND i.target <> '' ORDER BY f.path, i.line`, path, dir)
}

// importCols are the columns scanImport reads.
const importCols = `SELECT i.rowid, f.path, f.language, i.spec, i.line, i.target, i.internal FROM imports i JOIN files f ON f.id = i.file_id`

func scanImport(rows *sql.Rows, r *ImportRow) error {
	return rows.Scan(&r.ID, &r.Path, &r.Language, &r.Spec, &r.Line, &r.Target, &r.Internal)
}

func (db *DB) queryImports(ctx context.Context, where string, args ...any) ([]ImportRow, error) {
	return collect(ctx, db.r, "imports", importCols+` WHERE `+where, args, scanImport)
}

// ImportsNaming returns the import statements whose spec is name, ends
// with "/name" or ".name", or whose target is name or ends with "/name"
// (a package directory or a module file named by its path), ordered by
// importing file and line; at most limit.
func (db *DB) ImportsNaming(ctx context.Context, name string, limit int) ([]ImportRow, error) {
	return db.queryImports(ctx, `(i.spec = ?1 OR i.spec LIKE '%/' || ?2 ESCAPE '\' OR i.spec LIKE '%.' || ?2 ESCAPE '\'
  OR i.target = ?1 OR i.target LIKE '%/' || ?2 ESCAPE '\') ORDER BY f.path, i.line LIMIT ?3`, name, escapeLike(name), limit)
}
