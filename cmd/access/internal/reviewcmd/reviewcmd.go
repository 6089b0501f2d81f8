// Package reviewcmd is "access review": who can open which door, when,
// by which policy and credential, and who did — the access review of
// package review as a table, CSV, JSON or one HTML page, for one console
// or many, and the diff of two saved reviews.
package reviewcmd

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/review"
	"github.com/access-dev/access/site"
)

// New returns the "review" command and its verbs.
func New(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "review",
		Short: "Review who can open which door, when, by which credential, and who did (an access review)",
		Long: `review reads a console's users, groups, policies, schedules, holidays, doors and visitors, and
its system log once over a look-back (default 90 days), and reports who can open which door: the
policy that grants, the weekly window, the credentials held (kinds and counts, never values; mobile
and face credentials are not readable through the API), the last use, and the flags an auditor
looks for:

  stale                      an ACTIVE user who can open the door did not use it in the look-back
  inactive_with_credentials  a deactivated user, or a visitor whose visit is over, still holds cards, a PIN…
  visitor_past_end           a visitor past their end time, still on the console
  unused_policy              an access policy no ACTIVE user holds (or that names no door)
  door_nobody_can_open       a door no ACTIVE user's policy and no current visitor covers
  not_in_directory           with --directory: a user whose employee number and email are not in it

Schedules are read in the console's time zone, which no API operation returns: --tz, else the zone
of a location update the console's notifications send while the review reads it, else the local
zone ($TZ). The zone is printed in every report.

-o table (default on a terminal), csv, json (a document with its format_version, which "review diff"
compares) or html (one self-contained page: the door × person matrix with the flags, printable).
Several consoles: --profile a,b or --all-profiles, one section each, the console in every row.

` + cmdutil.FactsHelp("Users.All, Visitors.All, UserGroups.List, UserGroups.ListUsers, UserGroups.ListAccessPolicies, "+
			"AccessPolicies.List, Schedules.List, Schedules.Get, HolidayGroups.List, HolidayGroups.Get, Doors.List, DoorGroups.List, "+
			"DoorGroups.Topology, SystemLogs.All, Notifications.Subscribe",
			"view:user, view:visitor, view:policy, view:space, view:system_log (view:device for the zone from the notifications)"),
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return cmdutil.UsageErrorf("unknown command %q for %q", args[0], c.CommandPath())
		},
	}
	root.AddCommand(
		viewCommand(f, "doors", review.ByDoor, "By door: the people whose access covers each door",
			"  access --fake review doors\n  access --fake review doors --at '2026-12-25 15:00' --tz Europe/Zurich\n  access --fake review doors -o csv --since 30d"),
		viewCommand(f, "people", review.ByPerson, "By person: the doors each user's and visitor's access covers",
			"  access --fake review people\n  access --fake review people --directory people.csv -o html\n  access --fake review people -o json"),
		viewCommand(f, "policies", review.ByPolicy, "By access policy: its schedule, doors and holders",
			"  access --fake review policies"),
		atCommand(f),
		diffCommand(f),
	)
	return root
}

// options are the flags of a review.
type options struct {
	at, tz, since, format, directory string
	all                              bool
}

func (o *options) register(c *cobra.Command, withAt bool) {
	fl := c.Flags()
	if withAt {
		fl.StringVar(&o.at, "at", "", "evaluate at `TIME` (2006-01-02 15:04, a date, or RFC 3339; in the review's zone) instead of now")
	}
	fl.StringVar(&o.tz, "tz", "", "the console's time `ZONE` (IANA, e.g. Europe/Zurich; default: from its notifications, else local)")
	fl.StringVar(&o.since, "since", "90d", "the look-back for the last use: a `DURATION` (90d, 720h) or a date")
	fl.StringVarP(&o.format, "output", "o", "", "output format: table, csv, json or html (default table on a terminal, json otherwise)")
	fl.StringVar(&o.directory, "directory", "", "flag users missing from the people of this HR CSV `FILE` (employee_number or email; access users import's columns)")
	fl.BoolVar(&o.all, "all-profiles", false, "review every profile of the config file, one section each")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "csv", "json", "html"}, cobra.ShellCompDirectiveNoFileComp))
}

func viewCommand(f *cmdutil.Factory, name string, view review.View, short, example string) *cobra.Command {
	var o options
	c := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return run(c, f, &o, view, false)
		},
	}
	o.register(c, true)
	return c
}

func atCommand(f *cmdutil.Factory) *cobra.Command {
	var o options
	c := &cobra.Command{
		Use:   "at TIME",
		Short: "Who can open which door at a moment (by door)",
		Long: `at lists, by door, the people who can open it at TIME, with the policy and schedule that let
them in.

  TIME  2006-01-02 15:04, a date (its midnight), or RFC 3339, in the review's zone; "now" is the present`,
		Example: "  access --fake review at '2026-12-06 03:00'\n  access --fake review at now -o json",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.at = args[0]
			if o.at == "now" {
				o.at = ""
			}
			return run(c, f, &o, review.ByDoor, true)
		},
	}
	o.register(c, false)
	return c
}

// console is one console of a review.
type console struct {
	name   string
	client *access.Client
}

