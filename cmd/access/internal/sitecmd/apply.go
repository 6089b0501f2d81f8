package sitecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/site"
	"github.com/access-dev/access/site/sitefile"
	"github.com/spf13/cobra"
)

func applyCommand(f *cmdutil.Factory) *cobra.Command {
	var sf siteFlags
	var pc cmdutil.Pace
	var yes, allProfiles bool
	var planFile string
	var concurrency int
	c := &cobra.Command{
		Use:   "apply -f site.yaml",
		Short: "Make the console hold a site document",
		Long: `Apply makes the plan (see "access plan"), shows it and, on a terminal, asks for confirmation;
without a terminal it refuses unless --yes. It then makes the changes in dependency order (holiday
groups, schedules, door groups, policies, user groups, users with their memberships, webhooks,
then removals), one result line per change and a summary. A failed change stops nothing but what
depends on it; run apply again to finish the job: it re-reads the console and never creates an
object twice. --plan FILE applies a plan saved by "plan -O" and refuses it if the console changed
since in a way that touches it.

Writes run --concurrency at a time, and every request of a console is paced by --rate (requests
per second, the SDK's WithRateLimit; 0 for unpaced); retries honour 429 and Retry-After.`,
		Example: `  access --fake apply -f site.yaml --yes
  access --fake apply -f site.yaml --prune --concurrency 8 --yes`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if concurrency < 1 || concurrency > 64 {
				return cmdutil.UsageErrorf("--concurrency must be between 1 and 64")
			}
			if err := pc.Check(); err != nil {
				return err
			}
			if cs, err := f.Consoles(allProfiles); cs != nil || err != nil {
				switch {
				case err != nil:
					return err
				case planFile != "":
					return cmdutil.UsageErrorf("--plan applies the saved plan of one console: not with several")
				}
				return applyManyCommand(c.Context(), f, &sf, cs, yes, concurrency, &pc)
			}
			var p *site.Plan
			var err error
			if planFile != "" && sf.csv.set() {
				return cmdutil.UsageErrorf("--plan takes the users of the saved plan: no --csv-delimiter or --csv-column")
			}
			if planFile != "" {
				if sf.file != "" || sf.prune || sf.pruneDeleteUsers || sf.pruneEmpty || c.Flags().Changed("max-deactivate") || c.Flags().Changed("max-deactivate-share") {
					return cmdutil.UsageErrorf("--plan takes the document and options of the saved plan: no -f, --prune or --max-deactivate")
				}
				if p, err = loadPlan(planFile); err != nil {
					return err
				}
			} else if p, err = makePlan(c.Context(), f, &sf, &pc); p == nil {
				return err
			}
			renderPlan(f.Out, p)
			if err != nil {
				return err // refused by the guard: shown, not applied
			}
			if len(p.Changes) == 0 {
				return nil
			}
			if !yes {
				if err := confirm(f); err != nil {
					return err
				}
			}
			cl, err := f.PacedClient(pc.Rate)
			if err != nil {
				return err
			}
			fmt.Fprintln(f.Out)
			prog := f.Progress("change")
			prog.Total = int64(len(p.Changes))
			var freshFor time.Duration
			if yes && planFile == "" {
				freshFor = 10 * time.Second // made just now, not waiting for an answer: its reading is the console's (issue 38)
			}
			rep, err := p.Apply(c.Context(), cl, &site.ApplyOptions{Concurrency: concurrency, FreshFor: freshFor,
				LookupEnv: func(k string) (string, bool) { return lookupEnv(f.Getenv, k) },
				Progress: func(r site.Result) {
					prog.Rows++
					if prog.Active { // live on a terminal; in plan order otherwise (below)
						prog.Above(f.Out, resultLine(r))
					}
				}})
			prog.Done()
			if rep == nil {
				return documentError(f, err)
			}
			if !prog.Active {
				for _, r := range rep.Results {
					fmt.Fprintln(f.Out, resultLine(r))
				}
			}
			fmt.Fprintf(f.Out, "\nApply: %d done, %d failed, %d skipped.\n", rep.Done, rep.Failed, rep.Skipped)
			return err
		},
	}
	sf.add(c)
	c.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	c.Flags().StringVar(&planFile, "plan", "", "apply the plan saved in `FILE` by plan -O, refused if stale")
	c.Flags().IntVar(&concurrency, "concurrency", 2, "writes in flight at once (per console)")
	pc.Add(c)
	c.Flags().BoolVar(&allProfiles, "all-profiles", false, "apply to every console of the config file (or give --profile a,b)")
	return c
}

func resultLine(r site.Result) string {
	s := fmt.Sprintf("%-7s %s %s %s", r.Status, opSign[r.Change.Op], r.Change.Kind, r.Change.Key)
	if r.Change.Name != "" {
		s += " " + r.Change.Name
	}
	if r.Reason != "" {
		s += ": " + oneLine(r.Reason)
	}
	return s
}

func loadPlan(path string) (*site.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, cmdutil.UsageErrorf("--plan: %v", err)
	}
	var p site.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, cmdutil.UsageErrorf("--plan %s: not a saved plan: %v", path, err)
	}
	if p.FormatVersion != site.FormatVersion || p.Document == nil {
		return nil, cmdutil.UsageErrorf("--plan %s: format_version %q, want %q", path, p.FormatVersion, site.FormatVersion)
	}
	return &p, nil
}

// loadDocument reads a site document through package sitefile (YAML or
// JSON, unknown members and bad shapes refused with their line and column,
// aliases bounded, users_csv read) and returns a locator for the problems
// found later. The --csv-* flags override how users_csv is read. A file
// that cannot be read is a usage error.
func loadDocument(f *cmdutil.Factory, path string, csv *csvFlags) (*site.Document, site.Locator, error) {
	co, err := csv.options()
	if err != nil {
		return nil, nil, err
	}
	opts := &sitefile.Options{CSV: co}
	var sfile *sitefile.File
	if path == "-" {
		sfile, err = sitefile.Read(f.In, "<stdin>", opts)
	} else {
		sfile, err = sitefile.ReadFile(path, opts)
	}
	var de *site.DocumentError
	switch {
	case errors.As(err, &de):
		return nil, nil, err
	case err != nil:
		return nil, nil, cmdutil.UsageErrorf("-f: %v", err)
	}
	return sfile.Document, sfile.Locator, nil
}

// confirm asks on the terminal; without one it refuses.
func confirm(f *cmdutil.Factory) error {
	if !f.IsTerminal(f.ErrOut) || !f.IsTerminal(f.In) {
		return cmdutil.UsageErrorf("not applying without confirmation: there is no terminal to ask on; pass --yes")
	}
	fmt.Fprint(f.ErrOut, "\nApply these changes? Only 'yes' is accepted: ")
	var line []byte
	buf := make([]byte, 1)
	for {
		n, err := f.In.Read(buf)
		if n == 1 && buf[0] != '\n' {
			line = append(line, buf[0])
		}
		if err != nil || (n == 1 && buf[0] == '\n') {
			break
		}
	}
	if strings.TrimSpace(string(line)) != "yes" {
		return &cmdutil.ExitError{Code: 1, Err: errors.New("apply cancelled")}
	}
	return nil
}
