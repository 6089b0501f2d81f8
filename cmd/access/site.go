package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access/site"
	"github.com/access-dev/access/site/sitefile"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// exitChanges is the exit code of "access plan --detailed-exitcode" when
// the plan has changes or leavers; no other outcome uses it.
const exitChanges = 5

// exitGuard is the exit code of a plan refused by a safety guard (more
// users to deactivate than --max-deactivate / --max-deactivate-share
// allow).
const exitGuard = 6

// siteCommands are export, plan and apply: the site as a file (package
// site computes, these commands read files and render).
func (a *app) siteCommands() []*cobra.Command {
	return []*cobra.Command{a.exportCommand(), a.planCommand(), a.applyCommand()}
}

func (a *app) exportCommand() *cobra.Command {
	var out string
	var kinds []string
	c := &cobra.Command{
		Use:   "export",
		Short: "Write the console's people, groups, policies, schedules and holidays as a site document",
		Long: `Export writes what the console holds as a site document (YAML; -o json for JSON): names,
not ids, in a stable order. Secrets, webhook header values, PIN codes and cards are never written.
What cannot be managed (a user with neither employee number nor email, two objects of one kind
with one name) is left out with a warning on stderr.

"access plan -f" of the output reports no change.`,
		Example: `  access --fake export -O site.yaml
  access --fake export --kinds users,user-groups -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ks, err := parseKinds(kinds)
			if err != nil {
				return err
			}
			if a.output != "" && a.output != "yaml" && a.output != "json" {
				return usageErrorf("export writes yaml (the default) or -o json, not -o %s", a.output)
			}
			cl, err := a.Client()
			if err != nil {
				return err
			}
			doc, warnings, err := site.Export(a.ctx, cl, ks)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintln(a.stderr, "warning: "+w)
			}
			var b []byte
			if a.output == "json" {
				if b, err = json.MarshalIndent(doc, "", "  "); err == nil {
					b = append(b, '\n')
				}
			} else {
				b, err = marshalDocumentYAML(doc)
			}
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = a.stdout.Write(b)
				return err
			}
			return writeFileAtomic(a, out, func(w io.Writer) error { _, err := w.Write(b); return err })
		},
	}
	c.Flags().StringVarP(&out, "output-file", "O", "", "write the document to `FILE` instead of stdout")
	c.Flags().StringSliceVar(&kinds, "kinds", nil, "export only these `KINDS` (holiday-groups, schedules, door-groups, access-policies, user-groups, users, webhooks)")
	return c
}

func parseKinds(names []string) ([]site.Kind, error) {
	var out []site.Kind
	for _, n := range names {
		k, err := site.ParseKind(n)
		if err != nil {
			return nil, usageErrorf("--kinds: %v", err)
		}
		out = append(out, k)
	}
	return out, nil
}

// marshalDocumentYAML writes the kinds the document lists in dependency
// order, an empty listed kind as [].
func marshalDocumentYAML(d *site.Document) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("# yaml-language-server: $schema=" + site.SchemaID + "\n")
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	// Decode into an ordered node through JSON's order (MarshalJSON
	// keeps dependency order), then re-encode the typed lists for YAML's
	// own forms (times, block style).
	var order yaml.Node
	if err := yaml.Unmarshal(b, &order); err != nil {
		return nil, err
	}
	v := reflect.ValueOf(d).Elem()
	for i := 0; i+1 < len(order.Content[0].Content); i += 2 {
		key := order.Content[0].Content[i].Value
		field := fieldByTag(v.Type(), key)
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(map[string]any{key: v.FieldByIndex(field.Index).Interface()}); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func fieldByTag(t reflect.Type, name string) reflect.StructField {
	for i := range t.NumField() {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); n == name {
			return f
		}
	}
	return reflect.StructField{}
}

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
	c.Flags().IntVar(&f.maxDeactivate, "max-deactivate", site.DefaultMaxDeactivate, "with --prune, refuse (exit "+strconv.Itoa(exitGuard)+") to deactivate more than `N` users")
	c.Flags().Float64Var(&f.maxDeactivateShare, "max-deactivate-share", site.DefaultMaxDeactivateShare, "with --prune, refuse (exit "+strconv.Itoa(exitGuard)+") to deactivate more than `P` percent of the users the document manages")
	f.csv.add(c)
}

func (f *siteFlags) options(loc site.Locator, getenv func(string) string) (*site.PlanOptions, error) {
	if (f.pruneDeleteUsers || f.pruneEmpty) && !f.prune {
		return nil, usageErrorf("--prune-delete-users and --prune-empty need --prune")
	}
	if f.maxDeactivate < 1 {
		return nil, usageErrorf("--max-deactivate must be at least 1 (the default is %d)", site.DefaultMaxDeactivate)
	}
	if !(f.maxDeactivateShare > 0 && f.maxDeactivateShare <= 100) {
		return nil, usageErrorf("--max-deactivate-share is a percentage above 0 and at most 100 (the default is %g)", site.DefaultMaxDeactivateShare)
	}
	return &site.PlanOptions{Prune: f.prune, PruneDeleteUsers: f.pruneDeleteUsers, PruneEmpty: f.pruneEmpty, Locator: loc,
		MaxDeactivate: f.maxDeactivate, MaxDeactivateShare: f.maxDeactivateShare,
		LookupEnv: func(k string) (string, bool) { return lookupEnv(getenv, k) }}, nil
}

// makePlan reads and checks the document, then plans it against the
// console; problems of the document are exit 2, printed one per line. A
// plan refused by the guard comes back with its exit-6 error, to be shown.
// The client is paced by pc (apply's --rate; nil for plan).
func (a *app) makePlan(f *siteFlags, pc *pace) (*site.Plan, error) {
	if f.file == "" {
		return nil, usageErrorf("a site document is required: -f FILE")
	}
	if _, err := f.options(nil, a.getenv); err != nil {
		return nil, err
	}
	doc, loc, err := a.loadDocument(f.file, &f.csv)
	if err != nil {
		return nil, a.documentError(err)
	}
	// The overrides of sites: apply to the console of the profile in use.
	doc, back := doc.ForSite(a.siteName())
	opts, err := f.options(func(p string) site.Position { return loc(back(p)) }, a.getenv)
	if err != nil {
		return nil, err
	}
	cl, err := a.pacedClient(pc)
	if err != nil {
		return nil, err
	}
	p, err := site.MakePlan(a.ctx, cl, doc, opts)
	if err != nil && (p == nil || !errors.Is(err, site.ErrGuard)) {
		return nil, a.documentError(err)
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(a.stderr, "warning: "+w)
	}
	return p, a.documentError(err)
}

// siteName is the profile a single console comes from, for the
// document's sites: overrides: --profile, ACCESS_PROFILE, or the config's
// current profile when no flag or environment names a console.
func (a *app) siteName() string {
	if n := firstNonEmpty(a.profile, a.getenv("ACCESS_PROFILE")); n != "" || a.fake || a.urlFlag != "" || a.getenv("ACCESS_URL") != "" {
		return n
	}
	if cfg, _, err := a.loadConfig(); err == nil {
		return cfg.Current
	}
	return ""
}

// documentError prints each problem of a bad document on stderr and
// returns an exit-2 error; a refusal of the guard is exit 6, named by its
// flags; other errors pass.
func (a *app) documentError(err error) error {
	if ge := (*site.GuardError)(nil); errors.As(err, &ge) {
		return guardError(ge)
	}
	var de *site.DocumentError
	if !errors.As(err, &de) {
		return err
	}
	if len(de.Problems) == 1 {
		return &exitError{code: 2, err: errors.New(de.Problems[0].String())}
	}
	for _, p := range de.Problems {
		fmt.Fprintln(a.stderr, p.String())
	}
	return &exitError{code: 2, err: fmt.Errorf("bad document: %d problems", len(de.Problems))}
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
	return &exitError{code: exitGuard, err: fmt.Errorf("refused by a safety guard: the plan would deactivate %d of the %d users the document manages (%s), more than %s %s; nothing was changed. Check the document (a short or wrong export?); to go ahead, pass %s",
		ge.Deactivate, ge.Of, ge.Percent(), strings.Join(over, " and "), verb, strings.Join(raise, " "))}
}

func (a *app) planCommand() *cobra.Command {
	var f siteFlags
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
and refused (exit ` + strconv.Itoa(exitGuard) + `): a short or wrong export must not take everyone's doors.

Exit codes: 0 success, with or without changes; with --detailed-exitcode, ` + strconv.Itoa(exitChanges) + ` when there are
changes or objects the document does not hold (a user who left counts, one already deactivated
or outside the document's scope does not), and 0 when there are none. Errors keep their codes (1, 2, 3, 4, 6, 130).`,
		Example: `  access --fake plan -f site.yaml
  access --fake plan -f site.yaml -o json
  access --fake plan -f site.yaml -O plan.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if names, cfg, multi, err := a.siteProfiles(allProfiles); multi {
				switch {
				case err != nil:
					return err
				case save != "":
					return usageErrorf("-O saves the plan of one console: not with several")
				}
				return a.planManyCommand(&f, names, cfg, detailed)
			}
			p, err := a.makePlan(&f, nil)
			if p == nil {
				return err
			}
			if save != "" && err == nil {
				b, err := json.MarshalIndent(p, "", "  ")
				if err != nil {
					return err
				}
				if err := writeFileAtomic(a, save, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
					return err
				}
			}
			if a.output == "json" || a.jq != "" {
				if err := a.emitAs("json", p, nil); err != nil {
					return err
				}
			} else if a.output != "" && a.output != "table" {
				return usageErrorf("plan prints text or -o json")
			} else {
				renderPlan(a.stdout, p)
			}
			if err != nil {
				return err
			}
			if detailed && p.Drift() {
				return &exitError{code: exitChanges, err: errors.New(p.Summary.String())}
			}
			return nil
		},
	}
	f.add(c)
	c.Flags().BoolVar(&detailed, "detailed-exitcode", false, "exit "+strconv.Itoa(exitChanges)+" when there are changes or objects the document does not hold (users who left)")
	c.Flags().StringVarP(&save, "output-file", "O", "", "save the plan as JSON to `FILE` (for apply --plan)")
	c.Flags().BoolVar(&allProfiles, "all-profiles", false, "plan on every console of the config file (or give --profile a,b)")
	return c
}

var opSign = map[site.Op]string{site.OpCreate: "+", site.OpUpdate: "~", site.OpDeactivate: "-", site.OpDelete: "-"}

// renderPlan prints the plan as text: one section per step in apply
// order, each change with its members old -> new, then the summary. No
// ids, no times, no colours: the same plan prints the same bytes.
func renderPlan(w io.Writer, p *site.Plan) {
	if !p.Drift() {
		fmt.Fprintln(w, "No changes: the console matches the document.")
		if n := p.Summary.OutOfScope; n > 0 {
			fmt.Fprintf(w, "%d users outside the scope left alone.\n", n)
		}
		return
	}
	section := ""
	for _, ch := range p.Changes {
		s := string(ch.Kind)
		if ch.Op == site.OpDelete || ch.Op == site.OpDeactivate {
			s += " (prune)"
		}
		if s != section {
			if section != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, s+":")
			section = s
		}
		line := "  " + opSign[ch.Op] + " " + ch.Key
		if ch.Name != "" {
			line += " " + ch.Name
		}
		if ch.Op == site.OpDelete || ch.Op == site.OpDeactivate {
			line += " (" + string(ch.Op) + ")"
		}
		fmt.Fprintln(w, line)
		for _, fc := range ch.Fields {
			if ch.Op == site.OpCreate {
				fmt.Fprintf(w, "      %s: %q\n", fc.Field, fc.New)
				continue
			}
			fmt.Fprintf(w, "      %s: %q -> %q\n", fc.Field, fc.Old, fc.New)
		}
	}
	renderUnlisted(w, p, section != "")
	fmt.Fprintln(w)
	fmt.Fprintln(w, p.Summary.String()+".")
}

// renderUnlisted prints the objects the document does not hold and the
// plan keeps (the leavers), a section per kind, each with what --prune
// would do to it.
func renderUnlisted(w io.Writer, p *site.Plan, after bool) {
	kind := site.Kind("")
	for _, u := range p.Unlisted {
		if u.Kind != kind {
			if after || kind != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s not in the document (kept without --prune):\n", u.Kind)
			kind = u.Kind
		}
		line := "  ! " + u.Key
		if u.Name != "" {
			line += " " + u.Name
		}
		fmt.Fprintf(w, "%s (--prune would %s)\n", line, u.Prune)
	}
}

func (a *app) applyCommand() *cobra.Command {
	var f siteFlags
	var pc pace
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
				return usageErrorf("--concurrency must be between 1 and 64")
			}
			if err := pc.check(); err != nil {
				return err
			}
			if names, cfg, multi, err := a.siteProfiles(allProfiles); multi {
				switch {
				case err != nil:
					return err
				case planFile != "":
					return usageErrorf("--plan applies the saved plan of one console: not with several")
				}
				return a.applyManyCommand(&f, names, cfg, yes, concurrency, &pc)
			}
			var p *site.Plan
			var err error
			if planFile != "" && f.csv.set() {
				return usageErrorf("--plan takes the users of the saved plan: no --csv-delimiter or --csv-column")
			}
			if planFile != "" {
				if f.file != "" || f.prune || f.pruneDeleteUsers || f.pruneEmpty || c.Flags().Changed("max-deactivate") || c.Flags().Changed("max-deactivate-share") {
					return usageErrorf("--plan takes the document and options of the saved plan: no -f, --prune or --max-deactivate")
				}
				if p, err = a.loadPlan(planFile); err != nil {
					return err
				}
			} else if p, err = a.makePlan(&f, &pc); p == nil {
				return err
			}
			renderPlan(a.stdout, p)
			if err != nil {
				return err // refused by the guard: shown, not applied
			}
			if len(p.Changes) == 0 {
				return nil
			}
			if !yes {
				if err := a.confirm(); err != nil {
					return err
				}
			}
			cl, err := a.pacedClient(&pc)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout)
			prog := a.newProgress("change")
			prog.Total = int64(len(p.Changes))
			var freshFor time.Duration
			if yes && planFile == "" {
				freshFor = 10 * time.Second // made just now, not waiting for an answer: its reading is the console's (issue 38)
			}
			rep, err := p.Apply(a.ctx, cl, &site.ApplyOptions{Concurrency: concurrency, FreshFor: freshFor,
				LookupEnv: func(k string) (string, bool) { return lookupEnv(a.getenv, k) },
				Progress: func(r site.Result) {
					prog.Rows++
					if prog.Active { // live on a terminal; in plan order otherwise (below)
						prog.Above(a.stdout, resultLine(r))
					}
				}})
			prog.Done()
			if rep == nil {
				return a.documentError(err)
			}
			if !prog.Active {
				for _, r := range rep.Results {
					fmt.Fprintln(a.stdout, resultLine(r))
				}
			}
			fmt.Fprintf(a.stdout, "\nApply: %d done, %d failed, %d skipped.\n", rep.Done, rep.Failed, rep.Skipped)
			return err
		},
	}
	f.add(c)
	c.Flags().BoolVarP(&yes, "yes", "y", false, "apply without asking")
	c.Flags().StringVar(&planFile, "plan", "", "apply the plan saved in `FILE` by plan -O, refused if stale")
	c.Flags().IntVar(&concurrency, "concurrency", 2, "writes in flight at once (per console)")
	pc.add(c)
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

// isTerminalReader reports whether r is a terminal (ACCESS_FORCE_TTY=1:
// always, for tests).
func isTerminalReader(a *app, r io.Reader) bool {
	if a.getenv("ACCESS_FORCE_TTY") == "1" {
		return true
	}
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (a *app) loadPlan(path string) (*site.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--plan: %v", err)
	}
	var p site.Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, usageErrorf("--plan %s: not a saved plan: %v", path, err)
	}
	if p.FormatVersion != site.FormatVersion || p.Document == nil {
		return nil, usageErrorf("--plan %s: format_version %q, want %q", path, p.FormatVersion, site.FormatVersion)
	}
	return &p, nil
}

// loadDocument reads a site document through package sitefile (YAML or
// JSON, unknown members and bad shapes refused with their line and column,
// aliases bounded, users_csv read) and returns a locator for the problems
// found later. The --csv-* flags override how users_csv is read. A file
// that cannot be read is a usage error.
func (a *app) loadDocument(path string, csv *csvFlags) (*site.Document, site.Locator, error) {
	co, err := csv.options()
	if err != nil {
		return nil, nil, err
	}
	opts := &sitefile.Options{CSV: co}
	var f *sitefile.File
	if path == "-" {
		f, err = sitefile.Read(a.stdin, "<stdin>", opts)
	} else {
		f, err = sitefile.ReadFile(path, opts)
	}
	var de *site.DocumentError
	switch {
	case errors.As(err, &de):
		return nil, nil, err
	case err != nil:
		return nil, nil, usageErrorf("-f: %v", err)
	}
	return f.Document, f.Locator, nil
}
