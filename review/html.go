package review

import (
	"html/template"
	"io"
	"strings"
	"sync"
)

// htmlCell is one cell of the door × person matrix.
type htmlCell struct {
	Mark  string // "●" opens at the moment, "○" covered but shut, "" none
	Class string // "open", "shut", "stale", ""
	Title string
}

type htmlPerson struct {
	Person
	Cells   []htmlCell
	LastUse string
}

type htmlReport struct {
	*Report
	AtText, SinceText string
	People            []htmlPerson
	FlagCounts        []htmlFlag
}

type htmlFlag struct {
	Name  string
	Count int
}

// WriteHTML writes the reports as one self-contained HTML page (no script,
// no request for anything else): for each console, its moment, time zone
// and look-back, the flags counted, the door × person matrix (● opens at
// the moment, ○ covered but shut then; a cell's title gives the policies,
// window and last use) with each person's and door's flags, and the
// policies. It prints on paper as it shows (landscape, one console a page).
func WriteHTML(w io.Writer, reports ...*Report) error {
	var view []htmlReport
	for _, r := range reports {
		hr := htmlReport{Report: r, AtText: r.At.Format("2006-01-02 15:04:05 MST"), SinceText: r.Since.Format("2006-01-02 15:04 MST")}
		for _, f := range Flags() {
			hr.FlagCounts = append(hr.FlagCounts, htmlFlag{f, r.Counts[f]})
		}
		doorCol := map[string]int{}
		for i, d := range r.Doors {
			doorCol[d.ID] = i
		}
		byPerson := map[string][]int{}
		for i, a := range r.Access {
			byPerson[a.PersonID] = append(byPerson[a.PersonID], i)
		}
		for _, p := range r.People {
			hp := htmlPerson{Person: p, Cells: make([]htmlCell, len(r.Doors))}
			if p.LastUse != nil {
				hp.LastUse = p.LastUse.At.Format("2006-01-02 15:04") + " " + p.LastUse.Door
			}
			for _, i := range byPerson[p.ID] {
				a := &r.Access[i]
				c := htmlCell{Mark: "○", Class: "shut"}
				if a.Open {
					c = htmlCell{Mark: "●", Class: "open"}
				}
				for _, f := range a.Flags {
					if f == FlagStale {
						c.Class += " stale"
					}
				}
				title := []string{a.Door}
				if len(a.Policies) > 0 {
					title = append(title, "policies: "+strings.Join(a.Policies, ", "))
				}
				title = append(title, "window: "+a.Window)
				if a.Open {
					title = append(title, "opens now by "+a.Policy)
				} else if a.Reason != "" {
					title = append(title, "shut now: "+a.Reason)
				}
				if a.LastUse != nil {
					title = append(title, "last use: "+a.LastUse.At.Format("2006-01-02 15:04")+" "+a.LastUse.Credential)
				} else {
					title = append(title, "no use in the look-back")
				}
				c.Title = strings.Join(title, "\n")
				hp.Cells[doorCol[a.DoorID]] = c
			}
			hr.People = append(hr.People, hp)
		}
		view = append(view, hr)
	}
	return reportPage().Execute(w, struct {
		Reports []htmlReport
		Note    string
		Version string
	}{view, CredentialsNote, FormatVersion})
}

// reportPage is the report's template, parsed when first used (issue 38:
// no package-level work for a command that does not use it).
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("review").Funcs(template.FuncMap{
		"join": func(s []string) string { return strings.Join(s, ", ") },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="format-version" content="{{.Version}}">
<title>Access review{{range .Reports}} · {{if .Console}}{{.Console}}{{else}}console{{end}}{{end}}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 1.5em; color: #111; }
h1 { font-size: 1.5em; margin: 0 0 .3em; }
h2 { font-size: 1.25em; margin: 1.5em 0 .3em; border-bottom: 2px solid #333; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .1em 1em; margin: .5em 0; }
dl.meta dt { font-weight: 600; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #bbb; padding: 2px 5px; vertical-align: top; }
th { background: #eee; }
table.matrix td.cell { text-align: center; min-width: 1.6em; }
table.matrix th.door { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
td.open { color: #0a5c1a; }
td.shut { color: #555; }
td.stale { background: #fff1c2; }
span.flag { display: inline-block; border-radius: 3px; padding: 0 4px; margin: 1px; font-size: .85em; background: #f6d5d5; color: #6d0e0e; white-space: nowrap; }
span.flag.stale { background: #fff1c2; color: #5c4500; }
td.doorflags span.flag { writing-mode: vertical-rl; transform: rotate(180deg); }
p.note { font-style: italic; }
@media print {
  @page { size: landscape; margin: 1cm; }
  body { margin: 0; font-size: 9px; }
  section.console { page-break-after: always; }
  tr { page-break-inside: avoid; }
  thead { display: table-header-group; }
}
</style>
</head>
<body>
<h1>Access review</h1>
<p class="note">Note: {{.Note}}. ● opens at the review's moment; ○ covered, shut at that moment; an amber cell is stale (no use in the look-back).</p>
{{range .Reports}}<section class="console" data-console="{{.Console}}">
<h2>{{if .Console}}Console {{.Console}}{{else}}Console{{end}}</h2>
<dl class="meta">
<dt>Evaluated at</dt><dd class="at">{{.AtText}}</dd>
<dt>Time zone</dt><dd><span class="tz">{{.TimeZone}}</span>{{if .TimeZoneSource}} (from {{.TimeZoneSource}}){{end}}</dd>
<dt>Last use since</dt><dd>{{.SinceText}} ({{.LogEntries}} system-log entries read)</dd>
<dt>Directory</dt><dd>{{if .DirectoryChecked}}checked{{else}}not given{{end}}</dd>
</dl>
<table class="flags"><thead><tr><th>Flag</th><th>Count</th></tr></thead><tbody>
{{range .FlagCounts}}<tr data-flag="{{.Name}}"><td>{{.Name}}</td><td>{{.Count}}</td></tr>
{{end}}</tbody></table>
<table class="matrix">
<thead><tr><th>Person</th><th>Kind</th><th>Status</th><th>Credentials</th><th>Last use</th><th>Flags</th>{{range .Doors}}<th class="door" title="{{.Name}}">{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{range .People}}<tr data-person="{{.ID}}"><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{.Status}}</td><td>{{.Credentials}}</td><td>{{.LastUse}}</td><td>{{range .Flags}}<span class="flag {{.}}">{{.}}</span>{{end}}</td>{{range .Cells}}<td class="cell {{.Class}}" title="{{.Title}}">{{.Mark}}</td>{{end}}</tr>
{{end}}</tbody>
<tfoot><tr><th colspan="6">Door flags</th>{{range .Doors}}<td class="doorflags" data-door="{{.ID}}">{{range .Flags}}<span class="flag {{.}}">{{.}}</span>{{end}}</td>{{end}}</tr></tfoot>
</table>
<table class="policies"><thead><tr><th>Policy</th><th>Schedule</th><th>Doors</th><th>Holders</th><th>Active</th><th>Flags</th></tr></thead><tbody>
{{range .Policies}}<tr data-policy="{{.ID}}"><td>{{.Name}}</td><td>{{.Schedule}}</td><td>{{join .Doors}}</td><td>{{.Holders}}</td><td>{{.Active}}</td><td>{{range .Flags}}<span class="flag {{.}}">{{.}}</span>{{end}}</td></tr>
{{end}}</tbody></table>
</section>
{{end}}</body>
</html>
`))
})
