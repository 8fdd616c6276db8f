package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestIncludes(t *testing.T) {
	t.Parallel()
	src := `/* #include "no1.h"
 */
#include <stdio.h>
#include "local.h" // comment
  #  include   <sys/types.h>
#include_next <limits.h>
#import "objc.h"
#if 0
#include "conditional.h"
#endif
#include FOO_H
#include <>
// #include "no2.h"
const char *s = "#include \"no3.h\"";
const char *r = R"(
#include "no4.h"
)";
#include /* c */ "after_comment.h"
`
	want := []Import{{"<stdio.h>", 3}, {`"local.h"`, 4}, {"<sys/types.h>", 5}, {"<limits.h>", 6}, {`"objc.h"`, 7},
		{`"conditional.h"`, 9}, {`"after_comment.h"`, 18}}
	for _, lang := range []string{discover.LangC, discover.LangCPP} {
		if d := cmp.Diff(want, Imports(lang, []byte(src))); d != "" {
			t.Errorf("Imports(%s) (-want +got):\n%s", lang, d)
		}
	}
}

func TestResolveInclude(t *testing.T) {
	t.Parallel()
	files := []string{
		"src/main.c", "src/util.h", "src/net/conn.c", "src/net/conn.h",
		"include/proj/api.h", "include/proj/version.h", "lib/include/stdio.h",
		"third_party/zlib/zlib.h", "config.h", "proj2/types.h",
		"tests/util.h",
	}
	r := NewResolver(files, nil)
	checkResolve(t, r, discover.LangC, []resolveCase{
		{"same directory", "src/main.c", `"util.h"`, Resolution{"src/util.h", true}},
		{"relative subdirectory", "src/main.c", `"net/conn.h"`, Resolution{"src/net/conn.h", true}},
		{"relative parent", "src/net/conn.c", `"../util.h"`, Resolution{"src/util.h", true}},
		{"include root", "src/main.c", `"proj/api.h"`, Resolution{"include/proj/api.h", true}},
		{"any directory holding it", "src/main.c", `"zlib.h"`, Resolution{"third_party/zlib/zlib.h", true}},
		{"root", "src/net/conn.c", `"config.h"`, Resolution{"config.h", true}},
		{"nearest of two", "tests/x.c", `"util.h"`, Resolution{"tests/util.h", true}},
		{"quoted, generated", "src/main.c", `"gen/parser.h"`, Resolution{"", true}},
		{"quoted system header", "src/main.c", `"errno.h"`, Resolution{}},
		{"quoted system header the repository holds", "src/main.c", `"stdio.h"`, Resolution{"lib/include/stdio.h", true}},
		{"quoted above the root", "src/main.c", `"../../outside.h"`, Resolution{"", true}},
		{"angle under include/", "src/main.c", "<proj/version.h>", Resolution{"include/proj/version.h", true}},
		{"angle under a nested include/", "src/main.c", "<stdio.h>", Resolution{"lib/include/stdio.h", true}},
		{"angle at the root with a directory", "src/main.c", "<proj2/types.h>", Resolution{"proj2/types.h", true}},
		{"angle system header", "src/main.c", "<stdlib.h>", Resolution{}},
		{"angle not under include/", "src/main.c", "<util.h>", Resolution{}},
		{"angle not under include/, root", "src/main.c", "<config.h>", Resolution{}},
		{"angle above the root", "src/main.c", "<../x.h>", Resolution{}},
		{"malformed", "src/main.c", `""`, Resolution{}},
	})
}
