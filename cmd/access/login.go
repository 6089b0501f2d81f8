package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/spf13/cobra"
)

func (a *app) loginCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "login [HOST|URL]",
		Short: "Save a console and its token as a profile (mode 0600)",
		Long: `Check a console URL and an API token, then save them as a named profile in the
config file (os.UserConfigDir()/access/config.yaml, or the config.toml in use)
with mode 0600, and make it the current one.

HOST|URL is the console: a bare host ("access login 192.168.1.1", a name, or
host:port) or a base URL; --url or $ACCESS_URL give it too. For a bare host,
login finds the way in: it tries the API port (https://HOST:12445,
Authorization: Bearer), a UniFi OS console's
proxy (https://HOST/proxy/access/integration/v1/developer, X-API-KEY) and the
older proxy path (https://HOST/proxy/access/api/v1/developer), reports what each
answered, and saves the first that accepts the key or token. The same secret
holds an API token (direct) or an API key (through the proxy).

The token is read from --token-file, $ACCESS_TOKEN or stdin (a prompt on a
terminal); it is never accepted as a flag value and never printed. A console
whose certificate is not trusted must be pinned with --fingerprint (login
prints the fingerprint to check) or, at your own risk, used with --insecure.`,
		Example: "  access login --url https://192.168.1.1:12445 --fingerprint 3a:5f:... --profile office < token.txt\n" +
			"  access login 192.168.1.1 --fingerprint 3a:5f:... < key.txt",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.login(firstNonEmpty(name, a.profile, "default"), firstNonEmpty(args...))
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "profile name (default --profile or \"default\")")
	return cmd
}

func (a *app) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "logout [PROFILE]",
		Short:   "Remove a profile and its token from the config file",
		Long:    "Remove a profile and its token from the config file.\n\nPROFILE is a profile's name (default: --profile, $ACCESS_PROFILE or the current one).",
		Example: "  access logout lab",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			name := firstNonEmpty(append(args, a.profile, cfg.Current)...)
			if _, ok := cfg.Profiles[name]; !ok {
				return notFoundErrorf("no profile %q in %s", name, path)
			}
			delete(cfg.Profiles, name)
			if cfg.Current == name {
				cfg.Current = ""
			}
			if err := saveConfig(path, cfg); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed profile %s\n", name)
			return nil
		},
	}
}

func (a *app) login(name, arg string) error {
	if a.fake {
		return usageErrorf("login saves a real console; --fake needs none")
	}
	raw := firstNonEmpty(arg, a.urlFlag, a.getenv("ACCESS_URL"))
	if raw == "" {
		return usageErrorf("login: a console is required: HOST, --url or ACCESS_URL")
	}
	if !isBareHost(raw) {
		if u, err := url.Parse(raw); err != nil || u.Host == "" || u.Scheme != "https" && !(u.Scheme == "http" && a.allowHTTP) {
			return usageErrorf("login: %q is not an https:// URL", raw)
		}
	}
	var err error
	var token string
	switch {
	case a.tokenFile != "":
		if token, err = a.readTokenFile(a.tokenFile); err != nil {
			return err
		}
	case a.getenv("ACCESS_TOKEN") != "":
		token = strings.TrimSpace(a.getenv("ACCESS_TOKEN"))
	default:
		if a.isTerminal(a.stderr) {
			fmt.Fprint(a.stderr, "API token: ")
		}
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && line == "" {
			return usageErrorf("login: no token on stdin")
		}
		token = strings.TrimSpace(line)
	}
	if token == "" {
		return usageErrorf("login: the token is empty")
	}
	fingerprint := firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT"))
	if isBareHost(raw) {
		w, err := a.findWayIn(raw, token, fingerprint, a.insecure)
		if err != nil {
			return err
		}
		raw = w.URL
	}
	u, _ := url.Parse(raw)
	p := profile{URL: raw, Token: token, Fingerprint: firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT")), Insecure: a.insecure}
	conn := connection{URL: p.URL, Fingerprint: p.Fingerprint, Insecure: p.Insecure}.WithToken(token)
	if err := a.trustCA(&conn); err != nil { // --cacert or ACCESS_CACERT
		return err
	}
	cl, err := access.NewClient(conn.URL, token, a.sdkOptions(conn)...)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	_, _, err = cl.Doors.List(a.ctx)
	var reqErr *access.RequestError
	switch {
	case err == nil, permissionRefused(err):
		// A 403 means the token is valid but lacks view:space.
	case errors.As(err, &reqErr) && p.Fingerprint == "" && !p.Insecure:
		if fp := a.peekFingerprint(u); fp != "" {
			return &exitError{code: 1, err: fmt.Errorf("the console's certificate is not trusted (%v); if its SHA-256 fingerprint is %s, run login again with --fingerprint %s", reqErr.Err, fp, fp)}
		}
		return err
	default:
		return err
	}
	cfg, path, err := a.loadConfig()
	if err != nil {
		return err
	}
	cfg.Profiles[name] = p
	cfg.Current = name
	if err := saveConfig(path, cfg); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "logged in to %s as profile %q (saved in %s, mode 0600)\n", raw, name, path)
	return nil
}

// way is one way into a console: a base URL, whose mode the SDK reads
// from it, and what it is.
type way struct {
	Kind string // "direct", "proxy", "older proxy"
	URL  string
}

