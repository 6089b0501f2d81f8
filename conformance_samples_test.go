package access_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The samples of the conformance report: every file under testdata (but
// testdata/fuzz, the fuzzers' corpora, and testdata/conformance, the
// report's own facts), what it is a sample of, where it comes from and
// which tests read it. Nothing is listed by hand:
//
//   - What a sample is of: a JSON object with an "event" member is a frame
//     or payload of that event; otherwise what its source says, "op: <SDK
//     name>" lines (or "event: <name>"). A test that merely uses a file
//     next to an operation (as the body a stub answers with, say) does not
//     make it a sample of that operation.
//   - Where it comes from: a sidecar file <sample>.source beside it, lines
//     "capture: <URL, repository path or console version>" for a frame or
//     answer captured from a real console, "vendor: <document and §>" for
//     the vendor's sample, "fixture: <how it was made>" for one written for
//     the tests, and the op: and event: lines. Without a sidecar, a line of
//     a README in its directory that names the file: its first URL (or the
//     line) is the source, a fixture when the line says "fixture", else
//     the vendor's when it says "vendor", else a capture. A sample with
//     neither is an error of TestConformance.
//   - Which tests read it: the Test, Benchmark, Fuzz and Example functions
//     of the module whose code, or the helpers and tables they use, names
//     the file (its path, its name, its name without extension, or a glob
//     over its directory).

// reportSample is one file under testdata.
type reportSample struct {
	Rel      string   // path under testdata, slash-separated
	Kind     string   // "vendor", "capture" or "fixture"
	Source   string   // where it comes from (sidecar), "" if unsaid
	Event    string   // the event member of a JSON frame
	Subjects []string // the operations and events it is a sample of
	Readers  []string // the tests that read it
}

const (
	kindVendor  = "vendor"
	kindCapture = "capture"
	kindFixture = "fixture"
)

// skipSampleDir are the testdata directories that hold no samples.
var skipSampleDir = map[string]bool{"fuzz": true, "conformance": true}

// scanSamples lists the samples under dir (testdata).
func scanSamples(dir string) ([]*reportSample, error) {
	var out []*reportSample
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipSampleDir[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, ".source") || strings.HasPrefix(name, "README") || strings.HasPrefix(name, ".") {
			return nil
		}
		s := &reportSample{Rel: rel}
		if b, err := os.ReadFile(p); err == nil {
			var head struct {
				Event string `json:"event"`
			}
			if json.Unmarshal(b, &head) == nil {
				s.Event = head.Event
			}
		}
		if err := s.readSidecar(p + ".source"); err != nil {
			return err
		}
		if s.Kind == "" {
			if err := s.readREADME(filepath.Dir(p)); err != nil {
				return err
			}
		}
		out = append(out, s)
		return nil
	})
	slices.SortFunc(out, func(a, b *reportSample) int { return strings.Compare(a.Rel, b.Rel) })
	return out, err
}

// readSidecar applies the sample's .source file, if there is one.
func (s *reportSample) readSidecar(file string) error {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		val = strings.TrimSpace(val)
		switch key = strings.TrimSpace(key); {
		case !ok || val == "":
			continue
		case key == kindVendor || key == kindCapture || key == kindFixture:
			s.Kind, s.Source = key, val
		case key == "op" || key == "event":
			s.Subjects = append(s.Subjects, val)
		}
	}
	return sc.Err()
}

var urlPattern = regexp.MustCompile(`https?://[^\s)>\]]+`)

// readREADME looks for the sample in a README of its directory: a line
// that names the file is its source, a fixture when the line says
// "fixture", the vendor's when it says "vendor", else a capture; the
// line's first URL, or else the line, is the source.
func (s *reportSample) readREADME(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	base := path.Base(s.Rel)
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), "README") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if !namesFile(line, base) {
				continue
			}
			s.Kind, s.Source = kindCapture, strings.TrimSpace(strings.TrimLeft(line, "-*|# \t"))
			if u := urlPattern.FindString(line); u != "" {
				s.Source = u
			}
			switch lower := strings.ToLower(line); {
			case strings.Contains(lower, "fixture"): // "fixture: from the vendor's sample…"
				s.Kind = kindFixture
			case strings.Contains(lower, "vendor"):
				s.Kind = kindVendor
			}
			return nil
		}
	}
	return nil
}

