// Package capturecmd is `access capture`: a console's traffic recorded
// into one redacted file (package capture), and the shapes of captures
// compared (capture diff, capture check).
package capturecmd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/internal/apifacts"
)

type options struct {
	out        string
	duration   time.Duration
	listen     string
	secretFile string
	tolerance  time.Duration
	operations []string
	noStream   bool
	keys       cmdutil.PseudonymKeyFlags
}

// New returns the `capture` command and its subcommands.
func New(f *cmdutil.Factory) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "capture -O FILE",
		Short: "Record a console's answers, notifications and webhook deliveries, redacted, into one file",
		Long: `capture records what the console sends into FILE, for a maintainer or a test
suite to replay (access fake --replay FILE, accesstest.WithCapture) or to
compare (access capture diff, access capture check):

  - the answers of read-only operations (those access doctor probes by
    default; --operations chooses), read once at the start;
  - then the frames of the notifications stream with their arrival times,
    until --duration has passed or Ctrl-C;
  - with --listen ADDR, the webhook deliveries the console posts to
    http://ADDR/ (register that URL as an endpoint on the console), each
    verified with the endpoint's signing secret, read from --secret-file
    FILE or $ACCESS_WEBHOOK_SECRET (never a flag value); a delivery that
    does not verify is answered 401 and not recorded.

Everything is redacted before it is written, by the allow-list of access
fake record: ids, times, known enumerations and event names are kept; every
other text (names, emails, plates, device names, card tokens, PINs, free
text, members this version does not know) is replaced through one keyed
mapping, the same value by the same pseudonym in answers, frames and
deliveries; a person's values (names, emails, phones, employee numbers) by
one mapping drawn from the value alone, whatever member holds them. The key
is random and never written, unless --pseudonym-key-file reads it from a file
(mode 0600) or --new-key-file writes a random one to a new file: a seed of
access fake record and a capture made under one key file give the same
person the same pseudonyms. The key is never a flag's value. FILE is JSON
lines with a format_version (docs/capture.md); it is written with mode 0600.

For ten minutes of a console, its deliveries included (the endpoint
http://THIS-HOST:9000/ registered on the console with that secret):

  ACCESS_WEBHOOK_SECRET=... access capture -O console.capture --duration 10m --listen 0.0.0.0:9000`,
		Example: `  access --fake capture -O console.capture --duration 1s --no-stream`,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "output-file", "O", "", "write the capture to `FILE` (required)")
	fl.DurationVar(&o.duration, "duration", 0, "stop after this long (default: at Ctrl-C)")
	fl.StringVar(&o.listen, "listen", "", "receive webhook deliveries at `ADDR` (host:port) during the capture")
	fl.StringVar(&o.secretFile, "secret-file", "", "read the webhook endpoint's signing secret from `FILE` (- for stdin; default $ACCESS_WEBHOOK_SECRET)")
	fl.DurationVar(&o.tolerance, "signature-tolerance", access.DefaultTolerance, "how far a delivery's signed time may be from this machine's clock (0: not checked)")
	fl.StringSliceVar(&o.operations, "operations", nil, "read-only operations to capture, by SDK name (default: those access doctor probes; \"none\" for none)")
	fl.BoolVar(&o.noStream, "no-stream", false, "leave the notifications stream out")
	o.keys.Add(cmd)
	cmd.AddCommand(diffCommand(f), checkCommand(f))
	return cmd
}

