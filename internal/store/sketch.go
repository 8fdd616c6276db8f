package store

import (
	"context"
	"database/sql"
)

// FileLang is a stored file's id, path and language.
type FileLang struct {
	ID       int64
	Path     string
	Language string
}

// FileLangs returns every stored file's id, path and language.
func (db *DB) FileLangs(ctx context.Context) ([]FileLang, error) {
	return collect(ctx, db.r, "files", `SELECT id, path, language FROM files`, nil, func(rows *sql.Rows, f *FileLang) error {
		return rows.Scan(&f.ID, &f.Path, &f.Language)
	})
}

// Sketches calls f with the id, file id and structural sketch
// (chunk.Sketch) of every chunk that has one, in increasing id order,
// inside one read transaction. The sketch bytes are valid only during
// the call. Errors: f's (wrapped), and the store's.
func (db *DB) Sketches(ctx context.Context, f func(id, fileID int64, sketch []byte) error) error {
	return each(ctx, db.r, "sketches", `SELECT id, file_id, sketch FROM chunks WHERE sketch IS NOT NULL ORDER BY id`, nil, func(rows *sql.Rows) error {
		var id, fileID int64
		var sk sql.RawBytes
		if err := rows.Scan(&id, &fileID, &sk); err != nil {
			return err
		}
		return f(id, fileID, sk)
	})
}
