package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Secret is a span of a file's content that the index pipeline masked
// before chunking (internal/secrets): the stored chunks, terms and vectors
// never held it. It is written with its file, in the same transaction.
type Secret struct {
	Rule      string // the detector rule, such as "github-token"
	Line      int    // 1-based
	StartByte int    // 0-based
	EndByte   int    // exclusive
}

// SecretFile is one file with masked secrets.
type SecretFile struct {
	Path  string
	Count int
	Rules []string // distinct rule ids, sorted
}

// SecretCounts says how many secrets the index masked, in how many files,
// and which files (the first few by path).
type SecretCounts struct {
	Total int
	Files int
	List  []SecretFile
}

// Secrets counts the masked secrets and lists the first limit files that
// hold them, by path.
func (db *DB) Secrets(ctx context.Context, limit int) (SecretCounts, error) {
	var c SecretCounts
	if err := db.r.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT file_id) FROM secrets`).Scan(&c.Total, &c.Files); err != nil {
		return c, fmt.Errorf("counting secrets: %v", err)
	}
	if c.Total == 0 || limit <= 0 {
		return c, nil
	}
	list, err := collect(ctx, db.r, "secrets", `SELECT f.path, count(*), group_concat(DISTINCT s.rule)
FROM secrets s JOIN files f ON f.id = s.file_id GROUP BY s.file_id ORDER BY f.path LIMIT ?`, []any{limit},
		func(rows *sql.Rows, f *SecretFile) error {
			var rules string
			if err := rows.Scan(&f.Path, &f.Count, &rules); err != nil {
				return err
			}
			f.Rules = strings.Split(rules, ",")
			slices.Sort(f.Rules)
			return nil
		})
	c.List = list
	return c, err
}

// FileSecrets returns the masked spans of one file, in order.
func (db *DB) FileSecrets(ctx context.Context, path string) ([]Secret, error) {
	return collect(ctx, db.r, "secrets of "+path, `SELECT s.rule, s.line, s.start_byte, s.end_byte
FROM secrets s JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.start_byte`, []any{path},
		func(rows *sql.Rows, s *Secret) error {
			return rows.Scan(&s.Rule, &s.Line, &s.StartByte, &s.EndByte)
		})
}
