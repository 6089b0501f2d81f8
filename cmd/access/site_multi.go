package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/access-dev/access/site"
)

// consolesAtOnce bounds the consoles planned or applied at the same time.
const consolesAtOnce = 4

// siteProfiles returns the profiles a site command runs against when it
// runs against several: --all-profiles, or a --profile list with a comma
// ("a,b"). multi is false for the usual single console.
func (a *app) siteProfiles(all bool) (names []string, cfg *config, multi bool, err error) {
	if !all && !strings.Contains(a.profile, ",") {
		return nil, nil, false, nil
	}
	if a.fake || a.urlFlag != "" || a.tokenFile != "" || a.getenv("ACCESS_URL") != "" || a.getenv("ACCESS_TOKEN") != "" {
		return nil, nil, true, usageErrorf("several consoles come from profiles, each whole: --fake, --url, --token-file, ACCESS_URL and ACCESS_TOKEN do not combine with --all-profiles or --profile a,b")
	}
	if firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT")) != "" {
		return nil, nil, true, usageErrorf("a pin (--fingerprint, ACCESS_FINGERPRINT) is one console's certificate: each profile has its own")
	}
	if all && a.profile != "" {
		return nil, nil, true, usageErrorf("--all-profiles and --profile do not combine")
	}
	cfg, path, err := a.loadConfig()
	if err != nil {
		return nil, nil, true, err
	}
	if all {
		names = profileNames(cfg)
	} else {
		for _, n := range strings.Split(a.profile, ",") {
			if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, true, usageErrorf("no profiles in %s: run access login", path)
	}
	for _, n := range names {
		if _, ok := cfg.Profiles[n]; !ok {
			return nil, nil, true, usageErrorf("no profile %q in %s (have: %s)", n, path, strings.Join(profileNames(cfg), ", "))
		}
	}
	return names, cfg, true, nil
}

// profileConnection is the connection of one profile, whole (URL, token,
// fingerprint, insecure): flags and environment name one console, not
// several. Every command that runs against several consoles (plan,
// apply, monitor) takes its connections from here.
func (a *app) profileConnection(cfg *config, name string) (connection, error) {
	p := cfg.Profiles[name]
	if p.URL == "" || p.Token == "" {
		return connection{}, usageErrorf("profile %q has no url or no token: run access login again", name)
	}
	conn := connection{URL: p.URL, token: tokenOf(p.Token), Fingerprint: p.Fingerprint, Insecure: p.Insecure, Source: "profile " + name}
	if err := a.checkScheme(conn.URL, conn.Source); err != nil {
		return connection{}, err
	}
	return conn, nil
}

// profileClient builds the client of one profile ([app.profileConnection]),
// paced by pc (apply's --rate; nil for plan).
func (a *app) profileClient(cfg *config, name string, pc *pace) (*access.Client, error) {
	conn, err := a.profileConnection(cfg, name)
	if err != nil {
		return nil, err
	}
	opts := clientOptions(conn)
	if pc != nil && pc.rate > 0 {
		opts = append(opts, access.WithRateLimit(pc.rate, 1)) // apply's --rate, per console
	}
	return access.NewClient(conn.URL, conn.Token(), opts...)
}

// consoleRun is one console of a multi-console plan or apply.
type consoleRun struct {
	name   string
	client *access.Client
	plan   *site.Plan
	out    bytes.Buffer
	err    error
	report *site.Report
}

// forEachConsole runs f for every console, consolesAtOnce at a time; a
// failure of one cancels no other.
func forEachConsole(runs []*consoleRun, f func(r *consoleRun)) {
	sem := make(chan struct{}, consolesAtOnce)
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(r)
		}()
	}
	wg.Wait()
}

// worse reports whether exit code x is worse than y: an interruption,
// then the errors by code (4 unauthorized over 3 not found over 2 usage
// over 1), then changes present, then success.
func worse(x, y int) bool {
	rank := func(c int) int {
		switch c {
		case 0:
			return 0
		case exitChanges:
			return 1
		case 130:
			return 100
		}
		return 2 + c
	}
	return rank(x) > rank(y)
}

// problemText renders an error of one console for its section: the
// problems of a bad document one per line.
func problemText(err error) string {
	var de *site.DocumentError
	if errors.As(err, &de) {
		lines := make([]string, len(de.Problems))
		for i, p := range de.Problems {
			lines[i] = "error: " + p.String()
		}
		return strings.Join(lines, "\n")
	}
	return "error: " + strings.TrimPrefix(oneLine(err.Error()), "access: ")
}

// planMany plans the document on each console: a section per console in
// the order given, then one summary line; the worst exit code wins.
func (a *app) planMany(f *siteFlags, names []string, cfg *config, pc *pace) ([]*consoleRun, error) {
	if f.file == "" {
		return nil, usageErrorf("a site document is required: -f FILE")
	}
	doc, loc, err := a.loadDocument(f.file, &f.csv)
	if err != nil {
		return nil, a.documentError(err)
	}
	if _, err := f.options(loc, a.getenv); err != nil {
		return nil, err
	}
	runs := make([]*consoleRun, len(names))
	for i, n := range names {
		runs[i] = &consoleRun{name: n}
	}
	forEachConsole(runs, func(r *consoleRun) {
		merged, back := doc.ForSite(r.name)
		opts, _ := f.options(func(p string) site.Position { return loc(back(p)) }, a.getenv)
		if r.client, r.err = a.profileClient(cfg, r.name, pc); r.err != nil {
			return
		}
		r.plan, r.err = site.MakePlan(a.ctx, r.client, merged, opts)
		if errors.Is(r.err, site.ErrGuard) {
			r.err = a.documentError(r.err) // exit 6, in the flags' terms
		}
	})
	for _, r := range runs {
		if r.plan != nil {
			for _, w := range r.plan.Warnings {
				fmt.Fprintf(a.stderr, "warning: %s: %s\n", r.name, w)
			}
		}
	}
	return runs, nil
}