// consoleWays returns the ways into the console at host (an address or a
// name, optionally with a port), in the order login and doctor try them:
// the API port 12445 (Authorization: Bearer), a UniFi OS console's proxy
// on 443 (X-API-KEY), and the older proxy path that NVR Pro consoles are
// reported to serve (vendor-notes §7). With a port in host, every way is
// tried on that port. It is the one place the candidates come from: tests
// replace it through the run's seams (seams.go), since loopback tests
// cannot bind 443 or 12445.
func consoleWays(host string) []way {
	direct, proxied := net.JoinHostPort(host, "12445"), host
	if _, _, err := net.SplitHostPort(host); err == nil {
		direct = host
	} else if strings.Contains(host, ":") { // a bare IPv6 address
		proxied = "[" + host + "]"
	}
	return []way{
		{"direct", "https://" + direct},
		{"proxy", "https://" + proxied + access.ProxyPrefix},
		{"older proxy", "https://" + proxied + "/proxy/access/api/v1/developer"},
	}
}

// waysInto returns the ways into host: consoleWays, or the tests'.
func (a *app) waysInto(host string) []way {
	if ways := seamsOf(a.ctx).ways; ways != nil {
		return ways(host)
	}
	return consoleWays(host)
}

// isBareHost reports whether s names a host rather than a URL.
func isBareHost(s string) bool { return !strings.Contains(s, "://") }

// findWayIn tries the ways into the console at host with the token,
// prints what each answered, and returns the first that accepted it.
func (a *app) findWayIn(host, token, fingerprint string, insecure bool) (way, error) {
	var refused int
	var untrusted string // the first way whose certificate was not trusted
	var tried []string
	for _, w := range a.waysInto(host) {
		answer, ok, cause := a.probeWay(w, token, connection{Fingerprint: fingerprint, Insecure: insecure})
		switch {
		case ok:
			a.checkLine("ok", "probe "+w.Kind, w.URL+": "+answer)
			a.checkLine("ok", "chosen", w.URL)
			return w, nil
		case errors.Is(cause, access.ErrUnauthorized):
			refused++
		case connect.UntrustedCertificate(cause) && untrusted == "":
			untrusted = w.URL
		}
		a.checkLine("--", "probe "+w.Kind, w.URL+": "+answer)
		tried = append(tried, w.URL)
	}
	list := strings.Join(tried, ", ")
	switch {
	case refused > 0:
		return way{}, &exitError{code: 4, err: fmt.Errorf("no way into %s accepted the key or token (tried %s)", host, list)}
	case untrusted != "" && fingerprint == "" && !insecure:
		hint := "pin it with --fingerprint"
		if u, err := url.Parse(untrusted); err == nil {
			if fp := a.peekFingerprint(u); fp != "" {
				hint = fmt.Sprintf("if the SHA-256 fingerprint of %s is %s, run again with --fingerprint %s", u.Host, fp, fp)
			}
		}
		return way{}, &exitError{code: 1, err: fmt.Errorf("the certificate of %s is not trusted; %s (tried %s)", host, hint, list)}
	}
	return way{}, &exitError{code: 1, err: fmt.Errorf("no way into %s answered with the Access API (tried %s)", host, list)}
}

// probeWay sends one read (the doors) through w, once, and describes the
// answer: ok when the API accepted the credential (a missing permission
// included).
func (a *app) probeWay(w way, token string, conn connection) (answer string, ok bool, err error) {
	if err := a.trustCA(&conn); err != nil { // --cacert or ACCESS_CACERT
		return "", false, err
	}
	opts := append(clientOptions(conn), access.WithRetryPolicy(access.RetryPolicy{}), access.WithTimeout(5*time.Second))
	cl, err := access.NewClient(w.URL, token, opts...)
	if err != nil {
		return "not a usable URL: " + oneLine(err.Error()), false, err
	}
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	_, _, err = cl.Doors.List(ctx)
	mode := fmt.Sprintf("%s mode, %s", cl.Mode(), cl.AuthHeader())
	var apiErr *access.APIError
	var reqErr *access.RequestError
	switch {
	case err == nil:
		return "the Access API, credential accepted (" + mode + ")", true, nil
	case permissionRefused(err):
		return "the Access API, credential accepted, view:space not granted (" + mode + ")", true, nil
	case errors.Is(err, access.ErrUnauthorized):
		return "HTTP 401: the credential sent in " + cl.AuthHeader() + " was refused", false, err
	case errors.As(err, &apiErr) && apiErr.Err != nil:
		return fmt.Sprintf("HTTP %d, not the API: %s", apiErr.StatusCode, unprefixed(apiErr.Err)), false, err
	case errors.As(err, &apiErr):
		return fmt.Sprintf("HTTP %d %s", apiErr.StatusCode, oneLine(firstNonEmpty(apiErr.Message, string(apiErr.Code)))), false, err
	case errors.As(err, &reqErr):
		return "no answer: " + oneLine(unprefixed(reqErr.Err)), false, err
	}
	return oneLine(unprefixed(err)), false, err
}

// peekFingerprint reads the console's certificate without checking it.
func (a *app) peekFingerprint(u *url.URL) string {
	chain, _, err := connect.PeekCertificate(a.ctx, u)
	if err != nil {
		return ""
	}
	return access.CertificateFingerprint(chain[0].Raw)
}
