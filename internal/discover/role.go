package discover

import (
	"path"
	"strings"
)

// IsTestPath reports whether the slash-separated path p (relative to the
// root) is a test file or test data in one of the common layouts:
//
//   - a file stem ending in _test, _tests, -test, _spec, _unittest, .test or
//     .spec (foo_test.go, format-test.cc, app.spec.ts, foo_unittest.cc) or
//     starting with test_ (test_parse.py); a Java, Kotlin, Scala or C# stem
//     ending in Test, Tests or Spec (ParserTest.java);
//   - a directory named test, tests, __tests__, spec, specs, testdata or
//     ending in _test or _tests (js_tests/, unit_tests/), or src/test/.
//
// pkg/testing/, contest/ and attest.py are not tests.
func IsTestPath(p string) bool {
	base := path.Base(p)
	stem := base
	if i := strings.IndexByte(base, '.'); i > 0 {
		stem = base[:i]
	}
	ext := path.Ext(base)
	ls := strings.ToLower(stem)
	lb := strings.ToLower(base)
	switch {
	case strings.HasSuffix(ls, "_test"), strings.HasSuffix(ls, "_tests"), strings.HasSuffix(ls, "-test"),
		strings.HasSuffix(ls, "_spec"), strings.HasSuffix(ls, "_unittest"), strings.HasPrefix(ls, "test_"),
		strings.Contains(lb, ".test."), strings.Contains(lb, ".spec."):
		return true
	}
	switch ext {
	case ".java", ".kt", ".scala", ".cs":
		if strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "Spec") {
			return true
		}
	}
	dirs := strings.Split(strings.ToLower(path.Dir(p)), "/")
	for i, d := range dirs {
		switch {
		case d == "test" || d == "tests" || d == "__tests__" || d == "spec" || d == "specs" || d == "testdata":
			return true
		case strings.HasSuffix(d, "_test") || strings.HasSuffix(d, "_tests"):
			return true
		case d == "src" && i+1 < len(dirs) && dirs[i+1] == "test":
			return true
		}
	}
	return false
}
