package store

import (
	"context"
	"fmt"
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
