package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/access-dev/access/cmd/access/internal/importcmd"
	"github.com/access-dev/access/internal/clierr"
	"github.com/spf13/cobra"
)

// version is the tool's version, printed by "access --version".
var version = "0.1.0"

const exitCodesHelp = `Exit codes:
  0    success
  1    error from the console or the network (a refusal of the operation itself included)
  2    usage error (bad flags or arguments, malformed --data, an ambiguous name)
  3    not found
  4    unauthorized or forbidden (the token is invalid or lacks the permission)
  5    access plan --detailed-exitcode: the plan has changes, or users (objects) the document no longer lists
  6    refused by a safety guard (plan/apply --prune: more users to deactivate than --max-deactivate or
       --max-deactivate-share allow); nothing was changed
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP; a second Ctrl-C ends the process at once)`

const configHelp = `Configuration: a console is a URL and a token from the flags and the environment, or else a whole
profile (its URL, token, pin and --insecure); the two are never mixed (a profile's token goes only to
its own console). A pin (--fingerprint or ACCESS_FINGERPRINT) may be added to either.
  ACCESS_URL          the console, e.g. https://192.168.1.1:12445 (--url); http:// needs --allow-http
  ACCESS_TOKEN        the API token (or --token-file FILE; never a flag value)
  ACCESS_FINGERPRINT  the SHA-256 fingerprint of the console's certificate to pin (--fingerprint)
  ACCESS_PROFILE      the profile of the config file to use (--profile)
  ACCESS_CACERT       a PEM file of CA certificates to trust instead of the system's (--cacert)
  ACCESS_DEBUG=1      print each request and answer on stderr, secrets redacted (--debug)
  NO_COLOR            no colours on a terminal
Profiles live in the user's config directory (access/config.yaml or access/config.toml) and are
written with mode 0600 by "access login". --fake runs the command against an embedded demo console.`

// app is the factory of one run of the command line: what every command
// shares and nothing one command alone needs (as gh's Factory and
// IOStreams). It holds the standard streams and environment (streams),
// the global flags that choose the console (connFlags), the output
// options (outputOptions), and the client it builds on first use with the
// connection it resolved. A command's own flags and state live in the
// command's own options (monitorcmd's flags, cmdutil.Pace for --rate, the
// idNames of a table), passed to what needs them (app.pacedClient,
// app.emitNamed); tests reach inside a command through the run's context
// (seams.go). TestNoFlagLeaksIntoAnotherCommand keeps it so.
type app struct {
	streams
	connFlags
	outputOptions

	client  *access.Client
	sent    *sentKeys // the member names of the console's answers (made with the client)
	fakeSrv *accesstest.Server
	conn    connection // what the client was built from

	configWarned bool // the config file's mode was warned about

	args []string // the run's arguments, for the branch of the tree it builds (nil: the whole tree)

	others []*app // the runs of other profiles' clients (clientFor)

	// fakeMode is how --fake's console is reached (tests run the
	// examples through its proxy layout too).
	fakeMode access.Mode
}

// streams are a run's context, standard streams and environment.
type streams struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// connFlags are the global flags that choose the console and how it is
// reached.
type connFlags struct {
	urlFlag, profile, tokenFile, fingerprint string
	cacert                                   string
	insecure, fake, allowHTTP, debugFlag     bool
	timeout                                  time.Duration
}

// outputOptions are the global flags that shape output.
type outputOptions struct {
	output, jq      string
	wide, noHeaders bool // -o wide (output is then "table"), --no-headers (tableshape.go)
}

// run executes the command line args and returns the process's exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return newApp(ctx, stdin, stdout, stderr, getenv).execute(args)
}

func newApp(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{streams: streams{ctx: ctx, stdin: newCtxReader(ctx, stdin), stdout: stdout, stderr: stderr, getenv: getenv}}
}

// execute runs the command line args and returns the exit code.
func (a *app) execute(args []string) int {
	ctx, stdin, stdout, stderr := a.ctx, a.stdin, a.stdout, a.stderr
	defer a.close()
	a.args = args
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	var perm string
	if cmd != nil {
		perm = cmd.Annotations[permAnnotation]
	}
	err = namePermission(err, perm)
	code := exitCode(ctx, err)
	msg := strings.TrimPrefix(oneLine(err.Error()), "access: ")
	if code == 130 {
		msg = "interrupted (" + msg + ")"
	}
	msg += typoSuggestion(cmd, err) + trustHint(err) + a.untrustedHint(err)
	fmt.Fprintf(stderr, "access: %s\n", msg)
	return code
}

