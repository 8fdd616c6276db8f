package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/ctx-dev/ctx/internal/atomicfile"
)

// File names a settings file to write: the user file, or a repository's
// project file.
type File struct {
	// Path is the file.
	Path string
	// Project marks a project file, which may not hold keys.
	Project bool
	// base is the directory relative paths in it are taken from.
	base string
}

// UserFileTarget returns the user file as a [File]. Errors: those of
// [UserDir].
func UserFileTarget() (File, error) {
	p, err := UserFile()
	if err != nil {
		return File{}, err
	}
	return File{Path: p, base: filepath.Dir(p)}, nil
}

// ProjectFileTarget returns the project file of the repository at root.
func ProjectFileTarget(root string) File {
	r := realPath(root)
	return File{Path: ProjectFile(r), Project: true, base: r}
}

// Set writes key = value into f, value in its text form (as the
// environment variable takes it) and checked as loading checks it. The
// rest of the file (comments, order, other tables) is kept; the write is
// atomic. It returns the value as stored, of the Go type the setting's
// Kind holds. Errors: an unknown key (naming the nearest), a key (Secret:
// those go through [SetAuth] or the environment), a bad value, a file
// that is not valid TOML or holds settings in a form the editor does not
// change.
func Set(f File, key, value string) (any, error) {
	s, err := Lookup(key)
	if err != nil {
		return nil, err
	}
	if s.Secret {
		return nil, fmt.Errorf("%s is a key: `ctx config set` never writes keys; store it with `ctx auth set %s` (it reads the key from standard input), or set %s", key, s.AuthHint, s.Env)
	}
	if f.Project && !s.Allowed(InProjectFile) || !f.Project && !s.Allowed(InUserFile) {
		return nil, fmt.Errorf("%s cannot be set in %s (set %s)", key, f.Path, s.Env)
	}
	v, err := s.ParseText(value)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	lit, err := s.Kind.formatTOML(v)
	if err != nil {
		return nil, err
	}
	path := strings.Split(key, ".")
	err = editFile(f, key, func(src []byte) ([]byte, error) { return setText(src, path, lit) },
		func(d *fileDoc) error {
			if got, ok := d.values[key]; !ok || !reflect.DeepEqual(got.v, v) {
				return fmt.Errorf("%s did not read back as written", key)
			}
			return nil
		})
	return v, err
}

// Unset removes key from f and reports whether it was there. A key no
// setting has may be removed too (to repair a file); one that is neither
// known nor in the file is an error naming the nearest known key.
func Unset(f File, key string) (bool, error) {
	_, lookupErr := Lookup(key)
	path := strings.Split(key, ".")
	found := false
	err := editFile(f, key, func(src []byte) ([]byte, error) {
		out, ok, err := unsetText(src, path)
		found = ok
		return out, err
	}, func(d *fileDoc) error {
		if _, ok := d.values[key]; ok {
			return fmt.Errorf("%s is still set", key)
		}
		return nil
	})
	if err == nil && !found && lookupErr != nil {
		return false, lookupErr
	}
	return found, err
}

// IsTrusted reports whether the user file lists the repository at root
// (by its real path) as trusted. Errors: reading the user file.
func IsTrusted(root string) (bool, error) {
	f, err := UserFileTarget()
	if err != nil {
		return false, nil
	}
	d, err := readFile(f.Path, false, f.base)
	if err != nil {
		return false, err
	}
	return slices.Contains(d.trusted, realPath(root)), nil
}

// Trust records the repository at root (its real path) as trusted in the
// user file, so that its project file's Trust settings take effect, and
// returns that path. Trusting it twice changes nothing.
func Trust(root string) (string, error) {
	return changeTrust(root, true)
}

// Untrust removes the repository at root from the user file's trusted
// projects and returns its real path. Errors: it was not trusted.
func Untrust(root string) (string, error) {
	return changeTrust(root, false)
}

func changeTrust(root string, trust bool) (string, error) {
	real := realPath(root)
	f, err := UserFileTarget()
	if err != nil {
		return "", err
	}
	d, err := readFile(f.Path, false, f.base)
	if err != nil {
		return "", err
	}
	list := slices.Clone(d.trusted)
	has := slices.Contains(list, real)
	switch {
	case trust && has:
		return real, nil
	case trust:
		list = append(list, real)
	case !has:
		return real, fmt.Errorf("%s is not a trusted project (`ctx config ls` shows whether the current one is)", real)
	default:
		list = slices.DeleteFunc(list, func(p string) bool { return p == real })
	}
	if list == nil {
		list = []string{}
	}
	lit, err := KindList.formatTOML(list)
	if err != nil {
		return "", err
	}
	path := []string{trustTable, trustKey}
	return real, editFile(f, trustTable+"."+trustKey, func(src []byte) ([]byte, error) { return setText(src, path, lit) },
		func(d *fileDoc) error {
			if !slices.Equal(d.trusted, list) && len(d.trusted)+len(list) > 0 {
				return errors.New("the trusted projects did not read back as written")
			}
			return nil
		})
}

// editFile applies change to f's text and writes the result atomically,
// after reading it back: it must be TOML, verify must accept it, and key
// must have no error. The user file is written with mode 0600 (it may
// hold keys); a project file keeps its mode (0644 when new). A symbolic
// link is followed, so a linked dotfile stays linked.
func editFile(f File, key string, change func([]byte) ([]byte, error), verify func(*fileDoc) error) error {
	path := f.Path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading settings: %w", err)
	}
	exists := err == nil
	mode, oldMode := fs.FileMode(0o644), fs.FileMode(0)
	if fi, err := os.Stat(path); err == nil {
		mode, oldMode = fi.Mode().Perm(), fi.Mode().Perm()
	}
	if !f.Project {
		mode = 0o600
	}
	before := &fileDoc{path: f.Path, base: f.base, project: f.Project}
	if err := before.parse(src); err != nil {
		return fmt.Errorf("%w (fix the file before changing it)", err)
	}
	out, err := change(src)
	if err != nil {
		return describeEditErr(f.Path, err)
	}
	after := &fileDoc{path: f.Path, base: f.base, project: f.Project}
	if err := after.parse(out); err != nil {
		return describeEditErr(f.Path, errSyntax)
	}
	if err := after.errFor(key); err != nil {
		return err
	}
	if err := verify(after); err != nil {
		return describeEditErr(f.Path, fmt.Errorf("%w: %v", errSyntax, err))
	}
	if bytes.Equal(out, src) && (exists && mode == oldMode || !exists && len(out) == 0) {
		return nil
	}
	if err := atomicfile.Write(path, out, mode); err != nil {
		return fmt.Errorf("writing %s: %w", f.Path, err)
	}
	return nil
}
