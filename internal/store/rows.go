package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// querier is a connection pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// collect runs a query and returns its rows, each read by scan. Errors
// say what was being read.
func collect[T any](ctx context.Context, conn querier, what, query string, args []any, scan func(*sql.Rows, *T) error) ([]T, error) {
	var out []T
	err := each(ctx, conn, what, query, args, func(rows *sql.Rows) error {
		var v T
		if err := scan(rows, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// each runs a query and calls f on each row; it stops at f's first
// error. Errors say what was being read.
func each(ctx context.Context, conn querier, what, query string, args []any, f func(*sql.Rows) error) error {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("reading %s: %v", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading %s: %v", what, err)
	}
	return nil
}

// stringArgs returns ss as query arguments.
func stringArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// placeholders returns "(?,?,…)" with n ≥ 1 parameters, for IN lists.
func placeholders(n int) string {
	return "(?" + strings.Repeat(",?", n-1) + ")"
}
