package dirsync

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"
)

// The formats of [WriteReport].
const (
	ReportText = "text"
	ReportCSV  = "csv"
	ReportJSON = "json"
	ReportHTML = "html"
)

// ReportFormats lists the formats [WriteReport] writes.
var ReportFormats = []string{ReportText, ReportCSV, ReportJSON, ReportHTML}

// ErrReportFormat is matched by the error of [WriteReport] for a format
// it does not know.
var ErrReportFormat = errors.New("dirsync: unknown report format")

// WriteReport writes a [Summary] in one of [ReportFormats]:
//
//   - "text": the counts, the latencies' p50/p95/p99 and maximum, a table
//     of the slowest leavers and one of the re-entries after revocation;
//   - "csv": one row per person named — kind "leaver" (the slowest, as
//     many as the summary holds) and kind "reentry" — under a header
//     (kind, key, name, source, acknowledged, latency_seconds,
//     credentials, opened, door); a cell that a spreadsheet would take for
//     a formula (=, +, -, @) gets a leading quote;
//   - "json": the summary itself, indented (durations in nanoseconds);
//   - "html": a small page with no script nor outside resource, every
//     name escaped by html/template.
//
// Times are written in UTC (RFC 3339), latencies rounded to the
// millisecond. Control characters in a name are written as U+FFFD in
// text, so that a directory entry cannot forge a line of the report.
// Nothing is written for an unknown format.
func WriteReport(w io.Writer, s *Summary, format string) error {
	if s == nil {
		return errors.New("dirsync: report: nil summary")
	}
	switch format {
	case ReportText:
		return writeText(w, s)
	case ReportCSV:
		return writeCSV(w, s)
	case ReportJSON:
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("dirsync: report: %w", err)
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case ReportHTML:
		return reportPage().Execute(w, htmlReport(s))
	}
	return fmt.Errorf("%w %q (want one of %s)", ErrReportFormat, format, strings.Join(ReportFormats, ", "))
}

// stamp writes a time in UTC, RFC 3339 ("-" for the zero time).
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// dur writes a latency rounded to the millisecond.
func dur(d time.Duration) string { return d.Round(time.Millisecond).String() }

// seconds writes a latency in seconds, to the millisecond.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64)
}

