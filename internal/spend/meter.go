package spend

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the ledger's database driver

	"github.com/ctx-dev/ctx/internal/config"
	"github.com/ctx-dev/ctx/internal/store"
)

// ErrCapExceeded is returned (wrapped) by [Meter.Check] when a request
// would take a run's or a day's spend past its cap.
var ErrCapExceeded = errors.New("spending cap reached")

// LedgerFile is the name of the day ledger in a [Meter]'s directory.
const LedgerFile = "spend.db"

// Total is what requests of one kind cost.
type Total struct {
	// USD is the cost in US dollars.
	USD float64
	// InTokens and OutTokens count input (or embedded) and output tokens.
	InTokens, OutTokens int
	// Requests counts requests.
	Requests int
}

func (t *Total) add(u Total) {
	t.USD += u.USD
	t.InTokens += u.InTokens
	t.OutTokens += u.OutTokens
	t.Requests += u.Requests
}

// Meter enforces the spending caps of one run (its lifetime: one ctx
// command, or one server request) and of the UTC day. The day's totals
// are shared by every process through a SQLite ledger, [LedgerFile] in
// the Meter's directory: one row per (day, kind, model), added to in an
// immediate transaction, so concurrent processes and goroutines never
// lose an update. A Meter is safe for concurrent use.
type Meter struct {
	cfg  config.Spend
	path string           // the ledger; "" keeps the day in memory
	now  func() time.Time // the clock; tests set it

	mu  sync.Mutex       // guards run and mem
	run map[Kind]Total   // this run's totals
	mem map[string]Total // day ledger when path is "": "day\x00kind" → totals
}

// NewMeter returns a Meter with cfg's caps whose day ledger is
// dir/[LedgerFile] (created on the first [Meter.Record]); an empty dir
// keeps the day's totals in this Meter alone. It does not touch the disk.
func NewMeter(cfg config.Spend, dir string) *Meter {
	m := &Meter{cfg: cfg, now: time.Now, run: map[Kind]Total{}, mem: map[string]Total{}}
	if dir != "" {
		m.path = filepath.Join(dir, LedgerFile)
	}
	return m
}

// Caps returns kind's run and day caps in US dollars (0: none) and the
// settings that set them (CTX_SPEND_<KIND>_RUN, CTX_SPEND_<KIND>_DAY).
func Caps(cfg config.Spend, kind Kind) (run, day float64, runKey, dayKey string) {
	switch kind {
	case Embed:
		run, day = cfg.EmbedRun, cfg.EmbedDay
	case Rerank:
		run, day = cfg.RerankRun, cfg.RerankDay
	case LLM:
		run, day = cfg.LLMRun, cfg.LLMDay
	}
	k := "CTX_SPEND_" + strings.ToUpper(string(kind))
	return run, day, k + "_RUN", k + "_DAY"
}

// capSlack absorbs float rounding, so a request that exactly meets a cap
// fits it.
const capSlack = 1e-12

// Check returns nil when a request of kind estimated at usd US dollars
// fits both of kind's caps, the run's and the UTC day's (a cap of 0 is no
// cap), counting what was spent before it. Otherwise it returns an error
// wrapping [ErrCapExceeded] that names the cap, what was spent, the
// request's estimate and the cap (US dollars, 4 decimals) and the setting
// to raise. Check records nothing; errors reading the ledger are returned
// as they are.
func (m *Meter) Check(ctx context.Context, kind Kind, usd float64) error {
	runCap, dayCap, runKey, dayKey := Caps(m.cfg, kind)
	if runCap > 0 {
		spent := m.Spent(kind).USD
		if spent+usd > runCap+capSlack {
			return capError(kind, "run", runKey, spent, usd, runCap)
		}
	}
	if dayCap > 0 {
		today, err := m.Today(ctx, kind)
		if err != nil {
			return err
		}
		if today.USD+usd > dayCap+capSlack {
			return capError(kind, "day (UTC)", dayKey, today.USD, usd, dayCap)
		}
	}
	return nil
}

func capError(kind Kind, span, key string, spent, usd, limit float64) error {
	return fmt.Errorf("%w: %s %s cap $%.4f: spent $%.4f, this request $%.4f; raise %s (0: no cap)",
		ErrCapExceeded, kind, span, limit, spent, usd, key)
}

