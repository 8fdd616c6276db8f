package graph

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctx-dev/ctx/internal/discover"
)

func TestRubyRequires(t *testing.T) {
	t.Parallel()
	src := `# require "not/comment"
require "json"
require 'mygem/version'
require_relative "helper"
require_relative '../lib/mygem'
require("paren")
  require_relative "./indented"
=begin
require "not/doc"
=end
require "interp/#{name}"
x = "require 'not/string'"
require_relative "after"
`
	want := []Import{{"json", 2}, {"mygem/version", 3}, {"./helper", 4}, {"../lib/mygem", 5}, {"paren", 6},
		{"./indented", 7}, {"./after", 13}}
	if d := cmp.Diff(want, Imports(discover.LangRuby, []byte(src))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestResolveRuby(t *testing.T) {
	t.Parallel()
	files := []string{"lib/mygem.rb", "lib/mygem/version.rb", "test/helper.rb", "test/unit_test.rb",
		"plugins/extra/lib/extra.rb", "Rakefile"}
	r := NewResolver(files, nil)
	checkResolve(t, r, discover.LangRuby, []resolveCase{
		{"relative", "test/unit_test.rb", "./helper", Resolution{"test/helper.rb", true}},
		{"relative parent", "test/unit_test.rb", "../lib/mygem", Resolution{"lib/mygem.rb", true}},
		{"relative with extension", "test/unit_test.rb", "./helper.rb", Resolution{"test/helper.rb", true}},
		{"relative missing", "test/unit_test.rb", "./gone", Resolution{"", true}},
		{"relative above the root", "test/unit_test.rb", "../../x", Resolution{"", true}},
		{"load path", "test/unit_test.rb", "mygem/version", Resolution{"lib/mygem/version.rb", true}},
		{"nested lib", "Rakefile", "extra", Resolution{"plugins/extra/lib/extra.rb", true}},
		{"gem", "test/unit_test.rb", "json", Resolution{}},
		{"test load path", "test/unit_test.rb", "helper", Resolution{"test/helper.rb", true}},
		{"not on a load path", "Rakefile", "plugins/extra", Resolution{}},
	})
}