func (a *app) printSections(runs []*consoleRun, body func(w io.Writer, r *consoleRun)) {
	for i, r := range runs {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "== %s ==\n", r.name)
		if r.plan == nil {
			fmt.Fprintln(a.stdout, problemText(r.err))
			continue
		}
		body(a.stdout, r)
	}
}

// codeOf is the exit code of one console's outcome.
func (a *app) codeOf(r *consoleRun) int {
	if r.err == nil {
		return 0
	}
	var de *site.DocumentError
	if errors.As(r.err, &de) {
		return 2
	}
	return exitCode(a.ctx, r.err)
}

func (a *app) planManyCommand(f *siteFlags, names []string, cfg *config, detailed bool) error {
	runs, err := a.planMany(f, names, cfg, nil)
	if err != nil {
		return err
	}
	if a.output == "json" || a.jq != "" {
		type entry struct {
			Console string     `json:"console"`
			Plan    *site.Plan `json:"plan,omitempty"`
			Error   string     `json:"error,omitempty"`
		}
		out := struct {
			FormatVersion string  `json:"format_version"`
			Consoles      []entry `json:"consoles"`
		}{FormatVersion: site.FormatVersion}
		for _, r := range runs {
			e := entry{Console: r.name, Plan: r.plan}
			if r.err != nil {
				e.Error = strings.TrimPrefix(problemText(r.err), "error: ")
			}
			out.Consoles = append(out.Consoles, e)
		}
		if err := a.emitAs("json", out, nil); err != nil {
			return err
		}
	} else {
		a.printSections(runs, func(w io.Writer, r *consoleRun) {
			renderPlan(w, r.plan)
			if r.err != nil { // refused by the guard
				fmt.Fprintln(w, problemText(r.err))
			}
		})
	}
	worst, changed, failed := 0, 0, 0
	for _, r := range runs {
		c := a.codeOf(r)
		switch {
		case c != 0:
			failed++
		case r.plan.Drift():
			changed++
			if detailed {
				c = exitChanges
			}
		}
		if worse(c, worst) {
			worst = c
		}
	}
	fmt.Fprintf(a.stderr, "%s: %d with changes, %d without, %d failed\n", output.Count(len(runs), "console"), changed, len(runs)-changed-failed, failed)
	if worst != 0 {
		return &exitError{code: worst, err: fmt.Errorf("%d of %s failed", failed, output.Count(len(runs), "console"))}
	}
	return nil
}

func (a *app) applyManyCommand(f *siteFlags, names []string, cfg *config, yes bool, concurrency int, pc *pace) error {
	runs, err := a.planMany(f, names, cfg, pc)
	if err != nil {
		return err
	}
	a.printSections(runs, func(w io.Writer, r *consoleRun) {
		renderPlan(w, r.plan)
		if r.err != nil { // refused by the guard
			fmt.Fprintln(w, problemText(r.err))
		}
	})
	pending := 0
	for _, r := range runs {
		if r.err == nil && len(r.plan.Changes) > 0 {
			pending++
		}
	}
	if pending > 0 && !yes {
		if err := a.confirm(); err != nil {
			return err
		}
	}
	forEachConsole(runs, func(r *consoleRun) {
		if r.err != nil || len(r.plan.Changes) == 0 {
			return
		}
		r.report, r.err = r.plan.Apply(a.ctx, r.client, &site.ApplyOptions{Concurrency: concurrency,
			LookupEnv: func(k string) (string, bool) { return lookupEnv(a.getenv, k) }})
		if r.report != nil {
			for _, res := range r.report.Results { // in plan order
				fmt.Fprintln(&r.out, resultLine(res))
			}
		}
	})
	if pending > 0 {
		fmt.Fprintln(a.stdout)
		a.printSections(runs, func(w io.Writer, r *consoleRun) {
			switch {
			case r.report == nil && r.err != nil:
				fmt.Fprintln(w, problemText(r.err))
			case r.report == nil:
				fmt.Fprintln(w, "No changes.")
			default:
				w.Write(r.out.Bytes())
				fmt.Fprintf(w, "Apply: %d done, %d failed, %d skipped.\n", r.report.Done, r.report.Failed, r.report.Skipped)
			}
		})
	}
	worst, failed := 0, 0
	for _, r := range runs {
		if c := a.codeOf(r); c != 0 {
			failed++
			if worse(c, worst) {
				worst = c
			}
		}
	}
	fmt.Fprintf(a.stderr, "%s: %d applied, %d failed\n", output.Count(len(runs), "console"), len(runs)-failed, failed)
	if worst != 0 {
		return &exitError{code: worst, err: fmt.Errorf("%d of %s failed", failed, output.Count(len(runs), "console"))}
	}
	return nil
}

// confirm asks on the terminal; without one it refuses.
func (a *app) confirm() error {
	if !a.isTerminal(a.stderr) || !isTerminalReader(a, a.stdin) {
		return usageErrorf("not applying without confirmation: there is no terminal to ask on; pass --yes")
	}
	fmt.Fprint(a.stderr, "\nApply these changes? Only 'yes' is accepted: ")
	var line []byte
	buf := make([]byte, 1)
	for {
		n, err := a.stdin.Read(buf)
		if n == 1 && buf[0] != '\n' {
			line = append(line, buf[0])
		}
		if err != nil || (n == 1 && buf[0] == '\n') {
			break
		}
	}
	if strings.TrimSpace(string(line)) != "yes" {
		return &exitError{code: 1, err: errors.New("apply cancelled")}
	}
	return nil
}
