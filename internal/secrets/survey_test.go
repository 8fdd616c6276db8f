package secrets

// The false-positive survey: every finding in a source tree that holds no
// live secret, such as the Go standard library (its test keys are real
// keys, so some private-key findings are expected).
//
//	CTX_SECRETS_SURVEY=$(go env GOROOT)/src go test -run=TestSurvey -v ./internal/secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

func TestSurvey(t *testing.T) {
	root := os.Getenv("CTX_SECRETS_SURVEY")
	if root == "" {
		t.Skip("set CTX_SECRETS_SURVEY to a source tree")
	}
	var files, bytesRead, withFindings, spans int
	byRule := map[string]int{}
	var elapsed time.Duration
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil || info.Size() > 1<<20 || !info.Mode().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		bytesRead += len(src)
		start := time.Now()
		fs := Find(p, src)
		elapsed += time.Since(start)
		if len(fs) == 0 {
			return nil
		}
		withFindings++
		rel, _ := filepath.Rel(root, p)
		for _, f := range fs {
			spans++
			byRule[f.Rule]++
			line := src[f.Start:f.End]
			if len(line) > 80 {
				line = line[:80]
			}
			t.Logf("%s:%d %s %q", rel, f.Line, f.Rule, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	for _, r := range rules {
		t.Logf("rule %s: %d", r, byRule[r])
	}
	t.Logf("%d files (%.1f MB), %d with findings, %d spans; scan %v (%.0f MB/s)",
		files, float64(bytesRead)/1e6, withFindings, spans, elapsed, float64(bytesRead)/1e6/elapsed.Seconds())
}
