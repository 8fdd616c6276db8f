package engine

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/workspace"
)

// DepsAcross is [Engine.Deps] for file rel of the member named repo, with
// the workspace's other members joined in: an import the member's own
// index leaves unresolved that names another member's package (a Go
// module path, an npm package name, a Python package; see
// workspace.Packages) resolves into that member (TargetRepo and Target),
// and files of other members that import rel's package are added to its
// importers (with Repo). Members' Packages are read when nil. Errors: repo
// is not a member, and those of Deps.
func DepsAcross(ctx context.Context, members []Member, repo, rel string) (*Deps, error) {
	own := -1
	for i, m := range members {
		if m.Name == repo {
			own = i
		}
	}
	if own < 0 {
		return nil, fmt.Errorf("%s is not a member of the workspace", repo)
	}
	for i := range members {
		if members[i].Packages == nil {
			pkgs, err := workspace.Packages(members[i].Engine.Root())
			if err != nil {
				return nil, err
			}
			members[i].Packages = pkgs
		}
	}
	d, err := members[own].Engine.Deps(ctx, rel)
	if err != nil {
		return nil, err
	}
	for i := range d.Imports {
		im := &d.Imports[i]
		if im.Target != "" {
			continue
		}
		for j, m := range members {
			if j == own {
				continue
			}
			if target, ok := resolveIn(m, im.Spec); ok {
				im.TargetRepo, im.Target, im.TargetBytes = m.Name, target, PathBytes(target)
				break
			}
		}
	}
	for _, spec := range importSpecs(members[own].Packages, d.Path) {
		for j, m := range members {
			if j == own {
				continue
			}
			in, err := m.Engine.Importers(ctx, spec, "", 200)
			if err != nil {
				return nil, fmt.Errorf("importers of %s in %s: %w", spec, m.Name, err)
			}
			for _, dep := range in {
				if dep.Spec != spec {
					continue // ImportsNaming also matches longer specs
				}
				dep.Repo, dep.TargetRepo, dep.Target = m.Name, repo, d.Path
				d.Importers = append(d.Importers, dep)
			}
		}
	}
	return d, nil
}

// resolveIn returns the path in member m that spec names, when spec names
// one of its packages: a Go import path under the module (its package
// directory), an npm package or a file in it, a Python module (its .py
// file or package directory).
func resolveIn(m Member, spec string) (string, bool) {
	root := m.Engine.Root()
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	for _, p := range m.Packages {
		switch p.Kind {
		case workspace.KindGo:
			if rest, ok := under(spec, p.Name, "/"); ok {
				if dir := path.Join(cleanDir(p.Dir), rest); exists(dir) {
					return dir, true
				}
			}
		case workspace.KindNPM:
			if rest, ok := under(spec, p.Name, "/"); ok {
				base := path.Join(cleanDir(p.Dir), rest)
				for _, cand := range []string{base, base + ".ts", base + ".js", base + ".tsx", base + "/index.ts", base + "/index.js"} {
					if exists(cand) && (cand != base || rest == "") {
						return cand, true
					}
				}
			}
		case workspace.KindPython:
			if rest, ok := under(spec, p.Name, "."); ok {
				base := path.Join(cleanDir(p.Dir), strings.ReplaceAll(rest, ".", "/"))
				for _, cand := range []string{base + ".py", base + "/__init__.py", base} {
					if exists(cand) {
						return cand, true
					}
				}
			}
		}
	}
	return "", false
}

// under reports whether spec is name or starts with name+sep, and what
// follows (with sep between its parts kept).
func under(spec, name, sep string) (string, bool) {
	if name == "" {
		return "", false
	}
	if spec == name {
		return "", true
	}
	if rest, ok := strings.CutPrefix(spec, name+sep); ok {
		return rest, true
	}
	return "", false
}

func cleanDir(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// importSpecs returns the specs under which other code imports file rel
// of a member publishing pkgs: a Go file's package import path, an npm
// package's file ("name/dir/file" without extension, or the name for its
// index), a Python module's dotted name.
func importSpecs(pkgs []workspace.Package, rel string) []string {
	var out []string
	for _, p := range pkgs {
		dir := cleanDir(p.Dir)
		inside := dir == "." || rel == dir || strings.HasPrefix(rel, dir+"/")
		if !inside {
			continue
		}
		sub := strings.TrimPrefix(strings.TrimPrefix(rel, dir), "/")
		if dir == "." {
			sub = rel
		}
		switch p.Kind {
		case workspace.KindGo:
			if strings.HasSuffix(rel, ".go") {
				if d := path.Dir(sub); d == "." {
					out = append(out, p.Name)
				} else {
					out = append(out, p.Name+"/"+d)
				}
			}
		case workspace.KindNPM:
			noExt := strings.TrimSuffix(sub, path.Ext(sub))
			if noExt == "index" {
				out = append(out, p.Name)
			} else {
				out = append(out, p.Name+"/"+noExt)
			}
		case workspace.KindPython:
			if !strings.HasSuffix(rel, ".py") {
				continue
			}
			mod := strings.TrimSuffix(strings.TrimSuffix(sub, ".py"), "/__init__")
			if mod == "__init__" || mod == "" {
				out = append(out, p.Name)
			} else {
				out = append(out, p.Name+"."+strings.ReplaceAll(mod, "/", "."))
			}
		}
	}
	return out
}
