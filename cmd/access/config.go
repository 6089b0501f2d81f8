package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
)

// The config file's types and reading are package connect's.
type (
	profile = connect.Profile
	config  = connect.Config
)

// profileNames are the names of cfg's profiles, sorted.
var profileNames = connect.ProfileNames

// saveConfig writes the config back to path (connect.Save).
var saveConfig = connect.Save

// connection is what a client is built from (connect.Connection).
type connection = connect.Connection

// connectFlags are the global flags that choose the console, for connect.
func (a *app) connectFlags() connect.Flags {
	return connect.Flags{URL: a.urlFlag, Profile: a.profile, TokenFile: a.tokenFile, Fingerprint: a.fingerprint,
		CACert: a.cacert, Insecure: a.insecure, AllowHTTP: a.allowHTTP, Fake: a.fake}
}

// resolveConnection resolves the console of this run as a whole
// (connect.Resolve): a URL and a token from the flags and the
// environment, or else a whole profile, never a mix.
func (a *app) resolveConnection() (connection, error) {
	return a.resolve(a.connectFlags())
}

// resolve is resolveConnection with the flags flags.
func (a *app) resolve(flags connect.Flags) (connection, error) {
	return connect.Resolve(flags, connect.Env{Getenv: a.getenv, LoadConfig: a.loadConfig, ReadSecretFile: a.readSecretFile})
}

// checkScheme refuses a console URL that is not https:// unless
// --allow-http (connect.CheckScheme).
func (a *app) checkScheme(raw, src string) error { return connect.CheckScheme(raw, src, a.allowHTTP) }

// clientOptions are the SDK options for a connection
// (connect.ClientOptions), with the command line's user agent.
func clientOptions(c connection) []access.Option {
	return connect.ClientOptions(c, "access-cli/"+version)
}

// loadConfig reads the config file of the run's config directory
// (connect.Load), warning once when others can read it.
func (a *app) loadConfig() (*config, string, error) {
	dir, err := a.configDir()
	if err != nil {
		return nil, "", err
	}
	cfg, p, read, err := connect.Load(dir)
	if err != nil {
		return nil, "", err
	}
	if read {
		a.warnConfigMode(p)
	}
	return cfg, p, nil
}

// configDir is the directory of the config file: $ACCESS_CONFIG_DIR or
// os.UserConfigDir()/access.
func (a *app) configDir() (string, error) {
	if d := a.getenv("ACCESS_CONFIG_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "access"), nil
}

// warnConfigMode warns, once a run, when the config file (which holds
// tokens) can be read or written by others, as ssh does for its keys.
func (a *app) warnConfigMode(path string) {
	if a.configWarned || runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	a.configWarned = true
	fmt.Fprintf(a.stderr, "access: warning: %s holds tokens and is accessible by others (mode %04o): chmod 600 %s\n", path, fi.Mode().Perm(), path)
}

// readSecretFile reads a secret (a token, a webhook secret) from the file
// a flag names, or stdin for "-", trimmed; an empty one is an error. The
// error names the flag and the file, never the content.
func (a *app) readSecretFile(flag, path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 64<<10))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", usageErrorf("%s: %v", flag, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", usageErrorf("%s %s is empty", flag, path)
	}
	return tok, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// startFake starts the embedded demo console once and returns the
// connection to it, pinned by its certificate's fingerprint.
func (a *app) startFake() connection {
	if a.fakeSrv == nil {
		a.fakeSrv = accesstest.NewServer(accesstest.WithDemoData())
		seedFakeDemo(a.fakeSrv)
	}
	return connection{URL: a.fakeSrv.URLFor(a.fakeMode), Fingerprint: a.fakeSrv.Fingerprint(),
		Source: "--fake", TokenSource: "--fake", PinSource: "--fake"}.WithToken(a.fakeSrv.Token())
}

// Client returns the client of this run, built on first use, unpaced.
func (a *app) Client() (*access.Client, error) { return a.pacedClient(0) }

// pacedClient returns the client of this run, built on first use and
// paced at rate requests per second, the --rate of the bulk command that
// runs (0: unpaced). The pace is the command's own option
// (cmdutil.Pace), passed here, never kept on the app: one run runs one
// command, whose calls all pass the same rate.
func (a *app) pacedClient(rate float64) (*access.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	var c connection
	if a.fake {
		c = a.startFake()
	} else {
		var err error
		if c, err = a.resolveConnection(); err != nil {
			return nil, err
		}
	}
	a.sent = &sentKeys{}
	opts := a.sdkOptions(c, a.sent.wrap)
	if rate > 0 {
		opts = append(opts, access.WithRateLimit(rate, 1)) // --rate of the bulk commands
	}
	cl, err := access.NewClient(c.URL, c.Token(), opts...)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	a.client, a.conn = cl, c
	return cl, nil
}

// connectFactory sets the members of f that reach a console, its config
// file and the table shapes, for the commands that find, save or check a
// console themselves (login, config, auth, doctor), and returns f.
func (a *app) connectFactory(f *cmdutil.Factory) *cmdutil.Factory {
	f.UserAgent = "access-cli/" + version
	f.ConnectFlags = a.connectFlags
	f.FakeConnection = a.startFake
	f.Resolve = a.resolve
	f.ClientOptions = a.sdkOptions
	f.LoadConfig = a.loadConfig
	f.Color = a.color
	f.AddShapeFlags = addShapeFlags
	f.Shape = a.shapeOf
	f.Shaped = a.shaped
	f.DidYouMean = func(query string, names []string) string { return didYouMean(query, eachName(names)) }
	return f
}

// peekFingerprint reads the console's certificate without checking it
// (connect.PeekFingerprint).
func (a *app) peekFingerprint(u *url.URL) string { return connect.PeekFingerprint(a.ctx, u) }
