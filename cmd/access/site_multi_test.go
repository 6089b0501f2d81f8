package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

// TestSiteManyConsoles plans and applies one document, with a per-console
// override, to two demo consoles and one that is down: a section each in
// the order given, the down one failing without stopping the others, the
// worst exit code winning, no token printed.
func TestSiteManyConsoles(t *testing.T) {
	t.Parallel()
	srvA := accesstest.New(t, accesstest.WithDemoData())
	srvB := accesstest.New(t, accesstest.WithDemoData())
	down := accesstest.New(t)
	downURL, downToken, downFP := down.URL(), down.Token(), down.Fingerprint()
	down.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf("profiles:\n  north:\n    url: %s\n    token: %s\n    fingerprint: %s\n  south:\n    url: %s\n    token: %s\n    fingerprint: %s\n  west:\n    url: %s\n    token: %s\n    fingerprint: %s\n",
		srvA.URL(), srvA.Token(), srvA.Fingerprint(), srvB.URL(), srvB.Token(), srvB.Fingerprint(), downURL, downToken, downFP)
	doc := "user_groups:\n  - name: Crew\nsites:\n  south:\n    user_groups:\n      - name: South only\n"
	for name, content := range map[string]string{"config.yaml": cfg, "site.yaml": doc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"ACCESS_CONFIG_DIR": dir}
	access := func(args ...string) (int, string, string) {
		var out, errb strings.Builder
		code := run(context.Background(), args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
		for _, tok := range []string{srvA.Token(), srvB.Token(), downToken} {
			if strings.Contains(out.String()+errb.String(), tok) {
				t.Fatalf("a token was printed: %s %s", out.String(), errb.String())
			}
		}
		return code, out.String(), errb.String()
	}
	site := filepath.Join(dir, "site.yaml")

	code, out, errs := access("plan", "-f", site, "--profile", "south,north", "--detailed-exitcode")
	want := "== south ==\nuser_groups:\n  + Crew\n  + South only\n\n2 to create, 0 to change.\n\n== north ==\nuser_groups:\n  + Crew\n\n1 to create, 0 to change.\n"
	if code != cmdutil.ExitChanges || out != want {
		t.Fatalf("plan: exit %d\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
	}

	code, out, errs = access("apply", "-f", site, "--all-profiles", "--yes")
	if code != 1 {
		t.Fatalf("apply: exit %d, want 1 (west is down)\n%s\n%s", code, out, errs)
	}
	for _, s := range []string{"== west ==\nerror: ", "== north ==\ndone    + user_groups Crew\nApply: 1 done, 0 failed, 0 skipped.\n",
		"== south ==\ndone    + user_groups Crew\ndone    + user_groups South only\nApply: 2 done, 0 failed, 0 skipped.\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("apply output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(errs, "3 consoles: 2 applied, 1 failed\n") {
		t.Errorf("stderr: %s", errs)
	}
	if n := len(srvA.UserGroups()); n != 1 {
		t.Errorf("north has %d groups, want 1", n)
	}
	if n := len(srvB.UserGroups()); n != 2 {
		t.Errorf("south has %d groups, want 2", n)
	}

	code, out, _ = access("plan", "-f", site, "--profile", "north,south", "--detailed-exitcode")
	if code != 0 || strings.Count(out, "No changes: the console matches the document.") != 2 {
		t.Fatalf("plan after apply: exit %d\n%s", code, out)
	}
	if code, _, errs = access("plan", "-f", site, "--all-profiles", "--profile", "north"); code != 2 {
		t.Fatalf("--all-profiles with --profile: exit %d %s", code, errs)
	}
	env["ACCESS_URL"] = srvA.URL()
	if code, _, errs = access("plan", "-f", site, "--profile", "north,south"); code != 2 || !strings.Contains(errs, "each whole") {
		t.Fatalf("ACCESS_URL with several profiles: exit %d %s", code, errs)
	}
}
