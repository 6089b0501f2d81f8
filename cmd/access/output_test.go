package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access/cmd/access/internal/output"
)

// TestExportCounterRows: the header line is no row, a continuation
// chunk's header is dropped, and a newline inside a quoted field ends no
// row.
func TestExportCounterRows(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := &output.Progress{What: "row"}
	c := &exportCounter{w: &out, p: p}
	for _, chunk := range []string{"Time,Topic,Mess", "age\n", "1,door_openings,\"two\nlines\"\n2,critical,\"say \"\"hi\"\"\"\n"} {
		c.Write([]byte(chunk))
	}
	if p.Rows != 2 {
		t.Errorf("after the first chunk: %d rows, want 2", p.Rows)
	}
	c.skipHeader = true
	for _, chunk := range []string{"Time,Topic,", "Message\n3,visitor,x\n"} {
		c.Write([]byte(chunk))
	}
	if p.Rows != 3 {
		t.Errorf("after the second chunk: %d rows, want 3", p.Rows)
	}
	if want := "Time,Topic,Message\n1,door_openings,\"two\nlines\"\n2,critical,\"say \"\"hi\"\"\"\n3,visitor,x\n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
	if c.bytes != int64(out.Len()) {
		t.Errorf("counted %d bytes, wrote %d", c.bytes, out.Len())
	}
}

// TestDumbTerminalGetsNoEscapes: a terminal gets a bold table header and
// doctor's coloured marks, but TERM=dumb gets no escape sequence at all.
func TestDumbTerminalGetsNoEscapes(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--fake", "doors", "list"}, {"--fake", "doctor"}} {
		for _, term := range []string{"xterm-256color", "dumb"} {
			env := map[string]string{"ACCESS_FORCE_TTY": "1", "TERM": term, "ACCESS_CONFIG_DIR": t.TempDir()}
			var out, errb bytes.Buffer
			if code := run(context.Background(), args, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] }); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, &errb)
			}
			escapes := strings.Contains(out.String()+errb.String(), "\x1b")
			if escapes != (term != "dumb") {
				t.Errorf("%v with TERM=%s: escape sequences %t, want %t:\n%q", args, term, escapes, term != "dumb", out.String())
			}
		}
	}
}

// TestTimeCells: the forms the console writes times in become local date
// and time in a table; other members and text that is no time stay.
func TestTimeCells(t *testing.T) {
	t.Parallel()
	a := newApp(context.Background(), nil, nil, nil, func(k string) string {
		if k == "TZ" {
			return "America/New_York"
		}
		return ""
	})
	for _, tc := range []struct {
		key  string
		v    any
		want string
	}{
		{"onboard_time", 1576828800, "2019-12-20 03:00:00"},
		{"_source.event.published", 1795707277343, "2026-11-26 10:34:37"},
		{"@timestamp", "2026-11-26T12:33:14.105Z", "2026-11-26 07:33:14"},
		{"start_time", "2026-12-26 00:00:00Z", "2026-12-25 19:00:00"},
		{"created_at", "1790841600", "2026-10-01 04:00:00"},
		{"end_time", 0, "-"},
		{"start_time", "08:00:00", "08:00:00"},
		{"count", 1576828800, "1576828800"},
	} {
		if got := a.cellOf(tc.key, tc.v); got != tc.want {
			t.Errorf("cellOf(%q, %v) = %q, want %q", tc.key, tc.v, got, tc.want)
		}
	}
}