// Record adds a finished request of kind to the run's totals and to the
// day ledger: model, its input and output tokens, the number of requests
// and what it cost in US dollars (from the provider's reported usage when
// it reports any). Errors: the ledger could not be written.
func (m *Meter) Record(ctx context.Context, kind Kind, model string, inTokens, outTokens, requests int, usd float64) error {
	t := Total{USD: usd, InTokens: inTokens, OutTokens: outTokens, Requests: requests}
	day := m.day()
	m.mu.Lock()
	r := m.run[kind]
	r.add(t)
	m.run[kind] = r
	if m.path == "" {
		k := day + "\x00" + string(kind)
		d := m.mem[k]
		d.add(t)
		m.mem[k] = d
	}
	m.mu.Unlock()
	if m.path == "" {
		return nil
	}
	if err := m.record(ctx, day, kind, model, t); err != nil {
		return fmt.Errorf("recording spend in %s: %w", m.path, err)
	}
	return nil
}

// Spent returns the run's totals of kind, for footers.
func (m *Meter) Spent(kind Kind) Total {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.run[kind]
}

// Today returns the UTC day's totals of kind from the ledger, over every
// process; zero when there is no ledger yet. Errors: the ledger exists
// but cannot be read (corrupt, not a database, unreadable).
func (m *Meter) Today(ctx context.Context, kind Kind) (Total, error) {
	day := m.day()
	if m.path == "" {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.mem[day+"\x00"+string(kind)], nil
	}
	if _, err := os.Stat(m.path); errors.Is(err, os.ErrNotExist) {
		return Total{}, nil
	}
	t, err := m.today(ctx, day, kind)
	if err != nil {
		return Total{}, fmt.Errorf("reading spend ledger %s: %w", m.path, err)
	}
	return t, nil
}

// day is the current UTC day, "2006-01-02".
func (m *Meter) day() string { return m.now().UTC().Format(time.DateOnly) }

// open opens the ledger; each operation opens and closes it, so a Meter
// holds no file between requests. Writers take the write lock when their
// transaction begins, and wait for each other up to the busy timeout.
func (m *Meter) open() (*sql.DB, error) {
	v := url.Values{}
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", store.FileURI(m.path)+"?"+v.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

const ledgerSchema = `CREATE TABLE IF NOT EXISTS spend (
	day TEXT NOT NULL,
	kind TEXT NOT NULL,
	model TEXT NOT NULL,
	usd REAL NOT NULL,
	in_tokens INTEGER NOT NULL,
	out_tokens INTEGER NOT NULL,
	requests INTEGER NOT NULL,
	PRIMARY KEY (day, kind, model)
)`

func (m *Meter) record(ctx context.Context, day string, kind Kind, model string, t Total) (err error) {
	if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
		return err
	}
	db, err := m.open()
	if err != nil {
		return err
	}
	defer db.Close()
	// Spend that happened is recorded even when the caller gives up.
	ctx = context.WithoutCancel(ctx)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err = tx.ExecContext(ctx, ledgerSchema); err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, `INSERT INTO spend (day, kind, model, usd, in_tokens, out_tokens, requests)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (day, kind, model) DO UPDATE SET usd = usd + excluded.usd,
			in_tokens = in_tokens + excluded.in_tokens, out_tokens = out_tokens + excluded.out_tokens,
			requests = requests + excluded.requests`,
		day, string(kind), model, t.USD, t.InTokens, t.OutTokens, t.Requests); err != nil {
		return err
	}
	return tx.Commit()
}

func (m *Meter) today(ctx context.Context, day string, kind Kind) (Total, error) {
	db, err := m.open()
	if err != nil {
		return Total{}, err
	}
	defer db.Close()
	// Reading the schema also fails on a file that is not a database.
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'spend'`).Scan(&tables); err != nil {
		return Total{}, err
	}
	if tables == 0 {
		// A ledger whose first Record was cut short before its table.
		return Total{}, nil
	}
	var t Total
	err = db.QueryRowContext(ctx, `SELECT COALESCE(SUM(usd), 0), COALESCE(SUM(in_tokens), 0),
		COALESCE(SUM(out_tokens), 0), COALESCE(SUM(requests), 0) FROM spend WHERE day = ? AND kind = ?`,
		day, string(kind)).Scan(&t.USD, &t.InTokens, &t.OutTokens, &t.Requests)
	return t, err
}
