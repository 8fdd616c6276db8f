package chunk

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// role says how the walker treats a syntax node that is a child of the file
// or of a container body.
type role uint8

const (
	// roleFill is any statement that is not a definition: it is grouped
	// with its neighbours into a block (or into the enclosing container).
	roleFill role = iota
	// roleComment is a comment: filler that a following definition may
	// claim as its doc comment.
	roleComment
	// roleAttr is an attribute, decorator or annotation that stands before
	// a definition as a sibling (Rust #[...], TypeScript @dec in a class
	// body, Elixir @doc/@spec); it joins the next definition's range.
	roleAttr
	// roleDef is a definition whose kind is fixed by its node type and
	// whose name and body are the "name" and "body" fields.
	roleDef
	// roleCustom is a node that the language's resolver turns into a
	// definition or rejects as filler (Go type groups, JavaScript
	// declarations holding functions, Elixir calls such as def/defmodule).
	roleCustom
	// roleWrapper wraps a definition (export, decorators, templates): the
	// definition is one of its named children and the wrapper's range
	// becomes the definition's range.
	roleWrapper
	// roleTransparent holds statements of the enclosing scope (#ifdef
	// blocks, extern "C" { }, parse errors): its children are walked as if
	// they were the node's siblings.
	roleTransparent
	// roleBody is the member list of a container (class_body,
	// declaration_list, ...). Inside a container it is transparent;
	// elsewhere it is filler.
	roleBody
)

// nodeClass is what a language table says about one node type.
type nodeClass struct {
	role role
	kind Kind
	// container marks definitions whose members become chunks of their
	// own (classes, impls, modules, namespaces, ...).
	container bool
	// typ is the node type name, kept so resolvers can switch on it
	// without asking tree-sitter (which allocates) again.
	typ string
}

// def is a resolved definition.
type def struct {
	// node is the definition proper: its start is where the signature
	// starts. The range of the chunk is the range of the node the walker
	// met (a wrapper, when there is one), plus doc comment and attributes.
	node *sitter.Node
	// body is the node whose start ends the signature (nil: the signature
	// is the first line of node).
	body *sitter.Node
	kind Kind
	name string
	// symbol, when set, replaces the default qualification of name.
	symbol string
	// crumb, when set, is appended to the scope's breadcrumb (Go
	// receivers, C++ Class::method, Lua M.f).
	crumb string
	// sigPrefix is prepended to the signature ("type " for a Go type spec
	// inside a type ( ... ) group).
	sigPrefix string
	// doc, when set, replaces the doc comment above the definition
	// (Python docstrings, Elixir @doc).
	doc string
	// container: members become their own chunks. members is the node
	// whose children are walked for members (the definition node unless
	// set).
	container bool
	members   *sitter.Node
	// qualifies: a container whose name prefixes its members' symbols
	// (classes and the like, not namespaces).
	qualifies bool
	// bodiless marks a function-like definition without a body (an
	// abstract method, a prototype): inside containers it is filler.
	bodiless bool
	// decl marks a declaration that is never a chunk, wherever it
	// stands (a C prototype): it is filler, recorded as a Decl.
	decl bool
	// aliases are more names the definition gives ("a.x = a.y =
	// function", a Go interface's methods): Symbol, Name and lines set,
	// recorded as Decls with the definition's kind and breadcrumb unless
	// they set their own Kind, and Breadcrumb (appended to the scope's).
	aliases []Decl
	// transparent: the node is not one definition but holds several
	// (a Go type ( ... ) group); its children are walked in place, or
	// the children of members when set (the body of a JavaScript
	// wrapper function).
	transparent bool
	// scopeName, set on a file-scoped namespace (C# namespace X; PHP
	// namespace X;), names the scope of everything after it in the file.
	scopeName string
}

// langSpec is everything the walker knows about one tree-sitter language.
type langSpec struct {
	id      string
	grammar func() *sitter.Language
	// types maps node type names (named nodes only) to their class.
	types map[string]nodeClass
	// resolve turns a roleDef/roleCustom node into a definition; nil means
	// [defaultResolve].
	resolve func(w *walker, n *sitter.Node, cls nodeClass, sc *scope) (def, bool)
	// attrHook, when set, decides whether a roleAttr node really
	// attaches to the next definition, and returns the doc text it carries.
	attrHook func(w *walker, n *sitter.Node, sc *scope) (attr bool, doc string)
	// lineComments are the prefixes of line comments; notDoc are prefixes
	// of comment-like lines that never document the next definition
	// (Rust //! inner docs, shebangs, PHP #[ attributes).
	lineComments []string
	notDoc       []string
	// blockStart and blockEnd delimit block comments ("/*", "*/").
	blockStart, blockEnd string
	// docGap: a JSDoc block ("/** … */") separated from the definition
	// below it by one or two blank lines still documents it (JavaScript
	// and TypeScript code often leaves that line).
	docGap bool
	// mask, when set, returns the bytes tree-sitter parses instead of
	// the file's: the same length and lines, with constructs the grammar
	// misreads blanked (C and C++ specifier macros). Chunk text, names
	// and signatures still come from the file.
	mask func(src []byte) []byte
	// closers are words that may end a construct (Ruby "end"): a group of
	// lines holding only closers and punctuation joins the chunk above.
	closers []string

	once  sync.Once
	lang  *sitter.Language
	table []nodeClass // indexed by sitter.Symbol
	// symLabels are the structural sketch's categories of the node
	// types, by symbol (sketch.go).
	symLabels []label
}

// init builds the symbol table on first use.
func (s *langSpec) init() {
	s.once.Do(func() {
		s.lang = s.grammar()
		n := s.lang.SymbolCount()
		s.table = make([]nodeClass, n)
		for i := uint32(0); i < n; i++ {
			sym := sitter.Symbol(i)
			if s.lang.SymbolType(sym) != sitter.SymbolTypeRegular {
				continue
			}
			if c, ok := s.types[s.lang.SymbolName(sym)]; ok {
				c.typ = s.lang.SymbolName(sym)
				s.table[i] = c
			}
		}
		s.sketchLabels()
	})
}

// class returns the class of n; parse errors are transparent so that the
// definitions tree-sitter recovered inside them are still found.
func (s *langSpec) class(n *sitter.Node) nodeClass {
	sym := int(n.Symbol())
	if sym < len(s.table) {
		return s.table[sym]
	}
	if n.IsError() {
		return nodeClass{role: roleTransparent, typ: "ERROR"}
	}
	return nodeClass{}
}

// Shorthands for the language tables.
func fill() nodeClass                  { return nodeClass{role: roleFill} }
func comment() nodeClass               { return nodeClass{role: roleComment} }
func attr() nodeClass                  { return nodeClass{role: roleAttr} }
func wrapper() nodeClass               { return nodeClass{role: roleWrapper} }
func transparent() nodeClass           { return nodeClass{role: roleTransparent} }
func body() nodeClass                  { return nodeClass{role: roleBody} }
func defOf(k Kind) nodeClass           { return nodeClass{role: roleDef, kind: k} }
func containerOf(k Kind) nodeClass     { return nodeClass{role: roleDef, kind: k, container: true} }
func custom(k Kind) nodeClass          { return nodeClass{role: roleCustom, kind: k} }
func customContainer(k Kind) nodeClass { return nodeClass{role: roleCustom, kind: k, container: true} }

var specs = map[string]*langSpec{}

func register(s *langSpec) { specs[s.id] = s }
