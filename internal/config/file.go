package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// FileName is the settings file's name: in [UserDir] for the user file,
// and in a repository's .ctx directory for the project file.
const FileName = "config.toml"

// ProjectFile returns the project file of the repository at root:
// root/.ctx/config.toml.
func ProjectFile(root string) string { return filepath.Join(root, ".ctx", FileName) }

// UserFile returns the user file: [UserDir]/config.toml. Errors: those of
// [UserDir].
func UserFile() (string, error) {
	d, err := UserDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, FileName), nil
}

// Tables of a settings file that hold no settings.
const (
	// authTable is the user file's keys and tokens, by provider.
	authTable = "auth"
	// trustTable holds the user file's list of trusted projects.
	trustTable = "trust"
	// trustKey is the list's key in trustTable.
	trustKey = "projects"
	// workspacesTable is where a project file declares workspaces (read
	// by internal/workspace, ignored here).
	workspacesTable = "workspaces"
)

// FileError is a problem in a settings file: a line that is not TOML, or
// a key that is unknown, not allowed there, or holds a bad value.
type FileError struct {
	// Path is the file.
	Path string
	// Line is 1-based; 0 when the position is unknown.
	Line int
	// Key is the dotted key ("embed.batch"); "" for a syntax error.
	Key string
	// Err is what is wrong.
	Err error
}

// Error reads "/repo/.ctx/config.toml:7: embed.batch: want a positive
// integer, got "x"".
func (e *FileError) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return loc + ": " + e.Key + ": " + e.Err.Error()
	}
	return loc + ": " + e.Err.Error()
}

func (e *FileError) Unwrap() error { return e.Err }

// fileDoc is what one settings file holds.
type fileDoc struct {
	path string
	// base is the directory relative paths in the file are taken from:
	// the repository root for a project file, the file's directory for
	// the user file.
	base    string
	project bool
	exists  bool
	// mode is the file's permission bits, when it exists.
	mode fs.FileMode
	// values are the settings it sets, by key.
	values map[string]fileValue
	// auth holds the [auth] table's keys, by provider (user file).
	auth map[string]fileValue
	// trusted holds the [trust] table's projects (user file).
	trusted []string
	// errs are the keys it holds that are unknown, misplaced or bad
	// (*FileError), in line order.
	errs []error
}

// fileValue is one value of a file, checked.
type fileValue struct {
	v    any
	line int
}

// err returns the file's key errors joined, or nil.
func (d *fileDoc) err() error { return errors.Join(d.errs...) }

// errFor returns the errors about key.
func (d *fileDoc) errFor(key string) error {
	var out []error
	for _, e := range d.errs {
		var fe *FileError
		if errors.As(e, &fe) && fe.Key == key {
			out = append(out, e)
		}
	}
	return errors.Join(out...)
}

// readFile reads the settings file at path; a missing file holds nothing.
// Errors: reading it, or its TOML syntax (a *FileError with the line).
// Problems with single keys are collected in errs instead.
func readFile(path string, project bool, base string) (*fileDoc, error) {
	d := &fileDoc{path: path, base: base, project: project}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading settings: %w", err)
	}
	d.exists = true
	if fi, err := os.Stat(path); err == nil {
		d.mode = fi.Mode().Perm()
	}
	if err := d.parse(data); err != nil {
		return nil, err
	}
	return d, nil
}

// parse reads the file's text.
func (d *fileDoc) parse(data []byte) error {
	d.values, d.auth, d.trusted, d.errs = map[string]fileValue{}, nil, nil, nil
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return &FileError{Path: d.path, Line: pe.Position.Line, Err: errors.New(pe.Message)}
		}
		return &FileError{Path: d.path, Err: err}
	}
	for _, k := range sortedByLine(&md, top) {
		p := top[k]
		switch {
		case k == workspacesTable && d.project:
			// internal/workspace reads it.
		case k == workspacesTable:
			d.fail(&md, p, k, errors.New("workspaces are kept in workspaces.toml beside this file (`ctx workspace add`)"))
		case k == authTable && d.project:
			d.fail(&md, p, k, errors.New("keys are never read from a project file; store them with `ctx auth set PROVIDER`"))
		case k == authTable:
			d.parseAuth(&md, p)
		case k == trustTable && d.project:
			d.fail(&md, p, k, errors.New("projects are trusted in the user file (`ctx config trust`), not in a project file"))
		case k == trustTable:
			d.parseTrust(&md, p)
		case sections[k]:
			var sub map[string]toml.Primitive
			if !isTable(&md, p) || md.PrimitiveDecode(p, &sub) != nil {
				d.fail(&md, p, k, fmt.Errorf("want a table ([%s])", k))
				continue
			}
			for _, n := range sortedByLine(&md, sub) {
				d.parseValue(&md, sub[n], k+"."+n)
			}
		case isTable(&md, p) && byKey[k] == nil:
			d.fail(&md, p, k, errors.New("unknown table"+suggestSection(k)))
		default:
			d.parseValue(&md, p, k)
		}
	}
	slices.SortStableFunc(d.errs, func(a, b error) int {
		var fa, fb *FileError
		errors.As(a, &fa)
		errors.As(b, &fb)
		return fa.Line - fb.Line
	})
	return nil
}

