package store

import (
	"context"
	"database/sql"
	"fmt"
)

// collect runs a query on conn and returns its rows, each read by scan.
// Errors say what was being read.
func collect[T any](ctx context.Context, conn *sql.DB, what, query string, args []any, scan func(*sql.Rows, *T) error) ([]T, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, fmt.Errorf("reading %s: %v", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %v", what, err)
	}
	return out, nil
}
