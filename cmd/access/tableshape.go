package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// Table shapes: every list command takes --columns (any member of its
// records, dotted for nested ones), --no-headers and -o wide (the default
// columns, then every other member in the order of JSON). Lists whose
// records the notifications stream changes take --watch: the list is
// fetched again on each notification and written again when it changed.
// All of it goes through the one table path (tablestream.go).

// watchLists are the lists --watch is offered on: their records change
// with what the notifications stream reports.
var watchLists = map[string]bool{"doors list": true, "devices list": true}

// isList reports whether spec is a list command: a "list", or a read
// whose SDK method returns a list (users search, user-groups users…).
func isList(spec *opSpec) bool {
	if strings.HasSuffix(spec.path, " list") {
		return true
	}
	if spec.write {
		return false
	}
	t := sdkResult(spec.sdk)
	return t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Func)
}

// sdkResult is the type of the first result of the SDK method sdk names
// (the first of "Users.List, Users.All"); nil if unknown.
func sdkResult(sdk string) reflect.Type {
	first, _, _ := strings.Cut(sdk, ",")
	svc, method, ok := strings.Cut(strings.TrimSpace(first), ".")
	if !ok {
		return nil
	}
	f, ok := reflect.TypeOf(access.Client{}).FieldByName(svc)
	if !ok {
		return nil
	}
	m, ok := f.Type.MethodByName(method)
	if !ok || m.Type.NumOut() == 0 {
		return nil
	}
	return m.Type.Out(0)
}

// addShapeFlags adds the table-shape flags of a list command (its path,
// "doors list") and their help examples.
func addShapeFlags(cmd *cobra.Command, path string) {
	fs := cmd.Flags()
	fs.StringSlice("columns", nil, "the table's `COLUMNS`, comma separated: members of the records, dotted for nested ones (user.name), KEY:HEADING to name one (implies a table)")
	fs.Bool("no-headers", false, "leave out the table's heading line (implies a table)")
	if watchLists[path] {
		fs.BoolP("watch", "w", false, "keep the list on screen, written again whenever the notifications stream changes it (Ctrl-C ends); piped, each new list follows the last")
		fs.Int("watch-count", 0, "with --watch: stop after `N` changed lists (0: until interrupted)")
	}
	cmd.Example = strings.TrimRight(cmd.Example+"\n"+shapeExample(path), "\n")
	cmd.Example = strings.TrimLeft(cmd.Example, "\n")
}

// shapeExample is the help example of the shape flags for a list.
func shapeExample(path string) string {
	switch path {
	case "doors list":
		return "  access --fake doors list -o wide\n  access --fake doors list --columns name,door_position_status:POSITION --no-headers\n" +
			"  access --fake doors list --watch --watch-count 1"
	case "devices list":
		return "  access --fake devices list --columns id,name,location_id:DOOR,is_online\n  access --fake devices list -o wide"
	case "nfc-cards list":
		return "  access --fake nfc-cards list --columns token,user.name"
	}
	return ""
}

// tableShape reads the shape flags of a list command and returns the
// columns of its table, before any request: --columns is checked against
// the members of the records (a usage error names the valid ones), and
// --columns and --no-headers choose a table when -o does not.
func (a *app) tableShape(c *cobra.Command, spec *opSpec) ([]string, error) {
	if !isList(spec) {
		return spec.cols, nil
	}
	return a.shapeOf(c, spec.path, spec.cols, recordType(spec.sdk))
}

// shapeOf is tableShape for the list at path, whose default columns are
// cols and records of type rt (nil: not checked).
func (a *app) shapeOf(c *cobra.Command, path string, cols []string, rt reflect.Type) ([]string, error) {
	given, _ := c.Flags().GetStringSlice("columns")
	if watch, _ := c.Flags().GetBool("watch"); !watch && c.Flags().Changed("watch-count") {
		return nil, usageErrorf("--watch-count counts the lists of --watch: give --watch too")
	}
	noHeaders, _ := c.Flags().GetBool("no-headers")
	a.noHeaders = noHeaders
	shaped := c.Flags().Changed("columns") || noHeaders
	if shaped {
		switch {
		case a.output == "":
			if a.jq != "" {
				return nil, usageErrorf("--jq works on JSON output, not a table (--columns, --no-headers)")
			}
			a.output = "table"
		case a.output != "table":
			return nil, usageErrorf("--columns and --no-headers shape a table, not -o %s", a.outputName())
		}
	}
	if !c.Flags().Changed("columns") {
		return cols, nil
	}
	if a.wide {
		return nil, usageErrorf("-o wide and --columns both choose the columns: give one")
	}
	if len(given) == 0 {
		return nil, usageErrorf("--columns: name at least one member")
	}
	if rt != nil {
		valid := members(rt)
		for _, col := range given {
			key, _, _ := strings.Cut(col, ":")
			if !valid.has(key) {
				return nil, usageErrorf("--columns: the records of %s have no member %q; valid members: %s", path, key, strings.Join(valid.list, ", "))
			}
		}
	}
	return given, nil
}

