package chunk

import (
	"math"
	"math/bits"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// A structural sketch summarises the shape of a chunk's syntax tree so
// that pattern search ("find code shaped like this") can compare any two
// chunks in a few nanoseconds, whatever their identifiers and literals.
//
// Features. Every named node inside the range gets a label: a category
// shared across languages where the grammars name one construct
// differently (if, loop, call, return, assign, binop, member, index,
// block, func, …; see [labelOf]); identifiers and literals become "id",
// "str", "num", "bool" and "nil", so renaming and changed constants do not
// change the sketch; comments are left out; wrappers that one grammar has
// and another lacks (expression_statement, parenthesised expressions) are
// transparent. A node yields four features: its label, its parent's label
// and its own (an edge), its grandparent's, parent's and own (a path of
// three), and its parent's label with its previous sibling's and its own
// (statement order).
//
// Sketch. The set of features is reduced by one-permutation MinHash:
// each feature is hashed once, the hash's top 8 bits pick one of
// [SketchBits] buckets and each bucket keeps its smallest hash; empty
// buckets borrow from the next full one (rotation densification). Each
// bucket then keeps one bit (b-bit MinHash with b = 1). Two sketches agree
// on a bucket with probability (1 + J)/2, J being the Jaccard similarity
// of their feature sets, so [Similarity] estimates J from the share of
// agreeing bits. At 32 bytes, one bit per bucket has the smallest
// variance of the ways to spend 256 bits (at J = 0.5: standard deviation
// 0.054 for 256×1 bit, 0.057 for 128×2, 0.067 for 64×4, 0.089 for 32×8,
// from the variance of the b-bit estimator in Li and König, "b-Bit
// Minwise Hashing", 2010, taking the buckets as independent).

// SketchBits is the number of one-bit MinHash buckets of a sketch.
const SketchBits = 256

// SketchBytes is the length of a sketch: [SketchBits] bits.
const SketchBytes = SketchBits / 8

// Similarity estimates the Jaccard similarity, in [0, 1], of the feature
// sets two sketches were made from (see the comment above SketchBits): 1
// for equal sketches, about 0 for unrelated code. It is 0 when either
// sketch is not [SketchBytes] long (a chunk of a file without a grammar
// has none).
func Similarity(a, b []byte) float64 {
	if len(a) != SketchBytes || len(b) != SketchBytes {
		return 0
	}
	diff := 0
	for i := 0; i+8 <= SketchBytes; i += 8 {
		diff += bits.OnesCount64(le64(a[i:]) ^ le64(b[i:]))
	}
	j := 1 - 2*float64(diff)/SketchBits
	return max(0, j)
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// labelKind says how the sketch treats a node type.
type labelKind uint8

const (
	labelNode        labelKind = iota // a feature, children walked
	labelLeaf                         // a feature, children ignored (literals)
	labelSkip                         // no feature, children ignored (comments)
	labelTransparent                  // no feature, children belong to the parent
)

// label is a node type's category: its hash and kind.
type label struct {
	h    uint64
	kind labelKind
}

// labelRule maps node type names containing any of its words to a
// category. Rules are tried in order; the first match wins.
type labelRule struct {
	words []string
	cat   string
	kind  labelKind
}

// labelRules normalise the node types of the 17 grammars. The words were
// read off the grammars' node-types (Go, Python, JavaScript, TypeScript,
// Java, Rust, C, C++, C#, Ruby, PHP, Kotlin, Swift, Scala, Lua, Elixir,
// Bash); a type no rule matches keeps its own name, which still matches
// within its language.
var labelRules = []labelRule{
	{[]string{"comment"}, "", labelSkip},
	{[]string{"expression_statement", "parenthesized_expression", "expression_list", "parenthesized"}, "", labelTransparent},
	{[]string{"string", "char_literal", "character_literal", "rune_literal", "template", "heredoc", "regex"}, "str", labelLeaf},
	{[]string{"integer", "float", "number", "int_literal", "decimal", "hex_literal", "imaginary", "numeric"}, "num", labelLeaf},
	{[]string{"true", "false", "boolean"}, "bool", labelLeaf},
	{[]string{"nil", "null", "none", "undefined", "unit"}, "nil", labelLeaf},
	{[]string{"identifier", "this", "self", "super", "variable_name", "simple_identifier", "field_name", "property_name"}, "id", labelLeaf},
	{[]string{"else"}, "else", labelNode},
	{[]string{"elif", "elsif", "else_if"}, "elif", labelNode},
	{[]string{"conditional_expression", "ternary"}, "cond", labelNode},
	{[]string{"for_clause", "range_clause", "for_in_clause", "loop_head"}, "loophead", labelNode},
	{[]string{"if"}, "if", labelNode},
	{[]string{"for", "while", "loop", "do_statement", "until", "repeat"}, "loop", labelNode},
	{[]string{"switch", "match", "when_expression", "case_statement"}, "switch", labelNode},
	{[]string{"case", "arm", "when", "default"}, "case", labelNode},
	{[]string{"return"}, "return", labelNode},
	{[]string{"break"}, "break", labelNode},
	{[]string{"continue", "next"}, "continue", labelNode},
	{[]string{"throw", "raise", "panic"}, "throw", labelNode},
	{[]string{"catch", "except", "rescue"}, "catch", labelNode},
	{[]string{"finally", "ensure"}, "finally", labelNode},
	{[]string{"try"}, "try", labelNode},
	{[]string{"lambda", "closure", "arrow_function", "func_literal", "anonymous_function", "function_expression", "block_argument"}, "lambda", labelNode},
	{[]string{"call", "invocation"}, "call", labelNode},
	{[]string{"argument"}, "args", labelNode},
	{[]string{"parameters", "parameter_list", "formal_parameters"}, "params", labelNode},
	{[]string{"parameter"}, "param", labelNode},
	{[]string{"augmented_assignment", "compound_assignment", "assignment_operator"}, "opassign", labelNode},
	{[]string{"inc_statement", "dec_statement", "update_expression", "increment", "decrement"}, "incdec", labelNode},
	{[]string{"assignment", "assign", "short_var_declaration"}, "assign", labelNode},
	{[]string{"binary", "comparison", "boolean_operator", "logical"}, "binop", labelNode},
	{[]string{"unary", "not_operator", "negation"}, "unop", labelNode},
	{[]string{"subscript", "index_expression", "element_reference", "array_access", "slice_expression"}, "index", labelNode},
	{[]string{"selector_expression", "member_expression", "attribute", "field_expression", "field_access", "member_access", "navigation_expression", "scoped"}, "member", labelNode},
	{[]string{"block", "compound_statement", "statement_list", "body", "suite"}, "block", labelNode},
	{[]string{"function", "method", "func_decl", "constructor"}, "func", labelNode},
	{[]string{"class", "struct", "interface", "trait", "impl", "object_declaration"}, "class", labelNode},
	{[]string{"dictionary", "object", "map", "hash", "composite_literal"}, "map", labelNode},
	{[]string{"list", "array", "tuple", "set", "vector", "slice_literal"}, "list", labelNode},
	{[]string{"pair", "keyed_element", "keyword_argument", "named_argument"}, "pair", labelNode},
	{[]string{"var_declaration", "let_declaration", "lexical_declaration", "variable_declaration", "local_variable", "declaration", "const"}, "decl", labelNode},
	{[]string{"import", "include", "use_declaration", "require"}, "import", labelNode},
	{[]string{"type"}, "type", labelNode},
}

// labelOf returns the category of a node type name.
func labelOf(typ string) label {
	switch typ {
	case "ERROR":
		return label{h: hashLabel("ERROR"), kind: labelNode}
	case "MISSING", "UNEXPECTED":
		return label{kind: labelSkip}
	}
	for _, r := range labelRules {
		for _, w := range r.words {
			if strings.Contains(typ, w) {
				return label{h: hashLabel(r.cat), kind: r.kind}
			}
		}
	}
	return label{h: hashLabel(typ), kind: labelNode}
}

// rootLabel is the label a file's top-level nodes see as their parent,
// whatever the language calls its root (source_file, module, program).
var rootLabel = hashLabel("root")

// hashLabel is FNV-1a 64 of s, mixed.
func hashLabel(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// mix64 is the splitmix64 finaliser: a bijection whose output bits each
// depend on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// sketcher accumulates the features of one range into MinHash buckets.
type sketcher struct {
	mins  [SketchBits]uint64
	n     int // features added
	stack []frame
	buf   []uint32 // walkSpans's output
}

// frame is an open node of the S-expression being read.
type frame struct {
	h    uint64 // label hash (0 for a transparent node)
	prev uint64 // label of its last child so far (0: none)
	kind labelKind
	// depth is the node's depth in the tree (the root's is 0).
	depth int
}

func (s *sketcher) reset() {
	for i := range s.mins {
		s.mins[i] = math.MaxUint64
	}
	s.n = 0
	s.stack = s.stack[:0]
}

// add records one feature hash.
func (s *sketcher) add(h uint64) {
	h = mix64(h)
	b := h >> 56
	if v := h & (1<<56 - 1); v < s.mins[b] {
		s.mins[b] = v
	}
	s.n++
}

// node records the features of a node with label l whose parent is
// parent, grandparent gp and previous sibling prev (0: none).
func (s *sketcher) node(l, parent, gp, prev uint64) {
	s.add(l ^ 0x9e3779b97f4a7c15)
	s.add(bits.RotateLeft64(parent, 17) ^ l ^ 0x3c6ef372fe94f82a)
	s.add(bits.RotateLeft64(gp, 34) ^ bits.RotateLeft64(parent, 17) ^ l ^ 0xa54ff53a5f1d36f1)
	s.add(bits.RotateLeft64(prev, 47) ^ bits.RotateLeft64(parent, 17) ^ l ^ 0x510e527fade682d1)
}

// effective returns the labels of the nearest non-transparent ancestors of
// the stack top: parent and grandparent, and the index of the parent
// frame (-1: none).
func (s *sketcher) effective() (parent, gp uint64, pi int) {
	pi = -1
	for i := len(s.stack) - 1; i >= 0; i-- {
		if s.stack[i].kind == labelTransparent {
			continue
		}
		if pi < 0 {
			pi = i
			parent = s.stack[i].h
			continue
		}
		gp = s.stack[i].h
		break
	}
	return parent, gp, pi
}

// pop drops the frames of depth d and deeper.
func (s *sketcher) pop(d int) {
	for len(s.stack) > 0 && s.stack[len(s.stack)-1].depth >= d {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// sum reduces the buckets to a sketch; nil when no feature was added.
func (s *sketcher) sum() []byte {
	if s.n == 0 {
		return nil
	}
	out := make([]byte, SketchBytes)
	for i := 0; i < SketchBits; i++ {
		v := s.mins[i]
		if v == math.MaxUint64 {
			// Rotation densification: the next full bucket's value,
			// mixed with the distance to it.
			for d := 1; d < SketchBits; d++ {
				if w := s.mins[(i+d)%SketchBits]; w != math.MaxUint64 {
					v = mix64(w + uint64(d)*0x9e3779b97f4a7c15)
					break
				}
			}
		}
		if v&1 != 0 {
			out[i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// sketchLabels builds a language's label table, indexed by symbol.
func (s *langSpec) sketchLabels() {
	n := s.lang.SymbolCount()
	s.symLabels = make([]label, n)
	for i := uint32(0); i < n; i++ {
		sym := sitter.Symbol(i)
		name := s.lang.SymbolName(sym)
		l := labelOf(name)
		if s.lang.SymbolType(sym) != sitter.SymbolTypeRegular {
			l = label{kind: labelSkip} // anonymous tokens: not in the S-expression
		}
		s.symLabels[i] = l
	}
}

// symLabel returns the label of n's node type.
func (s *langSpec) symLabel(n *sitter.Node) label {
	if sym := int(n.Symbol()); sym < len(s.symLabels) {
		return s.symLabels[sym]
	}
	if n.IsError() {
		return labelOf("ERROR")
	}
	return label{kind: labelSkip}
}

// span is a byte range [start, end) whose sketch is wanted.
type span struct{ start, end int }

// sketchSpans returns the sketch of each span (sorted, not overlapping)
// of the tree under root: the features of every named node that lies
// wholly inside the span (nodes straddling a span's edge contribute only
// their descendants that lie inside, and are the parents those see).
// The root itself is never a feature, so a file's chunks and a snippet
// parsed on its own are sketched alike. A span with no node gets nil.
func (s *langSpec) sketchSpans(sk *sketcher, root *sitter.Node, spans []span) [][]byte {
	out := make([][]byte, len(spans))
	if len(spans) == 0 || root == nil {
		return out
	}
	sk.buf = walkSpans(root, spans, sk.buf)
	sk.reset()
	sk.stack = append(sk.stack, frame{h: rootLabel, kind: labelNode, depth: 0})
	cur := -1
	skipBelow := -1 // depth of a skipped or leaf subtree's root
	for i := 0; i < len(sk.buf); i++ {
		e := sk.buf[i]
		if e == walkMark {
			if cur >= 0 {
				out[cur] = sk.sum()
			}
			i++
			cur = int(sk.buf[i])
			stack := sk.stack
			sk.reset()
			sk.stack = stack
			skipBelow = -1
			continue
		}
		sym, d := int(e&0xffff), int(e>>16&walkDepth)
		if skipBelow >= 0 {
			if d > skipBelow {
				continue
			}
			skipBelow = -1
		}
		sk.pop(d)
		l := label{kind: labelSkip}
		if sym < len(s.symLabels) {
			l = s.symLabels[sym]
		}
		if e&walkStraddle != 0 {
			// Context only: the parent its descendants inside a span see.
			if l.kind != labelNode {
				l = label{kind: labelTransparent}
			}
			sk.stack = append(sk.stack, frame{h: l.h, kind: l.kind, depth: d})
			continue
		}
		switch l.kind {
		case labelSkip:
			skipBelow = d
		case labelTransparent:
			sk.stack = append(sk.stack, frame{kind: labelTransparent, depth: d})
		default:
			parent, gp, pi := sk.effective()
			var prev uint64
			if pi >= 0 {
				prev = sk.stack[pi].prev
				sk.stack[pi].prev = l.h
			}
			sk.node(l.h, parent, gp, prev)
			if l.kind == labelLeaf {
				skipBelow = d
			} else {
				sk.stack = append(sk.stack, frame{h: l.h, kind: labelNode, depth: d})
			}
		}
	}
	if cur >= 0 {
		out[cur] = sk.sum()
	}
	return out
}
