package authcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/spf13/cobra"
)

func loginCommand(f *cmdutil.Factory) *cobra.Command {
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
			return login(c.Context(), f, firstNonEmpty(name, f.ConnectFlags().Profile, "default"), firstNonEmpty(args...))
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "profile name (default --profile or \"default\")")
	return cmd
}

func logoutCommand(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "logout [PROFILE]",
		Short:   "Remove a profile and its token from the config file",
		Long:    "Remove a profile and its token from the config file.\n\nPROFILE is a profile's name (default: --profile, $ACCESS_PROFILE or the current one).",
		Example: "  access logout lab",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, path, err := f.LoadConfig()
			if err != nil {
				return err
			}
			name := firstNonEmpty(append(args, f.ConnectFlags().Profile, cfg.Current)...)
			if _, ok := cfg.Profiles[name]; !ok {
				return cmdutil.NotFoundErrorf("no profile %q in %s", name, path)
			}
			delete(cfg.Profiles, name)
			if cfg.Current == name {
				cfg.Current = ""
			}
			if err := connect.Save(path, cfg); err != nil {
				return err
			}
			fmt.Fprintf(f.Out, "removed profile %s\n", name)
			return nil
		},
	}
}

func login(ctx context.Context, f *cmdutil.Factory, name, arg string) error {
	flags := f.ConnectFlags()
	if flags.Fake {
		return cmdutil.UsageErrorf("login saves a real console; --fake needs none")
	}
	raw := firstNonEmpty(arg, flags.URL, f.Getenv("ACCESS_URL"))
	if raw == "" {
		return cmdutil.UsageErrorf("login: a console is required: HOST, --url or ACCESS_URL")
	}
	if !connect.IsBareHost(raw) {
		if u, err := url.Parse(raw); err != nil || u.Host == "" || u.Scheme != "https" && !(u.Scheme == "http" && flags.AllowHTTP) {
			return cmdutil.UsageErrorf("login: %q is not an https:// URL", raw)
		}
	}
	var err error
	var token string
	switch {
	case flags.TokenFile != "":
		if token, err = f.ReadSecretFile("--token-file", flags.TokenFile); err != nil {
			return err
		}
	case f.Getenv("ACCESS_TOKEN") != "":
		token = strings.TrimSpace(f.Getenv("ACCESS_TOKEN"))
	default:
		if f.IsTerminal(f.ErrOut) {
			fmt.Fprint(f.ErrOut, "API token: ")
		}
		line, err := bufio.NewReader(f.In).ReadString('\n')
		if err != nil && line == "" {
			return cmdutil.UsageErrorf("login: no token on stdin")
		}
		token = strings.TrimSpace(line)
	}
	if token == "" {
		return cmdutil.UsageErrorf("login: the token is empty")
	}
	fingerprint := firstNonEmpty(flags.Fingerprint, f.Getenv("ACCESS_FINGERPRINT"))
	if connect.IsBareHost(raw) {
		w, err := connect.FindWayIn(ctx, f.Prober(), raw, token, fingerprint, flags.Insecure)
		if err != nil {
			return err
		}
		raw = w.URL
	}
	u, _ := url.Parse(raw)
	p := connect.Profile{URL: raw, Token: token, Fingerprint: firstNonEmpty(flags.Fingerprint, f.Getenv("ACCESS_FINGERPRINT")), Insecure: flags.Insecure}
	conn := connect.Connection{URL: p.URL, Fingerprint: p.Fingerprint, Insecure: p.Insecure}.WithToken(token)
	if err := connect.TrustCA(&conn, flags.CACert, f.Getenv); err != nil { // --cacert or ACCESS_CACERT
		return err
	}
	cl, err := access.NewClient(conn.URL, token, f.ClientOptions(conn)...)
	if err != nil {
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	_, _, err = cl.Doors.List(ctx)
	var reqErr *access.RequestError
	switch {
	case err == nil, connect.PermissionRefused(err):
		// A 403 means the token is valid but lacks view:space.
	case errors.As(err, &reqErr) && p.Fingerprint == "" && !p.Insecure:
		if fp := connect.PeekFingerprint(ctx, u); fp != "" {
			return cmdutil.Exit(1, fmt.Errorf("the console's certificate is not trusted (%v); if its SHA-256 fingerprint is %s, run login again with --fingerprint %s", reqErr.Err, fp, fp))
		}
		return err
	default:
		return err
	}
	cfg, path, err := f.LoadConfig()
	if err != nil {
		return err
	}
	cfg.Profiles[name] = p
	cfg.Current = name
	if err := connect.Save(path, cfg); err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "logged in to %s as profile %q (saved in %s, mode 0600)\n", raw, name, path)
	return nil
}
