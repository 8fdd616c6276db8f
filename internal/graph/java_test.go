package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestJVMImports(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, lang, src string
		want            []Import
	}{
		{"java", discover.LangJava, `/*
 * import not.This;
 */
package com.example.app;

import java.util.List;
import static com.example.util.Strings.join;
import com.example.model.*; // all of them
import com.example.model.Outer.Inner;
import  com . example . Spaced ;
/* import not.Here; */ import com.example.After;

@Deprecated
public class App {
    String s = "import not.Body;";
}
import com.example.NotAfterTheClass;
`, []Import{{"java.util.List", 6}, {"com.example.util.Strings.join", 7}, {"com.example.model.*", 8},
			{"com.example.model.Outer.Inner", 9}, {"com.example.Spaced", 10}, {"com.example.After", 11}}},
		{"java broken", discover.LangJava, "import ;\nimport a.b.C\nimport 1.2;\n", []Import{{"a.b.C", 2}}},
		{"kotlin", discover.LangKotlin, "#!/usr/bin/env kotlin\n@file:JvmName(\"X\")\npackage a.b\n\nimport a.c.D\nimport a.c.E as F\nimport a.`fun`.g\nimport a.c.*\n\nfun main() {}\nimport x.Y\n",
			[]Import{{"a.c.D", 5}, {"a.c.E", 6}, {"a.fun.g", 7}, {"a.c.*", 8}}},
		{"scala", discover.LangScala, "package a\nimport a.b.C, a.d._\nimport a.e.{F, G => H, _}\nimport a.f.{\n  I,\n  J\n}\nclass X {\n  import a.g.given\n  /* import no.Z */\n}\n",
			[]Import{{"a.b.C", 2}, {"a.d.*", 2}, {"a.e.F", 3}, {"a.e.G", 3}, {"a.e.*", 3}, {"a.f.I", 4}, {"a.f.J", 4}, {"a.g.*", 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, Imports(tc.lang, []byte(tc.src))); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestResolveJVM(t *testing.T) {
	t.Parallel()
	files := []string{
		"core/src/main/java/com/example/app/App.java",
		"core/src/main/java/com/example/model/User.java",
		"core/src/main/java/com/example/model/Outer.java",
		"core/src/test/java/com/example/model/UserTest.java",
		"web/src/main/kotlin/com/example/web/Routes.kt",
		"web/src/main/kotlin/com/example/web/helpers.kt",
		"web/src/main/java/com/example/model/User.java", // a second copy: the nearer one wins
		"scala/src/main/scala/org/demo/Main.scala",
		"src/main/resources/com/other/x.properties",
	}
	r := NewResolver(files, nil)
	for _, tc := range []struct {
		name, from, lang, spec string
		want                   Resolution
	}{
		{"class", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.User",
			Resolution{"core/src/main/java/com/example/model/User.java", true}},
		{"test source root", "core/src/test/java/com/example/model/UserTest.java", "java", "com.example.model.User",
			Resolution{"core/src/main/java/com/example/model/User.java", true}},
		{"nearest copy", "web/src/main/kotlin/com/example/web/Routes.kt", "kotlin", "com.example.model.User",
			Resolution{"web/src/main/java/com/example/model/User.java", true}},
		{"static member", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.User.NAME",
			Resolution{"core/src/main/java/com/example/model/User.java", true}},
		{"nested class", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.Outer.Inner",
			Resolution{"core/src/main/java/com/example/model/Outer.java", true}},
		{"wildcard package", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.*",
			Resolution{"core/src/main/java/com/example/model", true}},
		{"static wildcard", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.User.*",
			Resolution{"core/src/main/java/com/example/model/User.java", true}},
		{"java imports kotlin", "core/src/main/java/com/example/app/App.java", "java", "com.example.web.Routes",
			Resolution{"web/src/main/kotlin/com/example/web/Routes.kt", true}},
		{"kotlin top-level function", "web/src/main/kotlin/com/example/web/Routes.kt", "kotlin", "com.example.web.helper",
			Resolution{"web/src/main/kotlin/com/example/web", true}},
		{"scala", "scala/src/main/scala/org/demo/Main.scala", "scala", "org.demo.Main",
			Resolution{"scala/src/main/scala/org/demo/Main.scala", true}},
		{"internal, missing class", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.Gone",
			Resolution{"", true}},
		{"unknown package under a shared prefix", "core/src/main/java/com/example/app/App.java", "java", "com.example.gen.Proto",
			Resolution{}}, // com/example/gen is no source directory, and three segments must match
		{"jdk", "core/src/main/java/com/example/app/App.java", "java", "java.util.List", Resolution{}},
		{"library", "core/src/main/java/com/example/app/App.java", "java", "org.junit.Test", Resolution{}},
		{"no lowercase class file", "core/src/main/java/com/example/app/App.java", "java", "com.example.model.user.x",
			Resolution{"", true}},
		{"resources are not sources", "core/src/main/java/com/example/app/App.java", "java", "com.other.X", Resolution{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := r.Resolve(tc.from, tc.lang, tc.spec); got != tc.want {
				t.Errorf("Resolve(%s, %q) = %+v, want %+v", tc.from, tc.spec, got, tc.want)
			}
		})
	}
}
