package main

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

func (a *app) loginCommand() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Save a console and its token as a profile (mode 0600)",
		Long: `Check a console URL and an API token, then save them as a named profile in the
config file (os.UserConfigDir()/access/config.yaml, or the config.toml in use)
with mode 0600, and make it the current one.

The token is read from --token-file, $ACCESS_TOKEN or stdin (a prompt on a
terminal); it is never accepted as a flag value and never printed. A console
whose certificate is not trusted must be pinned with --fingerprint (login
prints the fingerprint to check) or, at your own risk, used with --insecure.`,
		Example: "  access login --url https://192.168.1.1:12445 --fingerprint 3a:5f:... --profile office < token.txt",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.login(firstNonEmpty(name, a.profile, "default"))
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

func (a *app) login(name string) error {
	if a.fake {
		return usageErrorf("login saves a real console; --fake needs none")
	}
	raw := firstNonEmpty(a.urlFlag, a.getenv("ACCESS_URL"))
	if raw == "" {
		return usageErrorf("login: --url (or ACCESS_URL) is required")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "https" && !(u.Scheme == "http" && a.allowHTTP) {
		return usageErrorf("login: %q is not an https:// URL", raw)
	}
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
	p := profile{URL: raw, Token: token, Fingerprint: firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT")), Insecure: a.insecure}
	conn := connection{URL: p.URL, token: tokenOf(token), Fingerprint: p.Fingerprint, Insecure: p.Insecure}
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

// peekFingerprint reads the console's certificate without checking it.
func (a *app) peekFingerprint(u *url.URL) string {
	chain, _, err := peekCertificate(a.ctx, u)
	if err != nil {
		return ""
	}
	return access.CertificateFingerprint(chain[0].Raw)
}