// shaped reports whether the table of c is shaped by its flags (-o
// wide, --columns, --no-headers): a list with a table of its own then
// writes it through the one table path.
func (a *app) shaped(c *cobra.Command) bool {
	return a.wide || a.noHeaders || c.Flags().Changed("columns")
}

// outputName is -o as given ("wide" included).
func (a *app) outputName() string {
	if a.wide {
		return "wide"
	}
	return a.output
}

// recordType is the Go type of the records of the SDK method sdk names
// (the first of "Users.List, Users.All"): the element of the slice it
// returns (of a slice of slices too) or of the iterator; nil if unknown.
func recordType(sdk string) reflect.Type {
	t := sdkResult(sdk)
	if t == nil {
		return nil
	}
	if t.Kind() == reflect.Func && t.NumIn() == 1 && t.In(0).Kind() == reflect.Func && t.In(0).NumIn() > 0 { // iter.Seq2
		t = t.In(0).In(0)
	}
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// memberSet is the members a column may name: dotted paths, and prefixes
// under which any path is valid (members of free-form JSON).
type memberSet struct {
	list []string // sorted, for the usage error
	open []string // "extra.": anything below is valid
}

func (m memberSet) has(key string) bool {
	i := sort.SearchStrings(m.list, key)
	if i < len(m.list) && m.list[i] == key {
		return true
	}
	for _, p := range m.open {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

// members lists the JSON members of struct type t, nested structs as
// dotted paths beside the member itself.
func members(t reflect.Type) memberSet {
	var m memberSet
	var walk func(t reflect.Type, prefix string, depth int)
	walk = func(t reflect.Type, prefix string, depth int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, prefix, depth)
				continue
			}
			if name == "" {
				name = f.Name
			}
			path := prefix + name
			m.list = append(m.list, path)
			switch {
			case ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(jsonMarshaler) && !ft.Implements(jsonMarshaler) && depth < 4:
				walk(ft, path+".", depth+1)
			case ft.Kind() == reflect.Map, ft.Kind() == reflect.Interface:
				m.open = append(m.open, path+".")
			}
		}
	}
	walk(t, "", 0)
	sort.Strings(m.list)
	return m
}

// watch writes the list of x again whenever a notification changes it:
// on a terminal the screen is cleared and the table drawn again (as
// watch(1)); otherwise each changed list follows the last (as kubectl -w
// does when piped), tables and YAML documents a blank line or "---"
// apart. It ends after count changed lists (0: never) or on Ctrl-C.
// names names the ids of the table's cells.
func (a *app) watch(x *inv, first any, cols []string, names idNames) error {
	count, _ := x.cmd.Flags().GetInt("watch-count")
	if count < 0 {
		return usageErrorf("--watch-count %d: give 0 (until interrupted) or more", count)
	}
	format := a.format()
	render := func(v any) (string, error) {
		var b bytes.Buffer
		err := a.render(&b, format, v, cols, names)
		return b.String(), err
	}
	last, err := render(first)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprint(a.stdout, last); err != nil {
		return err
	}
	redraw := format == "table" && a.isTerminal(a.stdout)
	// After a gap in the stream a change may have been missed: the list
	// is fetched again then too.
	return a.subscribe(nil, count, true, func(*access.Notification) (bool, error) {
		v, err := x.spec.run(x)
		if err != nil {
			return false, inUserWords(x.cmd, x.spec, err)
		}
		if format != "table" {
			v = a.sent.pruneResult(v)
		}
		s, err := render(v)
		if err != nil || s == last {
			return false, err
		}
		last = s
		switch {
		case redraw:
			s = "\x1b[H\x1b[2J" + s
		case format == "table":
			s = "\n" + s
		case format == "yaml":
			s = "---\n" + s
		}
		_, err = fmt.Fprint(a.stdout, s)
		return true, err
	})
}

// resync is what subscribe does after a gap in the stream: with
// resyncOnGap, fn is called with nil (its caller fetches its state again),
// counted as a notification it handled. stop reports that count is reached.
func (a *app) resync(fn func(*access.Notification) (bool, error), seen *int, count int, resyncOnGap bool) (stop bool, err error) {
	if !resyncOnGap {
		return false, nil
	}
	handled, err := fn(nil)
	if err != nil || !handled {
		return false, err
	}
	*seen++
	return count > 0 && *seen >= count, nil
}
