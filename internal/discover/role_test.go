package discover

import "testing"

func TestIsTestPath(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"net/http/server_test.go":           true,
		"test/format-test.cc":               true,
		"src/format-test.cc":                true,
		"absl/strings/str_cat_test.cc":      true,
		"base/foo_unittest.cc":              true,
		"pkg/tests/helpers.py":              true,
		"tests/test_api.py":                 true,
		"lib/parse_test.py":                 true,
		"src/__tests__/app.js":              true,
		"src/app.spec.ts":                   true,
		"src/app.test.tsx":                  true,
		"spec/models/user_spec.rb":          true,
		"core/src/test/scala/FooSpec.scala": true,
		"src/main/java/x/ParserTest.java":   true,
		"src/FooTests.cs":                   true,
		"js_tests/qunit/qunit.js":           true,
		"pkg/testdata/input.go":             true,
		"testdata/repo.txtar":               true,
		"lib/foo_test.exs":                  true,
		"pkg/foo.go":                        false,
		"include/fmt/format.h":              false,
		"pkg/testing/assert.go":             false,
		"src/attest.py":                     false,
		"contest/main.go":                   false,
		"specification/index.md":            false,
		"src/Latest.java":                   false,
		"lib/protest.rb":                    false,
		"src/latest_version.py":             false,
	}
	for p, want := range cases {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
