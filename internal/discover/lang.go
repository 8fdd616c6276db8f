package discover

import (
	"cmp"
	"path"
	"strings"

	"github.com/ctx-dev/ctx/internal/lazyre"
)

// Language identifiers returned by [Language]. Tree-sitter chunking exists for
// the first group; every other text file is chunked by the line-window
// fallback (Markdown by headings).
const (
	LangGo         = "go"
	LangPython     = "python"
	LangJavaScript = "javascript"
	LangTypeScript = "typescript"
	LangTSX        = "tsx"
	LangJava       = "java"
	LangRust       = "rust"
	LangC          = "c"
	LangCPP        = "cpp"
	LangCSharp     = "csharp"
	LangRuby       = "ruby"
	LangPHP        = "php"
	LangKotlin     = "kotlin"
	LangSwift      = "swift"
	LangScala      = "scala"
	LangLua        = "lua"
	LangElixir     = "elixir"
	LangBash       = "bash"

	LangMarkdown = "markdown"
	LangText     = "text"
)

// extLang maps a lower-case file extension (with its dot) to a language.
var extLang = map[string]string{
	".go":       LangGo,
	".py":       LangPython,
	".pyi":      LangPython,
	".pyw":      LangPython,
	".js":       LangJavaScript,
	".mjs":      LangJavaScript,
	".cjs":      LangJavaScript,
	".jsx":      LangJavaScript,
	".ts":       LangTypeScript,
	".mts":      LangTypeScript,
	".cts":      LangTypeScript,
	".tsx":      LangTSX,
	".java":     LangJava,
	".rs":       LangRust,
	".c":        LangC,
	".h":        LangC,
	".cc":       LangCPP,
	".cpp":      LangCPP,
	".cxx":      LangCPP,
	".c++":      LangCPP,
	".hh":       LangCPP,
	".hpp":      LangCPP,
	".hxx":      LangCPP,
	".ipp":      LangCPP,
	".inl":      LangCPP,
	".tcc":      LangCPP, // template definitions included by headers (libstdc++)
	".tpp":      LangCPP,
	".txx":      LangCPP,
	".cs":       LangCSharp,
	".rb":       LangRuby,
	".rake":     LangRuby,
	".gemspec":  LangRuby,
	".php":      LangPHP,
	".kt":       LangKotlin,
	".kts":      LangKotlin,
	".swift":    LangSwift,
	".scala":    LangScala,
	".sc":       LangScala,
	".lua":      LangLua,
	".ex":       LangElixir,
	".exs":      LangElixir,
	".sh":       LangBash,
	".bash":     LangBash,
	".zsh":      LangBash,
	".md":       LangMarkdown,
	".markdown": LangMarkdown,
	".mdx":      LangMarkdown,
}

// nameLang maps well-known extensionless or special file names to a language.
var nameLang = map[string]string{
	"Rakefile":      LangRuby,
	"Gemfile":       LangRuby,
	"Guardfile":     LangRuby,
	"Vagrantfile":   LangRuby,
	"Podfile":       LangRuby,
	"Fastfile":      LangRuby,
	"Brewfile":      LangRuby,
	".bashrc":       LangBash,
	".bash_profile": LangBash,
	".zshrc":        LangBash,
	".profile":      LangBash,
	"PKGBUILD":      LangBash,
}

// Language returns the language identifier for a slash-separated path, judged
// by its base name and extension: one of the Lang* constants, or
// [LangText] for any other file (which is chunked by line windows).
func Language(p string) string {
	base := path.Base(p)
	if l, ok := nameLang[base]; ok {
		return l
	}
	if l, ok := extLang[strings.ToLower(path.Ext(base))]; ok {
		return l
	}
	return LangText
}

// cppMarker matches a line that only C++ writes: a template, a named
// namespace, a class with a body or base list, an access specifier, or a
// name from std::.
var cppMarker = lazyre.New(`(?m)^[ \t]*(?:template[ \t]*<|namespace[ \t]+\w+[ \t]*\{|class[ \t]+\w+[^;(]*[{:]|(?:public|private|protected)[ \t]*:)|\bstd::\w`)

