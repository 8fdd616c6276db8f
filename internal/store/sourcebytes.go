package store

import (
	"context"
	"fmt"
)

// SourceBytes returns the sum of the sizes of the indexed files, in
// bytes, as recorded when each was indexed (skipped files do not count).
// It is what the index was built from; compare it with [DB.SizeBytes].
func (db *DB) SourceBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := db.r.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM files`).Scan(&n); err != nil {
		return 0, fmt.Errorf("summing file sizes: %v", err)
	}
	return n, nil
}
