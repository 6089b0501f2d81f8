package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/stretchr/testify/assert"
)

// access --version names the module version, the commit and whether the
// tree was modified, from the build information; a binary without it
// says so rather than printing nothing or a made-up version.
func TestVersionText(t *testing.T) {
	t.Parallel()
	first := "access " + version + " (SDK " + access.Version + ")\n"
	info := func(modVersion string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/access-dev/access", Version: modVersion}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"release build, clean", info("v1.2.3", "GOOS", "darwin", "GOARCH", "arm64", "vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-26T16:00:00Z", "vcs.modified", "false"), true,
			first + "module: github.com/access-dev/access v1.2.3\n" +
				"commit: " + rev + " (clean tree, committed 2026-11-26T16:00:00Z)\n" +
				"go: go1.26.8 darwin/arm64\n"},
		{"checkout, modified", info("(devel)", "GOOS", "windows", "GOARCH", "amd64", "vcs.revision", rev, "vcs.modified", "true"), true,
			first + "module: github.com/access-dev/access (devel)\n" +
				"commit: " + rev + " (modified tree)\n" +
				"go: go1.26.8 windows/amd64\n"},
		{"no VCS", info("", "GOOS", "linux", "GOARCH", "amd64"), true,
			first + "module: github.com/access-dev/access (devel)\n" +
				"commit: unknown (built without VCS information)\n" +
				"go: go1.26.8 linux/amd64\n"},
		{"no build info", nil, false, first + "build: no build information in this binary\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, versionText(tc.bi, tc.ok))
		})
	}
}

// The root command prints versionText of this binary for --version.
func TestVersionFlagPrintsBuildInfo(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runAPI(t, func(string) string { return "" }, "--version")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, buildVersion(), stdout)
	assert.True(t, strings.HasPrefix(stdout, "access "+version+" (SDK "), stdout)
	assert.Contains(t, stdout, "\ncommit: ")
}
