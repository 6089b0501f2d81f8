package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/cobra"
)

// commandsOutside are the SDK methods that commands outside the registry
// call.
var commandsOutside = map[string]string{
	"Notifications.Subscribe": "events tail, events listen",
	"NFCCards.Import":         "nfc-cards import",
	"Notifications.Check":     "doctor",
}

// notCommands are SDK helpers with no command of their own, and why.
var notCommands = map[string]string{
	"UserGroups.Find":          "a user group's name is an argument wherever a group is (names resolve to ids)",
	"Notifications.SocketPath": "what the client remembers, not an operation (doctor prints Notifications.Check's path)",
}

// TestEveryOperationHasACommand fails when an exported method of a service
// of access.Client has no command.
func TestEveryOperationHasACommand(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, op := range operations() {
		for _, m := range strings.Split(op.sdk, ",") {
			covered[strings.TrimSpace(m)] = true
		}
	}
	for m := range commandsOutside {
		covered[m] = true
	}
	ct := reflect.TypeOf(access.Client{})
	var missing []string
	total := 0
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || !strings.HasSuffix(f.Type.Elem().Name(), "Service") {
			continue
		}
		for j := 0; j < f.Type.NumMethod(); j++ {
			name := f.Name + "." + f.Type.Method(j).Name
			total++
			if !covered[name] && notCommands[name] == "" {
				missing = append(missing, name)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("SDK methods without a command: %s", strings.Join(missing, ", "))
	}
	if total < 106 {
		t.Errorf("found only %d SDK methods; the reflection missed services", total)
	}
}

// TestHelpGivesPermissionAndVersion checks every registry command's help
// names its SDK method and permission (TestHelpMinimumVersionIsTheSpecs
// checks the minimum versions).
func TestHelpGivesPermissionAndVersion(t *testing.T) {
	t.Parallel()
	for _, op := range operations() {
		if op.perm == "" {
			t.Errorf("%s: no permission", op.path)
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), append(strings.Fields(op.path), "--help"), nil, &out, &errb, func(string) string { return "" })
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", op.path, code, errb.String())
		}
		for _, want := range []string{"SDK: " + op.sdk, "Permission: " + op.perm} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s --help lacks %q", op.path, want)
			}
		}
	}
}

// bodyOps are the SDK methods whose vendor request has a JSON body (the
// "Body" column of the API's operation table; the multipart uploads take
// files instead, and Visitors.AssignQRCode and PINCodes.Generate send
// none). Each command of one of them takes --data.
var bodyOps = []string{
	"Users.Create", "Users.Update", "Users.SetAccessPolicies", "Users.AssignNFCCard", "Users.UnassignNFCCard",
	"Users.AssignPINCode", "Users.BatchAssignTouchPasses", "Users.AssignLicensePlates",
	"UserGroups.Create", "UserGroups.Update", "UserGroups.AddUsers", "UserGroups.RemoveUsers", "UserGroups.SetAccessPolicies",
	"Visitors.Create", "Visitors.Update", "Visitors.AssignNFCCard", "Visitors.UnassignNFCCard", "Visitors.AssignPINCode",
	"Visitors.AssignLicensePlates",
	"AccessPolicies.Create", "AccessPolicies.Update", "HolidayGroups.Create", "HolidayGroups.Update",
	"Schedules.Create", "Schedules.Update",
	"NFCCards.StartEnrollment", "NFCCards.Update", "TouchPasses.Update", "TouchPasses.Purchase",
	"DoorGroups.Create", "DoorGroups.Update", "Doors.Unlock", "Doors.SetLockRule", "Doors.SetEmergency",
	"Devices.UpdateSettings", "Devices.TriggerDoorbell",
	"SystemLogs.List", "SystemLogs.All", "SystemLogs.Export",
	"Identity.SendInvitations", "Identity.AssignToUser", "Identity.AssignToUserGroup",
	"Webhooks.Create", "Webhooks.Ensure", "Webhooks.Update",
}

