package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// flagKind is the type of a flag of an operation.
type flagKind int

const (
	fString flagKind = iota
	fBool
	fInt
	fStrings // repeatable or comma separated
	fTime    // a duration back from now (24h, 7d) or a date
)

// flagSpec is one flag of an operation.
type flagSpec struct {
	name, usage string
	kind        flagKind
	required    bool
	def         string
	shorthand   string
	values      []string // completion values
}

// argSpec is one positional argument; kind names the records a name is
// resolved against ("door", "device"…; "" takes the value as is).
type argSpec struct {
	name, kind string
	variadic   bool
	optional   bool
}

// opSpec is one row of the operation registry: a command path, the SDK
// methods it calls, the facts of the API and the call itself.
type opSpec struct {
	path  string // "doors unlock", "doors lock-rule set"
	sdk   string // "Doors.Unlock" (several: "Users.List, Users.All")
	perm  string
	min   string
	short string
	long  string
	args  []argSpec
	flags []flagSpec
	data  bool     // accepts --data
	paged bool     // adds --all, --page and --page-size
	cols  []string // table columns
	write bool     // changes the console
	run   func(x *inv) (any, error)
	ex    string
}

// inv is one invocation of an operation: its resolved arguments and flags.
type inv struct {
	a    *app
	c    *access.Client
	cmd  *cobra.Command
	args []string
	spec *opSpec
}

func (x *inv) s(name string) string { v, _ := x.cmd.Flags().GetString(name); return v }
func (x *inv) b(name string) bool   { v, _ := x.cmd.Flags().GetBool(name); return v }
func (x *inv) i(name string) int    { v, _ := x.cmd.Flags().GetInt(name); return v }
func (x *inv) ss(name string) []string {
	v, _ := x.cmd.Flags().GetStringSlice(name)
	return v
}
func (x *inv) set(name string) bool { return x.cmd.Flags().Changed(name) }

// sp returns the flag's value as a pointer when it was given, for the
// fields of update requests.
func (x *inv) sp(name string) *string {
	if !x.set(name) {
		return nil
	}
	return access.Ptr(x.s(name))
}

