package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ctx-dev/ctx/internal/atomicfile"
)

// doc is a workspaces file as TOML holds it. A project file may hold
// other tables; only [workspaces] is read here.
type doc struct {
	Workspaces map[string]wsDoc `toml:"workspaces"`
}

// wsDoc is one [workspaces.NAME] table.
type wsDoc struct {
	Repos []string `toml:"repos"`
}

// readDoc decodes the workspaces file at path; a missing file is empty.
// Errors name the file and, for malformed TOML, the line.
func readDoc(path string) (doc, error) {
	var d doc
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("reading workspaces: %w", err)
	}
	md, err := toml.Decode(string(data), &d)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return d, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		// Type mismatches are not ParseErrors but their text starts
		// "toml: line N (last key …)".
		return d, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if t := md.Type("workspaces"); t != "" && t != "Hash" {
		return d, fmt.Errorf("%s: workspaces is a %s: want [workspaces.NAME] tables", path, t)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "workspaces" {
			return d, fmt.Errorf("%s: unknown key %s (a workspace has only repos)", path, k)
		}
	}
	for name := range d.Workspaces {
		if err := ValidName(name); err != nil {
			return d, fmt.Errorf("%s: %w", path, err)
		}
	}
	return d, nil
}

// userHeader opens the user file; it says who writes it, since the
// comments a user adds are not kept.
const userHeader = "# ctx workspaces: written by `ctx workspace add` and `ctx workspace rm`\n# (comments are not kept).\n\n"

// writeDoc replaces the user file at path with d atomically, mode 0600,
// creating its directory with mode 0700 when missing.
func writeDoc(path string, d doc) error {
	var b bytes.Buffer
	b.WriteString(userHeader)
	names := make([]string, 0, len(d.Workspaces))
	for name := range d.Workspaces {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := name
		if strings.Contains(key, ".") {
			// A valid name holds no quote or backslash.
			key = `"` + key + `"`
		}
		fmt.Fprintf(&b, "[workspaces.%s]\n", key)
		enc := toml.NewEncoder(&b)
		enc.Indent = ""
		if err := enc.Encode(d.Workspaces[name]); err != nil {
			return fmt.Errorf("encoding workspace %s: %v", name, err)
		}
		b.WriteString("\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing workspaces: %w", err)
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("writing workspaces: %w", err)
	}
	return nil
}

// readFile returns the workspaces declared in the file at path, whose
// relative repos are relative to base, in no particular order.
func readFile(path, base string) ([]*Workspace, error) {
	d, err := readDoc(path)
	if err != nil {
		return nil, err
	}
	out := make([]*Workspace, 0, len(d.Workspaces))
	for name, ws := range d.Workspaces {
		out = append(out, build(name, ws.Repos, path, base))
	}
	return out, nil
}

// build makes the workspace declared in file with repos (relative ones
// against base): roots resolved, the same real path kept once, members
// named.
func build(name string, repos []string, file, base string) *Workspace {
	w := &Workspace{Name: name, File: file, Members: []Member{}}
	seen := map[string]bool{}
	for _, r := range repos {
		root, err := realPath(r, base)
		if err != nil || seen[root] {
			continue
		}
		seen[root] = true
		w.Members = append(w.Members, Member{Root: root})
	}
	nameMembers(w.Members)
	return w
}

// nameMembers sets each member's Name: the last element of its root, or
// as many last elements as it takes to tell apart members that share it.
func nameMembers(ms []Member) {
	parts := make([][]string, len(ms))
	depth := make([]int, len(ms))
	for i, m := range ms {
		parts[i] = strings.Split(filepath.ToSlash(strings.TrimPrefix(m.Root, filepath.VolumeName(m.Root))), "/")
		depth[i] = 1
	}
	suffix := func(i int) string {
		p := parts[i]
		d := min(depth[i], len(p))
		s := strings.Join(p[len(p)-d:], "/")
		if s == "" {
			s = "/"
		}
		return s
	}
	for {
		groups := map[string][]int{}
		for i := range ms {
			groups[suffix(i)] = append(groups[suffix(i)], i)
		}
		grew := false
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			for _, i := range g {
				if depth[i] < len(parts[i]) {
					depth[i]++
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	for i := range ms {
		ms[i].Name = suffix(i)
	}
}