// clean replaces control characters (newlines, tabs, escapes) by U+FFFD.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func writeText(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Directory sync report since %s\n", stamp(s.Since))
	fmt.Fprintf(tw, "Leavers:\t%d\n", s.Leavers)
	fmt.Fprintf(tw, "Reactivated:\t%d\n", s.Reactivated)
	fmt.Fprintf(tw, "Credentials revoked:\t%d\n", s.CredentialsRevoked)
	fmt.Fprintf(tw, "Failed changes:\t%d\n", s.Failed)
	if s.Leavers > 0 {
		fmt.Fprintf(tw, "Latency:\tp50 %s  p95 %s  p99 %s  max %s\n", dur(s.P50), dur(s.P95), dur(s.P99), dur(s.Max))
	} else {
		fmt.Fprintf(tw, "Latency:\t-\n")
	}
	fmt.Fprintf(tw, "Re-entries after revocation:\t%d\n", len(s.Reentries))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Slowest) > 0 {
		fmt.Fprintf(w, "\nSlowest leavers:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "NAME\tKEY\tSOURCE\tLATENCY\tACKNOWLEDGED\tCREDENTIALS\n")
		for _, l := range s.Slowest {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", clean(l.Name), clean(l.Key), clean(l.Source), dur(l.Latency), stamp(l.Acknowledged), l.Credentials)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Reentries) > 0 {
		fmt.Fprintf(w, "\nRe-entries after revocation (a door opened for a leaver after the console revoked them):\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "NAME\tKEY\tSOURCE\tREVOKED\tOPENED\tDOOR\n")
		for _, e := range s.Reentries {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", clean(e.Name), clean(e.Key), clean(e.Source), stamp(e.Revoked), stamp(e.Opened), clean(e.Door))
		}
		return tw.Flush()
	}
	return nil
}

// cell keeps a spreadsheet from reading a name as a formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func writeCSV(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"kind", "key", "name", "source", "acknowledged", "latency_seconds", "credentials", "opened", "door"})
	for _, l := range s.Slowest {
		cw.Write([]string{"leaver", cell(l.Key), cell(l.Name), cell(l.Source), stamp(l.Acknowledged), seconds(l.Latency), strconv.Itoa(l.Credentials), "", ""})
	}
	for _, e := range s.Reentries {
		cw.Write([]string{"reentry", cell(e.Key), cell(e.Name), cell(e.Source), stamp(e.Revoked), "", "", stamp(e.Opened), cell(e.Door)})
	}
	cw.Flush()
	return cw.Error()
}

// htmlPage is what the HTML template is given.
type htmlPage struct {
	S                  *Summary
	Since              string
	P50, P95, P99, Max string
	Slowest            []htmlLeaver
	Reentries          []htmlReentry
	HasLeavers         bool
}

type htmlLeaver struct {
	Name, Key, Source, Latency, Acknowledged string
	Credentials                              int
}

type htmlReentry struct{ Name, Key, Source, Revoked, Opened, Door string }

func htmlReport(s *Summary) htmlPage {
	p := htmlPage{S: s, Since: stamp(s.Since), HasLeavers: s.Leavers > 0,
		P50: dur(s.P50), P95: dur(s.P95), P99: dur(s.P99), Max: dur(s.Max)}
	for _, l := range s.Slowest {
		p.Slowest = append(p.Slowest, htmlLeaver{l.Name, l.Key, l.Source, dur(l.Latency), stamp(l.Acknowledged), l.Credentials})
	}
	for _, e := range s.Reentries {
		p.Reentries = append(p.Reentries, htmlReentry{e.Name, e.Key, e.Source, stamp(e.Revoked), stamp(e.Opened), e.Door})
	}
	return p
}

// reportPage is the report's template, parsed when first used (issue 38:
// no package-level work for a command that does not use it).
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Directory sync report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.8em; text-align: left; }
th { background: #f2f2f2; }
td.num { text-align: right; }
.flag { color: #a00; }
</style>
</head>
<body>
<h1>Directory sync report</h1>
<p>Since <time id="since">{{.Since}}</time></p>
<table id="counts">
<tr><th>Leavers</th><td class="num" id="leavers">{{.S.Leavers}}</td></tr>
<tr><th>Reactivated</th><td class="num">{{.S.Reactivated}}</td></tr>
<tr><th>Credentials revoked</th><td class="num">{{.S.CredentialsRevoked}}</td></tr>
<tr><th>Failed changes</th><td class="num">{{.S.Failed}}</td></tr>
<tr><th>Re-entries after revocation</th><td class="num" id="reentry-count">{{len .Reentries}}</td></tr>
</table>
<h2>Revocation latency</h2>
{{if .HasLeavers}}<table id="latency">
<tr><th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>
<tr><td id="p50">{{.P50}}</td><td id="p95">{{.P95}}</td><td id="p99">{{.P99}}</td><td id="max">{{.Max}}</td></tr>
</table>
{{else}}<p id="latency">No leavers in this period.</p>
{{end}}{{if .Slowest}}<h2>Slowest leavers</h2>
<table id="slowest">
<tr><th>Name</th><th>Key</th><th>Source</th><th>Latency</th><th>Acknowledged</th><th>Credentials</th></tr>
{{range .Slowest}}<tr><td>{{.Name}}</td><td>{{.Key}}</td><td>{{.Source}}</td><td>{{.Latency}}</td><td>{{.Acknowledged}}</td><td class="num">{{.Credentials}}</td></tr>
{{end}}</table>
{{end}}<h2>Re-entries after revocation</h2>
{{if .Reentries}}<p class="flag">A door opened for these leavers after the console acknowledged their revocation.</p>
<table id="reentries">
<tr><th>Name</th><th>Key</th><th>Source</th><th>Revoked</th><th>Opened</th><th>Door</th></tr>
{{range .Reentries}}<tr class="flag"><td>{{.Name}}</td><td>{{.Key}}</td><td>{{.Source}}</td><td>{{.Revoked}}</td><td>{{.Opened}}</td><td>{{.Door}}</td></tr>
{{end}}</table>
{{else}}<p id="reentries">None.</p>
{{end}}</body>
</html>
`))
})
