package main

import (
	"bytes"
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/access-dev/access"
)

// commandsOutside are the SDK methods that commands outside the registry
// call.
var commandsOutside = map[string]string{
	"Notifications.Subscribe": "events tail, events listen",
	"NFCCards.Import":         "nfc-cards import",
}

// notCommands are SDK helpers with no command of their own, and why.
var notCommands = map[string]string{
	"UserGroups.Find": "a user group's name is an argument wherever a group is (names resolve to ids)",
}

// TestEveryOperationHasACommand fails when an exported method of a service
// of access.Client has no command.
func TestEveryOperationHasACommand(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, op := range ops {
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
// names its SDK method, permission and (where the API has one) minimum
// version.
func TestHelpGivesPermissionAndVersion(t *testing.T) {
	t.Parallel()
	for _, op := range ops {
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
		if op.min != "" && !strings.Contains(out.String(), "Minimum Access version: "+op.min) {
			t.Errorf("%s --help lacks the minimum version %s", op.path, op.min)
		}
	}
}
