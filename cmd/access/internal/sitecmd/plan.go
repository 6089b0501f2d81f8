package sitecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/site"
	"github.com/spf13/cobra"
)

// siteFlags are the flags plan and apply share.
type siteFlags struct {
	file                                string
	prune, pruneDeleteUsers, pruneEmpty bool
	maxDeactivate                       int
	maxDeactivateShare                  float64
	csv                                 csvFlags
}

func (f *siteFlags) add(c *cobra.Command) {
	c.Flags().StringVarP(&f.file, "file", "f", "", "the site document (YAML or JSON; - for stdin)")
	c.Flags().BoolVar(&f.prune, "prune", false, "delete what the listed kinds hold beyond the document (users are deactivated; built-ins never touched)")
	c.Flags().BoolVar(&f.pruneDeleteUsers, "prune-delete-users", false, "with --prune, delete pruned users after deactivating them")
	c.Flags().BoolVar(&f.pruneEmpty, "prune-empty", false, "with --prune, allow a kind listed with no object (deletes every object of that kind)")
	c.Flags().IntVar(&f.maxDeactivate, "max-deactivate", site.DefaultMaxDeactivate, "with --prune, refuse (exit "+strconv.Itoa(cmdutil.ExitGuard)+") to deactivate more than `N` users")
	c.Flags().Float64Var(&f.maxDeactivateShare, "max-deactivate-share", site.DefaultMaxDeactivateShare, "with --prune, refuse (exit "+strconv.Itoa(cmdutil.ExitGuard)+") to deactivate more than `P` percent of the users the document manages")
	f.csv.add(c)
}

func (f *siteFlags) options(loc site.Locator, getenv func(string) string) (*site.PlanOptions, error) {
	if (f.pruneDeleteUsers || f.pruneEmpty) && !f.prune {
		return nil, cmdutil.UsageErrorf("--prune-delete-users and --prune-empty need --prune")
	}
	if f.maxDeactivate < 1 {
		return nil, cmdutil.UsageErrorf("--max-deactivate must be at least 1 (the default is %d)", site.DefaultMaxDeactivate)
	}
	if !(f.maxDeactivateShare > 0 && f.maxDeactivateShare <= 100) {
		return nil, cmdutil.UsageErrorf("--max-deactivate-share is a percentage above 0 and at most 100 (the default is %g)", site.DefaultMaxDeactivateShare)
	}
	return &site.PlanOptions{Prune: f.prune, PruneDeleteUsers: f.pruneDeleteUsers, PruneEmpty: f.pruneEmpty, Locator: loc,
		MaxDeactivate: f.maxDeactivate, MaxDeactivateShare: f.maxDeactivateShare,
		LookupEnv: func(k string) (string, bool) { return lookupEnv(getenv, k) }}, nil
}

// makePlan reads and checks the document, then plans it against the
// console; problems of the document are exit 2, printed one per line. A
// plan refused by the guard comes back with its exit-6 error, to be shown.
// The client is paced by pc (apply's --rate; nil for plan).
func makePlan(ctx context.Context, f *cmdutil.Factory, sf *siteFlags, pc *cmdutil.Pace) (*site.Plan, error) {
	if sf.file == "" {
		return nil, cmdutil.UsageErrorf("a site document is required: -f FILE")
	}
	if _, err := sf.options(nil, f.Getenv); err != nil {
		return nil, err
	}
	doc, loc, err := loadDocument(f, sf.file, &sf.csv)
	if err != nil {
		return nil, documentError(f, err)
	}
	// The overrides of sites: apply to the console of the profile in use.
	doc, back := doc.ForSite(f.ConsoleName())
	opts, err := sf.options(func(p string) site.Position { return loc(back(p)) }, f.Getenv)
	if err != nil {
		return nil, err
	}
	rate := 0.0
	if pc != nil {
		rate = pc.Rate
	}
	cl, err := f.PacedClient(rate)
	if err != nil {
		return nil, err
	}
	p, err := site.MakePlan(ctx, cl, doc, opts)
	if err != nil && (p == nil || !errors.Is(err, site.ErrGuard)) {
		return nil, documentError(f, err)
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(f.ErrOut, "warning: "+w)
	}
	return p, documentError(f, err)
}

// documentError prints each problem of a bad document on stderr and
// returns an exit-2 error; a refusal of the guard is exit 6, named by its
// flags; other errors pass.
func documentError(f *cmdutil.Factory, err error) error {
	if ge := (*site.GuardError)(nil); errors.As(err, &ge) {
		return guardError(ge)
	}
	var de *site.DocumentError
	if !errors.As(err, &de) {
		return err
	}
	if len(de.Problems) == 1 {
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: errors.New(de.Problems[0].String())}
	}
	for _, p := range de.Problems {
		fmt.Fprintln(f.ErrOut, p.String())
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitUsage, Err: fmt.Errorf("bad document: %d problems", len(de.Problems))}
}

