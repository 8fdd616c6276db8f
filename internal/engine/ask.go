package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Freshness across processes. A watcher vouches for the edits made before
// a query by a barrier through its own event queue ([Engine.Watch]), which
// only a query in its process can pass. A query in another process (ctx
// find while ctx watch or a server runs) asks it instead: it creates a
// request file in the watcher's request directory beside the index; the
// watcher, seeing the file (after the query's edits were made, so its
// barrier comes after them), runs the same check and writes the answer
// beside it. Waiting is bounded by FreshWait; without an answer the query
// falls back to its own checks.

// askDir is where queries of other processes ask the watcher.
func (e *Engine) askDir() string { return e.dbPath + ".ask" }

// askAnswer is the watcher's answer to a request.
type askAnswer struct {
	Fresh bool   `json:"fresh"`
	Note  string `json:"note,omitempty"`
}

// serveAsks answers the requests of other processes until ctx is done.
func (e *Engine) serveAsks(ctx context.Context) error {
	dir := e.askDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := fw.Add(dir); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			e.log.Debug("freshness requests", "err", err)
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if !ev.Has(fsnotify.Create) || !strings.HasSuffix(ev.Name, ".req") {
				continue
			}
			go e.answerAsk(ctx, ev.Name)
		}
	}
}

func (e *Engine) answerAsk(ctx context.Context, req string) {
	fresh, ok, note := e.watchFreshness(ctx)
	if !ok {
		return // no word to give: the asker falls back to its own checks
	}
	b, _ := json.Marshal(askAnswer{Fresh: fresh, Note: note})
	done := strings.TrimSuffix(req, ".req") + ".done"
	tmp := done + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err == nil {
		_ = os.Rename(tmp, done)
	}
	os.Remove(req)
}

// askWatcher asks another process's watcher of the root whether every
// edit made before now is indexed. ok is false when no watcher answered
// within FreshWait (none runs, it polls, or it is busy).
func (e *Engine) askWatcher(ctx context.Context) (fresh, ok bool, note string) {
	if e.watcher() != nil {
		return false, false, "" // this engine's own watcher has answered
	}
	ws := e.WatchState()
	if ws == nil || ws.Mode != "events" || e.cfg.FreshWait <= 0 {
		return false, false, ""
	}
	dir := e.askDir()
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	base := filepath.Join(dir, fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(nonce[:])))
	done := base + ".done"
	defer os.Remove(done)
	if err := os.WriteFile(base+".req", nil, 0o644); err != nil {
		return false, false, ""
	}
	defer os.Remove(base + ".req")
	deadline := time.Now().Add(e.cfg.FreshWait)
	for wait := 200 * time.Microsecond; ; wait = min(2*wait, 20*time.Millisecond) {
		b, err := os.ReadFile(done)
		if err == nil {
			var a askAnswer
			if json.Unmarshal(b, &a) == nil {
				return a.Fresh, true, a.Note
			}
		} else if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) || ctx.Err() != nil {
			return false, false, ""
		}
		time.Sleep(wait)
	}
}
