package access_test

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// The vendor's facts the conformance report needs (CONFORMANCE.md, built
// by TestConformance): every operation of the developer API with its SDK
// name, permission and minimum Access version, and every event. They come
// from the project's spec, full-api.md, which lives beside the clone
// (../shared/spec/full-api.md) and is not part of the module; the facts
// are therefore committed as internal/apifacts/operations.tsv (which the
// command line embeds for its help) and testdata/conformance/events.tsv,
// regenerated from full-api.md with -update and checked against it
// whenever it is present.

// specOp is one operation row of full-api.md.
type specOp struct {
	Section   string   // the vendor's § number, "3.4"
	SDK       []string // the SDK's methods; SDK[0] is the operation's name in allOps
	Operation string   // the vendor's title
	Method    string   // GET, POST, PUT, DELETE
	Path      string   // under /api/v1/developer, the vendor's spelling (":id")
	Perm      string   // the token permission, "view:user"
	Since     string   // the minimum Access version, "—" when none is stated
}

// WebSocket reports whether the row is the notifications WebSocket.
func (o specOp) WebSocket() bool { return o.SDK[0] == "Notifications.Subscribe" }

// specEvent is one event of full-api.md: a notification of the WebSocket
// or a webhook event.
type specEvent struct {
	Channel string // "WebSocket" or "webhook"
	Name    string // "access.remote_view"
	Vendor  string // "documented" or "observed"
	About   string // what it says, in the vendor's or the spec's words
	Perm    string
	Since   string
}

const (
	channelWebSocket = "WebSocket"
	channelWebhook   = "webhook"
)

var (
	specOpRow      = regexp.MustCompile(`^\| (\d+\.\d+) \|`)
	backticked     = regexp.MustCompile("`([^`]+)`")
	documentedWS   = regexp.MustCompile("^\\s*- `(access\\.[a-z0-9_.]+)` — \"([^\"]*)\"")
	versionAtLeast = regexp.MustCompile(`≥\s*(\d+\.\d+\.\d+)`)
)

