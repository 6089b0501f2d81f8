package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"reflect"
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
	notBody     bool     // of an operation with a body: a flag that is not part of it (combines with --data)
	// refuse, when set, makes the flag a hidden one that takes no value:
	// giving it fails with refuse while the flags are parsed (a secret
	// never taken from the command line).
	refuse error
}

// argSpec is one positional argument; kind names the records a name is
// resolved against ("door", "device"…; "" takes the value as is).
type argSpec struct {
	name, kind string
	variadic   bool
	optional   bool
	body       bool // part of the request body: left out (and not allowed) with --data
}

// opSpec is one row of the operation registry: a command path, the SDK
// methods it calls, the facts of the API and the call itself.
type opSpec struct {
	path  string // "doors unlock", "doors lock-rule set"
	sdk   string // "Doors.Unlock" (several: "Users.List, Users.All")
	perm  string // (the minimum Access version comes from internal/apifacts: see factsHelp)
	short string
	long  string
	args  []argSpec
	flags []flagSpec
	// body is set for every operation whose request has a body: it
	// returns a pointer to a new value of the type --data decodes into
	// (the SDK's request type, or the bare array or scalar the method
	// takes). The command then accepts --data, decoded before any
	// request; its flags (unless notBody) and body arguments are the
	// other way to give the body, and are refused with --data.
	body func() any
	// member is the one member of the vendor's body object where the SDK
	// method takes its value bare (pin_code, token, access_policy_ids):
	// --data then takes the vendor's object ({"pin_code":"1234"}) or the
	// bare value.
	member string
	paged  bool     // adds --all, --page and --page-size
	cols   []string // table columns
	write  bool     // changes the console
	run    func(x *inv) (any, error)
	ex     string
}

// inv is one invocation of an operation: its resolved arguments and flags.
type inv struct {
	a    *app
	c    *access.Client
	cmd  *cobra.Command
	args []string
	spec *opSpec
	body any // what --data decoded into (a pointer from spec.body), or nil
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

// bodyOf is the body of an operation whose --data decodes into a T.
func bodyOf[T any]() func() any { return func() any { return new(T) } }

// fromData returns the body --data gave, or else the one build makes from
// the arguments and flags.
func fromData[T any](x *inv, build func() (T, error)) (T, error) {
	if x.body != nil {
		return *x.body.(*T), nil
	}
	return build()
}

// dataGiven reports whether the command has --data and it was given.
func dataGiven(c *cobra.Command) bool {
	f := c.Flags().Lookup("data")
	return f != nil && f.Value.String() != ""
}

// decodeData reads --data into a new value of the operation's body, and
// refuses the flags and arguments that would give the body too (they
// would be ignored).
func (x *inv) decodeData() error {
	if x.spec.body == nil || !dataGiven(x.cmd) {
		return nil
	}
	for _, f := range x.spec.flags {
		if !f.notBody && x.set(f.name) {
			return usageErrorf("--data gives the whole request body: leave out --%s", f.name)
		}
	}
	v := x.spec.body()
	var into any = v
	if x.spec.member != "" {
		into = &memberBody{name: x.spec.member, v: v}
	}
	if _, err := x.data(into); err != nil {
		return err
	}
	x.body = v
	return nil
}

// memberBody decodes the vendor's one-member body object ({"pin_code":
// "1234"}) into the bare value an SDK method takes, or the bare value
// itself.
type memberBody struct {
	name string
	v    any
}

func (m *memberBody) UnmarshalJSON(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return json.Unmarshal(b, m.v)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	raw, ok := obj[m.name]
	if !ok || len(obj) != 1 {
		return fmt.Errorf("the body object has exactly one member, %q", m.name)
	}
	return json.Unmarshal(raw, m.v)
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
	err = d.Decode(v)
	if mb, ok := v.(*memberBody); ok {
		if err != nil && strings.Contains(err.Error(), "exactly one member") {
			return true, usageErrorf("--data: %v", err)
		}
		if err != nil {
			return true, usageErrorf("--data: want a JSON object with %s, or %s", mb.name, jsonShape(reflect.TypeOf(mb.v)))
		}
		return true, nil
	}
	if err != nil {
		return true, dataError(err, v)
	}
	return true, unknownMembers(b, v)
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
	var bodyArgs []string
	for _, ar := range spec.args {
		if ar.body {
			bodyArgs = append(bodyArgs, strings.ToUpper(ar.name))
		}
	}
	if len(bodyArgs) > 0 {
		long += "\n\nWith --data, leave out " + strings.Join(bodyArgs, " ") + ": the body gives it."
	}
	for _, ar := range spec.args {
		if ar.kind != "" {
			long += fmt.Sprintf("\n\n%s is the %s's name or id; a name that matches several is an error listing them.", strings.ToUpper(ar.name), kindLabel[ar.kind])
			break
		}
	}
	long += "\n\n" + factsHelp(spec.sdk, spec.perm)
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
		Annotations:       map[string]string{permAnnotation: spec.perm},
	}
	fs := cmd.Flags()
	for _, f := range spec.flags {
		if f.required && !strings.Contains(f.usage, "required") {
			f.usage = strings.TrimSpace(f.usage + " (required)")
		}
		if f.refuse != nil {
			fs.Var(refusedFlag{f.refuse}, f.name, f.usage)
			_ = fs.MarkHidden(f.name)
			continue
		}
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
		if f.values != nil {
			_ = cmd.RegisterFlagCompletionFunc(f.name, cobra.FixedCompletions(f.values, cobra.ShellCompDirectiveNoFileComp))
		} else if _, named := kindLabel[f.name]; named { // --door, --schedule…: names from the console
			_ = cmd.RegisterFlagCompletionFunc(f.name, a.completeNames(f.name))
		}
	}
	if spec.body != nil {
		fs.String("data", "", "the request body as "+bodyDescription(spec.body())+": inline, @FILE or - for stdin")
	}
	if spec.paged {
		fs.Bool("all", false, "fetch every page (streamed)")
		fs.Int("page", 0, "page number (1-based)")
		fs.Int("page-size", 0, "records per page")
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		x := &inv{a: a, cmd: c, args: args, spec: spec}
		if err := checkRequired(c, spec); err != nil {
			return err
		}
		if err := x.decodeData(); err != nil {
			return err
		}
		cl, err := a.Client()
		if err != nil {
			return err
		}
		resolved, err := a.resolveArgs(c.Context(), cl, spec, args)
		if err != nil {
			return err
		}
		x.c, x.args = cl, resolved
		res, err := spec.run(x)
		if err != nil {
			return inUserWords(c, spec, err)
		}
		if names := tableNameCols[spec.path]; names != nil && a.format() == "table" {
			a.loadTableNames(c.Context(), cl, names)
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

// bodyDescription names what --data takes, for its usage line, in JSON
// terms.
func bodyDescription(v any) string { return jsonShape(reflect.TypeOf(v)) }

func argsValidator(spec *opSpec) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		withData := spec.body != nil && dataGiven(c)
		if withData {
			var bodyArgs []string
			n := 0
			for _, ar := range spec.args {
				if ar.body {
					bodyArgs = append(bodyArgs, strings.ToUpper(ar.name))
				} else {
					n++
				}
			}
			if len(bodyArgs) > 0 && len(args) > n {
				return usageErrorf("%s: --data gives the whole request body: leave out %s", c.CommandPath(), strings.Join(bodyArgs, " "))
			}
		}
		min, max := 0, 0
		for _, ar := range spec.args {
			if withData && ar.body {
				continue
			}
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
				if !ar.optional && !(withData && ar.body) {
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
