package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// docsCLI is the page of the command line's examples.
const docsCLI = "../../docs/cli.md"

// markdownSection returns the section of the Markdown page at path under
// the heading line (such as "## Command line"), up to the next heading of
// that level.
func markdownSection(path, heading string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	_, section, ok := strings.Cut("\n"+string(b), "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("%s has no %q section", path, heading)
	}
	level := heading[:strings.IndexByte(heading, ' ')+1]
	if i := strings.Index(section, "\n"+level); i >= 0 {
		section = section[:i]
	}
	return section, nil
}

// TestREADMECommandLineExamples runs the examples of the "Command line"
// section of docs/cli.md as a terminal shows them (tables, no colour) and
// compares their output and exit status: a block's "$ echo $?" shows the
// status of the command before it, and a command not followed by one must
// exit 0.
func TestREADMECommandLineExamples(t *testing.T) {
	t.Parallel()
	section, err := markdownSection(docsCLI, "## Command line")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ACCESS_FORCE_TTY": "1", "NO_COLOR": "1", "ACCESS_CONFIG_DIR": t.TempDir()}
	n, statuses := 0, 0
	for _, block := range strings.Split(section, "```console\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.HasPrefix(block, "$ ") {
			t.Fatalf("a console block does not start with a command: %q", block)
		}
		// Each command with the output the block shows for it.
		type step struct{ line, want string }
		var steps []step
		for _, l := range strings.SplitAfter(block, "\n") {
			if cmd, ok := strings.CutPrefix(l, "$ "); ok {
				steps = append(steps, step{line: strings.TrimSuffix(cmd, "\n")})
				continue
			}
			steps[len(steps)-1].want += l
		}
		for i, st := range steps {
			if st.line == "echo $?" {
				continue
			}
			args, err := shellWords(st.line)
			if err != nil || len(args) == 0 || args[0] != "access" {
				t.Fatalf("%q: %v", st.line, err)
			}
			var out bytes.Buffer
			code := run(context.Background(), args[1:], strings.NewReader(""), &out, &out, func(k string) string { return env[k] })
			if out.String() != st.want {
				t.Errorf("$ %s\ngot:\n%s\nwant:\n%s", st.line, out.String(), st.want)
			}
			want := "0"
			if i+1 < len(steps) && steps[i+1].line == "echo $?" {
				want = strings.TrimSpace(steps[i+1].want)
				statuses++
			}
			if got := strconv.Itoa(code); got != want {
				t.Errorf("$ %s\nexit status %s, %s shows %s", st.line, got, docsCLI, want)
			}
			n++
		}
	}
	if n < 5 {
		t.Errorf("the section has %d examples, want at least 5", n)
	}
	if statuses == 0 {
		t.Error("no example shows its exit status (echo $?)")
	}
}

// shellWords splits a command line as a POSIX shell would for the quoting
// the documentation uses: single quotes, double quotes with backslash escapes.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errUnterminated
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errUnterminated
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnterminated = &exitError{code: 2, err: os.ErrInvalid}
