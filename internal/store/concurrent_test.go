package store_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctx-dev/ctx/internal/store"
)

// TestConcurrentReadersAndWriter runs readers on the pool while the one
// writer applies batches. Readers must never see "database is locked" (WAL
// lets them read the last commit) nor half a batch.
func TestConcurrentReadersAndWriter(t *testing.T) {
	t.Parallel()
	const (
		batches        = 12
		filesPerBatch  = 5
		chunksPerFile  = 4
		readers        = 4
		chunksPerBatch = filesPerBatch * chunksPerFile
	)
	ctx := t.Context()
	db := openDB(t)

	var (
		wg      sync.WaitGroup
		done    = make(chan struct{})
		errs    = make(chan error, readers+1)
		queries atomic.Int64
	)
	wg.Go(func() {
		defer close(done)
		for b := range batches {
			updates := make([]store.Update, filesPerBatch)
			for f := range updates {
				u := file(fmt.Sprintf("dir%d/file%d.go", b, f), "go")
				for c := range chunksPerFile {
					u.Chunks = append(u.Chunks, chunk(fmt.Sprintf("Func%d_%d_%d", b, f, c), 10*c, fmt.Sprintf("common batch%d part%d", b, c)))
				}
				updates[f] = u
			}
			// Every other batch also rewrites the previous batch's files,
			// so readers race deletions of postings too.
			if b > 0 && b%2 == 0 {
				for f := range filesPerBatch {
					u := file(fmt.Sprintf("dir%d/file%d.go", b-1, f), "go")
					for c := range chunksPerFile {
						u.Chunks = append(u.Chunks, chunk(fmt.Sprintf("Again%d_%d_%d", b, f, c), 10*c, fmt.Sprintf("common batch%d part%d", b-1, c)))
					}
					updates = append(updates, u)
				}
			}
			if err := db.Apply(ctx, updates); err != nil {
				errs <- fmt.Errorf("batch %d: %w", b, err)
				return
			}
		}
	})
	for r := range readers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				if err := readOnce(t, db, r, i); err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				queries.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	c, err := db.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != batches*filesPerBatch || c.Chunks != batches*chunksPerBatch {
		t.Errorf("Count after all batches = %+v, want %d files, %d chunks", c, batches*filesPerBatch, batches*chunksPerBatch)
	}
	compact(t, db)
	df, err := db.DocFreqs(ctx, []string{"common"})
	if err != nil {
		t.Fatal(err)
	}
	if df["common"] != batches*chunksPerBatch {
		t.Errorf("DocFreqs(common) = %d, want %d", df["common"], batches*chunksPerBatch)
	}
	t.Logf("%d reader rounds", queries.Load())
}

// readOnce runs one round of the reads the search path makes and checks
// that what it sees is made of whole batches.
func readOnce(t *testing.T, db *store.DB, reader, round int) error {
	ctx := t.Context()
	c, err := db.Count(ctx)
	if err != nil {
		return err
	}
	if c.Chunks != 4*c.Files || c.Files%5 != 0 {
		return fmt.Errorf("Count = %+v: not whole batches", c)
	}
	hits, err := db.SearchBM25(ctx, store.BM25Query{Terms: []string{"common", "part1"}, Weights: weights, Limit: 50})
	if err != nil {
		return err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	if _, err := db.Chunks(ctx, ids); err != nil {
		return err
	}
	if _, err := db.DocFreqs(ctx, []string{"common", fmt.Sprintf("batch%d", round%12)}); err != nil {
		return err
	}
	if _, err := db.ChunksByName(ctx, []string{fmt.Sprintf("func%d_0_0", round%12)}, 10); err != nil {
		return err
	}
	if _, err := db.FileChunks(ctx, fmt.Sprintf("dir%d/file%d.go", round%12, reader)); err != nil {
		return err
	}
	if _, err := db.FileStates(ctx); err != nil {
		return err
	}
	return nil
}
