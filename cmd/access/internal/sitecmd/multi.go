package sitecmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/access-dev/access/site"
)

// consolesAtOnce bounds the consoles planned or applied at the same time.
const consolesAtOnce = 4

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
		case cmdutil.ExitChanges:
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
func planMany(ctx context.Context, f *cmdutil.Factory, sf *siteFlags, cs *cmdutil.Consoles, pc *cmdutil.Pace) ([]*consoleRun, error) {
	if sf.file == "" {
		return nil, cmdutil.UsageErrorf("a site document is required: -f FILE")
	}
	doc, loc, err := loadDocument(f, sf.file, &sf.csv)
	if err != nil {
		return nil, documentError(f, err)
	}
	if _, err := sf.options(loc, f.Getenv); err != nil {
		return nil, err
	}
	rate := 0.0
	if pc != nil {
		rate = pc.Rate // apply's --rate, per console
	}
	runs := make([]*consoleRun, len(cs.Names))
	for i, n := range cs.Names {
		runs[i] = &consoleRun{name: n}
	}
	forEachConsole(runs, func(r *consoleRun) {
		merged, back := doc.ForSite(r.name)
		opts, _ := sf.options(func(p string) site.Position { return loc(back(p)) }, f.Getenv)
		if r.client, r.err = cs.Client(r.name, rate); r.err != nil {
			return
		}
		r.plan, r.err = site.MakePlan(ctx, r.client, merged, opts)
		if errors.Is(r.err, site.ErrGuard) {
			r.err = documentError(f, r.err) // exit 6, in the flags' terms
		}
	})
	for _, r := range runs {
		if r.plan != nil {
			for _, w := range r.plan.Warnings {
				fmt.Fprintf(f.ErrOut, "warning: %s: %s\n", r.name, w)
			}
		}
	}
	return runs, nil
}

func printSections(f *cmdutil.Factory, runs []*consoleRun, body func(w io.Writer, r *consoleRun)) {
	for i, r := range runs {
		if i > 0 {
			fmt.Fprintln(f.Out)
		}
		fmt.Fprintf(f.Out, "== %s ==\n", r.name)
		if r.plan == nil {
			fmt.Fprintln(f.Out, problemText(r.err))
			continue
		}
		body(f.Out, r)
	}
}

// codeOf is the exit code of one console's outcome.
func codeOf(ctx context.Context, f *cmdutil.Factory, r *consoleRun) int {
	if r.err == nil {
		return 0
	}
	var de *site.DocumentError
	if errors.As(r.err, &de) {
		return 2
	}
	return f.ExitCode(ctx, r.err)
}

func planManyCommand(ctx context.Context, f *cmdutil.Factory, sf *siteFlags, cs *cmdutil.Consoles, detailed bool) error {
	runs, err := planMany(ctx, f, sf, cs, nil)
	if err != nil {
		return err
	}
	if format, jq := f.Output(); format == "json" || jq != "" {
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
		if err := f.PrintAs(f.Out, "json", out, nil); err != nil {
			return err
		}
	} else {
		printSections(f, runs, func(w io.Writer, r *consoleRun) {
			renderPlan(w, r.plan)
			if r.err != nil { // refused by the guard
				fmt.Fprintln(w, problemText(r.err))
			}
		})
	}
	worst, changed, failed := 0, 0, 0
	for _, r := range runs {
		c := codeOf(ctx, f, r)
		switch {
		case c != 0:
			failed++
		case r.plan.Drift():
			changed++
			if detailed {
				c = cmdutil.ExitChanges
			}
		}
		if worse(c, worst) {
			worst = c
		}
	}
	fmt.Fprintf(f.ErrOut, "%s: %d with changes, %d without, %d failed\n", output.Count(len(runs), "console"), changed, len(runs)-changed-failed, failed)
	if worst != 0 {
		return &cmdutil.ExitError{Code: worst, Err: fmt.Errorf("%d of %s failed", failed, output.Count(len(runs), "console"))}
	}
	return nil
}

func applyManyCommand(ctx context.Context, f *cmdutil.Factory, sf *siteFlags, cs *cmdutil.Consoles, yes bool, concurrency int, pc *cmdutil.Pace) error {
	runs, err := planMany(ctx, f, sf, cs, pc)
	if err != nil {
		return err
	}
	printSections(f, runs, func(w io.Writer, r *consoleRun) {
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
		if err := confirm(f); err != nil {
			return err
		}
	}
	forEachConsole(runs, func(r *consoleRun) {
		if r.err != nil || len(r.plan.Changes) == 0 {
			return
		}
		r.report, r.err = r.plan.Apply(ctx, r.client, &site.ApplyOptions{Concurrency: concurrency,
			LookupEnv: func(k string) (string, bool) { return lookupEnv(f.Getenv, k) }})
		if r.report != nil {
			for _, res := range r.report.Results { // in plan order
				fmt.Fprintln(&r.out, resultLine(res))
			}
		}
	})
	if pending > 0 {
		fmt.Fprintln(f.Out)
		printSections(f, runs, func(w io.Writer, r *consoleRun) {
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
		if c := codeOf(ctx, f, r); c != 0 {
			failed++
			if worse(c, worst) {
				worst = c
			}
		}
	}
	fmt.Fprintf(f.ErrOut, "%s: %d applied, %d failed\n", output.Count(len(runs), "console"), len(runs)-failed, failed)
	if worst != 0 {
		return &cmdutil.ExitError{Code: worst, Err: fmt.Errorf("%d of %s failed", failed, output.Count(len(runs), "console"))}
	}
	return nil
}
