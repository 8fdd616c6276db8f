package chunk

// The sketch reads every named node of a chunk. Walking them through the
// Go binding costs a cgo call, an allocation and a map insertion per node
// (go-tree-sitter caches every *Node it hands out), and printing them with
// Node.String costs more: on the Go tree it added 10 to 13 CPU seconds to
// chunking's 21 to 23. This walk runs in C, in one call per file, and
// hands back the symbol and depth of each node the sketches need; on
// cmd/compile it is 11% of chunking's CPU time (profiled), most of it
// tree-sitter's own cursor steps.
//
// It reads the tree through tree-sitter's C API (lib/include/api.h of the
// tree-sitter that go-tree-sitter bundles), whose TSNode and TSTreeCursor
// layouts are declared here, and takes the TSNode out of a *sitter.Node,
// whose first field it is. TestSketchWalkLayout fails if a dependency
// update changes either.

/*
#include <stdbool.h>
#include <stdint.h>

typedef struct { uint32_t context[4]; const void *id; const void *tree; } ctxTSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } ctxTSTreeCursor;

ctxTSTreeCursor ts_tree_cursor_new(ctxTSNode node);
void ts_tree_cursor_delete(ctxTSTreeCursor *self);
ctxTSNode ts_tree_cursor_current_node(const ctxTSTreeCursor *self);
bool ts_tree_cursor_goto_parent(ctxTSTreeCursor *self);
bool ts_tree_cursor_goto_next_sibling(ctxTSTreeCursor *self);
bool ts_tree_cursor_goto_first_child(ctxTSTreeCursor *self);
uint16_t ts_node_symbol(ctxTSNode self);
bool ts_node_is_named(ctxTSNode self);
bool ts_node_is_missing(ctxTSNode self);

uint32_t ts_node_start_byte(ctxTSNode self);
uint32_t ts_node_end_byte(ctxTSNode self);

#define CTX_STRADDLE 0x40000000u
#define CTX_MARK 0xffffffffu
#define CTX_MAXDEPTH 0x3fffu

// ctx_walk writes the named nodes of the tree under root that matter to
// the sketches of the sorted, disjoint byte spans [spans[2i],
// spans[2i+1]), in preorder, as symbol | depth << 16 (the root's children
// have depth 1): every node wholly inside a span, with its descendants,
// and each node that overlaps a span without lying inside it, marked
// CTX_STRADDLE (its descendants are visited in turn; it gives context
// only). Before the first node of span i it writes CTX_MARK, i. Missing
// nodes are left out. It returns how many entries it wrote, or -1 when
// cap was too small.
static int ctx_walk(ctxTSNode root, const uint32_t *spans, int nspans, uint32_t *out, int cap) {
	ctxTSTreeCursor c = ts_tree_cursor_new(root);
	int k = 0, p = 0, cur = -1;
	uint32_t depth = 1, inside = 0;
	if (nspans == 0 || !ts_tree_cursor_goto_first_child(&c)) goto done;
	for (;;) {
		ctxTSNode n = ts_tree_cursor_current_node(&c);
		bool named = ts_node_is_named(n) && !ts_node_is_missing(n);
		bool descend = false;
		uint32_t d = depth < CTX_MAXDEPTH ? depth : CTX_MAXDEPTH;
		if (inside) {
			if (named) {
				if (k + 1 > cap) { k = -1; goto done; }
				out[k++] = (uint32_t)ts_node_symbol(n) | d << 16;
			}
			descend = true;
		} else {
			uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
			while (p < nspans && spans[2*p+1] <= a) p++;
			if (p >= nspans) goto done;
			if (named && a >= spans[2*p] && b <= spans[2*p+1]) {
				if (k + 3 > cap) { k = -1; goto done; }
				if (p != cur) {
					out[k++] = CTX_MARK;
					out[k++] = (uint32_t)p;
					cur = p;
				}
				out[k++] = (uint32_t)ts_node_symbol(n) | d << 16;
				inside = depth;
				descend = true;
			} else if (b > spans[2*p]) {
				if (named) {
					if (k + 1 > cap) { k = -1; goto done; }
					out[k++] = (uint32_t)ts_node_symbol(n) | d << 16 | CTX_STRADDLE;
				}
				descend = true;
			}
		}
		if (descend && ts_tree_cursor_goto_first_child(&c)) {
			depth++;
			continue;
		}
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (depth <= 1) goto done;
			ts_tree_cursor_goto_parent(&c);
			depth--;
		}
		if (inside && depth <= inside) inside = 0;
	}
done:
	ts_tree_cursor_delete(&c);
	return k;
}
*/
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Entries of [walkSpans]'s output.
const (
	walkStraddle = 0x40000000 // the node overlaps a span without lying inside it
	walkMark     = 0xffffffff // the next entry is a span index
	walkDepth    = 0x3fff     // depth mask, after a shift by 16
)

// walkSpans returns, in buf's storage when it is large enough, the named
// nodes under root that matter to the sketches of spans (byte ranges,
// sorted, disjoint), as ctx_walk above writes them.
func walkSpans(root *sitter.Node, spans []span, buf []uint32) []uint32 {
	if len(spans) == 0 {
		return buf[:0]
	}
	flat := make([]uint32, 2*len(spans))
	for i, sp := range spans {
		flat[2*i], flat[2*i+1] = uint32(sp.start), uint32(sp.end)
	}
	// A file of n bytes rarely has more than n/4 named nodes (Go: about
	// n/9); the walk tells when the buffer was short.
	if size := (spans[len(spans)-1].end-spans[0].start)/4 + 2*len(spans) + 64; cap(buf) < size {
		buf = make([]uint32, size)
	}
	cn := *(*C.ctxTSNode)(unsafe.Pointer(root))
	for {
		buf = buf[:cap(buf)]
		k := C.ctx_walk(cn, (*C.uint32_t)(unsafe.Pointer(&flat[0])), C.int(len(spans)),
			(*C.uint32_t)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
		if k >= 0 {
			return buf[:int(k)]
		}
		buf = make([]uint32, 2*len(buf))
	}
}
