package simulator

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
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
		keep        = accesstest.DefaultRetention()
		keepDays    = int(keep.SystemLogAge / (24 * time.Hour))
		tokenFile   string
		uiPassFile  string
		scenario    string
		replay      string
		speed       string
		clockStart  string
		seed        uint64
	)
	cmd := &cobra.Command{
		Use:   "fake",
		Short: "Run a simulated UniFi Access console (the accesstest fake) for any client",
		Long: `fake serves the fake controller of accesstest to other processes: the developer
API under /api/v1/developer (and, as a UniFi OS console's proxy with
X-API-KEY, under /proxy/access/integration/v1/developer) over HTTPS, the notifications WebSocket, signed
webhook deliveries, system logs and exports, and a web console at / that plays
the physical site (doorbells, cards, doors, exit buttons, emergencies, faults,
the clock).

On start it prints the URL, the token and the certificate's SHA-256
fingerprint; with --env-file FILE it writes them as export lines to source,
to a file of mode 0600 (it holds the token), removed when it stops
(--print-env prints them on stdout instead):

  access fake --env-file fake.env &
  until [ -s fake.env ]; do sleep 0.2; done; . ./fake.env
  printf 'Authorization: Bearer %s' "$ACCESS_TOKEN" |
    curl -s --pinnedpubkey "$ACCESS_PUBKEY_PIN" -k -H @- "$ACCESS_URL/api/v1/developer/doors"

The token clients use comes from $ACCESS_FAKE_TOKEN or --token-file FILE, the
web console's password from $ACCESS_FAKE_UI_PASSWORD or --ui-password-file FILE
("-" reads stdin); neither is ever a flag value, which would show in the process
list. Without a token one is generated.

The control API under /_fake/v1/ drives the site from any language's tests
(JSON POSTs with the token as a Bearer token or an X-API-KEY; its OpenAPI document is at
/_fake/v1/openapi.json); ` + "`access fake trigger`" + ` calls it from the shell.`,
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
			if cfg.EnvFile != "" && printEnv {
				return usageErrorf("--env-file and --print-env: give one")
			}
			if cfg.Sites < 1 {
				return usageErrorf("--sites %d: give 1 or more", cfg.Sites)
			}
			if cmd.Flags().Changed("save-interval") && !cfg.AsyncSave {
				return usageErrorf("--save-interval goes with --async-save: without it every write is saved before it is answered")
			}
			if interval <= 0 || interval > DefaultSaveInterval {
				return usageErrorf("--save-interval %s: give a positive duration up to %s", interval, DefaultSaveInterval)
			}
			if keep.SystemLogs < 0 || keepDays < 0 || keep.Deliveries < 0 || keep.Requests < 0 {
				return usageErrorf("--keep-logs, --keep-log-days, --keep-deliveries and --keep-requests take 0 (keep everything) or more")
			}
			if scenario != "" {
				b, err := os.ReadFile(scenario)
				if err != nil {
					return usageErrorf("--scenario: %v", err)
				}
				if cfg.Scenario, err = ParseScenario(scenario, b); err != nil {
					return err
				}
				cfg.ScenarioLog = cmd.ErrOrStderr()
			}
			if replay != "" {
				f, err := os.Open(replay)
				if err != nil {
					return usageErrorf("--replay: %v", err)
				}
				cfg.Replay, err = capture.Read(f)
				f.Close()
				if err != nil {
					return usageErrorf("--replay %s: %v", replay, err)
				}
				cfg.ScenarioLog = cmd.ErrOrStderr()
			}
			if cmd.Flags().Changed("speed") {
				if replay == "" {
					return usageErrorf("--speed goes with --replay")
				}
				if speed == "max" {
					cfg.ReplaySpeed = math.Inf(1)
				} else if v, err := strconv.ParseFloat(speed, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
					cfg.ReplaySpeed = v
				} else {
					return usageErrorf("--speed %q: give a positive number (10 plays ten times as fast) or max", speed)
				}
			}
			if clockStart != "" {
				t, err := time.Parse(time.RFC3339, clockStart)
				if err != nil {
					return usageErrorf("--clock-start %q: give a time such as 2026-03-02T08:00:00Z", clockStart)
				}
				cfg.ClockStart, cfg.FrozenClock = t, cfg.Fast
			}
			cfg.HasSeed = cmd.Flags().Changed("seed")
			cfg.Seed = seed
			keep.SystemLogAge = time.Duration(keepDays) * 24 * time.Hour
			cfg.Retention = &keep
			cfg.SaveInterval = interval
			cfg.Demo = demoDefault
			if logSaves {
				cfg.LogSaves = cmd.ErrOrStderr()
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			var err error
			if cfg.Token, err = readSecret(ctx, "--token-file", tokenFile, "ACCESS_FAKE_TOKEN", cmd.InOrStdin()); err != nil {
				return err
			}
			if cfg.UIPassword, err = readSecret(ctx, "--ui-password-file", uiPassFile, "ACCESS_FAKE_UI_PASSWORD", cmd.InOrStdin()); err != nil {
				return err
			}
			return Run(ctx, cfg, printEnv, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Addr, "addr", DefaultAddr, "address to listen on (host:port; port 0 picks a free one; no host is loopback, 0.0.0.0 every interface)")
	f.StringVar(&tokenFile, "token-file", "", "read the API token clients use from `FILE` (- for stdin; default $ACCESS_FAKE_TOKEN or a generated one)")
	f.Var(refusedSecret{"a token", "ACCESS_FAKE_TOKEN or --token-file FILE"}, "token", "not accepted: a token on the command line shows in the process list")
	_ = f.MarkHidden("token")
	f.BoolVar(&demoDefault, "demo", true, "load the demo site when there is no saved state")
	f.StringVar(&cfg.StatePath, "state", "", "state file: loaded at start, locked while this process runs (FILE.lock); a write is answered once its change is saved (fsync)")
	f.StringVar(&cfg.SeedFrom, "seed-from", "", "start from the site recorded in `DIR` by access fake record (DIR is only read; not with --state)")
	f.BoolVar(&cfg.AsyncSave, "async-save", false, "with --state, answer writes before they are saved: faster, but a crash can lose the last --save-interval (100ms) of changes")
	f.DurationVar(&interval, "save-interval", DefaultSaveInterval, "with --async-save, longest wait before a change is saved (at most 100ms)")
	f.BoolVar(&logSaves, "log-saves", false, "print each save of the state file, and how long it took, on stderr")
	f.StringVar(&cfg.CertFile, "cert", "", "PEM certificate (default: a self-signed one, kept beside --state as FILE.tls.pem)")
	f.StringVar(&cfg.KeyFile, "key", "", "PEM private key of --cert")
	f.StringVar(&cfg.CertOut, "cert-out", "", "write the certificate (PEM) to this file, for curl --cacert or Node's ca option")
	f.StringVar(&perms, "permissions", "", "limit the token to these permission keys, e.g. view:space,edit:space")
	f.StringVar(&cfg.EnvFile, "env-file", "", "write ACCESS_URL, ACCESS_PROXY_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT, ACCESS_PUBKEY_PIN (and ACCESS_CACERT) as export lines to `FILE`, mode 0600, removed at exit")
	f.BoolVar(&printEnv, "print-env", false, "print ACCESS_URL, ACCESS_PROXY_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT and ACCESS_PUBKEY_PIN as export lines")
	f.IntVar(&cfg.Sites, "sites", 1, "number of consoles to simulate, on consecutive ports")
	f.BoolVar(&cfg.OlderProxySocket, "older-proxy-socket", false, "act as older firmware: through the proxy, the notifications socket only at /proxy/access/api/v1/developer/devices/notifications")
	f.BoolVar(&cfg.WithoutAccess, "without-access", false, "act as a UniFi OS console without Access: an HTML page at the proxy path, nothing on the API")
	f.StringVar(&uiPassFile, "ui-password-file", "", "read the web console's password (HTTP basic auth) from `FILE` (- for stdin; default $ACCESS_FAKE_UI_PASSWORD); required off loopback unless --no-ui")
	f.Var(refusedSecret{"a password", "ACCESS_FAKE_UI_PASSWORD or --ui-password-file FILE"}, "ui-password", "not accepted: a password on the command line shows in the process list")
	_ = f.MarkHidden("ui-password")
	f.BoolVar(&cfg.NoUI, "no-ui", false, "serve no web console")
	f.StringVar(&scenario, "scenario", "", "play this scenario `FILE` (YAML) on the site once it serves")
	f.BoolVar(&cfg.Fast, "fast", false, "play the scenario as fast as possible, advancing the clock to each act (with --clock-start the clock then moves only so)")
	f.StringVar(&replay, "replay", "", "replay the capture `FILE` (access capture -O FILE): its answers, and from the first subscription its notification frames and webhook deliveries with their recorded spacing")
	f.StringVar(&speed, "speed", "1", "with --replay, play the frames and deliveries this many times as fast as recorded (max: without waiting); --fast is the scenarios' max")
	f.StringVar(&clockStart, "clock-start", "", "the site's time at start (RFC 3339), e.g. 2026-03-02T08:00:00Z")
	f.Uint64Var(&seed, "seed", 0, "seed every generated id, token and secret (with --clock-start and --fast a scenario replays byte for byte; the secrets are then predictable)")
	f.BoolVar(&cfg.ControlRemote, "control-remote", false, "serve the control API ("+ControlPrefix+"/) on an address that is not loopback too")
	f.IntVar(&cfg.WebhookRetries, "webhook-retries", 0, "retry a failed webhook delivery up to N times (0 to 10), after 0.5s, doubling; the vendor documents no retries")
	f.IntVar(&keep.SystemLogs, "keep-logs", keep.SystemLogs, "system-log entries kept, the newest (0: all)")
	f.IntVar(&keepDays, "keep-log-days", keepDays, "days of system log kept (0: all)")
	f.IntVar(&keep.Deliveries, "keep-deliveries", keep.Deliveries, "webhook deliveries kept for the web console, the newest (0: all)")
	f.IntVar(&keep.Requests, "keep-requests", keep.Requests, "requests kept in the request journal, the newest (0: all)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		var secret refusedSecret
		if errors.As(err, &secret) {
			return usageErrorf("%s", secret.Error()) // pflag's message quotes the value
		}
		return usageErrorf("%v", err)
	})
	return cmd
}