// factory is the cmdutil.Factory of this run, for the command packages
// under cmd/access/internal: its functions are the app's own.
func (a *app) factory() *cmdutil.Factory {
	return a.connectFactory(&cmdutil.Factory{
		IOStreams:   cmdutil.IOStreams{In: a.stdin, Out: a.stdout, ErrOut: a.stderr},
		Getenv:      a.getenv,
		Client:      a.Client,
		PacedClient: a.pacedClient,
		Print:       a.emit,
		PrintAs: func(w io.Writer, format string, v any, cols []string) error {
			return a.emitTo(w, format, v, cols)
		},
		Profiles: func() ([]string, error) {
			cfg, _, err := a.loadConfig()
			if err != nil {
				return nil, err
			}
			return profileNames(cfg), nil
		},
		ClientFor:  a.clientFor,
		Format:     a.format,
		IsTerminal: a.isTerminal,
		Location:   a.location,
		Confirm: func(_ context.Context, cmdPath, question string, yes bool) error {
			return a.confirmWrite(cmdPath, question, yes)
		},
		ReadSecretFile: a.readSecretFile,
		Output:         func() (string, string) { return a.output, a.jq },
		Progress:       a.newProgress,
		ExitCode:       exitCode,
		ConsoleName:    a.consoleName,
		Consoles:       a.consoles,
		Watched:        a.watched,
		FakeConsole:    func() *accesstest.Server { return a.fakeSrv },
	})
}

// clientFor is the client of the named profile ("" is the run's own
// client): a run of its own with --profile set, closed with this one.
func (a *app) clientFor(name string) (*access.Client, error) {
	if name == "" || (name == a.profile && a.client == nil) {
		return a.Client()
	}
	if a.fake {
		return nil, usageErrorf("--fake has no profiles: give one console")
	}
	b := &app{streams: a.streams, connFlags: a.connFlags, outputOptions: a.outputOptions, configWarned: true}
	b.profile = name
	a.others = append(a.others, b)
	return b.Client()
}

func (a *app) close() {
	if a.fakeSrv != nil {
		a.fakeSrv.Close()
	}
	for _, b := range a.others {
		b.close()
	}
}

// trustHint tells, after an error that the console presented another
// certificate than the pinned one, how to trust the one it presents:
// after checking that it is the console's own (a console or `access fake`
// that made itself a new certificate), log in again with its fingerprint
// or take the new environment file of `access fake --print-env`.
func trustHint(err error) string {
	var mm *access.CertificateMismatchError
	if !errors.As(err, &mm) || mm.Presented == "" {
		return ""
	}
	return "; if that is your console's certificate, trust it: run access login again with --fingerprint " + mm.Presented +
		" (or set ACCESS_FINGERPRINT to it); for access fake, source its --env-file (or --print-env output) again"
}

