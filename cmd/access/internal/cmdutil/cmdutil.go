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
// It may import the standard library, the access module's public packages
// and internal/clierr; never cmd/access nor another package under
// cmd/access/internal (TestLayering in cmd/access keeps that).
package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/clierr"
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
