package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/spf13/cobra"
)

// version is the tool's version, printed by "access --version".
var version = "0.1.0"

// extraCommands are added to the root command; other files (such as the
// simulator's fake.go) append to it from an init function.
var extraCommands []func() *cobra.Command

const exitCodesHelp = `Exit codes:
  0    success
  1    error from the console or the network (a refusal of the operation itself included)
  2    usage error (bad flags or arguments, malformed --data, an ambiguous name)
  3    not found
  4    unauthorized or forbidden (the token is invalid or lacks the permission)
  130  interrupted (Ctrl-C)`

const configHelp = `Configuration (flags win over the environment, the environment over the profile):
  ACCESS_URL          the console, e.g. https://192.168.1.1:12445 (--url)
  ACCESS_TOKEN        the API token (or --token-file FILE; never a flag value)
  ACCESS_FINGERPRINT  the SHA-256 fingerprint of the console's certificate to pin (--fingerprint)
  ACCESS_PROFILE      the profile of the config file to use (--profile)
  NO_COLOR            no colours on a terminal
Profiles live in the user's config directory (access/config.yaml or access/config.toml) and are
written with mode 0600 by "access login". --fake runs the command against an embedded demo console.`

// app is one run of the command line: its streams, environment, global
// flags and the client it builds on first use.
type app struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	// Global flags.
	urlFlag, profile, tokenFile, fingerprint string
	insecure, fake                           bool
	output, jq                               string

	client  *access.Client
	fakeSrv *accesstest.Server
	conn    connection // what the client was built from

	// exportHook, when set (by tests), sees the bytes an export has written.
	exportHook func(int64)
	// enrollStarted, when set (by tests), sees an enrollment session open.
	enrollStarted func(sessionID string)
}

// run executes the command line args and returns the process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return newApp(ctx, stdin, stdout, stderr, getenv).execute(args)
}

func newApp(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
}

// execute runs the command line args and returns the exit code.
func (a *app) execute(args []string) int {
	ctx, stdin, stdout, stderr := a.ctx, a.stdin, a.stdout, a.stderr
	defer a.close()
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	code := exitCode(ctx, err)
	msg := strings.TrimPrefix(oneLine(err.Error()), "access: ")
	if code == 130 {
		msg = "interrupted (" + msg + ")"
	}
	fmt.Fprintf(stderr, "access: %s\n", msg)
	return code
}

