package dirsync_test

import (
	"slices"
	"testing"

	"github.com/access-dev/access/internal/depstest"
)

// TestDirsyncDependencies fails when package dirsync (its non-test code)
// depends on a module other than those of the access package and of
// package site, go-ldap and the modules go-ldap brings: the command's
// modules (cobra, YAML, …) and test modules (testify, …) stay out of a
// program that reads a directory.
func TestDirsyncDependencies(t *testing.T) {
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
	allowed := append(mods("github.com/access-dev/access"), mods("github.com/access-dev/access/site")...)
	allowed = append(allowed, mods("github.com/go-ldap/ldap/v3")...)
	got := mods("github.com/access-dev/access/dirsync")
	for _, m := range got {
		if !slices.Contains(allowed, m) {
			t.Errorf("package dirsync depends on module %s: it may use those of the access package, package site and go-ldap only", m)
		}
	}
	for _, m := range []string{"github.com/spf13/cobra", "go.yaml.in/yaml/v3", "github.com/stretchr/testify"} {
		if slices.Contains(got, m) || slices.Contains(allowed, m) {
			t.Errorf("module %s is in dirsync's dependencies or in what they may be (%v)", m, allowed)
		}
	}
	if !slices.Contains(got, "github.com/go-ldap/ldap/v3") {
		t.Errorf("package dirsync no longer depends on go-ldap (%v): update this test", got)
	}
}