// parseSpec reads the operations and events out of full-api.md.
func parseSpec(md string) ([]specOp, []specEvent, error) {
	var (
		ops     []specOp
		section string
		wsDoc   []specEvent
		table24 [][]string
	)
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		switch {
		case specOpRow.MatchString(line):
			cells := splitRow(line)
			if len(cells) != 11 {
				return nil, nil, fmt.Errorf("operation row with %d cells, want 11: %s", len(cells), line)
			}
			op := specOp{
				Section:   cells[0],
				SDK:       sdkNames(cells[1]),
				Operation: cells[2],
				Method:    strings.Trim(strings.Fields(cells[3])[0], "*"),
				Path:      firstBackticked(cells[4]),
				Perm:      firstBackticked(cells[8]),
				Since:     strings.TrimSpace(strings.ReplaceAll(cells[9], "**", "")),
			}
			if len(op.SDK) == 0 || op.Path == "" || op.Perm == "" {
				return nil, nil, fmt.Errorf("operation row without SDK name, path or permission: %s", line)
			}
			ops = append(ops, op)
		case strings.HasPrefix(section, "2.1 "):
			if m := documentedWS.FindStringSubmatch(line); m != nil {
				wsDoc = append(wsDoc, specEvent{Channel: channelWebSocket, Name: m[1], Vendor: "documented", About: m[2]})
			}
		case strings.HasPrefix(section, "2.4 ") && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| Topic"):
			table24 = append(table24, splitRow(line))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	var sub, hook *specOp
	for i := range ops {
		switch ops[i].SDK[0] {
		case "Notifications.Subscribe":
			sub = &ops[i]
		case "Webhooks.Create":
			hook = &ops[i]
		}
	}
	if sub == nil || hook == nil || len(wsDoc) == 0 || len(table24) == 0 {
		return nil, nil, fmt.Errorf("full-api.md: WebSocket row, webhook row, §2.1 events or §2.4 table not found")
	}
	events := []specEvent{}
	seen := map[string]bool{}
	for _, e := range wsDoc {
		e.Perm, e.Since = sub.Perm, sub.Since
		events = append(events, e)
		seen[e.Name] = true
	}
	// §2.4 pairs every webhook event with its WebSocket counterpart; the
	// WebSocket names not documented in §2.1 are observed ones.
	for _, row := range table24 {
		if len(row) != 3 {
			continue
		}
		for _, name := range eventNames(row[2]) {
			if !seen[name] {
				seen[name] = true
				events = append(events, specEvent{Channel: channelWebSocket, Name: name, Vendor: "observed", About: row[0],
					Perm: sub.Perm, Since: sub.Since})
			}
		}
	}
	for _, row := range table24 {
		if len(row) != 3 {
			continue
		}
		since := hook.Since
		if m := versionAtLeast.FindStringSubmatch(row[1]); m != nil {
			since = m[1]
		}
		for _, name := range eventNames(row[1]) {
			if !seen[name] {
				seen[name] = true
				events = append(events, specEvent{Channel: channelWebhook, Name: name, Vendor: "documented", About: row[0],
					Perm: hook.Perm, Since: since})
			}
		}
	}
	return ops, events, nil
}

// splitRow returns the cells of a Markdown table row.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// sdkNames reads "Users.List, Users.All (exist)" as its method names,
// dropping the parenthesised remarks (which may hold commas).
func sdkNames(cell string) []string {
	var b strings.Builder
	depth := 0
	for _, r := range cell {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	var out []string
	for _, n := range strings.Split(b.String(), ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func firstBackticked(s string) string {
	if m := backticked.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// eventNames returns the event names of a §2.4 cell: backticked names
// starting with "access.", and ".suffix" shorthands that replace the last
// part of the name before them ("`access.x.activate` / `.deactivate`").
func eventNames(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		tok := m[1]
		switch {
		case strings.HasPrefix(tok, "access."):
			out = append(out, tok)
		case strings.HasPrefix(tok, ".") && len(out) > 0:
			prev := out[len(out)-1]
			out = append(out, prev[:strings.LastIndex(prev, ".")]+tok)
		}
	}
	return out
}

// The committed form: tab-separated, one header line.

const (
	opsHeader    = "section\tsdk\toperation\tmethod\tpath\tpermission\tsince"
	eventsHeader = "channel\tevent\tvendor\tabout\tpermission\tsince"
)

func formatSpecOps(ops []specOp) string {
	var b strings.Builder
	b.WriteString(opsHeader + "\n")
	for _, o := range ops {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.Section, strings.Join(o.SDK, ", "), o.Operation, o.Method, o.Path, o.Perm, o.Since)
	}
	return b.String()
}

func formatSpecEvents(events []specEvent) string {
	var b strings.Builder
	b.WriteString(eventsHeader + "\n")
	for _, e := range events {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Channel, e.Name, e.Vendor, e.About, e.Perm, e.Since)
	}
	return b.String()
}

func readTSV(text, header string, cols int) ([][]string, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] != header {
		return nil, fmt.Errorf("header is not %q", header)
	}
	var rows [][]string
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != cols {
			return nil, fmt.Errorf("line %d: %d fields, want %d", i+2, len(f), cols)
		}
		rows = append(rows, f)
	}
	return rows, nil
}

func parseSpecOps(text string) ([]specOp, error) {
	rows, err := readTSV(text, opsHeader, 7)
	if err != nil {
		return nil, err
	}
	ops := make([]specOp, 0, len(rows))
	for _, f := range rows {
		ops = append(ops, specOp{Section: f[0], SDK: strings.Split(f[1], ", "), Operation: f[2], Method: f[3], Path: f[4], Perm: f[5], Since: f[6]})
	}
	return ops, nil
}

func parseSpecEvents(text string) ([]specEvent, error) {
	rows, err := readTSV(text, eventsHeader, 6)
	if err != nil {
		return nil, err
	}
	events := make([]specEvent, 0, len(rows))
	for _, f := range rows {
		events = append(events, specEvent{Channel: f[0], Name: f[1], Vendor: f[2], About: f[3], Perm: f[4], Since: f[5]})
	}
	return events, nil
}
