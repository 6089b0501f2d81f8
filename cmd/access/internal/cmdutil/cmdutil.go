// Package cmdutil is the factory of the command line (as gh's
// pkg/cmdutil): what every command package under cmd/access/internal
// is given to run — the standard streams, the environment, the client
// of the console the global flags choose (built on first use), the
// output the global flags shape — and the errors that carry an exit code.
//
// A command package builds its cobra command from a *Factory and keeps its
// own flags in its own options struct; it never reaches for another
// command's state. package main fills the Factory's functions (its
// connection, profiles, output and confirmation code), so that a command
// package needs neither main nor another command package.
//
// It may import the standard library, cobra, the access module's public
// packages, internal/clierr and internal/atomicfile, and of the command
// line's own machinery internal/output only; never cmd/access nor a
// command package under cmd/access/internal (TestLayering in cmd/access
// keeps that).
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/access-dev/access/internal/atomicfile"
	"github.com/access-dev/access/internal/clierr"
	"github.com/spf13/cobra"
)

// IOStreams are a run's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Factory is what one run of the command line gives every command. Each
// function member is set by package main; tests of a command package may
// set their own.
type Factory struct {
	IOStreams

	// Getenv reads the run's environment.
	Getenv func(string) string

	// Client returns the client of the console the global flags choose,
	// built on first use and unpaced.
	Client func() (*access.Client, error)

	// Profiles lists the names of the config file's profiles, sorted.
	Profiles func() ([]string, error)

	// ClientFor returns a client of the named profile of the config file
	// (its URL, token, pin and insecure; the global --timeout and --debug
	// kept), for a command that reads many consoles (--profile a,b). ""
	// is Client. A URL or token from the flags or the environment mixed
	// with a profile is a usage error, as for Client.
	ClientFor func(profile string) (*access.Client, error)

	// PacedClient is Client paced at rate requests per second (0:
	// unpaced), for a command that declares --rate. The first call of
	// Client or PacedClient in a run fixes the client.
	PacedClient func(rate float64) (*access.Client, error)

	// Print writes v in the output format the global flags chose (-o,
	// --jq): cols are the table's columns (JSON member names, dotted for
	// nested ones).
	Print func(v any, cols []string) error

	// PrintAs is Print in a given format ("table", "json", "jsonl" or
	// "yaml") to w.
	PrintAs func(w io.Writer, format string, v any, cols []string) error

	// Format is the output format of the run: "table", "json", "jsonl"
	// or "yaml" (-o wide is "table").
	Format func() string

	// IsTerminal reports whether w is a terminal.
	IsTerminal func(w any) bool

	// Location is the time zone in which times are shown.
	Location func() *time.Location

	// Confirm asks question on a terminal before a write whose effect
	// reaches every door and goes on only on yes; without a terminal yes
	// must have been given (--yes).
	Confirm func(ctx context.Context, cmdPath, question string, yes bool) error

	// ReadSecretFile reads a secret (a token, a password) from path ("-"
	// for standard input) for flag, trimmed; an empty or unreadable file
	// is a usage error that never holds the secret.
	ReadSecretFile func(flag, path string) (string, error)

	// Output is the output flags as the run was given them: -o ("" when
	// none; -o wide is "table") and --jq ("" when none), for a command
	// that prints text unless asked for data.
	Output func() (format, jq string)

	// Progress is the progress line of what ("row", "change") on the
	// error stream, drawn only when that is a terminal that takes escape
	// sequences.
	Progress func(what string) *output.Progress

	// ExitCode is the exit code err ends the run with (the documented
	// codes; 130 once ctx is cut), for a command that reports the
	// outcomes of several consoles.
	ExitCode func(ctx context.Context, err error) int

	// ConsoleName is the profile the run's one console comes from:
	// --profile, ACCESS_PROFILE, or the config file's current profile
	// when no flag or environment names a console ("" for none).
	ConsoleName func() string

	// Consoles returns the consoles of a command that runs against
	// several: every profile of the config file (all, --all-profiles) or
	// the profiles of a --profile list ("a,b"). It returns nil and no
	// error for the usual single console.
	Consoles func(all bool) (*Consoles, error)

	// Watched returns the consoles a command watches at once (monitor):
	// the one the global flags, the environment or the current profile
	// name (named after its profile, "default" or "fake"), or with all
	// (--all-profiles) or a --profile list ("a,b") those profiles, each
	// whole.
	Watched func(all bool) ([]Console, error)

	// FakeConsole is the embedded demo console of --fake once a client
	// or the consoles were built; nil otherwise.
	FakeConsole func() *accesstest.Server
}

