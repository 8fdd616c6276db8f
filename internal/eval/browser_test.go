package eval

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestHTMLInBrowser opens the report in headless Chromium, takes a
// screenshot and checks that the metrics chart was drawn: each system's
// bars cover a good area of the screenshot in its colour. A control page
// (the same report with its charts taken out) must fail that check, so a
// blank page, an error page or a chart that did not render cannot pass.
// Without Chromium the test skips, unless CTX_REQUIRE_BROWSER=1 (set in
// CI) makes that a failure.
func TestHTMLInBrowser(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CTX_REQUIRE_BROWSER") == "1" {
			t.Fatalf("CTX_REQUIRE_BROWSER=1 and no chromium on PATH: install Debian's chromium package (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH: install Debian's chromium package (apt-get install chromium) to run this test")
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, testReport()); err != nil {
		t.Fatal(err)
	}
	// Five bars per system, the shortest scoring 0.4 on an axis to 1.35:
	// several thousand pixels each. A legend swatch alone is ~200.
	const minPixels = 4000
	t.Run("charts", func(t *testing.T) {
		t.Parallel()
		img := screenshot(t, bin, page.Bytes())
		for name, c := range Colors {
			n := countColor(img, c)
			t.Logf("%s: %d pixels", name, n)
			if n < minPixels {
				t.Errorf("%s's colour %v covers %d pixels of the screenshot, want at least %d: the chart did not render", name, c, n, minPixels)
			}
		}
	})
	t.Run("control without charts", func(t *testing.T) {
		t.Parallel()
		bare := regexp.MustCompile(`(?s)<svg.*?</svg>`).ReplaceAll(page.Bytes(), nil)
		img := screenshot(t, bin, bare)
		for name, c := range Colors {
			n := countColor(img, c)
			t.Logf("%s: %d pixels", name, n)
			if n >= minPixels {
				t.Errorf("without charts %s's colour %v still covers %d pixels: the check cannot tell a page without its chart", name, c, n)
			}
		}
	})
}

// screenshot renders html in headless Chromium in a 1000x620 window (the
// page's head and its first chart, the metrics) and returns the image.
func screenshot(t *testing.T, bin string, html []byte) image.Image {
	t.Helper()
	dir := t.TempDir()
	page := filepath.Join(dir, "eval.html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1000,620", "file://"+page)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if r := img.Bounds(); r.Dx() < 900 || r.Dy() < 500 {
		t.Fatalf("the screenshot is %v, want the 1000x620 window", r)
	}
	t.Cleanup(func() {
		if t.Failed() {
			keep := filepath.Join(os.TempDir(), "ctx-eval-"+filepath.Base(t.Name())+".png")
			if os.WriteFile(keep, b, 0o644) == nil {
				t.Logf("the screenshot is kept at %s", keep)
			}
		}
	})
	return img
}

// countColor counts the pixels of img within a small distance of c.
func countColor(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(r>>8, c.R)+absDiff(g>>8, c.G)+absDiff(bl>>8, c.B) <= 24 {
				n++
			}
		}
	}
	return n
}

func absDiff(a uint32, b uint8) uint32 {
	if a > uint32(b) {
		return a - uint32(b)
	}
	return uint32(b) - a
}