// wireBodies are the operations whose --data decodes into a type of the
// command line, because the SDK's type has no JSON wire form of its own.
var wireBodies = map[string]reflect.Type{
	"system-logs list":   reflect.TypeOf(logWire{}),
	"system-logs export": reflect.TypeOf(exportWire{}),
}

// TestEveryBodyTakesData walks the registry: every command of an operation
// with a request body has --data, decoded into the type the SDK method
// takes (its request struct, or the bare array or scalar), and no other
// command has it.
func TestEveryBodyTakesData(t *testing.T) {
	t.Parallel()
	hasBody := map[string]bool{}
	for _, m := range bodyOps {
		hasBody[m] = true
	}
	ct := reflect.TypeOf(&access.Client{}).Elem()
	seen := map[string]bool{}
	for _, op := range operations() {
		var methods []string
		for _, m := range strings.Split(op.sdk, ",") {
			if m = strings.TrimSpace(m); hasBody[m] {
				methods = append(methods, m)
				seen[m] = true
			}
		}
		cmd := findCommand(t, op.path)
		if len(methods) == 0 {
			if op.body != nil || cmd.Flags().Lookup("data") != nil {
				t.Errorf("%s (%s) has --data, but the operation has no request body", op.path, op.sdk)
			}
			continue
		}
		if op.body == nil || cmd.Flags().Lookup("data") == nil {
			t.Errorf("%s (%s) has a request body but no --data", op.path, op.sdk)
			continue
		}
		bt := reflect.TypeOf(op.body()).Elem()
		if want, ok := wireBodies[op.path]; ok {
			if bt != want {
				t.Errorf("%s: --data decodes into %v, want %v", op.path, bt, want)
			}
			continue
		}
		for _, m := range methods {
			svc, name, _ := strings.Cut(m, ".")
			f, ok := ct.FieldByName(svc)
			if !ok {
				t.Fatalf("no service %s", svc)
			}
			mt, ok := f.Type.MethodByName(name)
			if !ok {
				t.Fatalf("no method %s", m)
			}
			found := false
			for i := 2; i < mt.Type.NumIn(); i++ { // receiver, ctx
				if p := mt.Type.In(i); p == bt || p == reflect.PointerTo(bt) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: --data decodes into %v, which %s does not take (%v)", op.path, bt, m, mt.Type)
			}
		}
	}
	for _, m := range bodyOps {
		if !seen[m] {
			t.Errorf("no registry command calls %s", m)
		}
	}
}

// findCommand returns the command of a registry path.
func findCommand(t *testing.T, path string) *cobra.Command {
	t.Helper()
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	root := a.rootCommand()
	c, _, err := root.Find(strings.Fields(path))
	if err != nil || c.CommandPath() != "access "+path {
		t.Fatalf("no command %q: %v", path, err)
	}
	return c
}

// scriptedCommands returns the commands the scripts of testdata/script
// run (exec access ..., exitcode N access ...), by their path without
// "access ", with the script that first runs each.
func scriptedCommands(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	cmdLine := regexp.MustCompile(`^\s*(?:[!?]\s*)?(?:exec|exitcode\s+\d+)\s+access(\s.*)?$`)
	root := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" }).rootCommand()
	used := map[string]string{}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(ar.Comment), "\n") {
			m := cmdLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			words, err := shellWords(strings.TrimSpace(m[1]))
			if err != nil {
				t.Fatalf("%s: %q: %v", f, line, err)
			}
			c, _, err := root.Find(words)
			if err != nil {
				continue
			}
			path := strings.TrimPrefix(c.CommandPath(), "access")
			if path = strings.TrimSpace(path); path != "" && used[path] == "" {
				used[path] = filepath.Base(f)
			}
		}
	}
	return used
}

// notScripted are the commands outside the registry no script runs, and
// where they are tested instead.
var notScripted = map[string]string{
	"events listen": "it needs a webhook handler: TestEventsListenForwardsSignedDeliveries, TestHelpExamplesWithFakeRun",
	"fake":          "the simulator serves until stopped: internal/simulator's tests",
}