// namesFile reports whether line names the file base as a word of its own,
// not as part of a longer name ("x.json" is not named by "ax.json" or
// "x.json5"; a path ending in it and a full stop after it are fine).
func namesFile(line, base string) bool {
	for i := 0; ; i++ {
		j := strings.Index(line[i:], base)
		if j < 0 {
			return false
		}
		i += j
		k := i + len(base)
		okBefore := i == 0 || !isNameByte(line[i-1])
		okAfter := k == len(line) || !isNameByte(line[k]) && (line[k] != '.' || k+1 == len(line) || !isNameByte(line[k+1]))
		if okBefore && okAfter {
			return true
		}
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// matches reports whether the string literal lit names the sample; stem
// is set when it is the name without its extension, which a helper
// completes.
func (s *reportSample) matches(lit string) (ok, stem bool) {
	base := path.Base(s.Rel)
	if lit == base || lit == s.Rel || strings.HasSuffix(lit, "/"+s.Rel) {
		return true, false
	}
	return lit == strings.TrimSuffix(base, path.Ext(base)), true
}

// matchesGlob reports whether the glob lit, used next to the sample's
// directory name, covers the sample.
func (s *reportSample) matchesGlob(lit string, names map[string]bool) bool {
	if !strings.ContainsAny(lit, "*?[") {
		return false
	}
	dir, base := path.Split(s.Rel)
	dir = strings.TrimSuffix(dir, "/")
	if ok, _ := path.Match(lit, base); ok && dir != "" && names[dir] {
		return true
	}
	if rest, ok := underTestdata(lit); ok {
		// "testdata/*/*.json", "../testdata/samples/*.json": the glob
		// names the path from testdata on.
		ok, _ := path.Match(rest, s.Rel)
		return ok
	}
	ok, _ := path.Match(lit, s.Rel)
	return ok
}

// underTestdata returns what follows a "testdata/" directory in lit
// ("testdata/*/*.json", "../testdata/samples/x.json"), if lit names one.
func underTestdata(lit string) (string, bool) {
	const td = "testdata/"
	i := strings.LastIndex(lit, td)
	if i < 0 || i > 0 && lit[i-1] != '/' {
		return "", false
	}
	return lit[i+len(td):], true
}

// normRoute reduces "GET /api/v1/developer/users/{id}" and the vendor's
// "GET /users/:id" to "GET /users/{}".
func normRoute(route string) string {
	method, p, ok := strings.Cut(route, " ")
	if !ok || method == "" || strings.ToUpper(method) != method {
		return ""
	}
	p = strings.TrimPrefix(p, "/api/v1/developer")
	if strings.HasSuffix(p, "/") {
		p += "{}" // a subtree pattern: the rest of the path is one value
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, ":") || (strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")) {
			segs[i] = "{}"
		}
	}
	return method + " " + strings.Join(segs, "/")
}

// testSource is the parsed tests of one package.
type testSource struct {
	prefix string // "" for the root package, "accesstest." for others
	decls  map[string]*declInfo
}

// declInfo is one top-level declaration of a test file.
type declInfo struct {
	name  string
	test  bool
	node  ast.Node
	uses  []string // top-level names of the package it refers to
	lits  []string // its string literals
	names map[string]bool
}

// parseTests parses the _test.go files of every package of the module
// under root (not testdata, and not the conformance*_test.go files of the
// report itself).
func parseTests(root string) ([]*testSource, error) {
	byPkg := map[string]*testSource{}
	var keys []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") || strings.HasPrefix(d.Name(), "conformance") {
			return nil // the report's own tests name samples without reading them
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		key := filepath.ToSlash(dir) + " " + f.Name.Name
		ts := byPkg[key]
		if ts == nil {
			ts = &testSource{decls: map[string]*declInfo{}}
			if dir != "." {
				ts.prefix = filepath.ToSlash(dir) + "."
			}
			byPkg[key] = ts
			keys = append(keys, key)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = "(method)." + name + "@" + fset.Position(d.Pos()).String()
				}
				ts.decls[name] = &declInfo{name: name, node: d, test: d.Recv == nil && isTestName(d.Name.Name)}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							ts.decls[n.Name] = &declInfo{name: n.Name, node: sp}
						}
					case *ast.TypeSpec:
						ts.decls[sp.Name.Name] = &declInfo{name: sp.Name.Name, node: sp}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(keys)
	out := make([]*testSource, 0, len(keys))
	for _, k := range keys {
		ts := byPkg[k]
		for _, d := range ts.decls {
			d.names = map[string]bool{}
			ast.Inspect(d.node, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Ident:
					if _, ok := ts.decls[n.Name]; ok && n.Name != d.name {
						d.uses = append(d.uses, n.Name)
					}
				case *ast.BasicLit:
					if s, ok := stringLit(n); ok {
						d.lits = append(d.lits, s)
						d.names[s] = true
					}
				}
				return true
			})
		}
		out = append(out, ts)
	}
	return out, nil
}