// consoles returns the consoles of the run: the one the global flags
// choose, or the profiles of --profile a,b or --all-profiles
// (Factory.Consoles, as the site commands take them).
func consoles(f *cmdutil.Factory, all bool) ([]console, error) {
	if f.Consoles != nil {
		cs, err := f.Consoles(all)
		if err != nil {
			return nil, err
		}
		if cs != nil {
			out := make([]console, 0, len(cs.Names))
			for _, n := range cs.Names {
				cl, err := cs.Client(n, 0)
				if err != nil {
					return nil, fmt.Errorf("profile %s: %w", n, err)
				}
				out = append(out, console{name: n, client: cl})
			}
			return out, nil
		}
	} else if all {
		return nil, cmdutil.UsageErrorf("--all-profiles: this run has no profiles")
	}
	cl, err := f.Client()
	if err != nil {
		return nil, err
	}
	name := ""
	if f.ConsoleName != nil {
		name = f.ConsoleName()
	}
	return []console{{name: name, client: cl}}, nil
}

// format returns the output format: -o, else table on a terminal and
// JSON otherwise.
func (o *options) outputFormat(f *cmdutil.Factory) (string, error) {
	switch o.format {
	case "table", "csv", "json", "html":
		return o.format, nil
	case "":
		if f.IsTerminal != nil && f.IsTerminal(f.Out) {
			return "table", nil
		}
		return "json", nil
	}
	return "", cmdutil.UsageErrorf("unknown output format %q for review: want table, csv, json or html", o.format)
}

// lookBack parses --since: a duration (with a d suffix for days) or a
// date before at.
func lookBack(s string, at time.Time, loc *time.Location) (time.Duration, error) {
	if s == "" {
		return review.DefaultLookBack, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d > 0 {
			return time.Duration(d) * 24 * time.Hour, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	if t, err := parseTime(s, loc); err == nil && t.Before(at) {
		return at.Sub(t), nil
	}
	return 0, cmdutil.UsageErrorf("--since %q: give a positive duration (90d, 720h) or a date before the review's moment", s)
}

// parseTime reads a moment in loc: RFC 3339, "2006-01-02 15:04[:05]",
// "2006-01-02T15:04[:05]" or a date (its midnight).
func parseTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("unreadable time %q", s)
}

// directoryKeys reads the employee numbers and emails of an HR CSV.
func directoryKeys(path string) ([]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, cmdutil.UsageErrorf("--directory: %v", err)
	}
	defer fh.Close()
	users, err := site.ReadUsersCSV(fh, path, nil)
	if err != nil {
		return nil, cmdutil.UsageErrorf("--directory: %v", err)
	}
	keys := []string{}
	for _, u := range users {
		for _, k := range []string{u.EmployeeNumber, u.Email} {
			if k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys, nil
}

func run(c *cobra.Command, f *cmdutil.Factory, o *options, view review.View, openOnly bool) error {
	if jq := c.Flags().Lookup("jq"); jq != nil && jq.Changed {
		return cmdutil.UsageErrorf("--jq does not apply to review: use -o json and filter the document")
	}
	format, err := o.outputFormat(f)
	if err != nil {
		return err
	}
	var zone *time.Location
	if o.tz != "" {
		if zone, err = time.LoadLocation(o.tz); err != nil || o.tz == "Local" {
			return cmdutil.UsageErrorf("--tz %q: not an IANA time zone this machine knows", o.tz)
		}
	}
	var dir []string
	if o.directory != "" {
		if dir, err = directoryKeys(o.directory); err != nil {
			return err
		}
	}
	// Check --at and --since in some zone before any request.
	probe := zone
	if probe == nil {
		probe = time.UTC
	}
	if o.at != "" {
		if _, err := parseTime(o.at, probe); err != nil {
			return cmdutil.UsageErrorf("--at %q: give 2006-01-02 15:04, a date or an RFC 3339 time", o.at)
		}
	}
	if _, err := lookBack(o.since, time.Now().Add(100*365*24*time.Hour), probe); err != nil {
		return err
	}
	cons, err := consoles(f, o.all)
	if err != nil {
		return err
	}
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	var reports []*review.Report
	for _, con := range cons {
		r, err := reviewOne(ctx, f, con, o, zone, dir)
		if err != nil {
			if len(cons) > 1 {
				return fmt.Errorf("console %s: %w", con.name, err)
			}
			return err
		}
		if openOnly {
			r.Access = slices.DeleteFunc(r.Access, func(a review.Access) bool { return !a.Open })
		}
		reports = append(reports, r)
	}
	switch format {
	case "json":
		return review.WriteJSON(f.Out, reports...)
	case "html":
		return review.WriteHTML(f.Out, reports...)
	case "csv":
		return review.WriteCSV(f.Out, view, reports...)
	}
	return writeTable(f.Out, view, reports)
}

// reviewOne reads one console and builds its report.
func reviewOne(ctx context.Context, f *cmdutil.Factory, con console, o *options, zone *time.Location, dir []string) (*review.Report, error) {
	source := "--tz"
	var watch *review.ZoneWatch
	if zone == nil {
		watch = review.WatchZone(ctx, con.client)
	}
	st, err := review.Load(ctx, con.client)
	if zone == nil {
		if zone = watch.Stop(); zone != nil {
			source = "the console's notifications"
		} else {
			zone, source = time.Local, "local"
			if f.Location != nil {
				zone = f.Location()
			}
		}
	}
	if err != nil {
		return nil, err
	}
	at := time.Now()
	if o.at != "" {
		if at, err = parseTime(o.at, zone); err != nil {
			return nil, cmdutil.UsageErrorf("--at %q: %v", o.at, err)
		}
	}
	lb, err := lookBack(o.since, at, zone)
	if err != nil {
		return nil, err
	}
	e, err := review.New(st, zone)
	if err != nil {
		return nil, err
	}
	return review.NewReport(ctx, con.client, st, e, review.Options{Console: con.name, At: at, LookBack: lb, Directory: dir, ZoneSource: source})
}
