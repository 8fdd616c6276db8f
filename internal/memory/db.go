package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver, as internal/store does

	"github.com/ctx-dev/ctx/internal/embed"
	"github.com/ctx-dev/ctx/internal/store"
)

// SchemaVersion is the memory database's layout version, kept in SQLite's
// user_version.
//
//	1: memories(id, kind, text, tags, path, priority, created, updated, key, vec, model, dl),
//	   memory_terms(term, id, name, path, doc), meta(key, value).
const SchemaVersion = 1

// ErrSchemaTooNew is returned by [Open] for a memory database written by
// a newer ctx.
var ErrSchemaTooNew = errors.New("memory database written by a newer ctx")

// Options configures [Open]; nil means defaults.
type Options struct {
	// ReadOnly opens for searches and listings: a missing file is an empty
	// store (nothing is created) and writes fail, except that [DB.Search]
	// stores the vectors it had to re-embed (see [DB.Refresh]).
	ReadOnly bool
}

// DB is an open memory database. It is safe for concurrent use; SQLite
// serialises writers (WAL, a 10 s busy timeout, immediate transactions).
type DB struct {
	path     string
	readOnly bool
	conn     *sql.DB // nil: a read-only open of a missing file (no memories)
	// termsCurrent is set when memory_terms was written by this build's
	// analyzer (see terms.go).
	termsCurrent bool
}

// dsn returns the connection string of the memory database, with the
// pragmas internal/store uses for the index (WAL, busy timeout, NORMAL
// sync); readers read the journal mode the writer set.
func dsn(path string, writer bool) string {
	v := url.Values{}
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		v.Add("_pragma", "journal_mode(WAL)")
		v.Add("_txlock", "immediate")
	}
	return store.FileURI(path) + "?" + v.Encode()
}

// Open opens the memory database at path, creating it (and its directory)
// unless opts.ReadOnly; a read-only open of a missing file returns an
// empty store. Errors: [ErrSchemaTooNew], or a wrapped SQLite or file
// system error.
func Open(ctx context.Context, path string, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	db := &DB{path: path, readOnly: opts.ReadOnly}
	if _, err := os.Stat(path); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("opening memories %s: %w", path, err)
		}
		if opts.ReadOnly {
			return db, nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("creating the memory directory: %w", err)
		}
	}
	conn, err := sql.Open("sqlite", dsn(path, !opts.ReadOnly))
	if err != nil {
		return nil, fmt.Errorf("opening memories %s: %v", path, err)
	}
	if !opts.ReadOnly {
		conn.SetMaxOpenConns(1)
	}
	db.conn = conn
	if err := db.migrate(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening memories %s: %w", path, err)
	}
	if err := db.checkTerms(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("opening memories %s: %w", path, err)
	}
	return db, nil
}

// migrate creates the schema in a writable database and checks the
// version of any database.
func (db *DB) migrate(ctx context.Context) error {
	var v int
	if err := db.conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("reading the schema version: %v", err)
	}
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("%w (schema %d, this build reads %d)", ErrSchemaTooNew, v, SchemaVersion)
	case v == SchemaVersion || db.readOnly:
		return nil
	}
	_, err := db.conn.ExecContext(ctx, `
CREATE TABLE IF NOT EXISTS memories (
	id       INTEGER PRIMARY KEY,
	kind     TEXT NOT NULL,
	text     TEXT NOT NULL,
	tags     TEXT NOT NULL DEFAULT '',
	path     TEXT NOT NULL DEFAULT '',
	priority INTEGER NOT NULL DEFAULT 0,
	created  INTEGER NOT NULL,
	updated  INTEGER NOT NULL,
	key      TEXT NOT NULL UNIQUE,
	vec      BLOB,
	model    TEXT NOT NULL DEFAULT '',
	dl       INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS memory_terms (
	term TEXT NOT NULL,
	id   INTEGER NOT NULL,
	name INTEGER NOT NULL,
	path INTEGER NOT NULL,
	doc  INTEGER NOT NULL,
	PRIMARY KEY (term, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS memory_terms_id ON memory_terms (id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
PRAGMA user_version = 1;`)
	if err != nil {
		return fmt.Errorf("creating the memory tables: %v", err)
	}
	return nil
}

// Path returns the database file.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error {
	if db.conn == nil {
		return nil
	}
	return db.conn.Close()
}

// writable returns an error for writes to a read-only database.
func (db *DB) writable(op string) error {
	if db.readOnly {
		return fmt.Errorf("%s: the memory database is open read-only", op)
	}
	return nil
}

// dupKey identifies a memory for duplicate detection: its kind, path and
// text, hashed so the unique index stays small.
func dupKey(kind, path, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + path + "\x00" + text))
	return hex.EncodeToString(sum[:])
}