// isTestName reports whether a function is one go test runs.
func isTestName(name string) bool {
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			if rest == "" || p == "Example" {
				return true
			}
			r, _ := utf8.DecodeRuneInString(rest)
			return !unicode.IsLower(r)
		}
	}
	return false
}

func stringLit(n *ast.BasicLit) (string, bool) {
	if n.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(n.Value)
	return s, err == nil
}

// tests returns the tests of ts that reach decl through the declarations
// they use.
func (ts *testSource) tests(decl string) []string {
	var out []string
	for _, d := range ts.decls {
		if d.test && ts.reaches(d.name, decl, map[string]bool{}) {
			out = append(out, d.name)
		}
	}
	slices.Sort(out)
	return out
}

func (ts *testSource) reaches(from, to string, seen map[string]bool) bool {
	if from == to {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, u := range ts.decls[from].uses {
		if ts.reaches(u, to, seen) {
			return true
		}
	}
	return false
}

// reachableLits returns the string literals of decl and of every
// declaration it uses, directly or not.
func (ts *testSource) reachableLits(decl string) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		d := ts.decls[n]
		out = append(out, d.lits...)
		for _, u := range d.uses {
			walk(u)
		}
	}
	walk(decl)
	return out
}

// readsDir reports whether literals name the sample's directory under
// testdata: "testdata/samples/..." or "testdata" and "samples" apart (as
// filepath.Join takes them); and, for a name without its extension
// (stem), the extension, which the helper that reads it appends.
func (s *reportSample) readsDir(lits []string, stem bool) bool {
	if stem && !slices.Contains(lits, path.Ext(s.Rel)) {
		return false
	}
	dir := path.Dir(s.Rel)
	var td, d bool
	for _, l := range lits {
		if rest, ok := underTestdata(l); ok && strings.ContainsAny(rest, "*?[") {
			// A glob from testdata on: "testdata/*/*.json" reads every
			// directory its first part matches.
			if ok, _ := path.Match(path.Dir(rest), dir); ok {
				return true
			}
		}
		switch {
		case dir == "." && strings.Contains(l, "testdata"),
			strings.Contains(l, "testdata/"+dir):
			return true
		case l == "testdata" || strings.HasSuffix(l, "/testdata"):
			td = true
		case l == dir:
			d = true
		}
	}
	return td && d
}

// linkSamples fills in the readers of every sample.
func linkSamples(samples []*reportSample, sources []*testSource) {
	for _, ts := range sources {
		names := make([]string, 0, len(ts.decls))
		for n := range ts.decls {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, name := range names {
			d := ts.decls[name]
			for _, s := range samples {
				for _, l := range d.lits {
					ok, stem := s.matches(l)
					if !ok {
						if !s.matchesGlob(l, d.names) {
							continue
						}
						stem = false
					}
					// A test reads the sample when it also names the
					// sample's directory, through whatever it uses.
					var readers []string
					for _, test := range ts.tests(name) {
						if s.readsDir(ts.reachableLits(test), stem) {
							readers = append(readers, ts.prefix+test)
						}
					}
					if len(readers) > 0 {
						s.Readers = append(s.Readers, readers...)
						break
					}
				}
			}
		}
	}
	for _, s := range samples {
		if s.Event != "" {
			s.Subjects = append(s.Subjects, s.Event)
		}
		s.Readers = sortedUnique(s.Readers)
		s.Subjects = sortedUnique(s.Subjects)
	}
}

// checkSampleSources returns what is wrong with the samples' sources: a
// sample without one, and an op: or event: line that names no operation
// (by the first of its SDK names) or event of the spec. (A frame's event
// member is not checked: observed events the SDK names are not the
// spec's.)
func checkSampleSources(samples []*reportSample, subjects map[string]bool) []string {
	var out []string
	for _, s := range samples {
		if s.Kind == "" {
			out = append(out, fmt.Sprintf("testdata/%s has no source: write a %s.source sidecar "+
				"(capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it", s.Rel, path.Base(s.Rel)))
		}
		for _, subj := range s.Subjects {
			if subj != s.Event && !subjects[subj] { // a frame's own event member is what it is
				out = append(out, fmt.Sprintf("testdata/%s is a sample of %q, which is no operation (by its first SDK name) or event of the spec", s.Rel, subj))
			}
		}
	}
	return out
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
