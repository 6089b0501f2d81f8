package connect

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/clierr"
)

// Flags are the global flags that choose the console and how it is
// reached.
type Flags struct {
	URL, Profile, TokenFile, Fingerprint, CACert string
	Insecure, AllowHTTP                          bool
}

// Env is what Resolve reads besides the flags: the environment, the
// config file and a secret file.
type Env struct {
	Getenv         func(string) string
	LoadConfig     func() (*Config, string, error)
	ReadSecretFile func(flag, path string) (string, error)
}

// Connection is what a client is built from.
type Connection struct {
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

// WithToken returns c with the token tok.
func (c Connection) WithToken(tok string) Connection {
	c.token = func() string { return tok }
	return c
}

// Token returns the connection's token ("" when none).
func (c Connection) Token() string {
	if c.token == nil {
		return ""
	}
	return c.token()
}

// GoString never shows the token.
func (c Connection) GoString() string { return c.String() }

// String never shows the token.
func (c Connection) String() string {
	return fmt.Sprintf("{url=%s fingerprint=%s insecure=%t token=REDACTED}", c.URL, c.Fingerprint, c.Insecure)
}

// Resolve resolves the console of a run as a whole: a URL
// and a token from the flags and the environment (--url or ACCESS_URL,
// --token-file or ACCESS_TOKEN, --insecure), or else a whole profile (its
// URL, token, pin and insecure), the one --profile or ACCESS_PROFILE names
// or the current one. A profile never lends its token or its insecure to a
// URL from elsewhere, and a token from elsewhere is never sent to a
// profile's URL: such a mix is a usage error that says where each part
// came from. Only an explicit pin (--fingerprint or ACCESS_FINGERPRINT)
// may be added to either, since it only tightens the connection. A URL
// that is not https:// is refused unless --allow-http.
func Resolve(f Flags, env Env) (Connection, error) {
	var c Connection
	cfg, path, err := env.LoadConfig()
	if err != nil {
		return c, err
	}
	urlSrc, rawURL := "--url", f.URL
	if rawURL == "" {
		urlSrc, rawURL = "ACCESS_URL", env.Getenv("ACCESS_URL")
	}
	tokSrc := ""
	switch {
	case f.TokenFile != "":
		tokSrc = "--token-file"
	case env.Getenv("ACCESS_TOKEN") != "":
		tokSrc = "ACCESS_TOKEN"
	}
	fp := firstNonEmpty(f.Fingerprint, env.Getenv("ACCESS_FINGERPRINT"))

	// The profile: named explicitly, or the current one.
	name, nameSrc := f.Profile, "--profile"
	if name == "" {
		name, nameSrc = env.Getenv("ACCESS_PROFILE"), "ACCESS_PROFILE"
	}
	var p Profile
	switch {
	case name != "":
		var ok bool
		if p, ok = cfg.Profiles[name]; !ok {
			return c, clierr.UsageErrorf("no profile %q in %s (have: %s)", name, path, strings.Join(ProfileNames(cfg), ", "))
		}
	case cfg.Current != "":
		name, nameSrc = cfg.Current, ""
		p = cfg.Profiles[name]
	}

	if rawURL != "" {
		// The console from the flags or the environment: its token too.
		if nameSrc != "" && name != "" {
			return c, clierr.UsageErrorf("both %s (%s) and %s %q name a console: give one (a profile's token goes only to its own console)", urlSrc, rawURL, nameSrc, name)
		}
		c.URL, c.Source = rawURL, urlSrc
		c.Insecure = f.Insecure
		if tokSrc == "" {
			msg := fmt.Sprintf("no token for the console of %s: set ACCESS_TOKEN or use --token-file FILE", urlSrc)
			if name != "" && p.Token != "" {
				msg += fmt.Sprintf(" (the token of profile %q goes only to its own console, %s)", name, p.URL)
			}
			return c, clierr.UsageErrorf("%s", msg)
		}
	} else {
		if name == "" {
			return c, clierr.UsageErrorf("no console: set ACCESS_URL or --url, run access login, or try --fake")
		}
		where := fmt.Sprintf("profile %q", name)
		if nameSrc == "" {
			where = fmt.Sprintf("profile %q (the current one)", name)
		}
		if p.URL == "" {
			return c, clierr.UsageErrorf("%s in %s has no url: run access login again, or give --url with its token", where, path)
		}
		if tokSrc != "" {
			return c, clierr.UsageErrorf("the token comes from %s but the console from %s: a token goes only to the console it came with; give the URL too (--url or ACCESS_URL), or unset %s to use the profile's token", tokSrc, where, tokSrc)
		}
		if f.Insecure && !p.Insecure {
			return c, clierr.UsageErrorf("--insecure applies to a console given with --url or ACCESS_URL, not to %s: pin its certificate with --fingerprint, or run access login again", where)
		}
		if p.Token == "" {
			return c, clierr.UsageErrorf("%s has no token: run access login again", where)
		}
		c.URL, c.Source = p.URL, "profile "+name
		c.Fingerprint, c.Insecure = p.Fingerprint, p.Insecure
		c = c.WithToken(p.Token)
		c.TokenSource, c.Profile = c.Source, firstNonEmpty(nameSrc, "current")
		if p.Fingerprint != "" {
			c.PinSource = c.Source
		}
	}
	if err := CheckScheme(c.URL, c.Source, f.AllowHTTP); err != nil {
		return c, err
	}
	if fp != "" {
		// An explicit pin only tightens: it replaces the profile's pin
		// and ends an insecure connection's trust in any certificate.
		c.Fingerprint, c.Insecure = fp, false
		c.PinSource = "--fingerprint"
		if f.Fingerprint == "" {
			c.PinSource = "ACCESS_FINGERPRINT"
		}
	}
	if tokSrc != "" {
		c.TokenSource = tokSrc
	}
	if err := TrustCA(&c, f.CACert, env.Getenv); err != nil {
		return c, err
	}
	switch tokSrc {
	case "--token-file":
		tok, err := env.ReadSecretFile("--token-file", f.TokenFile)
		if err != nil {
			return c, err
		}
		c = c.WithToken(tok)
	case "ACCESS_TOKEN":
		c = c.WithToken(strings.TrimSpace(env.Getenv("ACCESS_TOKEN")))
	}
	if c.Token() == "" {
		return c, clierr.UsageErrorf("no token: set ACCESS_TOKEN, use --token-file FILE or run access login")
	}
	return c, nil
}

// CheckScheme refuses a console URL that is not https://, unless
// allowHTTP (--allow-http) allows http:// (the token then travels in clear text).
func CheckScheme(raw, src string, allowHTTP bool) error {
	if !strings.Contains(raw, "://") {
		return NoScheme(src, raw)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return clierr.UsageErrorf("the console URL of %s, %q, is not a URL", src, raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && allowHTTP:
		return nil
	case u.Scheme == "http":
		return clierr.UsageErrorf("the console URL of %s is http://: the token would travel in clear text; use https://, or --allow-http if you mean it", src)
	}
	return clierr.UsageErrorf("the console URL of %s, %q, is not an https:// URL", src, raw)
}

// TrustCA reads the CA file of --cacert (cacert) or ACCESS_CACERT, if
// any, into the connection: its certificates are trusted instead of the
// system's roots. Like a pin it only changes how the certificate is
// checked, so it goes with a console of either origin; it ends
// --insecure's trust in any certificate.
func TrustCA(c *Connection, cacert string, getenv func(string) string) error {
	src, path := "--cacert", cacert
	if path == "" {
		src, path = "ACCESS_CACERT", getenv("ACCESS_CACERT")
	}
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return clierr.UsageErrorf("%s: %v", src, err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return clierr.UsageErrorf("%s %s holds no PEM certificate", src, path)
	}
	c.CACert, c.CAFile, c.CASrc = b, path, src
	c.Insecure = false
	return nil
}

// NoScheme is the usage error of a console URL given without a scheme
// (192.168.1.1 or console.lan:12445): it says how to write it. Only
// access login and access doctor take a bare host.
func NoScheme(src, raw string) error {
	host := strings.TrimRight(raw, "/")
	if _, port, err := net.SplitHostPort(host); err != nil || port == "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), "12445") // the developer API's port
	}
	return clierr.UsageErrorf("the console URL of %s, %q, has no scheme: write it https://%s", src, raw, host)
}

// ClientOptions are the SDK options for a connection: the user agent
// (userAgent) and how its certificate is checked.
func ClientOptions(c Connection, userAgent string) []access.Option {
	opts := []access.Option{access.WithUserAgent(userAgent)}
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

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