// refusedSecret is a flag that takes no value, a secret that would show
// in the process list: setting it fails with itself while the flags are
// parsed, before anything runs, and its value is never kept.
type refusedSecret struct{ what, use string }

func (r refusedSecret) Error() string {
	return r.what + " is never accepted as a flag value (it would show in the process list): use " + r.use
}
func (refusedSecret) String() string     { return "" }
func (refusedSecret) Type() string       { return "string" }
func (r refusedSecret) Set(string) error { return r }

// readSecret reads a secret from the file a flag names (stdin for "-"),
// or else from the environment variable env; "" when neither is given.
// A read of stdin ends when ctx does (Ctrl-C). Errors name the flag and
// the file, never the content.
func readSecret(ctx context.Context, flag, path, env string, stdin io.Reader) (string, error) {
	if path == "" {
		return os.Getenv(env), nil
	}
	type result struct {
		b   []byte
		err error
	}
	got := make(chan result, 1)
	go func() {
		var r result
		if path == "-" {
			r.b, r.err = io.ReadAll(io.LimitReader(stdin, 64<<10))
		} else {
			r.b, r.err = os.ReadFile(path)
		}
		got <- r
	}()
	var r result
	select {
	case r = <-got:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if r.err != nil {
		return "", usageErrorf("%s: %v", flag, r.err)
	}
	s := strings.TrimSpace(string(r.b))
	if s == "" {
		return "", usageErrorf("%s %s is empty", flag, path)
	}
	return s, nil
}
