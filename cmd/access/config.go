package main

import (
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
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

// connection is what a client is built from.
type connection struct {
	URL, Fingerprint string
	Insecure         bool
	Source           string // where the URL came from, for doctor
	// TokenSource and PinSource say where the token and the pin came
	// from ("--token-file", "ACCESS_TOKEN", "profile office"), and
	// Profile how the profile was chosen ("--profile", "ACCESS_PROFILE",
	// "current"), for access auth status.
	TokenSource, PinSource, Profile string
	// CACert is the PEM of the CA trusted instead of the system's roots
	// (--cacert or ACCESS_CACERT, the file CAFile), or nil.
	CACert        []byte
	CAFile, CASrc string
	// token is a function, not a string: fmt prints unexported fields by
	// reflection, without their String methods, so a %v of a struct that
	// holds a connection would otherwise show the token.
	token func() string
}

// tokenOf wraps a token for a connection.
func tokenOf(s string) func() string { return func() string { return s } }

// Token returns the connection's token ("" when none).
func (c connection) Token() string {
	if c.token == nil {
		return ""
	}
	return c.token()
}

// GoString never shows the token.
func (c connection) GoString() string { return c.String() }

// String never shows the token.
func (c connection) String() string {
	return fmt.Sprintf("{url=%s fingerprint=%s insecure=%t token=REDACTED}", c.URL, c.Fingerprint, c.Insecure)
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

// resolveConnection resolves the console of this run as a whole: a URL
// and a token from the flags and the environment (--url or ACCESS_URL,
// --token-file or ACCESS_TOKEN, --insecure), or else a whole profile (its
// URL, token, pin and insecure), the one --profile or ACCESS_PROFILE names
// or the current one. A profile never lends its token or its insecure to a
// URL from elsewhere, and a token from elsewhere is never sent to a
// profile's URL: such a mix is a usage error that says where each part
// came from. Only an explicit pin (--fingerprint or ACCESS_FINGERPRINT)
// may be added to either, since it only tightens the connection. A URL
// that is not https:// is refused unless --allow-http.
func (a *app) resolveConnection() (connection, error) {
	var c connection
	cfg, path, err := a.loadConfig()
	if err != nil {
		return c, err
	}
	urlSrc, rawURL := "--url", a.urlFlag
	if rawURL == "" {
		urlSrc, rawURL = "ACCESS_URL", a.getenv("ACCESS_URL")
	}
	tokSrc := ""
	switch {
	case a.tokenFile != "":
		tokSrc = "--token-file"
	case a.getenv("ACCESS_TOKEN") != "":
		tokSrc = "ACCESS_TOKEN"
	}
	fp := firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT"))

	// The profile: named explicitly, or the current one.
	name, nameSrc := a.profile, "--profile"
	if name == "" {
		name, nameSrc = a.getenv("ACCESS_PROFILE"), "ACCESS_PROFILE"
	}
	var p profile
	switch {
	case name != "":
		var ok bool
		if p, ok = cfg.Profiles[name]; !ok {
			return c, usageErrorf("no profile %q in %s (have: %s)", name, path, strings.Join(profileNames(cfg), ", "))
		}
	case cfg.Current != "":
		name, nameSrc = cfg.Current, ""
		p = cfg.Profiles[name]
	}

	if rawURL != "" {
		// The console from the flags or the environment: its token too.
		if nameSrc != "" && name != "" {
			return c, usageErrorf("both %s (%s) and %s %q name a console: give one (a profile's token goes only to its own console)", urlSrc, rawURL, nameSrc, name)
		}
		c.URL, c.Source = rawURL, urlSrc
		c.Insecure = a.insecure
		if tokSrc == "" {
			msg := fmt.Sprintf("no token for the console of %s: set ACCESS_TOKEN or use --token-file FILE", urlSrc)
			if name != "" && p.Token != "" {
				msg += fmt.Sprintf(" (the token of profile %q goes only to its own console, %s)", name, p.URL)
			}
			return c, usageErrorf("%s", msg)
		}
	} else {
		if name == "" {
			return c, usageErrorf("no console: set ACCESS_URL or --url, run access login, or try --fake")
		}
		where := fmt.Sprintf("profile %q", name)
		if nameSrc == "" {
			where = fmt.Sprintf("profile %q (the current one)", name)
		}
		if p.URL == "" {
			return c, usageErrorf("%s in %s has no url: run access login again, or give --url with its token", where, path)
		}
		if tokSrc != "" {
			return c, usageErrorf("the token comes from %s but the console from %s: a token goes only to the console it came with; give the URL too (--url or ACCESS_URL), or unset %s to use the profile's token", tokSrc, where, tokSrc)
		}
		if a.insecure && !p.Insecure {
			return c, usageErrorf("--insecure applies to a console given with --url or ACCESS_URL, not to %s: pin its certificate with --fingerprint, or run access login again", where)
		}
		if p.Token == "" {
			return c, usageErrorf("%s has no token: run access login again", where)
		}
		c.URL, c.Source = p.URL, "profile "+name
		c.Fingerprint, c.Insecure = p.Fingerprint, p.Insecure
		c.token = tokenOf(p.Token)
		c.TokenSource, c.Profile = c.Source, firstNonEmpty(nameSrc, "current")
		if p.Fingerprint != "" {
			c.PinSource = c.Source
		}
	}
	if err := a.checkScheme(c.URL, c.Source); err != nil {
		return c, err
	}
	if fp != "" {
		// An explicit pin only tightens: it replaces the profile's pin
		// and ends an insecure connection's trust in any certificate.
		c.Fingerprint, c.Insecure = fp, false
		c.PinSource = "--fingerprint"
		if a.fingerprint == "" {
			c.PinSource = "ACCESS_FINGERPRINT"
		}
	}
	if tokSrc != "" {
		c.TokenSource = tokSrc
	}
	if err := a.trustCA(&c); err != nil {
		return c, err
	}
	switch tokSrc {
	case "--token-file":
		tok, err := a.readTokenFile(a.tokenFile)
		if err != nil {
			return c, err
		}
		c.token = tokenOf(tok)
	case "ACCESS_TOKEN":
		c.token = tokenOf(strings.TrimSpace(a.getenv("ACCESS_TOKEN")))
	}
	if c.Token() == "" {
		return c, usageErrorf("no token: set ACCESS_TOKEN, use --token-file FILE or run access login")
	}
	return c, nil
}

// checkScheme refuses a console URL that is not https://, unless
// --allow-http allows http:// (the token then travels in clear text).
func (a *app) checkScheme(raw, src string) error {
	if !strings.Contains(raw, "://") {
		return noScheme(src, raw)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return usageErrorf("the console URL of %s, %q, is not a URL", src, raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && a.allowHTTP:
		return nil
	case u.Scheme == "http":
		return usageErrorf("the console URL of %s is http://: the token would travel in clear text; use https://, or --allow-http if you mean it", src)
	}
	return usageErrorf("the console URL of %s, %q, is not an https:// URL", src, raw)
}

// trustCA reads the CA file of --cacert or ACCESS_CACERT, if any, into
// the connection: its certificates are trusted instead of the system's
// roots. Like a pin it only changes how the certificate is checked, so it
// goes with a console of either origin; it ends --insecure's trust in any
// certificate.
func (a *app) trustCA(c *connection) error {
	src, path := "--cacert", a.cacert
	if path == "" {
		src, path = "ACCESS_CACERT", a.getenv("ACCESS_CACERT")
	}
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return usageErrorf("%s: %v", src, err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return usageErrorf("%s %s holds no PEM certificate", src, path)
	}
	c.CACert, c.CAFile, c.CASrc = b, path, src
	c.Insecure = false
	return nil
}

// noScheme is the usage error of a console URL given without a scheme
// (192.168.1.1 or console.lan:12445): it says how to write it. Only
// access login and access doctor take a bare host.
func noScheme(src, raw string) error {
	host := strings.TrimRight(raw, "/")
	if _, port, err := net.SplitHostPort(host); err != nil || port == "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), "12445") // the developer API's port
	}
	return usageErrorf("the console URL of %s, %q, has no scheme: write it https://%s", src, raw, host)
}

func (a *app) readTokenFile(path string) (string, error) {
	return a.readSecretFile("--token-file", path)
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
	return connection{URL: a.fakeSrv.URLFor(a.fakeMode), token: tokenOf(a.fakeSrv.Token()), Fingerprint: a.fakeSrv.Fingerprint(),
		Source: "--fake", TokenSource: "--fake", PinSource: "--fake"}
}

// clientOptions are the SDK options for a connection.
func clientOptions(c connection) []access.Option {
	opts := []access.Option{access.WithUserAgent("access-cli/" + version)}
	switch {
	case c.Fingerprint != "":
		opts = append(opts, access.WithPinnedCertificate(c.Fingerprint))
	case c.CACert != nil:
		opts = append(opts, access.WithRootCAPEM(c.CACert))
	case c.Insecure:
		opts = append(opts, access.WithInsecureSkipVerify())
	}
	return opts
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
