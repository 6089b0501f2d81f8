package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/site"
)

// TestSiteDocsStateLeaversScopeGuard: the exit codes of --help and
// docs/cli.md list 6, and docs/site.md states the leavers, the scope, the
// guard with its flags and defaults, and the exit codes 5 and 6 (issue 33).
func TestSiteDocsStateLeaversScopeGuard(t *testing.T) {
	if !strings.Contains(exitCodesHelp, fmt.Sprintf("\n  %d    refused by a safety guard", cmdutil.ExitGuard)) {
		t.Errorf("the exit codes of --help do not list %d:\n%s", cmdutil.ExitGuard, exitCodesHelp)
	}
	read := func(name string) string {
		b, err := os.ReadFile("../../docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	if cli := read("cli.md"); !strings.Contains(cli, strconv.Itoa(cmdutil.ExitGuard)+" refused by a safety guard") {
		t.Errorf("docs/cli.md does not list exit code %d", cmdutil.ExitGuard)
	}
	doc := read("site.md")
	for _, want := range []string{
		"**Leavers are never silent.**", "(--prune would deactivate)", "`--detailed-exitcode` exits 5 for them",
		"**Scope.**", "`employee_number: true`", "`user_group: NAME`", "outside the scope",
		"**Guard on mass deactivation.**", "`--max-deactivate N`", "`--max-deactivate-share P`",
		fmt.Sprintf("more than %d users", site.DefaultMaxDeactivate), fmt.Sprintf("more than %g %%", site.DefaultMaxDeactivateShare),
		fmt.Sprintf("exit **%d**", cmdutil.ExitGuard), "5: changes or leavers",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/site.md does not say %q", want)
		}
	}
}