// untrustedHint tells, after an error that the console's certificate is
// not trusted and nothing pinned it (a URL and a token given without
// --fingerprint), how to trust it, as login does: the fingerprint the
// console presents, to check and pin.
func (a *app) untrustedHint(err error) string {
	c := a.conn
	var mm *access.CertificateMismatchError
	if c.URL == "" || c.Fingerprint != "" || c.Insecure || errors.As(err, &mm) || !connect.UntrustedCertificate(err) {
		return ""
	}
	u, perr := url.Parse(c.URL)
	if perr != nil {
		return ""
	}
	fp := a.peekFingerprint(u)
	if fp == "" {
		return "; pin the console's certificate with --fingerprint (access login prints it)"
	}
	return fmt.Sprintf("; if that is your console's certificate (SHA-256 fingerprint %s), run again with --fingerprint %s or access login --fingerprint %s", fp, fp, fp)
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

// usageErrorf is clierr.UsageErrorf, the one usage error of the command
// line and the simulator (exit status 2).
func usageErrorf(format string, args ...any) error { return clierr.UsageErrorf(format, args...) }

func notFoundErrorf(format string, args ...any) error {
	return &exitError{code: 3, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the documented exit codes.
func exitCode(ctx context.Context, err error) int {
	var ec interface{ ExitCode() int }
	switch {
	case ctx.Err() != nil, errors.Is(err, errInterrupted):
		// Interrupted: whatever the command made of it (a read of
		// stdin that ended, a usage error around it), the run was cut.
		return 130
	case errors.As(err, &ec):
		return ec.ExitCode()
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

var errInterrupted = cmdutil.ErrInterrupted

// permissionRefused reports whether err is the console refusing the
// token the permission of the operation (connect.PermissionRefused).
var permissionRefused = connect.PermissionRefused

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

Output is a table on a terminal and JSON when piped; -o json|jsonl|yaml|table|wide chooses,
--jq EXPR filters JSON output. Lists take --columns a,b.c and --no-headers; doors and devices
lists take --watch.

` + configHelp + "\n\n" + exitCodesHelp,
		Example: `  access --fake doors list
  access --fake doors unlock "Main entrance"
  access --fake users list --all -o jsonl
  access --fake system-logs export --since 24h --topic door_openings -O logs.csv`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A mistyped command's suggestions are typoSuggestion's, on the
		// error's line, for every command (cobra's are the root's only).
		DisableSuggestions: true,
	}
	root.SetVersionTemplate(strings.ReplaceAll(buildVersion(), "{{", "{{`{{`}}"))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var secret *secretFlagError
		if errors.As(err, &secret) {
			// pflag's message quotes the value: only the reason is shown.
			return usageErrorf("%s", secret.Error())
		}
		return &exitError{code: 2, err: err}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.urlFlag, "url", "", "console URL (default $ACCESS_URL or the profile's)")
	pf.StringVar(&a.profile, "profile", "", "profile of the config file (default $ACCESS_PROFILE or the current one)")
	pf.StringVar(&a.tokenFile, "token-file", "", "read the API token from `FILE` (- for stdin)")
	pf.StringVar(&a.fingerprint, "fingerprint", "", "pin the console's certificate by its SHA-256 fingerprint (default $ACCESS_FINGERPRINT)")
	pf.StringVar(&a.cacert, "cacert", "", "trust the CA certificates (PEM) in `FILE` instead of the system's roots (default $ACCESS_CACERT)")
	pf.BoolVar(&a.insecure, "insecure", false, "do not verify the console's certificate (anyone on the path can read the token)")
	pf.BoolVar(&a.allowHTTP, "allow-http", false, "allow an http:// console URL (the token then travels in clear text)")
	pf.BoolVar(&a.fake, "fake", false, "run against an embedded demo console (no console needed)")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "per attempt: the longest wait for the console without progress (0: none); a failed attempt is retried where safe")
	pf.BoolVar(&a.debugFlag, "debug", false, "print each request and answer (method, URL, status, timing, bodies; secrets redacted) on stderr (or ACCESS_DEBUG=1)")
	pf.StringVarP(&a.output, "output", "o", "", "output format: table, wide (a table with every member), json, jsonl or yaml (default table on a terminal, json otherwise)")
	pf.StringVar(&a.jq, "jq", "", "filter JSON output with a jq `EXPR`")
	pf.Var(refusedFlag{errTokenFlag}, "token", "not accepted: a token on the command line shows in ps and the shell history")
	_ = pf.MarkHidden("token")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "wide", "json", "jsonl", "yaml"}, cobra.ShellCompDirectiveNoFileComp))

	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		switch a.output {
		case "", "table", "json", "jsonl", "yaml":
		case "wide": // a table with every member (tableshape.go)
			a.output, a.wide = "table", true
		default:
			return usageErrorf("unknown output format %q: want table, wide, json, jsonl or yaml", a.output)
		}
		if a.timeout < 0 {
			return usageErrorf("--timeout %s: give 0 (no limit) or a positive duration", a.timeout)
		}
		if a.jq != "" && (a.output == "table" || a.output == "yaml") {
			return usageErrorf("--jq works on JSON output, not -o %s", a.outputName())
		}
		return nil
	}

	// Only the branch the run's arguments name (branch.go), or all.
	all, word := treeBranch(pf, a.args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	addServices := func(all bool, word string) {
		for _, g := range a.serviceCommandsOf(all, word) {
			switch g.Name() {
			case "users":
				g.AddCommand(importcmd.NewUsers(a.factory()))
			case "nfc-cards":
				g.AddCommand(importcmd.NewNFCCards(a.factory()))
			}
			root.AddCommand(g)
		}
	}
	if !all && word == "" {
		// --version alone: cobra prints it from root's flag, and no
		// command (not even completion) is made.
		root.CompletionOptions.DisableDefaultCmd = true
		return root
	}
	addServices(all, word)
	a.addOtherCommands(root, all, word)
	if unknownWord(root, all, word) {
		addServices(true, "")
		a.addOtherCommands(root, true, "")
	}
	// cobra's completion command, made now so that an unknown shell is
	// a usage error (it printed the help and exited 0). It takes its
	// output stream when made (root's, set above).
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			for _, sh := range c.Commands() {
				sh.Example = "  access completion " + sh.Name()
			}
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					return c.Help()
				}
				return usageErrorf("unknown shell %q for %q: want bash, zsh, fish or powershell", args[0], c.CommandPath())
			}
		}
	}
	groupExamples(root)
	return root
}

// secretFlagError refuses a secret given as a flag value: it would show
// in ps and the shell history. Its message says what to use instead and
// never holds the value.
type secretFlagError struct {
	what string // "a token"
	use  string // "ACCESS_TOKEN, --token-file FILE or access login"
}

func (e *secretFlagError) Error() string {
	return e.what + " is never accepted as a flag value (it would show in ps and the shell history): use " + e.use
}

// errTokenFlag is the parse error of --token.
var errTokenFlag = &secretFlagError{"a token", "ACCESS_TOKEN, --token-file FILE or access login"}

// refusedFlag is a flag that takes no value: setting it fails with err
// while the flags are parsed, so that it is refused before anything runs
// (--help and --version included) and its value is never kept. The
// hidden --token is one; a subcommand with a --token of its own (access
// fake) shadows it.
type refusedFlag struct{ err error }

func (refusedFlag) String() string     { return "" }
func (refusedFlag) Type() string       { return "string" }
func (r refusedFlag) Set(string) error { return r.err }

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