// Add stores a memory, embedding its text with emb (nil or a nil
// Provider: no vector; an embedding failure stores it without one, for
// [DB.Refresh] to fill later). A memory of the same kind, text and path as
// a stored one is not stored again: the stored one comes back with
// Duplicate set. Errors: [ErrInvalid] (wrapped), SQLite failures.
func (db *DB) Add(ctx context.Context, in Input, emb *Embedder) (Memory, error) {
	if err := db.writable("adding a memory"); err != nil {
		return Memory{}, err
	}
	in, err := Normalize(in)
	if err != nil {
		return Memory{}, err
	}
	key := dupKey(in.Kind, in.Path, in.Text)
	if m, ok, err := db.byKey(ctx, key); err != nil || ok {
		m.Duplicate = ok
		return m, err
	}
	var blob []byte
	model := ""
	if emb.active() {
		vecs, id, err := emb.embed(ctx, []string{in.Text}, embed.Document)
		if err == nil {
			blob, model = embed.EncodeVector(vecs[0]), id
		}
	}
	now := time.Now().UnixMilli()
	m := Memory{Kind: in.Kind, Text: in.Text, Tags: in.Tags, Path: in.Path, Priority: in.Priority, Created: fromMS(now), Updated: fromMS(now)}
	tx, err := db.conn.BeginTx(ctx, nil)
	if err != nil {
		return Memory{}, fmt.Errorf("adding a memory: %v", err)
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, `INSERT INTO memories (kind, text, tags, path, priority, created, updated, key, vec, model)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(key) DO NOTHING RETURNING id`,
		in.Kind, in.Text, strings.Join(in.Tags, ","), in.Path, in.Priority, now, now, key, blob, model).Scan(&m.ID)
	if errors.Is(err, sql.ErrNoRows) {
		// Another writer stored the same memory since the lookup.
		tx.Rollback()
		m, _, err := db.byKey(ctx, key)
		m.Duplicate = true
		return m, err
	}
	if err != nil {
		return Memory{}, fmt.Errorf("adding a memory: %v", err)
	}
	if err := writeTerms(ctx, tx, m.ID, &m); err != nil {
		return Memory{}, err
	}
	if err := tx.Commit(); err != nil {
		return Memory{}, fmt.Errorf("adding a memory: %v", err)
	}
	return m, nil
}

const memoryCols = `id, kind, text, tags, path, priority, created, updated`

func scanMemory(sc interface{ Scan(...any) error }, extra ...any) (Memory, error) {
	var m Memory
	var tags string
	var created, updated int64
	err := sc.Scan(append([]any{&m.ID, &m.Kind, &m.Text, &tags, &m.Path, &m.Priority, &created, &updated}, extra...)...)
	m.Tags = splitTags(tags)
	m.Created, m.Updated = fromMS(created), fromMS(updated)
	return m, err
}

func splitTags(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// fromMS turns stored unix milliseconds into a UTC time.
func fromMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func (db *DB) byKey(ctx context.Context, key string) (Memory, bool, error) {
	m, err := scanMemory(db.conn.QueryRowContext(ctx, `SELECT `+memoryCols+` FROM memories WHERE key = ?`, key))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Memory{}, false, nil
	case err != nil:
		return Memory{}, false, fmt.Errorf("looking up a memory: %v", err)
	}
	return m, true, nil
}

