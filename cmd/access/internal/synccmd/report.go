package synccmd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/dirsync"
)

// reportOptions are the flags of access sync report.
type reportOptions struct {
	evidence, config string
	since, format    string
	slowest          int
	checkReentries   bool
	now              func() time.Time // tests
}

func newReportCommand(f *cmdutil.Factory) *cobra.Command {
	return reportCommand(f, &reportOptions{now: time.Now})
}

func reportCommand(f *cmdutil.Factory, o *reportOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "report --evidence evidence.jsonl --since 30d",
		Short: "Summarise the sync's evidence log: leavers, revocation latency p50/p95/p99, the slowest by name",
		Long: `Report reads the sync's evidence log (--evidence, or the evidence member of --config) and
summarises the changes acknowledged since --since (a duration back from now such as 30d or 24h, or
a date): the leavers deactivated, the people re-enabled, the credentials revoked, the failures,
the revocation latency (the source's time of the change to the console's acknowledgement) at
p50, p95 and p99 and its maximum, the --slowest leavers by name, and the leavers who opened a door
after their revocation.

-o text (the default), csv (one row per person named, for a spreadsheet), json, or html (a small
self-contained page, for an auditor).

--check-reentries first reads the console's door openings (the system log) since the earliest
revocation in force and flags, in the evidence log, every leaver a door opened for after the
console acknowledged their deactivation; it needs the console (and view:system_log).`,
		Example: `  access --fake sync report --evidence evidence.jsonl --since 30d
  access --fake sync report --evidence evidence.jsonl --since 30d -o csv`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !slices.Contains(dirsync.ReportFormats, o.format) {
				return cmdutil.UsageErrorf("-o %s: want %s", o.format, strings.Join(dirsync.ReportFormats, ", "))
			}
			if o.slowest < 0 {
				return cmdutil.UsageErrorf("--slowest must not be negative")
			}
			path := o.evidence
			switch {
			case path != "" && o.config != "":
				return cmdutil.UsageErrorf("give --evidence or --config, not both")
			case o.config != "":
				cfg, err := loadConfig(f, o.config)
				if err != nil {
					return err
				}
				if cfg.Evidence == "" {
					return cmdutil.UsageErrorf("%s names no evidence log", o.config)
				}
				path = cfg.Path(cfg.Evidence)
			case path == "":
				return cmdutil.UsageErrorf("--evidence FILE (or --config FILE) is required: the sync's evidence log")
			}
			since, err := cmdutil.ParseWhen(o.since, o.now())
			if err != nil {
				return cmdutil.UsageErrorf("--since %v", err)
			}
			if o.checkReentries {
				if err := checkReentries(c, f, path, since); err != nil {
					return err
				}
			}
			ev, err := dirsync.ReadEvidenceFile(path)
			if err != nil {
				return err
			}
			if len(ev.Damaged) > 0 {
				fmt.Fprintf(f.ErrOut, "sync report: %s: %d damaged lines skipped (a write cut short): %v\n", path, len(ev.Damaged), ev.Damaged)
			}
			s := dirsync.Summarize(ev.Records, since, o.slowest)
			return dirsync.WriteReport(f.Out, &s, o.format)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.evidence, "evidence", "", "the sync's evidence log `FILE`")
	fl.StringVar(&o.config, "config", "", "take the evidence log of the sync's configuration `FILE`")
	fl.StringVar(&o.since, "since", "30d", "the changes acknowledged since `WHEN` (30d, 24h, or a date)")
	fl.StringVarP(&o.format, "output", "o", dirsync.ReportText, "the report's `FORMAT`: "+strings.Join(dirsync.ReportFormats, ", "))
	fl.IntVar(&o.slowest, "slowest", 10, "name the `N` slowest leavers")
	fl.BoolVar(&o.checkReentries, "check-reentries", false, "first flag the leavers a door opened for after their revocation (reads the console's system log)")
	return c
}

// checkReentries flags, in the log at path, the leavers who opened a door
// after their revocation, and says how many.
func checkReentries(c *cobra.Command, f *cmdutil.Factory, path string, since time.Time) error {
	client, err := f.Client()
	if err != nil {
		return err
	}
	l, err := dirsync.OpenEvidence(path)
	if err != nil {
		return err
	}
	defer l.Close()
	flagged, err := dirsync.CheckReentries(c.Context(), client, l, since)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.ErrOut, "sync report: %s leavers flagged for a door opened after their revocation\n", strconv.Itoa(len(flagged)))
	return nil
}
