package main

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// listenFlags are the flags through which a command listens: access fake
// --addr (default 127.0.0.1:12445) and access monitor --listen (default
// 127.0.0.1:9140).
var listenFlags = []string{"addr", "listen"}

// TestNoScriptListensOnAFixedPort fails when a command line of
// testdata/script would listen on a fixed port: a command with a listen
// flag (access fake, access monitor) must be given port 0 there, even when
// it is expected to refuse (it may bind before it refuses). A fixed port
// makes the suite fail beside a running access fake or monitor (issue 34).
// The command is found as cobra finds it, so global flags before it do
// not hide it.
func TestNoScriptListensOnAFixedPort(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/script/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	newRoot := func() *cobra.Command {
		return newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" }).rootCommand()
	}
	root := newRoot() // only to find commands; flags are parsed on a new one
	checked := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(ar.Comment), "\n") {
			args := scriptCommandLine(line)
			if args == nil {
				continue
			}
			if cmd, _, err := root.Find(args); err != nil || !hasListenFlag(cmd) {
				continue
			}
			cmd, rest, err := newRoot().Find(args)
			require.NoError(t, err)
			for _, name := range listenFlags {
				if cmd.Flags().Lookup(name) == nil {
					continue
				}
				checked++
				if err := cmd.ParseFlags(rest); err != nil {
					continue // refused by flag parsing, before anything listens
				}
				addr := cmd.Flags().Lookup(name).Value.String()
				if addr == "" {
					continue // an opt-in listener left off (access capture without --listen): nothing listens
				}
				if _, port, err := net.SplitHostPort(addr); err != nil || port != "0" {
					t.Errorf("%s:%d: %q listens on %s: give --%s 127.0.0.1:0", f, i+1, cmd.CommandPath(), addr, name)
				}
			}
		}
	}
	require.NotZero(t, checked, "no script line runs a command that listens: is the parsing broken?")
}

// hasListenFlag reports whether cmd has one of listenFlags.
func hasListenFlag(cmd *cobra.Command) bool {
	for _, name := range listenFlags {
		if cmd.Flags().Lookup(name) != nil {
			return true
		}
	}
	return false
}

// TestScriptCommandLine: a script line's access arguments, with
// testscript's single quotes, after exec, ! exec or exitcode N.
func TestScriptCommandLine(t *testing.T) {
	t.Parallel()
	for line, want := range map[string][]string{
		"exec access fake --addr 127.0.0.1:0":             {"fake", "--addr", "127.0.0.1:0"},
		"! exec access --fake doors list --jq '.a b'":     {"--fake", "doors", "list", "--jq", ".a b"},
		"exitcode 2 access fake --seed-from nowhere":      {"fake", "--seed-from", "nowhere"},
		"exec access x 'it''s' a''b":                      {"x", "it's", "ab"},
		"# exec access fake":                              nil,
		"stderr 'access fake'":                            nil,
		"exec echo access":                                nil,
		"[!exec:promtool] exec access monitor --listen x": {"monitor", "--listen", "x"},
	} {
		require.Equal(t, want, scriptCommandLine(line), line)
	}
}

// scriptCommandLine returns the arguments of access on a testscript line
// that runs it (exec, ! exec, exitcode N, after any [condition]s), or nil.
func scriptCommandLine(line string) []string {
	words := scriptWords(line)
	for len(words) > 0 && strings.HasPrefix(words[0], "[") {
		words = words[1:]
	}
	if len(words) > 1 && (words[0] == "!" || words[0] == "?") {
		words = words[1:]
	}
	switch {
	case len(words) > 0 && words[0] == "exec":
		words = words[1:]
	case len(words) > 1 && words[0] == "exitcode":
		words = words[2:]
	default:
		return nil
	}
	if len(words) == 0 || words[0] != "access" {
		return nil
	}
	return append([]string{}, words[1:]...)
}

// scriptWords splits a testscript line into words as testscript does:
// blanks separate, single quotes quote (” is a quote inside them), and
// a # at the start of a word begins a comment.
func scriptWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'' && i+1 < len(line) && line[i+1] == '\'':
			w.WriteByte('\'')
			i++
		case c == '\'':
			quoted, inWord = !quoted, true
		case quoted:
			w.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
