package simulator

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// NewCommand returns the `fake` command of the access command line: the
// simulator, serving until SIGINT, SIGTERM or SIGHUP, then saving its
// state.
func NewCommand() *cobra.Command {
	var (
		cfg         Config
		perms       string
		printEnv    bool
		logSaves    bool
		interval    = DefaultSaveInterval
		demoDefault = true
	)
	cmd := &cobra.Command{
		Use:   "fake",
		Short: "Run a simulated UniFi Access console (the accesstest fake) for any client",
		Long: `fake serves the fake controller of accesstest to other processes: the developer
API under /api/v1/developer over HTTPS, the notifications WebSocket, signed
webhook deliveries, system logs and exports, and a web console at / that plays
the physical site (doorbells, cards, doors, exit buttons, emergencies, faults,
the clock).

On start it prints the URL, the token and the certificate's SHA-256
fingerprint; with --print-env it prints them as export lines to source:

  access fake --print-env > fake.env &
  until [ -s fake.env ]; do sleep 0.2; done; . ./fake.env
  printf 'Authorization: Bearer %s' "$ACCESS_TOKEN" |
    curl -s --pinnedpubkey "$ACCESS_PUBKEY_PIN" -k -H @- "$ACCESS_URL/api/v1/developer/doors"

A token given with --token shows in the process list; leave it out to get a
generated one.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("permissions") {
				p, err := ParsePermissions(perms)
				if err != nil {
					return err
				}
				cfg.Permissions = p
			}
			if cfg.Sites < 1 {
				return usageErrorf("--sites %d: give 1 or more", cfg.Sites)
			}
			if interval <= 0 || interval > DefaultSaveInterval {
				return usageErrorf("--save-interval %s: give a positive duration up to %s", interval, DefaultSaveInterval)
			}
			cfg.SaveInterval = interval
			cfg.Demo = demoDefault
			if logSaves {
				cfg.LogSaves = cmd.ErrOrStderr()
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return Run(ctx, cfg, printEnv, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", DefaultAddr, "address to listen on (host:port; port 0 picks a free one; no host is loopback, 0.0.0.0 every interface)")
	f.StringVar(&cfg.Token, "token", "", "API token clients use (default: generated)")
	f.BoolVar(&demoDefault, "demo", true, "load the demo site when there is no saved state")
	f.StringVar(&cfg.StatePath, "state", "", "state file: loaded at start, saved after every change")
	f.DurationVar(&interval, "save-interval", DefaultSaveInterval, "longest wait before a change is saved (at most 100ms)")
	f.BoolVar(&logSaves, "log-saves", false, "print each save of the state file, and how long it took, on stderr")
	f.StringVar(&cfg.CertFile, "cert", "", "PEM certificate (default: a self-signed one)")
	f.StringVar(&cfg.KeyFile, "key", "", "PEM private key of --cert")
	f.StringVar(&cfg.CertOut, "cert-out", "", "write the certificate (PEM) to this file, for curl --cacert or Node's ca option")
	f.StringVar(&perms, "permissions", "", "limit the token to these permission keys, e.g. view:space,edit:space")
	f.BoolVar(&printEnv, "print-env", false, "print ACCESS_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT and ACCESS_PUBKEY_PIN as export lines")
	f.IntVar(&cfg.Sites, "sites", 1, "number of consoles to simulate, on consecutive ports")
	f.StringVar(&cfg.UIPassword, "ui-password", "", "password of the web console (HTTP basic auth); required off loopback unless --no-ui")
	f.BoolVar(&cfg.NoUI, "no-ui", false, "serve no web console")
	f.IntVar(&cfg.WebhookRetries, "webhook-retries", 0, "retry a failed webhook delivery up to N times (0 to 10), after 0.5s, doubling; the vendor documents no retries")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	cmd.SetContext(context.Background())
	return cmd
}
