package cli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ctx-dev/ctx/internal/engine"
)

// The symbol commands: def, refs, symbols and chunk. Definitions and
// references come from the engine's lookups over defined names and the
// text index (see engine.LookupMethod); imports from the import graph
// (ctx deps).

func newDefCmd(deps *Deps) *cobra.Command {
	var (
		hint         string
		limit        int
		asJSON, full bool
	)
	cmd := &cobra.Command{
		Use:   "def SYMBOL",
		Short: "Show where a symbol is defined",
		Long: `Show the definitions of SYMBOL (bare, like Shutdown, or qualified: http.Server,
(*Server).Shutdown, net/http.Serve, Class::method, Class#method, module.function, ns::Type),
best first. Qualifiers must name the definition's package, path or enclosing types, innermost
last; definitions they fit only loosely, or not at all, are listed after and labelled guesses.
Each answer says how it was resolved (exact, unique, overload, ambiguous, in-test, loose,
name-only, case-insensitive) with a confidence that is 1.00 only when nothing else fits. A
definition the index holds in several chunks is one answer with its whole span.`,
		Example: `  ctx def ReadMIMEHeader
  ctx def Server.Shutdown --hint net/http --full`,
		Args: exactArgs(1, "def needs one SYMBOL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := deps.engine()
			if err != nil {
				return err
			}
			defs, err := e.Definitions(cmd.Context(), args[0], hint, limit, full || asJSON)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, map[string]any{"symbol": args[0], "definitions": nonNil(defs), "method": engine.LookupMethod})
			}
			if len(defs) == 0 {
				// Said on stderr even when it is not a terminal: an
				// agent must not read empty output as an answer.
				fmt.Fprintf(deps.IO.ErrOut, "no definition of %s in the index of %s; check the spelling, try the bare name, or use ctx find\n", args[0], e.Root())
			}
			for _, d := range defs {
				fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s %s  [%s %.2f]\n", d.Path, d.StartLine, d.EndLine, d.Kind, d.Symbol, d.Resolution, d.Confidence)
				if full {
					printCode(deps.IO.Out, d.Code, d.StartLine)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&hint, "hint", "", "a file or directory near the definition you want")
	cmd.Flags().IntVarP(&limit, "limit", "n", 5, "most definitions")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&full, "full", false, "print each definition's code")
	return cmd
}

func newRefsCmd(deps *Deps) *cobra.Command {
	var (
		limit         int
		asJSON, noDef bool
		kinds         []string
		hint          string
	)
	cmd := &cobra.Command{
		Use:   "refs SYMBOL",
		Short: "List the lines that use a symbol",
		Long: `List every line that uses SYMBOL's bare name as a whole word (case-sensitive), found
through the index and confirmed in the current file text, with the enclosing definition and a
kind: call, import, definition or reference. A qualified SYMBOL ("(*Server).Shutdown",
"client.Retry") or --hint keeps the mentions of the definition it names: other same-named
definitions are left out, and so are Go calls resolved to another declaration.`,
		Example: `  ctx refs ReadMIMEHeader
  ctx refs Retry --kind call --no-def
  ctx refs "(*conn).serve" --hint net/http --kind call`,
		Args: exactArgs(1, "refs needs one SYMBOL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := deps.engine()
			if err != nil {
				return err
			}
			refs, err := e.References(cmd.Context(), engine.ReferenceQuery{Symbol: args[0], ExcludeDefinition: noDef, Kinds: kinds, Max: limit, Hint: hint})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, map[string]any{"symbol": args[0], "references": nonNil(refs), "method": engine.LookupMethod})
			}
			for _, r := range refs {
				in := ""
				if r.Enclosing != "" {
					in = " in " + r.Enclosing
				}
				// The definition a use is linked to, or that none is.
				link := ""
				switch {
				case r.Kind == "definition":
				case r.Definition != "":
					link = fmt.Sprintf("  -> %s (%.2f)", r.Definition, r.Confidence)
				default:
					link = "  (unlinked)"
				}
				fmt.Fprintf(deps.IO.Out, "%s:%d:%d  [%s%s]  %s%s\n", r.Path, r.Line, r.Column, r.Kind, in, r.Text, link)
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "n", 100, "most references")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&noDef, "no-def", false, "leave out the defining lines")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds: call, import, definition, reference")
	cmd.Flags().StringVar(&hint, "hint", "", "a file or directory near the definition you mean")
	return cmd
}

