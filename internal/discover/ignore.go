package discover

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore files are matched with go-git's gitignore package: it is maintained,
// it knows the directory a pattern came from (so nested files apply relative
// to their directory), and it handles negation, anchoring, trailing slashes
// and "**". The walk supplies the rest of git's semantics: an ignored
// directory is never entered, so a negation below it has no effect.
//
// go-git's matcher is written for callers that match every path from the top
// and stop at the first excluded directory's contents by other means: it tries
// a pattern without a slash against every component of the path, lets a
// pattern with a slash match a prefix of it, and lets a pattern with a
// trailing slash match files below a matching directory. For exclusions that
// is harmless here (the walk never gets below an excluded directory), but it
// would let "!*/", "!docs/*" or "!keep" re-include the files inside the
// directories they name. So each rule records which components go-git gets to
// see (see rule and rules.match); the pattern matching itself stays go-git's.
// TestIgnoreMatchesGit compares the result with git on random trees. One
// divergence is left: a negated pattern with "**" in the middle ("!a/**/b/c")
// can still re-include a path that merely ends like it (a/b/c/x/c).

const (
	gitignoreFile = ".gitignore"
	ctxignoreFile = ".ctxignore"
)

// rule is one ignore pattern and where it came from.
type rule struct {
	pat gitignore.Pattern
	src string // file:line: pattern, for the skip detail
	// depth is the number of components of the directory the pattern is
	// relative to (its domain). Every rule that match sees comes from an
	// ancestor of the path, so the path always starts with the domain.
	depth int
	// tail > 0 means the pattern was parsed without its domain and is
	// matched against the last tail components only: 1 for a pattern
	// without a slash, which git matches against the base name, and the
	// number of segments after a leading "**/" otherwise.
	tail int
	// segs > 0 means the pattern has a slash and no "**", so it matches
	// paths exactly segs components below its domain.
	segs int
	// last, for other patterns with "**", is the last segment: a path whose
	// last component it does not match can only match a prefix.
	last string
	// dirOnly is set for a pattern with a trailing slash. It matches
	// directories only; what is below them the walk never visits.
	dirOnly bool
}

// rules is a list of patterns in increasing priority. A directory's list is
// its parent's plus the patterns of its own ignore file; lists are never
// modified once built, so children share their parent's backing array.
type rules []rule

// with returns rs followed by more, without modifying rs.
func (rs rules) with(more []rule) rules {
	if len(more) == 0 {
		return rs
	}
	out := make(rules, 0, len(rs)+len(more))
	return append(append(out, rs...), more...)
}

// match reports whether path (components relative to the patterns' base) is
// excluded, and by which pattern. The last matching pattern decides, as in
// git; a negated match means not excluded.
func (rs rules) match(path []string, isDir bool) (string, bool) {
	n := len(path)
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		p := path
		switch {
		case r.dirOnly && !isDir:
			continue
		case r.tail > 0:
			if n-r.depth < r.tail {
				continue
			}
			p = path[n-r.tail:]
		case r.segs > 0 && n-r.depth != r.segs:
			continue
		case r.last != "":
			if ok, _ := filepath.Match(r.last, path[n-1]); !ok {
				continue
			}
		}
		switch r.pat.Match(p, isDir) {
		case gitignore.Exclude:
			return r.src, true
		case gitignore.Include:
			return "", false
		}
	}
	return "", false
}

// parseIgnore parses gitignore-syntax text. label names the file in skip
// details and domain holds the components of the directory its patterns are
// relative to.
func parseIgnore(data []byte, label string, domain []string) []rule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []rule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, newRule(line, fmt.Sprintf("%s:%d: %s", label, n, line), domain))
	}
	return out
}

