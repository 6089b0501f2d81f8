// Package synccmd is the access sync command: it keeps a console's people
// equal to their directory (LDAP or Active Directory pulled at an
// interval, SCIM pushed by Okta or Entra), as a plan (--once), one
// reconcile (--once --apply) or a long-running process with a SCIM
// listener and metrics; and access sync report summarises its evidence
// log.
//
// The logic lives in packages dirsync (sources, plan, apply, evidence,
// runner), dirsync/syncconfig (the configuration file), dirsync/scim and
// dirsync/syncmetrics; this package holds the flags and what is printed.
// It may import cmd/access/internal/cmdutil and the access module's public
// packages, never another command package nor package main.
package synccmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/syncconfig"
	"github.com/access-dev/access/site"
)

// options are the flags of access sync.
type options struct {
	config          string
	once, apply     bool
	detailed        bool
	scimListen      string
	tlsCert, tlsKey string
	metricsListen   string

	// hangup, when set, replaces SIGHUP as the reload signal (tests).
	hangup <-chan struct{}
	// ready, when set, is called with the listeners' addresses once they
	// listen and the first runner started (tests).
	ready func(scim, metrics string)
}

// New returns the access sync command and its report subcommand.
func New(f *cmdutil.Factory) *cobra.Command {
	return newCommand(f, &options{})
}

func newCommand(f *cmdutil.Factory, o *options) *cobra.Command {
	c := &cobra.Command{
		Use:   "sync --config sync.yaml",
		Short: "Keep the console's people equal to their directory (LDAP, Active Directory, SCIM), revoking leavers",
		Long: `Sync keeps the console's users equal to the people of their directory, as its configuration file
(--config, YAML; see docs/sync.md and its JSON Schema dirsync/syncconfig/sync.schema.json) says:
LDAP or Active Directory pulled at an interval, an identity provider (Okta, Microsoft Entra)
pushing SCIM, an HR file (CSV) watched for changes. A person the directory disables or no longer lists is deactivated, then their
credentials are unassigned (unless the source says credentials: keep); a person re-enabled gets
their status back only. Users outside a source's scope are never touched; a run that would
deactivate more than the source's guard allows is refused (exit ` + strconv.Itoa(cmdutil.ExitGuard) + `). A source that fails,
is cut short or answers nobody is never read as "everyone left": nothing is written.

  --once             print the plan of every source (as access plan prints one) and exit
  --once --apply     make it, writing each change to the evidence log
  (neither)          run until stopped: every source at the interval, a SCIM push or a
                     changed HR file at once;
                     SIGHUP reloads the configuration (a raised guard releases a held source),
                     SIGINT or SIGTERM end it cleanly after the run in progress (exit 0;
                     a second one ends the process at once, exit 130)

  access sync --config sync.yaml --scim-listen 127.0.0.1:9443 --metrics-listen 127.0.0.1:9141

--scim-listen ADDRESS serves /scim/v2 of the configuration's scim source to the identity provider,
with the bearer token of its token_file or token_env: with TLS (--tls-cert and --tls-key) or on
a loopback address behind your TLS proxy. --metrics-listen ADDRESS serves /metrics (Prometheus,
access_sync_*) and /healthz (503 when a source or the console cannot be read).

With an evidence log, each run of the long-running sync ends by reading the console's door
openings (the system log) and flagging, in the log and on stdout, every leaver a door opened for
after their revocation (a reader's offline cache); access sync report lists them.

Exit codes: 0 success; 1 a source or the console failed (with --once, a source that cannot be read
stops the run before anything is written for any source); 2 a bad
configuration, with its file and line; ` + strconv.Itoa(cmdutil.ExitChanges) + ` with --detailed-exitcode when a plan has changes;
` + strconv.Itoa(cmdutil.ExitGuard) + ` refused by a source's guard; 130 interrupted.`,
		Example: `  access --fake sync --config sync.yaml --once
  access --fake sync --config sync.yaml --once --apply`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.config == "" {
				return cmdutil.UsageErrorf("--config FILE is required: the sync's configuration")
			}
			if o.apply && !o.once {
				return cmdutil.UsageErrorf("--apply goes with --once: without it sync runs until stopped and applies every run")
			}
			if o.detailed && !o.once {
				return cmdutil.UsageErrorf("--detailed-exitcode goes with --once")
			}
			if o.once && (o.scimListen != "" || o.metricsListen != "") {
				return cmdutil.UsageErrorf("--scim-listen and --metrics-listen are for the long-running sync, not --once")
			}
			if (o.tlsCert == "") != (o.tlsKey == "") {
				return cmdutil.UsageErrorf("--tls-cert and --tls-key go together")
			}
			if o.tlsCert != "" && o.scimListen == "" {
				return cmdutil.UsageErrorf("--tls-cert and --tls-key are for --scim-listen")
			}
			cfg, err := loadConfig(f, o.config)
			if err != nil {
				return err
			}
			if o.once {
				return runOnce(c.Context(), f, o, cfg)
			}
			return runLong(c.Context(), f, o, cfg)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.config, "config", "", "the sync's configuration `FILE` (YAML)")
	fl.BoolVar(&o.once, "once", false, "read every source once, print the plan and exit")
	fl.BoolVar(&o.apply, "apply", false, "with --once: make the plan")
	fl.BoolVar(&o.detailed, "detailed-exitcode", false, "with --once: exit "+strconv.Itoa(cmdutil.ExitChanges)+" when a plan has changes")
	fl.StringVar(&o.scimListen, "scim-listen", "", "serve /scim/v2 of the scim source on `ADDRESS` (loopback, or with --tls-cert)")
	fl.StringVar(&o.tlsCert, "tls-cert", "", "the SCIM listener's certificate (PEM) `FILE`")
	fl.StringVar(&o.tlsKey, "tls-key", "", "the SCIM listener's private key (PEM) `FILE`")
	fl.StringVar(&o.metricsListen, "metrics-listen", "", "serve /metrics and /healthz on `ADDRESS`")
	c.AddCommand(newReportCommand(f))
	return c
}