// guardError is the refusal of the guard in the command's terms: the
// number, the flags and how to go ahead; exit 6.
func guardError(ge *site.GuardError) error {
	var over, raise []string
	if ge.OverCount {
		over = append(over, fmt.Sprintf("--max-deactivate %d", ge.MaxCount))
		raise = append(raise, fmt.Sprintf("--max-deactivate %d", ge.Deactivate))
	}
	if ge.OverShare {
		over = append(over, fmt.Sprintf("--max-deactivate-share %g", ge.MaxShare))
		raise = append(raise, fmt.Sprintf("--max-deactivate-share %g", math.Min(100, math.Ceil(100*float64(ge.Deactivate)/float64(max(ge.Of, 1))))))
	}
	verb := "allows"
	if len(over) > 1 {
		verb = "allow"
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitGuard, Err: fmt.Errorf("refused by a safety guard: the plan would deactivate %d of the %d users the document manages (%s), more than %s %s; nothing was changed. Check the document (a short or wrong export?); to go ahead, pass %s",
		ge.Deactivate, ge.Of, ge.Percent(), strings.Join(over, " and "), verb, strings.Join(raise, " "))}
}

func planCommand(f *cmdutil.Factory) *cobra.Command {
	var sf siteFlags
	var detailed, allProfiles bool
	var save string
	c := &cobra.Command{
		Use:   "plan -f site.yaml",
		Short: "Show what apply would change to make the console hold a site document",
		Long: `Plan reads the site document and the console and prints what "access apply" would do, in the
order it would do it: "+" create, "~" update with each changed member as old -> new, "-" deactivate
or delete (only with --prune), then, in a section of their own, "!" what the console holds of a
listed kind and the document does not (users who left, by key and full name, with what --prune
would do to them; kept without --prune), then a summary line. Nothing is written. -o json prints the plan as
data (with a format_version); -O FILE saves it for "access apply --plan FILE".

A bad document is refused with its file, line and column (exit 2) before the console is contacted.
A plan that prunes more users than --max-deactivate (default ` + strconv.Itoa(site.DefaultMaxDeactivate) + `) or
--max-deactivate-share (percent of the users the document manages, default ` + strconv.Itoa(int(site.DefaultMaxDeactivateShare)) + `) allow is shown
and refused (exit ` + strconv.Itoa(cmdutil.ExitGuard) + `): a short or wrong export must not take everyone's doors.

Exit codes: 0 success, with or without changes; with --detailed-exitcode, ` + strconv.Itoa(cmdutil.ExitChanges) + ` when there are
changes or objects the document does not hold (a user who left counts, one already deactivated
or outside the document's scope does not), and 0 when there are none. Errors keep their codes (1, 2, 3, 4, 6, 130).`,
		Example: `  access --fake plan -f site.yaml
  access --fake plan -f site.yaml -o json
  access --fake plan -f site.yaml -O plan.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if cs, err := f.Consoles(allProfiles); cs != nil || err != nil {
				switch {
				case err != nil:
					return err
				case save != "":
					return cmdutil.UsageErrorf("-O saves the plan of one console: not with several")
				}
				return planManyCommand(c.Context(), f, &sf, cs, detailed)
			}
			p, err := makePlan(c.Context(), f, &sf, nil)
			if p == nil {
				return err
			}
			if save != "" && err == nil {
				b, err := json.MarshalIndent(p, "", "  ")
				if err != nil {
					return err
				}
				if err := cmdutil.WriteFileAtomic(c.Context(), save, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
					return err
				}
			}
			if format, jq := f.Output(); format == "json" || jq != "" {
				if err := f.PrintAs(f.Out, "json", p, nil); err != nil {
					return err
				}
			} else if format != "" && format != "table" {
				return cmdutil.UsageErrorf("plan prints text or -o json")
			} else {
				renderPlan(f.Out, p)
			}
			if err != nil {
				return err
			}
			if detailed && p.Drift() {
				return &cmdutil.ExitError{Code: cmdutil.ExitChanges, Err: errors.New(p.Summary.String())}
			}
			return nil
		},
	}
	sf.add(c)
	c.Flags().BoolVar(&detailed, "detailed-exitcode", false, "exit "+strconv.Itoa(cmdutil.ExitChanges)+" when there are changes or objects the document does not hold (users who left)")
	c.Flags().StringVarP(&save, "output-file", "O", "", "save the plan as JSON to `FILE` (for apply --plan)")
	c.Flags().BoolVar(&allProfiles, "all-profiles", false, "plan on every console of the config file (or give --profile a,b)")
	return c
}

var opSign = map[site.Op]string{site.OpCreate: "+", site.OpUpdate: "~", site.OpDeactivate: "-", site.OpDelete: "-"}

// renderPlan prints the plan as text (site.Plan.WriteText).
func renderPlan(w io.Writer, p *site.Plan) { _ = p.WriteText(w) }