// newRule parses one pattern line and decides which components of a path
// go-git gets to match it against.
func newRule(line, src string, domain []string) rule {
	neg, body := "", line
	if strings.HasPrefix(body, "!") {
		neg, body = "!", body[1:]
	}
	if !strings.HasSuffix(body, "\\ ") {
		body = strings.TrimRight(body, " ")
	}
	dirOnly := ""
	if strings.HasSuffix(body, "/") {
		dirOnly, body = "/", strings.TrimSuffix(body, "/")
	}
	// In git "dir/**" matches everything inside dir but not dir itself, so
	// "!dir/keep" can re-include dir/keep; go-git matches dir too, which
	// would prune the whole directory. "dir/**/*" means the same in git and
	// go-git matches it correctly.
	if strings.HasSuffix(body, "/**") {
		body += "/*"
	}
	// git negates a bracket expression with "[!...]" as well as "[^...]";
	// filepath.Match, underneath go-git, knows only the latter.
	body = strings.ReplaceAll(body, "[!", "[^")

	r := rule{src: src, depth: len(domain), dirOnly: dirOnly != ""}
	switch {
	case !strings.Contains(body, "/"):
		r.tail = 1
	case strings.HasPrefix(body, "**/") && !strings.Contains(body[3:], "**"):
		// "**/a/b" matches a/b at any depth: the same as "a/b" against the
		// last two components.
		body = body[3:]
		r.tail = strings.Count(body, "/") + 1
	case !strings.Contains(body, "**"):
		r.segs = strings.Count(strings.TrimPrefix(body, "/"), "/") + 1
	default:
		// "a/**/b": the path must at least end in a component that the
		// last segment matches, or go-git matched a prefix of it.
		r.last = body[strings.LastIndex(body, "/")+1:]
	}
	if r.tail > 0 {
		r.pat = gitignore.ParsePattern(neg+body+dirOnly, nil)
	} else {
		r.pat = gitignore.ParsePattern(neg+body+dirOnly, domain)
	}
	return r
}

// readIgnore reads and parses one ignore file. A missing or unreadable file
// has no patterns: git ignores those too.
func readIgnore(file, label string, domain []string) []rule {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return parseIgnore(data, label, domain)
}

// outerRules loads the git ignore rules that apply to root from outside it:
// .git/info/exclude of the enclosing work tree and the .gitignore files of
// the directories from the work tree's top down to root's parent (root's own
// .gitignore is read by the walk). prefix is root's path below the top, the
// base that these rules match against. If root itself lies in an ignored
// directory the user has chosen it explicitly, so the outer .gitignore files
// are dropped rather than ignoring everything.
func outerRules(root string) (rs rules, prefix []string) {
	top, ok := gitTop(root)
	if !ok {
		return nil, nil
	}
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		prefix = strings.Split(filepath.ToSlash(rel), "/")
	}
	dir, up := top, strings.Repeat("../", len(prefix))
	rs = rules(nil).with(readIgnore(infoExclude(top), up+".git/info/exclude", nil))
	for i := range prefix {
		label := up + gitignoreFile
		rs = rs.with(readIgnore(filepath.Join(dir, gitignoreFile), label, prefix[:i]))
		if _, ignored := rs.match(prefix[:i+1], true); ignored {
			return nil, prefix
		}
		dir, up = filepath.Join(dir, prefix[i]), up[3:]
	}
	return rs, prefix
}

// gitTop returns the nearest directory at or above dir (an absolute, clean
// path) that holds a .git entry: a directory, or a file in worktrees and
// submodules.
func gitTop(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// infoExclude returns the path of the info/exclude file of the work tree at
// top. In a linked worktree or submodule .git is a file naming the git
// directory, and a worktree's git directory names the common directory that
// holds info/.
func infoExclude(top string) string {
	gitDir := filepath.Join(top, ".git")
	if fi, err := os.Stat(gitDir); err == nil && !fi.IsDir() {
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return ""
		}
		gitDir = relTo(top, strings.TrimSpace(d))
		if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			gitDir = relTo(gitDir, strings.TrimSpace(string(data)))
		}
	}
	return filepath.Join(gitDir, "info", "exclude")
}

// relTo resolves p against base unless it is absolute.
func relTo(base, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}