// loadConfig reads the configuration; a bad one is exit 2, each problem
// with its file and line.
func loadConfig(f *cmdutil.Factory, path string) (*syncconfig.Config, error) {
	cfg, err := syncconfig.Load(path)
	var de *site.DocumentError
	switch {
	case errors.As(err, &de):
		if len(de.Problems) == 1 {
			return nil, cmdutil.Exit(cmdutil.ExitUsage, errors.New(de.Problems[0].String()))
		}
		for _, p := range de.Problems {
			fmt.Fprintln(f.ErrOut, p.String())
		}
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("bad configuration %s: %d problems", path, len(de.Problems)))
	case err != nil:
		return nil, cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("--config: %w", err))
	}
	return cfg, nil
}

// openSources opens the configuration's sources; a configuration they
// refuse (an LDAP URL, a store another process holds) is exit 2.
func openSources(cfg *syncconfig.Config) (*syncconfig.Opened, error) {
	o, err := cfg.Open()
	if errors.Is(err, dirsync.ErrConfig) {
		return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	return o, err
}

// guardError is a guard's refusal in the configuration's terms, exit 6.
func guardError(source string, ge *site.GuardError) error {
	var over, raise []string
	if ge.OverCount {
		over = append(over, fmt.Sprintf("max_deactivate %d", ge.MaxCount))
		raise = append(raise, fmt.Sprintf("max_deactivate: %d", ge.Deactivate))
	}
	if ge.OverShare {
		over = append(over, fmt.Sprintf("max_deactivate_share %g", ge.MaxShare))
		raise = append(raise, fmt.Sprintf("max_deactivate_share: %d", min(100, (100*ge.Deactivate+max(ge.Of, 1)-1)/max(ge.Of, 1))))
	}
	return cmdutil.Exit(cmdutil.ExitGuard, fmt.Errorf("refused by a safety guard: source %s would deactivate %d of the %d users in its scope (%s), more than its guard's %s; nothing was changed. Check the directory (a wrong base DN or filter, a cut-off export?); to go ahead, set the source's guard to %s",
		source, ge.Deactivate, ge.Of, ge.Percent(), strings.Join(over, " and "), strings.Join(raise, ", ")))
}

// runOnce reads every source, then plans (and with --apply makes) each
// source's changes.
func runOnce(ctx context.Context, f *cmdutil.Factory, o *options, cfg *syncconfig.Config) error {
	opened, err := openSources(cfg)
	if err != nil {
		return err
	}
	defer opened.Close()
	client, err := f.Client()
	if err != nil {
		return err
	}
	// Every source is read before anything is written: a source that
	// fails stops the run with nothing changed.
	snaps := make([]*dirsync.Snapshot, len(opened.Sources))
	for i, rs := range opened.Sources {
		snap, err := rs.Source.Read(ctx)
		if err != nil {
			return fmt.Errorf("source %s: %w; nothing was changed", rs.Source.Name(), err)
		}
		fmt.Fprintf(f.ErrOut, "sync: %s\n", snap.Summary())
		snaps[i] = snap
	}
	var evidence *dirsync.EvidenceLog
	if o.apply && cfg.Evidence != "" {
		if evidence, err = dirsync.OpenEvidence(cfg.Path(cfg.Evidence)); err != nil {
			return err
		}
		defer evidence.Close()
	}
	drift := false
	for i, rs := range opened.Sources {
		name := rs.Source.Name()
		if len(opened.Sources) > 1 {
			if i > 0 {
				fmt.Fprintln(f.Out)
			}
			fmt.Fprintf(f.Out, "source %s:\n", name)
		}
		if snap := snaps[i]; len(snap.People) > 0 && snap.Inactive() == len(snap.People) {
			// site refuses a document of nobody; in a sync's words:
			return cmdutil.Exit(cmdutil.ExitGuard, fmt.Errorf("refused by a safety guard: source %s lists %d people and every one is inactive; a sync never deactivates everyone it manages: nothing was changed. Check the directory (a wrong filter or attribute mapping?)", name, len(snap.People)))
		}
		p, err := dirsync.MakePlan(ctx, client, snaps[i], rs.Options)
		if de := (*site.DocumentError)(nil); errors.As(err, &de) {
			// The configuration names what the console does not hold (a
			// scope's or a mapping's user group).
			return cmdutil.Exit(cmdutil.ExitUsage, fmt.Errorf("source %s: %w", name, err))
		}
		if p == nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		if werr := p.WriteText(f.Out); werr != nil {
			return werr
		}
		if ge := (*site.GuardError)(nil); errors.As(err, &ge) {
			return guardError(name, ge)
		} else if err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
		drift = drift || p.Drift()
		if !o.apply || !p.Drift() && p.Unrecorded(evidence) == 0 {
			continue
		}
		rep, err := p.Apply(ctx, client, &dirsync.ApplyOptions{Evidence: evidence})
		if rep != nil {
			fmt.Fprintln(f.Out)
			writeRecords(f.Out, rep.Records)
			fmt.Fprintf(f.Out, "\nApply: %d done, %d failed; %d deactivated, %d reactivated, %d credentials revoked%s.\n",
				len(rep.Records)-rep.Failed, rep.Failed, rep.Deactivated, rep.Reactivated, rep.Revoked, foundDone(rep))
		}
		if ge := (*site.GuardError)(nil); errors.As(err, &ge) {
			return guardError(name, ge)
		} else if err != nil {
			return fmt.Errorf("source %s: %w", name, err)
		}
	}
	if o.detailed && drift {
		return cmdutil.Exit(cmdutil.ExitChanges, errors.New("the console differs from the directory"))
	}
	return nil
}

// foundDone says how many deactivations a run found made without a
// record (an answer lost) and recorded; "" for none.
func foundDone(rep *dirsync.Report) string {
	if rep.FoundDone == 0 {
		return ""
	}
	return fmt.Sprintf("; %d deactivation(s) found done without a record, recorded", rep.FoundDone)
}

// writeRecords prints one line per evidence record: status, action, key
// and name, the credentials by type.
func writeRecords(w io.Writer, recs []dirsync.Record) {
	for _, r := range recs {
		line := fmt.Sprintf("%-7s %s %s", r.Status, r.Action, r.Key)
		if r.Name != "" {
			line += " " + r.Name
		}
		if len(r.Credentials) > 0 {
			types := make([]string, len(r.Credentials))
			for i, c := range r.Credentials {
				types[i] = c.Type
			}
			line += " (" + strings.Join(types, ", ") + ")"
		}
		if r.FoundDone {
			line += " (found done: the console's answer was lost)"
		}
		if r.Error != "" {
			line += ": " + strings.Join(strings.Fields(r.Error), " ")
		}
		fmt.Fprintln(w, line)
	}
}