// TestEveryCommandInAScript fails when a command of the registry is run by
// no script of testdata/script (nor one outside it, such as users import,
// events tail or doctor, unless notScripted says where it is tested), so
// that each command's exit codes and output are asserted somewhere.
func TestEveryCommandInAScript(t *testing.T) {
	t.Parallel()
	used := scriptedCommands(t)
	var missing []string
	for _, op := range operations() {
		if used[op.path] == "" {
			missing = append(missing, op.path)
		}
	}
	root := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" }).rootCommand()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimSpace(strings.TrimPrefix(c.CommandPath(), "access"))
		if path == "" || c.HasSubCommands() || c.Hidden || notScripted[path] != "" {
			return
		}
		if used[path] == "" && !slices.Contains(missing, path) {
			missing = append(missing, path)
		}
	}
	walk(root)
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d commands are run by no script of testdata/script: %s", len(missing), strings.Join(missing, ", "))
	}
	for _, path := range []string{"doors list", "users import", "events tail", "doctor"} {
		if used[path] == "" {
			t.Errorf("the scripts seem not to run %s: is the parsing of their command lines broken?", path)
		}
	}
}

// TestNoInitRegistration fails when a file of the command fills state
// from an init function: the registry and the command tree are built
// explicitly, by operations and rootCommand.
func TestNoInitRegistration(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: func init: add rows through a function operations calls, commands in rootCommand", fset.Position(fd.Pos()))
			}
		}
	}
	// Two builds give equal, independent registries.
	a, b := operations(), operations()
	if len(a) != len(b) || len(a) < 100 {
		t.Fatalf("operations() built %d and %d rows, want the same number (100 or more)", len(a), len(b))
	}
	for i := range a {
		if a[i] == b[i] || a[i].path != b[i].path {
			t.Errorf("row %d: %q and %q: want equal paths in new rows", i, a[i].path, b[i].path)
		}
	}
}

// TestEveryArgumentSaysWhatItAccepts fails when a command's help does not
// describe one of its positional arguments.
func TestEveryArgumentSaysWhatItAccepts(t *testing.T) {
	t.Parallel()
	for _, op := range operations() {
		for _, ar := range op.args {
			if aboutArg(ar) == "" {
				t.Errorf("%s: argument %s: no help (give it an about, or a kind)", op.path, ar.name)
			}
		}
	}
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		words := strings.Fields(c.Use)
		for i := 1; i < len(words); i++ {
			w := words[i]
			if strings.HasPrefix(w, "-") {
				i++ // the flag's value
				continue
			}
			name := strings.TrimSuffix(strings.Trim(w, "[]"), "...")
			if !strings.Contains(c.Long, "\n  "+name) && !strings.Contains(c.Long, name+" is ") {
				t.Errorf("%s: the help does not say what %s accepts", c.CommandPath(), name)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
}

// TestRequestBodiesDocumented: the help of every command with a request
// body shows it as --data takes it, and that document is one --data
// accepts (decoded as --data is, unknown members refused), with no Go
// type name in the flag's usage.
func TestRequestBodiesDocumented(t *testing.T) {
	t.Parallel()
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	n := 0
	for _, op := range operations() {
		if op.body == nil {
			continue
		}
		n++
		doc := bodyExample(op)
		cmd := a.opCommand(op, op.path)
		if !strings.Contains(cmd.Long, "Request body (--data") || !strings.Contains(cmd.Long, indent(doc, "  ")) {
			t.Errorf("%s: the help does not show the request body:\n%s", op.path, cmd.Long)
		}
		var into any = op.body()
		if op.member != "" {
			into = &memberBody{name: op.member, v: into}
		}
		d := json.NewDecoder(strings.NewReader(doc))
		d.DisallowUnknownFields()
		if err := d.Decode(into); err != nil {
			t.Errorf("%s: --data refuses its documented body %s: %v", op.path, doc, err)
		}
		if usage := cmd.Flags().Lookup("data").Usage; strings.Contains(usage, "access.") || strings.Contains(usage, "wire form") {
			t.Errorf("%s: --data's usage names a Go type: %q", op.path, usage)
		}
	}
	if n < 40 {
		t.Errorf("%d commands with a request body, want 40 or more", n)
	}
}
