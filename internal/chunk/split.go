package chunk

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// splitNode emits lines start..last, which hold node n (start may be above
// n for its doc comment), as pieces that each fit the definition limits.
//
// Each piece is filled as far as the limits allow and then cut at a
// boundary between children of n, preferring the shallowest level: a
// function is cut between the statements of its body, a statement too big
// for a piece between its own children, and a leaf (a huge string, a tree
// deeper than maxSplitDepth) between lines. The search for a cut asks
// tree-sitter for the child that holds the limit (a scan in C), so a node
// with a hundred thousand children costs a few calls per piece, not per
// child.
func (w *walker) splitNode(n *sitter.Node, start, last int, m *meta) {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	ps := max(start, w.cur)
	for ps < last && w.tooBig(ps, last) {
		cut := w.cutLine(c, n, ps, w.fitLast(ps, last)+1)
		w.emit(ps, cut-1, m)
		ps = cut
	}
	w.emit(ps, last, m)
}

// fitLast returns the last line of the longest run of lines from ps that
// fits the limits (at least ps itself).
func (w *walker) fitLast(ps, last int) int {
	t := min(ps+w.opts.MaxLines-1, last)
	for t > ps && w.li.size(ps, t) > w.opts.MaxBytes {
		t--
	}
	return t
}

// cutLine returns where the piece that starts at line ps should end: a
// line in (ps, lim] at which a child of n starts, or lim itself when no
// child boundary fits.
func (w *walker) cutLine(c *sitter.TreeCursor, n *sitter.Node, ps, lim int) int {
	off := uint32(w.li.start(lim))
	c.Reset(n)
	best := -1
	for depth := 0; depth < maxSplitDepth; depth++ {
		if c.GoToFirstChildForByte(off) < 0 {
			break
		}
		k := c.CurrentNode()
		kf, _ := w.nodeSpan(k)
		if kf < 0 || kf > lim {
			return lim // the limit falls between children: a clean cut
		}
		if kf > ps {
			best = kf
			if 2*(kf-ps) >= lim-ps {
				return kf // the piece is at least half full
			}
		}
		// k holds the limit and starts too early to cut before: look
		// for a later boundary among its children.
	}
	if best > ps {
		return best
	}
	return lim
}