func (o *options) run(cmd *cobra.Command, f *cmdutil.Factory) error {
	if o.out == "" {
		return cmdutil.UsageErrorf("give the file to write: -O FILE")
	}
	if o.duration < 0 {
		return cmdutil.UsageErrorf("--duration %s: give a positive duration", o.duration)
	}
	rec := &capture.Recorder{Duration: o.duration, NoStream: o.noStream, Listen: o.listen}
	if cmd.Flags().Changed("operations") {
		rec.Operations = []string{}
		for _, op := range o.operations {
			if op = strings.TrimSpace(op); op != "" && op != "none" {
				rec.Operations = append(rec.Operations, op)
			}
		}
	}
	if o.listen != "" {
		if _, _, err := net.SplitHostPort(o.listen); err != nil {
			return cmdutil.UsageErrorf("--listen %q: give host:port", o.listen)
		}
		secret := f.Getenv("ACCESS_WEBHOOK_SECRET")
		if o.secretFile != "" {
			s, err := f.ReadSecretFile("--secret-file", o.secretFile)
			if err != nil {
				return err
			}
			secret = s
		}
		if secret == "" {
			return cmdutil.UsageErrorf("--listen needs the endpoint's signing secret: --secret-file FILE or $ACCESS_WEBHOOK_SECRET")
		}
		rec.Secret = secret
		if o.tolerance < 0 {
			return cmdutil.UsageErrorf("--signature-tolerance %s: give 0 or more", o.tolerance)
		}
		rec.Verify = []access.WebhookOption{access.WithTolerance(o.tolerance)}
		rec.Listening = func(a net.Addr) {
			fmt.Fprintf(f.ErrOut, "receiving webhook deliveries at http://%s/\n", a)
		}
	} else if o.secretFile != "" {
		return cmdutil.UsageErrorf("--secret-file goes with --listen")
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	rec.Client = c
	key, err := o.keys.Key()
	if err != nil {
		return err
	}
	file, err := os.OpenFile(o.out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		o.keys.Discard() // nothing written under the key
		return cmdutil.UsageErrorf("-O: %v", err)
	}
	defer file.Close()
	w, err := capture.NewWriter(file, &capture.WriterOptions{Tool: "access capture", Key: key})
	if err != nil {
		return err
	}
	st, err := rec.Record(cmd.Context(), w)
	if err != nil {
		if errors.Is(err, capture.ErrNotReadOnly) {
			return cmdutil.UsageErrorf("--operations: %v", err)
		}
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "captured %d answers, %d frames, %d webhook deliveries to %s\n", st.Answers, st.Frames, st.Deliveries, o.out)
	if st.Refused > 0 {
		fmt.Fprintf(f.ErrOut, "refused %d deliveries (a signature that did not verify, or no JSON)\n", st.Refused)
	}
	if st.StreamErr != nil {
		fmt.Fprintf(f.ErrOut, "the notifications stream ended early: %v\n", st.StreamErr)
	}
	return nil
}

func readCapture(path string) (*capture.Capture, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%v", err)
	}
	defer file.Close()
	c, err := capture.Read(file)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s: %v", path, err)
	}
	return c, nil
}

// report prints the differences, one a line; there being any is exit
// status 5.
func report(f *cmdutil.Factory, ds []capture.Difference, what string) error {
	for _, d := range ds {
		fmt.Fprintln(f.Out, d.String())
	}
	if len(ds) > 0 {
		return cmdutil.Exit(cmdutil.ExitChanges, fmt.Errorf("%d differences %s", len(ds), what))
	}
	return nil
}

func diffCommand(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Compare the shapes of two captures: members and JSON types per event kind and per operation",
		Long: `diff compares what two captures hold, by shape. A is the capture compared
against (an older firmware's, say) and B is the other. For each event kind of the
stream ("frame EVENT"), of the webhook deliveries ("delivery EVENT") and
each operation's answers ("answer OPERATION"), the members and their JSON
types. One line per difference, what B has against A:

  frame access.remote_view: + data.new_field (string)   a member only B has
  frame access.remote_view: - data.gone                 a member only A has
  frame access.remote_view: ~ data.x: number -> string  a member retyped
  frame access.data.v3.door.update: ? only in the second (unknown event kind)

A member null on one side is no difference. Exit status 0 when the shapes
are the same, 5 when they differ (for CI), 2 for a file that is no capture.`,
		Example: "  access capture diff firmware-4.1.capture firmware-4.2.capture",
		Args:    cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			a, err := readCapture(args[0])
			if err != nil {
				return err
			}
			b, err := readCapture(args[1])
			if err != nil {
				return err
			}
			return report(f, capture.Compare(capture.ShapesOf(a), capture.ShapesOf(b)), "between the captures")
		},
	}
}

func checkCommand(f *cmdutil.Factory) *cobra.Command {
	var missing bool
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Compare a capture with what the SDK's types and the operation table document",
		Long: `check compares a capture with what this version knows. FILE is a capture
file (access capture -O FILE). It reports an event kind the SDK
does not name, an answer to a request that is no operation of the operation
table, and for the notifications, webhook events and the answers of every
operation whose SDK method returns data, a member the SDK does not decode
(+) or decodes as another JSON type (~). A member the SDK has that the
capture lacks is not reported: consoles leave many out. Exit status 0 when
nothing is reported, 5 otherwise.

With --missing, it then lists the read-only operations whose answers it
compares that the capture holds no successful answer of ("missing
Doors.GetLockRule (GET /doors/:id/lock_rule)"), to capture them too
(access capture --operations); they do not change the exit status.`,
		Example: "  access capture check console.capture\n  access capture check console.capture --missing",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, err := readCapture(args[0])
			if err != nil {
				return err
			}
			err = report(f, capture.Check(c), "from what the SDK documents")
			if missing {
				for _, op := range capture.Missing(c) {
					o, _ := apifacts.Lookup(op)
					fmt.Fprintf(f.Out, "missing %s (%s %s)\n", op, o.Method, o.Path)
				}
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&missing, "missing", false, "also list the read-only operations the capture did not exercise")
	return cmd
}