func (a *app) close() {
	if a.fakeSrv != nil {
		a.fakeSrv.Close()
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// exitError carries an exit code; usage errors are exitError{2}.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// ExitCode is the code the process exits with.
func (e *exitError) ExitCode() int { return e.code }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func notFoundErrorf(format string, args ...any) error {
	return &exitError{code: 3, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the documented exit codes.
func exitCode(ctx context.Context, err error) int {
	var ec interface{ ExitCode() int }
	switch {
	case errors.As(err, &ec):
		return ec.ExitCode()
	case ctx.Err() != nil && errors.Is(err, context.Canceled), errors.Is(err, errInterrupted):
		return 130
	case errors.Is(err, access.ErrValidation):
		return 2
	case errors.Is(err, access.ErrNotFound):
		return 3
	case errors.Is(err, access.ErrUnauthorized), permissionRefused(err):
		return 4
	case isCobraUsage(err):
		return 2
	}
	return 1
}

var errInterrupted = errors.New("interrupted")

// permissionRefused reports whether err is the console refusing the
// token the permission of the operation: HTTP 403, or the vendor's
// CODE_UNAUTHORIZED ("You are not allowed to perform this action"), both
// access.ErrForbidden. The SDK matches CODE_OPERATION_FORBIDDEN ("The
// requested operation is not allowed") with ErrForbidden too, but that
// code refuses the operation on that record whatever the token (a second
// touch pass for a user, deleting an active user): it is a permission
// refusal only on HTTP 401 or 403.
func permissionRefused(err error) bool {
	if !errors.Is(err, access.ErrForbidden) {
		return false
	}
	var apiErr *access.APIError
	if errors.As(err, &apiErr) && apiErr.Code == access.CodeOperationForbidden {
		return apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden
	}
	return true
}

// isCobraUsage recognises the argument errors cobra makes itself.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "required flag", "if any flags in the group"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "access",
		Short: "Work with a UniFi Access console from the command line",
		Long: `access works with a UniFi Access console through its developer API:
list and unlock doors, watch events, export logs, onboard people, check a token.

  access <service> <verb> [args] [flags]

Output is a table on a terminal and JSON when piped; -o json|jsonl|yaml|table chooses,
--jq EXPR filters JSON output.

` + configHelp + "\n\n" + exitCodesHelp,
		Example: `  access --fake doors list
  access --fake doors unlock "Main entrance"
  access --fake users list --all -o jsonl
  access --fake system-logs export --since 24h --topic door_openings -O logs.csv`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("access {{.Version}} (SDK " + access.Version + ")\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if errors.Is(err, errTokenFlag) {
			return usageErrorf("a token is never accepted as a flag value (it would show in ps and the shell history): use ACCESS_TOKEN, --token-file FILE or access login")
		}
		return &exitError{code: 2, err: err}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.urlFlag, "url", "", "console URL (default $ACCESS_URL or the profile's)")
	pf.StringVar(&a.profile, "profile", "", "profile of the config file (default $ACCESS_PROFILE or the current one)")
	pf.StringVar(&a.tokenFile, "token-file", "", "read the API token from `FILE` (- for stdin)")
	pf.StringVar(&a.fingerprint, "fingerprint", "", "pin the console's certificate by its SHA-256 fingerprint (default $ACCESS_FINGERPRINT)")
	pf.BoolVar(&a.insecure, "insecure", false, "do not verify the console's certificate (anyone on the path can read the token)")
	pf.BoolVar(&a.fake, "fake", false, "run against an embedded demo console (no console needed)")
	pf.StringVarP(&a.output, "output", "o", "", "output format: table, json, jsonl or yaml (default table on a terminal, json otherwise)")
	pf.StringVar(&a.jq, "jq", "", "filter JSON output with a jq `EXPR`")
	pf.Var(refusedToken{}, "token", "not accepted: a token on the command line shows in ps and the shell history")
	_ = pf.MarkHidden("token")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json", "jsonl", "yaml"}, cobra.ShellCompDirectiveNoFileComp))

	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		switch a.output {
		case "", "table", "json", "jsonl", "yaml":
		default:
			return usageErrorf("unknown output format %q: want table, json, jsonl or yaml", a.output)
		}
		if a.jq != "" && (a.output == "table" || a.output == "yaml") {
			return usageErrorf("--jq works on JSON output, not -o %s", a.output)
		}
		return nil
	}

	for _, g := range a.serviceCommands() {
		switch g.Name() {
		case "users":
			g.AddCommand(a.usersImportCommand())
		case "nfc-cards":
			g.AddCommand(a.nfcImportCommand())
		}
		root.AddCommand(g)
	}
	root.AddCommand(a.eventsCommand(), a.doctorCommand(), a.loginCommand(), a.logoutCommand(), a.monitorCommand())
	for _, f := range extraCommands {
		root.AddCommand(f())
	}
	return root
}

// errTokenFlag is the parse error of --token.
var errTokenFlag = errors.New("a token is never accepted as a flag value")

// refusedToken is the hidden --token flag: setting it fails while the
// flags are parsed, so that it is refused before anything runs (--help
// and --version included) and its value is never kept. A subcommand with
// a --token of its own (access fake: the token the simulator accepts)
// shadows it.
type refusedToken struct{}

func (refusedToken) String() string   { return "" }
func (refusedToken) Type() string     { return "string" }
func (refusedToken) Set(string) error { return errTokenFlag }

// groupCommand makes a command that only holds subcommands; an unknown
// subcommand is a usage error.
func groupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return usageErrorf("unknown command %q for %q", args[0], c.CommandPath())
		},
	}
}
