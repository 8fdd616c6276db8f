package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// indexProgress returns the progress callback for an index run and the
// func that ends the bar. When show is false both do nothing; otherwise
// the bar is drawn on w from the first callback, after the optional note.
func indexProgress(w io.Writer, show bool, note string) (progress func(done, total int), finish func()) {
	return phaseProgress(w, show, note, "indexing")
}

// phaseProgress is indexProgress for a phase named desc ("indexing",
// "syncing to Weaviate").
func phaseProgress(w io.Writer, show bool, note, desc string) (progress func(done, total int), finish func()) {
	if !show {
		return func(int, int) {}, func() {}
	}
	var bar *progressbar.ProgressBar
	progress = func(done, total int) {
		if bar == nil {
			if note != "" {
				fmt.Fprintln(w, note)
			}
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
	finish = func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
	return progress, finish
}
