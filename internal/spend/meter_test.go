package spend

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/config"
)

// clock is a settable time source for Meter.now.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func newMeter(cfg config.Spend, dir string, c *clock) *Meter {
	m := NewMeter(cfg, dir)
	if c != nil {
		m.now = c.now
	}
	return m
}

func TestCheckRunCap(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"", t.TempDir()} {
		m := NewMeter(config.Spend{LLMRun: 0.01}, dir)
		ctx := t.Context()
		if err := m.Check(ctx, LLM, 0.01); err != nil {
			t.Fatalf("Check(0.01) under a 0.01 cap: %v", err)
		}
		if err := m.Record(ctx, LLM, "gpt-4o-mini", 1000, 200, 1, 0.006); err != nil {
			t.Fatal(err)
		}
		if err := m.Check(ctx, LLM, 0.004); err != nil {
			t.Errorf("Check(0.004) after 0.006 of 0.01: %v", err)
		}
		err := m.Check(ctx, LLM, 0.0041)
		if !errors.Is(err, ErrCapExceeded) {
			t.Fatalf("Check(0.0041) after 0.006 of 0.01 = %v, want ErrCapExceeded", err)
		}
		for _, s := range []string{"llm run cap $0.0100", "spent $0.0060", "this request $0.0041", "CTX_SPEND_LLM_RUN"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not say %q", err, s)
			}
		}
		// Other kinds have their own caps.
		if err := m.Check(ctx, Embed, 1); err != nil {
			t.Errorf("Check(embed) with no embed caps: %v", err)
		}
		if diff := cmp.Diff(Total{USD: 0.006, InTokens: 1000, OutTokens: 200, Requests: 1}, m.Spent(LLM)); diff != "" {
			t.Errorf("Spent(LLM) (-want +got):\n%s", diff)
		}
		// A new run starts from nothing.
		if err := NewMeter(config.Spend{LLMRun: 0.01}, dir).Check(ctx, LLM, 0.01); err != nil {
			t.Errorf("a new Meter's run cap: %v", err)
		}
	}
}

func TestCheckDayCapAcrossMeters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Spend{RerankDay: 1}
	ctx := t.Context()
	a, b := NewMeter(cfg, dir), NewMeter(cfg, dir)
	if err := a.Record(ctx, Rerank, "rerank-v3.5", 0, 0, 300, 0.75); err != nil {
		t.Fatal(err)
	}
	// b is another process: it sees a's spend through the ledger.
	got, err := b.Today(ctx, Rerank)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Total{USD: 0.75, Requests: 300}, got); diff != "" {
		t.Errorf("b.Today (-want +got):\n%s", diff)
	}
	if err := b.Check(ctx, Rerank, 0.25); err != nil {
		t.Errorf("b.Check(0.25) after 0.75 of 1: %v", err)
	}
	err = b.Check(ctx, Rerank, 0.5)
	if !errors.Is(err, ErrCapExceeded) || !strings.Contains(err.Error(), "CTX_SPEND_RERANK_DAY") ||
		!strings.Contains(err.Error(), "spent $0.7500, this request $0.5000") {
		t.Errorf("b.Check(0.5) after 0.75 of 1 = %v, want ErrCapExceeded naming CTX_SPEND_RERANK_DAY", err)
	}
	if s := b.Spent(Rerank); s != (Total{}) {
		t.Errorf("b.Spent = %v, want nothing: b's run recorded nothing", s)
	}
	// Two models on one day add up.
	if err := b.Record(ctx, Rerank, "rerank-2", 1000, 0, 1, 0.125); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Today(ctx, Rerank); got.USD != 0.875 || got.Requests != 301 {
		t.Errorf("a.Today = %+v, want 0.875 over 301 requests", got)
	}
}

func TestDayRollover(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"", t.TempDir()} {
		c := &clock{t: time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC)}
		m := newMeter(config.Spend{EmbedDay: 1}, dir, c)
		ctx := t.Context()
		if err := m.Record(ctx, Embed, "text-embedding-3-small", 50_000_000, 0, 10, 1); err != nil {
			t.Fatal(err)
		}
		if err := m.Check(ctx, Embed, 0.0001); !errors.Is(err, ErrCapExceeded) {
			t.Fatalf("Check at the cap = %v, want ErrCapExceeded", err)
		}
		// Midnight UTC, whatever the local zone says.
		c.set(time.Date(2026, 11, 26, 0, 0, 1, 0, time.FixedZone("UTC-5", -5*3600)).Add(5 * time.Hour))
		if err := m.Check(ctx, Embed, 0.5); err != nil {
			t.Errorf("Check on the next UTC day: %v", err)
		}
		if got, _ := m.Today(ctx, Embed); got != (Total{}) {
			t.Errorf("Today on the next day = %+v, want zero", got)
		}
		if got := m.Spent(Embed); got.USD != 1 {
			t.Errorf("Spent = %+v; a run's totals do not roll over", got)
		}
	}
}

func TestConcurrentRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := t.Context()
	meters := []*Meter{NewMeter(config.Spend{}, dir), NewMeter(config.Spend{}, dir)}
	const perMeter, goroutines = 25, 4
	var wg sync.WaitGroup
	errs := make(chan error, len(meters)*goroutines*perMeter)
	for _, m := range meters {
		for range goroutines {
			wg.Go(func() {
				for range perMeter {
					// 0.25 is exact in binary: the sum must be exact too.
					errs <- m.Record(ctx, LLM, "gpt-4o", 100, 10, 1, 0.25)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	n := len(meters) * goroutines * perMeter
	want := Total{USD: 0.25 * float64(n), InTokens: 100 * n, OutTokens: 10 * n, Requests: n}
	got, err := NewMeter(config.Spend{}, dir).Today(ctx, LLM)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Today after concurrent Records (-want +got):\n%s", diff)
	}
	run := Total{USD: 0.25 * goroutines * perMeter, InTokens: 100 * goroutines * perMeter, OutTokens: 10 * goroutines * perMeter, Requests: goroutines * perMeter}
	for i, m := range meters {
		if diff := cmp.Diff(run, m.Spent(LLM)); diff != "" {
			t.Errorf("meter %d Spent (-want +got):\n%s", i, diff)
		}
	}
}

func TestCorruptLedger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, LedgerFile)
	junk := []byte(strings.Repeat("this is not a SQLite database\n", 200))
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewMeter(config.Spend{EmbedDay: 5}, dir)
	ctx := t.Context()
	if _, err := m.Today(ctx, Embed); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Today on a corrupt ledger = %v, want an error naming %s", err, path)
	}
	if err := m.Check(ctx, Embed, 0.01); err == nil || errors.Is(err, ErrCapExceeded) {
		t.Errorf("Check on a corrupt ledger = %v, want a ledger error", err)
	}
	if err := m.Record(ctx, Embed, "voyage-code-3", 10, 0, 1, 0.01); err == nil {
		t.Error("Record on a corrupt ledger succeeded")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(junk) {
		t.Error("the corrupt ledger was rewritten")
	}
}

func TestNoLedgerNoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := NewMeter(config.Spend{EmbedDay: 5}, dir)
	if err := m.Check(t.Context(), Embed, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LedgerFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check created the ledger (stat: %v)", err)
	}
}
