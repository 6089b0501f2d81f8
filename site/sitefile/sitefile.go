// Package sitefile reads a site document ([site.Document]) from a file,
// YAML or JSON, exactly as the access command reads it: a member the
// document types do not know, or of the wrong shape, is refused with its
// file, line and column; aliases are bounded before anything is expanded;
// the users of a users_csv file are added to the document's users, each
// with the CSV line it came from. Package site itself parses no YAML and
// reads no files: this package does, for Go programs and for the command.
package sitefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/access-dev/access/site"
	"go.yaml.in/yaml/v3"
)

// MaxSize is the largest document [Read] accepts, in bytes.
const MaxSize = 256 << 20

// The alias bound: the document as its aliases (*name) expand it may hold
// at most AliasFloor nodes, or AliasFactor times the nodes written,
// whichever is more. A document beyond it is refused before any alias is
// expanded.
const (
	AliasFloor  = 10000
	AliasFactor = 10
)

// ErrAliasBound is the kind (errors.Is) of the problem of a document whose
// aliases expand it beyond the alias bound, or of an anchor that contains
// itself.
var ErrAliasBound = errors.New("sitefile: aliases expand the document beyond the bound")

// Options change how a document is read; the zero value (or nil) reads it
// as the command does without flags.
type Options struct {
	// Dir is the directory a relative users_csv path is read from; empty
	// for the current directory. [ReadFile] uses the document's directory
	// when Dir is empty.
	Dir string
	// CSV, when not nil, overrides how users_csv is read (the command's
	// --csv-delimiter and --csv-column): a Delimiter other than 0 replaces
	// the document's, and each entry of Columns the document's entry for
	// that column.
	CSV *site.CSVOptions
}

// File is a document read from a file.
type File struct {
	// Document is the document, with the rows of its users_csv file
	// appended to Users (and UsersCSV cleared).
	Document *site.Document
	// Locator places a path of Document in its file: members and items of
	// the document by line and column, a user from the CSV file by the
	// CSV's name and line. Give it to [site.Validate] or
	// [site.PlanOptions].Locator.
	Locator site.Locator
}

// ReadFile reads the document at path; see [Read]. An error opening or
// reading path is returned as it is (an *fs.PathError); a problem of the
// document is a *[site.DocumentError].
func ReadFile(path string, opts *Options) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Dir == "" {
		o.Dir = filepath.Dir(path)
	}
	return Read(f, path, &o)
}

// Read reads a site document, YAML or JSON, from r; name is the file name
// its problems carry. It refuses, as a *[site.DocumentError] listing each
// problem with its position: a syntax error, a document larger than
// [MaxSize], aliases beyond the alias bound ([ErrAliasBound]), a member the
// document types do not know (a typo) and a member of the wrong shape (a
// list where a single value is expected). It does not check the document
// itself: [site.Validate] and [site.MakePlan] do, with the [File]'s
// Locator.
func Read(r io.Reader, name string, opts *Options) (*File, error) {
	return read(r, name, opts, nil)
}

// Decode reads a YAML or JSON file other than a site document (the
// directory sync's configuration, say) into v, a pointer to a struct whose
// members carry yaml tags, as strictly as [Read] reads a document: a
// syntax error, a file larger than [MaxSize], aliases beyond the alias
// bound, a member the types do not know and a member of the wrong shape
// (a list for a single value, a duration that is not one such as "30s")
// are refused as a *[site.DocumentError] with their file, line and column;
// name is the file name they carry. The Locator places each member and
// item of v (by its yaml names: "sources[0].ldap.url") in the file, for
// the caller's own checks.
func Decode(r io.Reader, name string, v any) (site.Locator, error) {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("sitefile: Decode needs a pointer to a struct, not %T", v)
	}
	w, err := decode(r, name, t.Elem(), v, nil)
	if err != nil {
		return nil, err
	}
	return w.locator(), nil
}

// decode parses r, walks it against t and decodes it into v (after
// prepare, which may change the nodes). visits, when not nil, is
// set to the nodes the position walk visited (for the tests of the alias
// bound).
func decode(r io.Reader, name string, t reflect.Type, v any, visits *int, prepare ...func(*yaml.Node)) (*walker, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	problem := func(line, col int, path, msg string, kind error) error {
		return &site.DocumentError{Problems: []site.Problem{{Path: path, Pos: site.Position{File: name, Line: line, Column: col}, Message: msg, Err: kind}}}
	}
	if len(b) > MaxSize {
		return nil, problem(0, 0, "document", fmt.Sprintf("larger than %d bytes", MaxSize), nil)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		line, msg := yamlLine(err.Error())
		return nil, problem(line, 0, "document", msg, nil)
	}
	if len(root.Content) == 0 {
		return nil, problem(0, 0, "document", "empty document", nil)
	}
	top := root.Content[0]
	if p := checkAliases(top, name); p != nil {
		return nil, &site.DocumentError{Problems: []site.Problem{*p}}
	}
	w := &walker{file: name, pos: map[string]site.Position{}}
	w.walk(top, t, "")
	if visits != nil {
		*visits = w.visits
	}
	if len(w.probs) > 0 {
		return nil, &site.DocumentError{Problems: w.probs}
	}
	for _, f := range prepare {
		f(top)
	}
	if err := top.Decode(v); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			line, msg := yamlLine(err.Error())
			return nil, problem(line, 0, "document", msg, nil)
		}
		var probs []site.Problem
		for _, e := range te.Errors {
			line, msg := yamlLine(e)
			probs = append(probs, site.Problem{Path: "document", Pos: site.Position{File: name, Line: line}, Message: msg})
		}
		return nil, &site.DocumentError{Problems: probs}
	}
	return w, nil
}