// ContentLanguage refines lang, chosen by [Language] from the path, with
// the file's content:
//   - a C header (.h) that uses C++ (templates, namespaces, classes,
//     access specifiers, std::) in its first 64 KiB is [LangCPP], so that
//     it is parsed with the C++ grammar;
//   - a file whose name gives no language ([LangText]) is the language
//     its first line names ([FirstLineLanguage]): a shebang naming an
//     interpreter ctx parses (#!/bin/sh, #!/usr/bin/env bash,
//     #!/usr/bin/python3, #!/usr/bin/env -S node --flag) or an Emacs mode
//     line ("# -*- shell-script -*-" atop a sourced shell library,
//     "// <vector> -*- C++ -*-" atop a C++ standard header): bin/ and
//     scripts/ tools and extensionless headers are code, not prose.
//
// Any other lang is returned as it is.
func ContentLanguage(p, lang string, src []byte) string {
	if lang == LangText {
		return cmp.Or(FirstLineLanguage(src), lang)
	}
	if lang != LangC || !strings.EqualFold(path.Ext(p), ".h") {
		return lang
	}
	if cppMarker().Match(src[:min(len(src), 64<<10)]) {
		return LangCPP
	}
	return lang
}

// interpreterLang maps an interpreter's name, version digits and dots
// trimmed from its end (python3.11 → python), to the language of its
// scripts.
var interpreterLang = map[string]string{
	"sh": LangBash, "bash": LangBash, "dash": LangBash, "ash": LangBash, "ksh": LangBash, "mksh": LangBash, "zsh": LangBash,
	"python": LangPython, "pypy": LangPython,
	"ruby": LangRuby, "jruby": LangRuby,
	"node": LangJavaScript, "nodejs": LangJavaScript,
	"php": LangPHP,
	"lua": LangLua, "luajit": LangLua,
	"elixir": LangElixir,
}

// modeLang maps an Emacs major mode, lower-cased, to the language of its
// files.
var modeLang = map[string]string{
	"sh": LangBash, "shell-script": LangBash, "bash": LangBash, "ksh": LangBash, "zsh": LangBash,
	"python": LangPython, "ruby": LangRuby, "js": LangJavaScript, "javascript": LangJavaScript,
	"php": LangPHP, "lua": LangLua, "elixir": LangElixir, "c": LangC, "c++": LangCPP,
}

// FirstLineLanguage returns the language src's first line names, or ""
// when it names none ctx parses:
//   - a shebang ("#!" and an interpreter's path, then arguments) of an
//     interpreter in interpreterLang; through env ("#!/usr/bin/env bash",
//     "#!/usr/bin/env -S node --no-warnings") the interpreter is env's
//     first argument that is neither an option nor a NAME=value setting;
//   - an Emacs mode line, "-*- MODE -*-" or "-*- mode: MODE; … -*-",
//     of a mode in modeLang.
func FirstLineLanguage(src []byte) string {
	line, _, _ := strings.Cut(string(src[:min(len(src), 256)]), "\n")
	if rest, ok := strings.CutPrefix(line, "#!"); ok {
		return shebangLanguage(rest)
	}
	_, mode, ok := strings.Cut(line, "-*-")
	if mode, _, ok = strings.Cut(mode, "-*-"); !ok {
		return ""
	}
	for _, v := range strings.Split(mode, ";") {
		k, val, isVar := strings.Cut(v, ":")
		if !isVar {
			val = k
		} else if !strings.EqualFold(strings.TrimSpace(k), "mode") {
			continue
		}
		return modeLang[strings.ToLower(strings.TrimSpace(val))]
	}
	return ""
}

// shebangLanguage is [FirstLineLanguage] of a shebang line, "#!" cut off.
func shebangLanguage(line string) string {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	name := path.Base(fields[0])
	if name == "env" {
		name = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue
			}
			name = path.Base(f)
			break
		}
	}
	return interpreterLang[strings.TrimRight(name, "0123456789.")]
}
