package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestRustImports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      []Import
	}{
		{"items", `//! use not::Doc;
use std::io;
pub use crate::a::b;
pub(crate) use self::c::*;
use super::d as e;
use ::serde::Serialize;
#[cfg(test)] use crate::f;
extern crate alloc;
extern crate self as me;
mod g;
pub mod h;
let s = "use not::Str;";
/* use not::Block; */
`, []Import{{"std::io", 2}, {"crate::a::b", 3}, {"self::c::*", 4}, {"super::d", 5}, {"::serde::Serialize", 6},
			{"crate::f", 7}, {"extern crate alloc", 8}, {"mod g", 10}, {"mod h", 11}}},
		{"groups", `use std::{io::{self, Read as R}, fs};
use crate::{
    a::B,
    c::{d, e::*},
};
use {x, y::z};
use crate::{};
`, []Import{{"std::io", 1}, {"std::io::Read", 1}, {"std::fs", 1}, {"crate::a::B", 2}, {"crate::c::d", 2},
			{"crate::c::e::*", 2}, {"x", 6}, {"y::z", 6}}},
		{"inline modules", `mod outer {
    use super::top;
    mod inner {
        use super::super::x;
        use super::y;
        use self::z;
        mod file;
    }
    use crate::w;
}
#[cfg(test)]
mod tests {
    use super::*;
}
use self::after;
`, []Import{{"self::top", 2}, {"self::x", 4}, {"self::outer::y", 5}, {"self::outer::inner::z", 6},
			{"mod outer::inner::file", 7}, {"crate::w", 9}, {"self::*", 13}, {"self::after", 15}}},
		{"super beyond inline modules", "mod m {\n    use super::super::q;\n}\n", []Import{{"super::q", 2}}},
		{"path attribute", "#[path = \"sys/unix.rs\"]\nmod sys;\n#[cfg(x)]\n#[path = \"a.rs\"]\n#[allow(dead_code)]\nmod a;\nmod b { #[path = \"no.rs\"] mod c; }\n",
			[]Import{{`mod "sys/unix.rs"`, 2}, {`mod "a.rs"`, 6}}},
		{"not imports", `macro_rules! m { () => { use $crate::x; } }
fn f() { let used = 1; mod_thing(); }
let s = "
use not::Spanning;
";
let r = r#"
mod not_raw;
"#;
fn g<'a>(x: &'a str) -> char { '{' }
use after::strings;
`, []Import{{"after::strings", 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, Imports(discover.LangRust, []byte(tc.src))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestResolveRust(t *testing.T) {
	t.Parallel()
	files := []string{
		"Cargo.toml", "src/lib.rs", "src/main.rs", "src/a.rs", "src/a/b.rs", "src/c/mod.rs", "src/c/d.rs",
		"src/sys/unix.rs", "src/bin/tool.rs", "src/bin/big/main.rs", "src/bin/big/cli.rs", "build.rs",
		"tests/it.rs", "tests/common/mod.rs", "examples/demo.rs",
		"crates/my-util/Cargo.toml", "crates/my-util/src/lib.rs", "crates/my-util/src/fmt.rs",
	}
	r := NewResolver(files, nil)
	checkResolve(t, r, discover.LangRust, []resolveCase{
		{"crate module", "src/a/b.rs", "crate::c::d::Thing", Resolution{"src/c/d.rs", true}},
		{"crate mod.rs", "src/a.rs", "crate::c", Resolution{"src/c/mod.rs", true}},
		{"crate item in the root", "src/a.rs", "crate::Error", Resolution{"src/lib.rs", true}},
		{"crate glob", "src/a.rs", "crate::a::b::*", Resolution{"src/a/b.rs", true}},
		{"self child", "src/a.rs", "self::b::f", Resolution{"src/a/b.rs", true}},
		{"self item", "src/a.rs", "self::Local", Resolution{"src/a.rs", true}},
		{"super", "src/a/b.rs", "super::helper", Resolution{"src/a.rs", true}},
		{"super from mod.rs", "src/c/d.rs", "super::super::a", Resolution{"src/a.rs", true}},
		{"super glob from tests module", "src/a.rs", "self::*", Resolution{"src/a.rs", true}},
		{"super past the root", "src/a.rs", "super::super::x", Resolution{"", true}},
		{"mod file", "src/lib.rs", "mod a", Resolution{"src/a.rs", true}},
		{"mod dir", "src/lib.rs", "mod c", Resolution{"src/c/mod.rs", true}},
		{"mod of a non-mod-rs file", "src/a.rs", "mod b", Resolution{"src/a/b.rs", true}},
		{"mod of mod.rs", "src/c/mod.rs", "mod d", Resolution{"src/c/d.rs", true}},
		{"mod missing", "src/lib.rs", "mod gone", Resolution{"", true}},
		{"mod in inline module", "src/lib.rs", "mod a::b", Resolution{"src/a/b.rs", true}},
		{"mod path attribute", "src/lib.rs", `mod "sys/unix.rs"`, Resolution{"src/sys/unix.rs", true}},
		{"mod path attribute escaping", "src/lib.rs", `mod "../../x.rs"`, Resolution{"", true}},
		{"2018 child module", "src/lib.rs", "a::b::X", Resolution{"src/a/b.rs", true}},
		{"bin root", "src/bin/tool.rs", "crate::x", Resolution{"src/bin/tool.rs", true}},
		{"bin dir", "src/bin/big/main.rs", "mod cli", Resolution{"src/bin/big/cli.rs", true}},
		{"bin dir module", "src/bin/big/cli.rs", "crate::Args", Resolution{"src/bin/big/main.rs", true}},
		{"main beside lib", "src/main.rs", "crate::run", Resolution{"src/main.rs", true}},
		{"test crate module", "tests/it.rs", "mod common", Resolution{"tests/common/mod.rs", true}},
		{"build script", "build.rs", "crate::x", Resolution{"build.rs", true}},
		{"workspace crate", "src/a.rs", "my_util::fmt::pad", Resolution{"crates/my-util/src/fmt.rs", true}},
		{"workspace crate root item", "examples/demo.rs", "my_util::Thing", Resolution{"crates/my-util/src/lib.rs", true}},
		{"workspace crate, leading ::", "src/a.rs", "::my_util::fmt", Resolution{"crates/my-util/src/fmt.rs", true}},
		{"extern crate in workspace", "src/lib.rs", "extern crate my_util", Resolution{"crates/my-util/src/lib.rs", true}},
		{"nested crate's own crate::", "crates/my-util/src/fmt.rs", "crate::Thing", Resolution{"crates/my-util/src/lib.rs", true}},
		{"std", "src/a.rs", "std::io::Read", Resolution{}},
		{"external crate", "src/a.rs", "serde::Serialize", Resolution{}},
		{"extern crate external", "src/lib.rs", "extern crate libc", Resolution{}},
		{"not a child of this module", "src/a.rs", "c::d", Resolution{}}, // Rust 2015 crate-relative: not followed
	})
}

// TestResolveRustCrateNames: declared crate names replace the directory
// convention, so a crate in a directory named otherwise resolves, the
// root crate is known in its tests, and an external crate that shares
// a workspace directory's name stays external.
func TestResolveRustCrateNames(t *testing.T) {
	t.Parallel()
	files := []string{"Cargo.toml", "src/lib.rs", "src/walk.rs", "tests/it.rs",
		"crates/matcher/Cargo.toml", "crates/matcher/src/lib.rs", "crates/regex/Cargo.toml", "crates/regex/src/lib.rs"}
	r := NewResolver(files, nil)
	r.SetCrateNames(map[string]string{"": "mytool", "crates/matcher": "grep_matcher", "crates/regex": "grep_regex"})
	for _, tc := range []struct {
		from, spec string
		want       Resolution
	}{
		{"tests/it.rs", "mytool::walk::Walker", Resolution{"src/walk.rs", true}},
		{"src/walk.rs", "grep_matcher::Matcher", Resolution{"crates/matcher/src/lib.rs", true}},
		{"src/walk.rs", "regex::Regex", Resolution{}}, // the regex crate, not crates/regex
		{"src/walk.rs", "matcher::Matcher", Resolution{}},
	} {
		if got := r.Resolve(tc.from, discover.LangRust, tc.spec); got != tc.want {
			t.Errorf("Resolve(%s, %q) = %+v, want %+v", tc.from, tc.spec, got, tc.want)
		}
	}
}

func TestCrateName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"[package]\nname = \"grep-matcher\" # comment\nversion = \"0.1\"\n", "grep_matcher"},
		{"[package]\nname = \"pkg\"\n\n[lib]\nname = \"libname\"\n", "libname"},
		{"[dependencies]\nname = \"x\"\n[package]\nversion = \"1\"\n", ""},
		{"[workspace]\nmembers = [\"a\"]\n", ""},
		{"[package]\nname = \"bad name\"\n", ""},
		{"\x00\xff[package\nname=", ""},
	} {
		if got := CrateName([]byte(tc.src)); got != tc.want {
			t.Errorf("CrateName(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}