// locator places a path in the file: at its member or item, else at the
// nearest one that holds it.
func (w *walker) locator() site.Locator {
	return func(p string) site.Position {
		for {
			if x, ok := w.pos[p]; ok {
				return x
			}
			i := strings.LastIndexAny(p, ".[")
			if i < 0 {
				return site.Position{File: w.file}
			}
			p = p[:i]
		}
	}
}

// read is Read; visits, when not nil, is set to the nodes the position
// walk visited (for the tests of the alias bound).
func read(r io.Reader, name string, opts *Options, visits *int) (*File, error) {
	if opts == nil {
		opts = &Options{}
	}
	var doc site.Document
	w, err := decode(r, name, reflect.TypeFor[site.Document](), &doc, visits, plainUsersCSV)
	if err != nil {
		return nil, err
	}
	pos := w.pos
	var csvLoc site.Locator
	n := len(doc.Users)
	if doc.UsersCSV != nil {
		users, l, err := readCSV(doc.UsersCSV, opts, name, pos)
		if err != nil {
			return nil, err
		}
		csvLoc = l
		doc.Users = append(slices.Clip(doc.Users), users...)
		doc.UsersCSV = nil
	}
	loc := func(p string) site.Position {
		var i int
		if _, err := fmt.Sscanf(p, "users[%d]", &i); err == nil && i >= n && csvLoc != nil {
			_, rest, _ := strings.Cut(p, "]")
			return csvLoc(fmt.Sprintf("users[%d]%s", i-n, rest))
		}
		return w.locator()(p)
	}
	return &File{Document: &doc, Locator: loc}, nil
}

// plainUsersCSV turns the plain form of users_csv, a path, into the
// object form, for the decoder.
func plainUsersCSV(top *yaml.Node) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		if v := top.Content[i+1]; top.Content[i].Value == "users_csv" && v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			path := *v
			path.Tag = "!!str"
			top.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line, Column: v.Column,
				Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "path", Line: v.Line, Column: v.Column}, &path}}
		}
	}
}

// readCSV reads the users of the users_csv member m, with the options of
// the document overridden by those of opts; pos places the member's parts
// in the document.
func readCSV(m *site.UsersCSV, opts *Options, name string, pos map[string]site.Position) ([]site.User, site.Locator, error) {
	at := func(p string) site.Position {
		if x, ok := pos[p]; ok {
			return x
		}
		if x, ok := pos["users_csv"]; ok {
			return x
		}
		return site.Position{File: name}
	}
	bad := func(path, msg string) error {
		return &site.DocumentError{Problems: []site.Problem{{Path: path, Pos: at(path), Message: msg}}}
	}
	if m.Path == "" {
		return nil, nil, bad("users_csv.path", "the path of the CSV file is required")
	}
	co := site.CSVOptions{Columns: map[string]string{}}
	if m.Delimiter != "" {
		r, size := utf8.DecodeRuneInString(m.Delimiter)
		if size != len(m.Delimiter) || r == utf8.RuneError {
			return nil, nil, bad("users_csv.delimiter", fmt.Sprintf("the delimiter %q is not one character", m.Delimiter))
		}
		co.Delimiter = r
	}
	for k, v := range m.Columns {
		co.Columns[k] = v
	}
	if opts.CSV != nil {
		if opts.CSV.Delimiter != 0 {
			co.Delimiter = opts.CSV.Delimiter
		}
		for k, v := range opts.CSV.Columns {
			co.Columns[k] = v
		}
	}
	csvPath := m.Path
	if !filepath.IsAbs(csvPath) && opts.Dir != "" {
		csvPath = filepath.Join(opts.Dir, csvPath)
	}
	fh, err := os.Open(csvPath)
	if err != nil {
		return nil, nil, bad("users_csv", err.Error())
	}
	defer fh.Close()
	users, loc, err := site.ReadUsersCSVWithLocator(fh, csvPath, &co)
	var de *site.DocumentError
	if errors.As(err, &de) {
		// A problem of the options is the document's, where it says them.
		for i, p := range de.Problems {
			if p.Pos.Line == 0 && (p.Path == "delimiter" || strings.HasPrefix(p.Path, "columns.")) {
				de.Problems[i].Path = "users_csv." + p.Path
				de.Problems[i].Pos = at("users_csv." + p.Path)
			}
		}
	}
	return users, loc, err
}

var yamlLineRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })

func yamlLine(msg string) (int, string) {
	if m := yamlLineRe().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// checkAliases refuses a document whose aliases expand it beyond the
// bound, or an anchor that contains itself, without expanding anything:
// each node's expanded size is computed once.
func checkAliases(root *yaml.Node, file string) *site.Problem {
	written := 0
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		written++
		for _, c := range n.Content {
			count(c)
		}
	}
	count(root)
	limit := max(AliasFloor, AliasFactor*written)
	size := map[*yaml.Node]int{}
	busy := map[*yaml.Node]bool{}
	var cycle *yaml.Node
	var expanded func(n *yaml.Node) int
	expanded = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if s, ok := size[n]; ok {
			return s
		}
		if busy[n] {
			cycle = n
			return limit + 1
		}
		busy[n] = true
		s := 1
		for _, c := range n.Content {
			s = min(s+expanded(c), limit+1)
		}
		busy[n] = false
		size[n] = s
		return s
	}
	// Sum in document order, to place the problem at the alias that
	// crosses the bound.
	total := 0
	var sum func(n *yaml.Node) *site.Problem
	sum = func(n *yaml.Node) *site.Problem {
		at := site.Position{File: file, Line: n.Line, Column: n.Column}
		if n.Kind != yaml.AliasNode {
			total++
			for _, c := range n.Content {
				if p := sum(c); p != nil {
					return p
				}
			}
			return nil
		}
		total += expanded(n)
		switch {
		case cycle != nil:
			return &site.Problem{Path: "document", Pos: at, Err: ErrAliasBound, Message: fmt.Sprintf("the anchor &%s contains itself", cycle.Anchor)}
		case total > limit:
			return &site.Problem{Path: "document", Pos: at, Err: ErrAliasBound, Message: fmt.Sprintf(
				"the aliases expand the document beyond %d nodes (%d written; at most %d, or %d times the nodes written)", limit, written, AliasFloor, AliasFactor)}
		}
		return nil
	}
	return sum(root)
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	usersCSVType = reflect.TypeFor[site.UsersCSV]()
)

// walker records the position of every member and item and refuses
// unknown members and a mapping, list or value where another is expected.
// Aliases are followed, within the alias bound checked before.
type walker struct {
	file   string
	pos    map[string]site.Position
	probs  []site.Problem
	visits int // nodes visited
}

func (w *walker) at(n *yaml.Node) site.Position {
	return site.Position{File: w.file, Line: n.Line, Column: n.Column}
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	w.visits++
	bad := func(msg string) {
		w.probs = append(w.probs, site.Problem{Path: strings.TrimPrefix(path, "."), Pos: w.at(n), Message: msg})
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == usersCSVType && n.Kind == yaml.ScalarNode {
		return // the plain form: a path
	}
	switch {
	case t == durationType:
		if n.Kind != yaml.ScalarNode {
			bad("want a single value")
		} else if _, err := time.ParseDuration(n.Value); err != nil || n.Tag != "!!str" {
			bad(fmt.Sprintf("want a duration such as 30s or 5m, not %q", n.Value))
		}
	case t == timeType || t.Kind() == reflect.String || t.Kind() == reflect.Bool,
		t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		if n.Kind != yaml.ScalarNode {
			bad("want a single value")
		}
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			bad("want a list")
			return
		}
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			w.pos[strings.TrimPrefix(p, ".")] = w.at(item)
			w.walk(item, t.Elem(), p)
		}
	case t.Kind() == reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("want a mapping")
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := path + "." + n.Content[i].Value
			w.pos[strings.TrimPrefix(p, ".")] = w.at(n.Content[i])
			w.walk(n.Content[i+1], t.Elem(), p)
		}
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			bad("want a mapping")
			return
		}
		known := []string{}
		for i := range t.NumField() {
			if nm, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); nm != "" && nm != "-" {
				known = append(known, nm)
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			p := path + "." + k.Value
			f, ok := fieldByTag(t, k.Value)
			if !ok {
				w.probs = append(w.probs, site.Problem{Path: strings.TrimPrefix(p, "."), Pos: w.at(k),
					Message: fmt.Sprintf("unknown member %q (known: %s)", k.Value, strings.Join(known, ", "))})
				continue
			}
			if f.Type == reflect.TypeFor[*site.UsersCSV]() && path != "" {
				w.probs = append(w.probs, site.Problem{Path: strings.TrimPrefix(p, "."), Pos: w.at(k),
					Message: "users_csv is read at the top of the document only, not in an override"})
				continue
			}
			w.pos[strings.TrimPrefix(p, ".")] = w.at(k)
			w.walk(n.Content[i+1], f.Type, p)
		}
	}
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); n == name && n != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