// parseValue reads the value of the setting key.
func (d *fileDoc) parseValue(md *toml.MetaData, p toml.Primitive, key string) {
	s, ok := byKey[key]
	if !ok {
		d.fail(md, p, key, errors.New("unknown setting"+suggest(key)))
		return
	}
	if s.Secret {
		where := "keys are never read from a project file"
		if !d.project {
			where = "keys are kept in the [auth] table, with the file's mode 0600"
		}
		d.fail(md, p, key, fmt.Errorf("%s; store it with `ctx auth set %s`, or set %s", where, s.AuthHint, s.Env))
		return
	}
	if d.project && !s.Allowed(InProjectFile) || !d.project && !s.Allowed(InUserFile) {
		d.fail(md, p, key, fmt.Errorf("not a setting of this file (set %s)", s.Env))
		return
	}
	var raw any
	if err := md.PrimitiveDecode(p, &raw); err != nil {
		d.fail(md, p, key, err)
		return
	}
	v, err := s.parseTOML(raw)
	if err != nil {
		d.fail(md, p, key, err)
		return
	}
	d.values[key] = fileValue{v: v, line: lineOf(md, p)}
}

// parseAuth reads the user file's [auth] table: provider = "key".
func (d *fileDoc) parseAuth(md *toml.MetaData, p toml.Primitive) {
	var sub map[string]toml.Primitive
	if !isTable(md, p) || md.PrimitiveDecode(p, &sub) != nil {
		d.fail(md, p, authTable, errors.New("want a table of provider = \"key\""))
		return
	}
	d.auth = map[string]fileValue{}
	for _, n := range sortedByLine(md, sub) {
		key := authTable + "." + n
		if !slices.Contains(AuthProviders, n) {
			d.fail(md, sub[n], key, fmt.Errorf("unknown provider (want %s)", orList(AuthProviders)))
			continue
		}
		var v string
		if err := md.PrimitiveDecode(sub[n], &v); err != nil || strings.TrimSpace(v) == "" {
			d.fail(md, sub[n], key, errors.New("want the key as a non-empty string"))
			continue
		}
		d.auth[n] = fileValue{v: v, line: lineOf(md, sub[n])}
	}
}

// parseTrust reads the user file's [trust] table: projects = [paths].
func (d *fileDoc) parseTrust(md *toml.MetaData, p toml.Primitive) {
	var sub map[string]toml.Primitive
	if !isTable(md, p) || md.PrimitiveDecode(p, &sub) != nil {
		d.fail(md, p, trustTable, errors.New("want a table with projects = [paths]"))
		return
	}
	for _, n := range sortedByLine(md, sub) {
		key := trustTable + "." + n
		if n != trustKey {
			d.fail(md, sub[n], key, errors.New("unknown key (want projects)"))
			continue
		}
		if err := md.PrimitiveDecode(sub[n], &d.trusted); err != nil {
			d.fail(md, sub[n], key, errors.New("want a list of paths"))
		}
	}
}

func (d *fileDoc) fail(md *toml.MetaData, p toml.Primitive, key string, err error) {
	d.errs = append(d.errs, &FileError{Path: d.path, Line: lineOf(md, p), Key: key, Err: err})
}

// suggest returns " (did you mean KEY?)" for the known key nearest key,
// or "".
func suggest(key string) string {
	if near := nearestKey(key); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// isTable reports whether p holds a table.
func isTable(md *toml.MetaData, p toml.Primitive) bool {
	var raw any
	if md.PrimitiveDecode(p, &raw) != nil {
		return false
	}
	_, ok := raw.(map[string]any)
	return ok
}

// suggestSection returns " (did you mean [SECTION]?)" for the table
// nearest name, or "".
func suggestSection(name string) string {
	best, bestD := "", 1<<30
	for sec := range sections {
		if d := editDistance(name, sec); d < bestD || d == bestD && sec < best {
			best, bestD = sec, d
		}
	}
	if bestD <= max(2, len(name)/2) {
		return " (did you mean [" + best + "]?)"
	}
	return ""
}

// errLine makes the TOML decoder report a key's position.
var errLine = errors.New("line probe")

type lineProbe struct{}

func (*lineProbe) UnmarshalTOML(any) error { return errLine }

// lineOf returns the 1-based line where p's key is defined; for a table
// only implied by its subtables ([workspaces.x] implies workspaces), the
// first line of those. 0 when unknown.
func lineOf(md *toml.MetaData, p toml.Primitive) int {
	var pr lineProbe
	var pe toml.ParseError
	if errors.As(md.PrimitiveDecode(p, &pr), &pe) && pe.Position.Line > 0 {
		return pe.Position.Line
	}
	var sub map[string]toml.Primitive
	if !isTable(md, p) || md.PrimitiveDecode(p, &sub) != nil {
		return 0
	}
	first := 0
	for _, q := range sub {
		if l := lineOf(md, q); l > 0 && (first == 0 || l < first) {
			first = l
		}
	}
	return first
}

// sortedByLine returns m's keys in the order the file defines them.
func sortedByLine(md *toml.MetaData, m map[string]toml.Primitive) []string {
	keys := make([]string, 0, len(m))
	lines := make(map[string]int, len(m))
	for k, p := range m {
		keys = append(keys, k)
		lines[k] = lineOf(md, p)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if lines[a] != lines[b] {
			return lines[a] - lines[b]
		}
		return strings.Compare(a, b)
	})
	return keys
}