// Console is one console a command watches: its name and its client,
// built from its connection (the pin or CA, the user agent) with the
// command's own SDK options added.
type Console struct {
	Name   string
	Client func(opts ...access.Option) (*access.Client, error)
}

// Consoles are the profiles a command runs against when it runs against
// several, each whole (its URL, token, pin and insecure): flags and
// environment name one console, not several.
type Consoles struct {
	// Names are the profiles, in the order given (sorted for all).
	Names []string
	// Client builds the client of the named profile, paced at rate
	// requests per second (0: unpaced).
	Client func(name string, rate float64) (*access.Client, error)
}

// DefaultRate is the bulk commands' default pace, in requests per
// second: about what integrators report consoles tolerate (vendor-notes
// §7).
const DefaultRate = 10.0

// Pace is the --rate of a bulk command, in requests per second: the
// command's own option, declared by Add and passed to the client the
// command builds (Factory.PacedClient), never kept on what commands
// share, so that no other command is paced (issue 34;
// TestNoFlagLeaksIntoAnotherCommand).
type Pace struct{ Rate float64 }

// Add declares --rate on a bulk command, into p.
func (p *Pace) Add(cmd *cobra.Command) {
	cmd.Flags().Float64Var(&p.Rate, "rate", DefaultRate, "send at most `N` requests per second (0: unpaced)")
}

// Check refuses a negative --rate.
func (p *Pace) Check() error {
	if p.Rate < 0 {
		return UsageErrorf("--rate must not be negative")
	}
	return nil
}

// WriteFileAtomic writes path through atomicfile (mode 0600): a
// temporary file in the same directory, synced and renamed into place
// only when fetch succeeded and ctx was not cut, then the directory
// synced; otherwise the partial file is removed and path left as it was.
// A directory that takes no new file is a usage error.
func WriteFileAtomic(ctx context.Context, path string, fetch func(io.Writer) error) error {
	err := atomicfile.Write(path, 0o600, func(w io.Writer) error {
		if err := fetch(w); err != nil {
			return err
		}
		return ctx.Err()
	})
	var ce *atomicfile.CreateError
	if errors.As(err, &ce) {
		return UsageErrorf("%v", err)
	}
	return err
}

// ExitError is an error with the exit code the process ends with.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped error's message.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the code the process exits with.
func (e *ExitError) ExitCode() int { return e.Code }

// Exit returns err with the exit code code (nil for a nil err).
func Exit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// Documented exit codes of the command line beyond 0 and 1.
const (
	ExitUsage       = 2   // bad flags or arguments
	ExitNotFound    = 3   // nothing by that name
	ExitAuth        = 4   // unauthorized or forbidden
	ExitChanges     = 5   // a plan or a diff has differences (--detailed-exitcode)
	ExitGuard       = 6   // refused by a safety guard; nothing changed
	ExitInterrupted = 130 // SIGINT, SIGTERM or SIGHUP
)

// UsageErrorf is the usage error of the command line (exit status 2).
func UsageErrorf(format string, args ...any) error { return clierr.UsageErrorf(format, args...) }

// NotFoundErrorf is an error with exit status 3.
func NotFoundErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitNotFound, Err: fmt.Errorf(format, args...)}
}

// ErrInterrupted is the error of a run cut by a signal (exit status 130).
var ErrInterrupted = errors.New("interrupted")