// Get returns the memory with id. Errors: [ErrNotFound] (wrapped), SQLite
// failures.
func (db *DB) Get(ctx context.Context, id int64) (Memory, error) {
	if db.conn == nil {
		return Memory{}, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	m, err := scanMemory(db.conn.QueryRowContext(ctx, `SELECT `+memoryCols+` FROM memories WHERE id = ?`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Memory{}, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	case err != nil:
		return Memory{}, fmt.Errorf("reading memory %d: %v", id, err)
	}
	return m, nil
}

// List returns the memories f keeps, by ascending id; an empty store
// returns none. Errors: a bad filter ([ErrInvalid]), SQLite failures.
func (db *DB) List(ctx context.Context, f Filter) ([]Memory, error) {
	f, err := f.normalize()
	if err != nil {
		return nil, err
	}
	recs, err := db.records(ctx, withText)
	if err != nil {
		return nil, err
	}
	out := []Memory{}
	for i := range recs {
		if f.keep(&recs[i].Memory) {
			out = append(out, recs[i].Memory)
		}
	}
	return out, nil
}

// Count returns the number of stored memories.
func (db *DB) Count(ctx context.Context) (int, error) {
	if db.conn == nil {
		return 0, nil
	}
	var n int
	if err := db.conn.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting memories: %v", err)
	}
	return n, nil
}

// Remove deletes the memory with id. Errors: [ErrNotFound] (wrapped) for
// an id that is not stored, SQLite failures.
func (db *DB) Remove(ctx context.Context, id int64) error {
	if err := db.writable("removing a memory"); err != nil {
		return err
	}
	tx, err := db.conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("removing memory %d: %v", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("removing memory %d: %v", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_terms WHERE id = ?`, id); err != nil {
		return fmt.Errorf("removing memory %d: %v", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("removing memory %d: %v", id, err)
	}
	return nil
}

// record is a stored memory with its vector (nil when it has none or it
// could not be decoded), the model identity that made it, and its length
// in terms (see terms.go).
type record struct {
	Memory
	vec   []float32
	model string
	dl    int
}

// Which columns [DB.records] reads besides the small ones.
const (
	withText = 1 << iota
	withVecs
)

// records reads every memory by ascending id. Without withText, Text is
// empty (a search reads the texts of its hits only); without withVecs, so
// are the vectors.
func (db *DB) records(ctx context.Context, with int) ([]record, error) {
	if db.conn == nil {
		return nil, nil
	}
	text, vec := "''", "NULL"
	if with&withText != 0 {
		text = "text"
	}
	if with&withVecs != 0 {
		vec = "vec"
	}
	rows, err := db.conn.QueryContext(ctx, `SELECT id, kind, `+text+`, tags, path, priority, created, updated, model, dl, `+vec+` FROM memories ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("reading memories: %v", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		var r record
		var blob []byte
		if r.Memory, err = scanMemory(rows, &r.model, &r.dl, &blob); err != nil {
			return nil, fmt.Errorf("reading memories: %v", err)
		}
		if blob != nil {
			// A blob that does not decode is re-embedded like a stale one.
			if v, err := embed.DecodeVector(blob); err == nil {
				r.vec = v
			} else {
				r.model = ""
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading memories: %v", err)
	}
	return out, nil
}

// fillTexts reads the texts of recs[idx] that were read without them.
func (db *DB) fillTexts(ctx context.Context, recs []record, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	at := make(map[int64]int, len(idx))
	args := make([]any, len(idx))
	for k, j := range idx {
		at[recs[j].ID] = j
		args[k] = recs[j].ID
	}
	rows, err := db.conn.QueryContext(ctx, `SELECT id, text FROM memories WHERE id IN (?`+strings.Repeat(", ?", len(idx)-1)+`)`, args...)
	if err != nil {
		return fmt.Errorf("reading memory texts: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return fmt.Errorf("reading memory texts: %v", err)
		}
		recs[at[id]].Text = text
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading memory texts: %v", err)
	}
	return nil
}

// Refresh embeds, with emb, every memory whose vector is missing or was
// made by another model than emb's, and stores the new vectors (a
// read-only database opens a writer for it). It returns how many it
// embedded. Memories are few, so a model change costs one pass over them
// on the next search rather than a migration. Errors: the provider's
// (nothing is stored then), SQLite failures.
func (db *DB) Refresh(ctx context.Context, emb *Embedder) (int, error) {
	recs, err := db.records(ctx, withText|withVecs)
	if err != nil {
		return 0, err
	}
	_, n, err := db.refresh(ctx, recs, emb)
	return n, err
}

// refresh is [DB.Refresh] over records already read; it updates recs'
// vectors in place and returns them.
func (db *DB) refresh(ctx context.Context, recs []record, emb *Embedder) ([]record, int, error) {
	if !emb.active() || len(recs) == 0 {
		return recs, 0, nil
	}
	current := emb.Provider.Model().String()
	var stale []int
	for i := range recs {
		if recs[i].vec == nil || recs[i].model != current {
			stale = append(stale, i)
		}
	}
	if len(stale) == 0 {
		return recs, 0, nil
	}
	var noText []int
	for _, j := range stale {
		if recs[j].Text == "" {
			noText = append(noText, j)
		}
	}
	if err := db.fillTexts(ctx, recs, noText); err != nil {
		return recs, 0, err
	}
	texts := make([]string, len(stale))
	for i, j := range stale {
		texts[i] = recs[j].Text
	}
	vecs, model, err := emb.embed(ctx, texts, embed.Document)
	if err != nil {
		return recs, 0, fmt.Errorf("embedding %d memories: %w", len(stale), err)
	}
	for i, j := range stale {
		recs[j].vec, recs[j].model = vecs[i], model
	}
	if err := db.storeVectors(ctx, recs, stale); err != nil {
		return recs, len(stale), err
	}
	return recs, len(stale), nil
}

// storeVectors writes the vectors of recs[idx] in one transaction.
func (db *DB) storeVectors(ctx context.Context, recs []record, idx []int) error {
	conn := db.conn
	if db.readOnly {
		w, err := sql.Open("sqlite", dsn(db.path, true))
		if err != nil {
			return fmt.Errorf("storing memory vectors: %v", err)
		}
		defer w.Close()
		w.SetMaxOpenConns(1)
		conn = w
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storing memory vectors: %v", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `UPDATE memories SET vec = ?, model = ? WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("storing memory vectors: %v", err)
	}
	defer stmt.Close()
	for _, j := range idx {
		if _, err := stmt.ExecContext(ctx, embed.EncodeVector(recs[j].vec), recs[j].model, recs[j].ID); err != nil {
			return fmt.Errorf("storing memory vectors: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("storing memory vectors: %v", err)
	}
	return nil
}