// t parses a time flag: a duration back from now or a date.
func (x *inv) t(name string) (time.Time, error) {
	v := x.s(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := parseWhen(v, time.Now())
	if err != nil {
		return time.Time{}, usageErrorf("--%s: %v", name, err)
	}
	return t, nil
}

// arg returns positional argument i (resolved to an id for named kinds).
func (x *inv) arg(i int) string {
	if i < len(x.args) {
		return x.args[i]
	}
	return ""
}

// rest returns the arguments from i on.
func (x *inv) rest(i int) []string {
	if i < len(x.args) {
		return x.args[i:]
	}
	return nil
}

// data decodes --data (a JSON document, @file or - for stdin) into v and
// reports whether one was given.
func (x *inv) data(v any) (bool, error) {
	raw := x.s("data")
	if raw == "" {
		return false, nil
	}
	var b []byte
	var err error
	switch {
	case raw == "-" || raw == "@-":
		b, err = io.ReadAll(x.a.stdin)
	case strings.HasPrefix(raw, "@"):
		b, err = os.ReadFile(raw[1:])
	default:
		b = []byte(raw)
	}
	if err != nil {
		return true, usageErrorf("--data: %v", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return true, usageErrorf("--data: malformed JSON for %s: %v", x.spec.sdk, err)
	}
	return true, nil
}

// page returns the paging flags.
func (x *inv) page() (num, size int) { return x.i("page"), x.i("page-size") }

// seq adapts an SDK iterator to a stream.
func seq[T any](it iter.Seq2[T, error]) stream {
	return func(yield func(any) bool) error {
		for v, err := range it {
			if err != nil {
				return err
			}
			if !yield(v) {
				return nil
			}
		}
		return nil
	}
}

// done is the result of writes that return nothing: a line on a terminal,
// nothing in JSON.
type done struct {
	Message string `json:"-"`
}

// ops is the registry; each service file appends its rows in init.
var ops []*opSpec

func register(specs ...*opSpec) { ops = append(ops, specs...) }

// serviceCommands builds the command tree of the registry.
func (a *app) serviceCommands() []*cobra.Command {
	groups := map[string]*cobra.Command{}
	var top []*cobra.Command
	for _, spec := range ops {
		words := strings.Fields(spec.path)
		parent := (*cobra.Command)(nil)
		for i, w := range words[:len(words)-1] {
			key := strings.Join(words[:i+1], " ")
			g, ok := groups[key]
			if !ok {
				g = groupCommand(w, serviceShort[key])
				groups[key] = g
				if parent == nil {
					top = append(top, g)
				} else {
					parent.AddCommand(g)
				}
			}
			parent = g
		}
		parent.AddCommand(a.opCommand(spec, words[len(words)-1]))
	}
	return top
}

// serviceShort describes the services and sub-groups.
var serviceShort = map[string]string{
	"users":            "Users: create, list, credentials, policies, import",
	"user-groups":      "User groups and their members and policies",
	"visitors":         "Visitors and their credentials",
	"access-policies":  "Access policies",
	"holiday-groups":   "Holiday groups",
	"schedules":        "Schedules",
	"pin-codes":        "PIN codes",
	"nfc-cards":        "NFC cards: enrollment, list, import",
	"touch-passes":     "Touch passes",
	"qr-codes":         "Visitor QR codes",
	"door-groups":      "Door groups",
	"doors":            "Doors: list, unlock, lock rules, emergency",
	"doors lock-rule":  "Temporary door locking rules",
	"doors emergency":  "The site's emergency status (lockdown, evacuation)",
	"devices":          "Devices: list, access-method settings, doorbells",
	"devices settings": "A device's access-method settings",
	"system-logs":      "System logs: list, export, resources",
	"identity":         "UniFi Identity invitations and resources",
	"webhooks":         "Webhook endpoints",
	"api-server":       "The API server's HTTPS certificate",
}

func (a *app) opCommand(spec *opSpec, name string) *cobra.Command {
	use := name
	for _, ar := range spec.args {
		n := strings.ToUpper(ar.name)
		switch {
		case ar.variadic:
			n += "..."
		}
		if ar.optional {
			n = "[" + n + "]"
		}
		use += " " + n
	}
	long := spec.short + "."
	if spec.long != "" {
		long += "\n\n" + spec.long
	}
	for _, ar := range spec.args {
		if ar.kind != "" {
			long += fmt.Sprintf("\n\n%s is the %s's name or id; a name that matches several is an error listing them.", strings.ToUpper(ar.name), kindLabel[ar.kind])
			break
		}
	}
	long += "\n\nSDK: " + spec.sdk + "\nPermission: " + spec.perm
	if spec.min != "" {
		long += "\nMinimum Access version: " + spec.min
	}
	if spec.write {
		long += "\nThis command changes the console; it is never sent twice."
	}
	cmd := &cobra.Command{
		Use:               use,
		Short:             spec.short,
		Long:              long,
		Example:           spec.ex,
		Args:              argsValidator(spec),
		ValidArgsFunction: a.completeArgs(spec),
	}
	fs := cmd.Flags()
	for _, f := range spec.flags {
		switch f.kind {
		case fBool:
			fs.Bool(f.name, f.def == "true", f.usage)
		case fInt:
			var d int
			fmt.Sscan(f.def, &d)
			fs.Int(f.name, d, f.usage)
		case fStrings:
			fs.StringSliceP(f.name, f.shorthand, nil, f.usage)
		default:
			fs.StringP(f.name, f.shorthand, f.def, f.usage)
		}
		if f.required {
			_ = cmd.MarkFlagRequired(f.name)
		}
		if f.values != nil {
			_ = cmd.RegisterFlagCompletionFunc(f.name, cobra.FixedCompletions(f.values, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if spec.data {
		fs.String("data", "", "the request body as JSON: a document, @FILE or - for stdin")
	}
	if spec.paged {
		fs.Bool("all", false, "fetch every page (streamed)")
		fs.Int("page", 0, "page number (1-based)")
		fs.Int("page-size", 0, "records per page")
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		cl, err := a.Client()
		if err != nil {
			return err
		}
		resolved, err := a.resolveArgs(c.Context(), cl, spec, args)
		if err != nil {
			return err
		}
		x := &inv{a: a, c: cl, cmd: c, args: resolved, spec: spec}
		res, err := spec.run(x)
		if err != nil {
			return err
		}
		if d, ok := res.(done); ok {
			if a.format() == "table" {
				fmt.Fprintln(a.stdout, d.Message)
			}
			return nil
		}
		return a.emit(res, spec.cols)
	}
	return cmd
}

func argsValidator(spec *opSpec) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		min, max := 0, 0
		for _, ar := range spec.args {
			if !ar.optional {
				min++
			}
			max++
			if ar.variadic {
				max = -1
				break
			}
		}
		switch {
		case len(args) < min:
			var missing []string
			for _, ar := range spec.args[len(args):] {
				if !ar.optional {
					missing = append(missing, strings.ToUpper(ar.name))
				}
			}
			return usageErrorf("%s: missing argument %s", c.CommandPath(), strings.Join(missing, " "))
		case max >= 0 && len(args) > max:
			return usageErrorf("%s: too many arguments (want at most %d, got %d)", c.CommandPath(), max, len(args))
		}
		return nil
	}
}