func newSymbolsCmd(deps *Deps) *cobra.Command {
	var (
		kinds  []string
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "symbols [PATH]",
		Short: "List the defined names of the repository or of a file or directory",
		Example: `  ctx symbols net/http/server.go
  ctx symbols net/http --kind function,method -n 50`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := deps.engine()
			if err != nil {
				return err
			}
			prefix := ""
			if len(args) == 1 {
				prefix = args[0]
			}
			syms, err := e.Symbols(cmd.Context(), kinds, prefix, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, map[string]any{"symbols": nonNil(syms)})
			}
			for _, s := range syms {
				fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s %s\n", s.Path, s.StartLine, s.EndLine, s.Kind, s.Symbol)
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds (function, method, class, struct, interface, type, const, var, …)")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "most symbols (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func newChunkCmd(deps *Deps) *cobra.Command {
	var asJSON, pathBytes bool
	cmd := &cobra.Command{
		Use:   "chunk FILE:LINE",
		Short: "Print the indexed chunk (function, class, block) that holds a line",
		Long: `Print the indexed chunk (function, class, block) that holds line LINE of FILE. A definition
the index holds in several chunks (a long function, a class around its members) is printed
whole up to 400 lines; a longer one prints the part holding LINE and says which part it is.

A file name that is not valid UTF-8 appears in JSON output with U+FFFD in "path" and its raw
bytes, base64-encoded, in "path_bytes"; pass that value as FILE with --path-bytes.`,
		Example: `  ctx chunk net/http/server.go:3199
  ctx chunk --path-bytes c3ViL2NhZekuZ28=:3`,
		Args: exactArgs(1, "chunk needs one FILE:LINE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The line follows the last colon: a file name may hold one.
			i := strings.LastIndexByte(args[0], ':')
			line, err := strconv.Atoi(args[0][i+1:])
			if i < 0 || err != nil || line < 1 {
				return flagError{fmt.Errorf("%q: want FILE:LINE with a 1-based line", args[0])}
			}
			file := args[0][:i]
			if pathBytes {
				if file, err = engine.DecodePathBytes(file); err != nil {
					return flagError{err}
				}
			}
			e, err := deps.engine()
			if err != nil {
				return err
			}
			h, err := e.ChunkAt(cmd.Context(), file, line)
			if err != nil {
				if !pathBytes && strings.ContainsRune(file, utf8.RuneError) {
					return fmt.Errorf("%w; a path with U+FFFD (\uFFFD) may stand for a file name that is not valid UTF-8: pass the result's path_bytes with --path-bytes", err)
				}
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, h)
			}
			switch {
			case h.Part > 0:
				fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s  (part %d of %d of the definition at L%d-L%d)\n", h.Path, h.StartLine, h.EndLine, h.Summary, h.Part, h.Parts, h.DefStartLine, h.DefEndLine)
			case h.Parts > 0:
				fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s  (whole definition: %d indexed parts)\n", h.Path, h.StartLine, h.EndLine, h.Summary, h.Parts)
			default:
				fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s\n", h.Path, h.StartLine, h.EndLine, h.Summary)
			}
			printCode(deps.IO.Out, h.Code, h.StartLine)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&pathBytes, "path-bytes", false, "FILE is the base64 path_bytes of a JSON result (a file name that is not valid UTF-8)")
	return cmd
}

// exactArgs requires n arguments, with msg as the usage error.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return flagError{fmt.Errorf("%s", msg)}
		}
		return nil
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func newCalleesCmd(deps *Deps) *cobra.Command {
	var (
		hint   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "callees SYMBOL",
		Short: "List the functions a definition calls, linked to their definitions",
		Long: `List the calls inside SYMBOL's best definition (near --hint), each with the definition it
links to and a confidence. A call is linked only through scope: for Go, the receiver's and
fields' declared types, the package and its imports (go/ast, no type checker); elsewhere the
caller's class, file and imports. Anything else is listed as external (outside the
repository), dynamic (a function value) or unresolved with the reason, never guessed.`,
		Example: `  ctx callees handleOrders`,
		Args:    exactArgs(1, "callees needs one SYMBOL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := deps.engine()
			if err != nil {
				return err
			}
			def, calls, err := e.Callees(cmd.Context(), args[0], hint, 0)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, map[string]any{"definition": def, "callees": nonNil(calls), "method": engine.CalleesMethod})
			}
			fmt.Fprintf(deps.IO.Out, "%s  L%d-L%d  %s %s calls:\n", def.Path, def.StartLine, def.EndLine, def.Kind, def.Symbol)
			for _, c := range calls {
				var to string
				switch {
				case c.Target != nil:
					to = fmt.Sprintf("-> %s %s (%.2f)", c.Definition, c.Target.Symbol, c.Confidence)
				case c.Reason != "":
					to = fmt.Sprintf("(%s: %s)", c.Resolution, c.Reason)
				default:
					to = "(" + c.Resolution + ")"
				}
				fmt.Fprintf(deps.IO.Out, "  L%-5d %s %s\n", c.Line, c.Name, to)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&hint, "hint", "", "a file or directory near the definition you want")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func newHierarchyCmd(deps *Deps) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hierarchy TYPE",
		Short: "Show what a type extends, implements or embeds, and what extends, implements or embeds it",
		Example: `  ctx hierarchy Reader
  ctx hierarchy BaseHandler --json`,
		Args: exactArgs(1, "hierarchy needs one TYPE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := deps.engine()
			if err != nil {
				return err
			}
			h, err := e.Hierarchy(cmd.Context(), args[0], 0)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(deps.IO.Out, h)
			}
			if d := h.Definition; d != nil {
				fmt.Fprintf(deps.IO.Out, "%s: %s %s at %s:%d  [%s %.2f]\n", h.Symbol, d.Kind, d.Symbol, d.Path, d.StartLine, d.Resolution, d.Confidence)
				for _, o := range h.Others {
					fmt.Fprintf(deps.IO.Out, "  also fits: %s %s at %s:%d (qualify the name to choose)\n", o.Kind, o.Symbol, o.Path, o.StartLine)
				}
			} else {
				fmt.Fprintf(deps.IO.Out, "%s: no type of that name in the index\n", h.Symbol)
			}
			for _, l := range h.Supertypes {
				fmt.Fprintf(deps.IO.Out, "  %s %s  (%s:%d)\n", l.Relation, l.Base, l.Path, l.Line)
			}
			fmt.Fprintf(deps.IO.Out, "subtypes (%d):\n", len(h.Subtypes))
			for _, l := range h.Subtypes {
				fmt.Fprintf(deps.IO.Out, "  %s %s %s  (%s:%d)\n", l.Type, l.Relation, l.Base, l.Path, l.Line)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}
