// Package doctorcmd holds access doctor: the checks of the connection,
// the certificate, the token and its permissions (read operations only),
// and doctor --capture, the redacted raw answers of the read-only
// operations for a bug report. The connection, the certificate's reading
// and the ways into a console are package connect's.
//
// It may import the standard library, cobra, the access module's public
// packages, internal/redact and the command line's machinery
// (internal/cmdutil, internal/connect, internal/output); never
// cmd/access nor another command package (TestLayering in cmd/access
// keeps that).
package doctorcmd

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/spf13/cobra"
)

// New returns doctor, built on f.
func New(f *cmdutil.Factory) *cobra.Command {
	var capture string
	cmd := &cobra.Command{
		Use:   "doctor [HOST|URL]",
		Short: "Check the connection, the certificate, the token and its permissions",
		Long: `Check, in order: that the console answers; its certificate (the SHA-256
fingerprint to pin, and a warning when it is not pinned); the mode (direct, or
through a UniFi OS console's proxy) and the header the credential goes in; that
the token is valid; which permissions it has (read operations only are probed:
nothing is changed); which operations this console answers as unsupported; the
notifications socket's path that answered; and the pace of the bulk commands.

HOST|URL is the console to check (default: --url, $ACCESS_URL or the profile's).
Given a bare host ("access doctor 192.168.1.1"), doctor first finds the way in as
login does (the API port, the UniFi OS proxy, the older proxy path), reports what
each answered, and checks the one that accepts the key or token.

--capture DIR writes every read-only operation's raw answer to DIR, redacted,
for a bug report: OP.json per operation keeps the shape of each answer and
only the members known to be safe: ids, times and known enumerations (types,
states, settings; the allow-list access fake record pseudonymises by), counts
and the console's messages. Every other value is REDACTED (names, emails,
phones, touch passes' phones, names of doors and devices, tokens, PINs,
employee numbers, license plates, visitors' company, remarks, notes, visit
reasons, and any member this version does not know), inside strings that hold
JSON too. Webhook endpoints and other URLs keep their scheme and host only (a
chat webhook's path is its secret); emails and the redacted values are
redacted wherever else they appear. A CSV export is stored as OP.csv with only
its safe columns kept; images and videos are summarized (size and type), not
stored.
An operation on a record is probed with the first one a listing gave; when
there is none (or, for an NFC enrollment session, none can be read without a
write) it is reported as skipped.`,
		Example: "  access --fake doctor",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return doctor(c.Context(), f, capture, firstNonEmpty(args...))
		},
	}
	cmd.Flags().StringVar(&capture, "capture", "", "write the redacted raw answers of the read-only operations to `DIR`")
	return cmd
}

func doctor(ctx context.Context, f *cmdutil.Factory, captureDir, arg string) error {
	var conn connect.Connection
	if flags := f.ConnectFlags(); flags.Fake {
		conn = f.FakeConnection()
	} else {
		bare := arg != "" && connect.IsBareHost(arg)
		switch {
		case bare:
			flags.URL = connect.WaysInto(ctx, arg)[0].URL
		case arg != "":
			flags.URL = arg
		}
		var err error
		if conn, err = f.Resolve(flags); err != nil {
			return err
		}
		if bare {
			w, err := connect.FindWayIn(ctx, f.Prober(), arg, conn.Token(), conn.Fingerprint, conn.Insecure)
			if err != nil {
				return err
			}
			conn.URL, conn.Source = w.URL, "the probe of "+arg
		}
	}
	u, err := url.Parse(conn.URL)
	if err != nil || u.Host == "" {
		return cmdutil.UsageErrorf("the console URL %q is not a URL", conn.URL)
	}

	// 1. Reachability and the certificate.
	start := time.Now()
	chain, host, err := connect.PeekCertificate(ctx, u)
	if err != nil {
		f.CheckLine("FAIL", "reachable", fmt.Sprintf("%s: %v", host, err))
		return cmdutil.Exit(1, fmt.Errorf("the console at %s is not reachable", host))
	}
	f.CheckLine("ok", "reachable", fmt.Sprintf("%s (%s, from %s)", host, time.Since(start).Round(time.Millisecond), conn.Source))
	leaf := chain[0]
	fp := access.CertificateFingerprint(leaf.Raw)
	f.CheckLine("ok", "certificate", fmt.Sprintf("%s, expires %s", connect.CertName(leaf), leaf.NotAfter.Format(time.DateOnly)))
	f.CheckLine("ok", "fingerprint", fp)
	switch {
	case conn.Fingerprint != "":
		if connect.NormFP(conn.Fingerprint) != connect.NormFP(fp) {
			f.CheckLine("FAIL", "pinned", "the pinned fingerprint "+conn.Fingerprint+" does not match")
			return cmdutil.Exit(1, &access.CertificateMismatchError{Presented: connect.NormFP(fp)})
		}
		f.CheckLine("ok", "pinned", "the certificate matches the pinned fingerprint")
	case conn.CACert != nil:
		if err := connect.VerifyWithCA(leaf, chain[1:], conn.CACert, u.Hostname()); err != nil {
			f.CheckLine("FAIL", "trusted", fmt.Sprintf("not by the CA of %s %s: %s", conn.CASrc, conn.CAFile, oneLine(err.Error())))
			return cmdutil.Exit(1, fmt.Errorf("the console's certificate is not trusted by the CA of %s", conn.CASrc))
		}
		f.CheckLine("ok", "trusted", fmt.Sprintf("by the CA of %s %s (not pinned; or pin it with --fingerprint %s)", conn.CASrc, conn.CAFile, fp))
	case conn.Insecure:
		f.CheckLine("warn", "pinned", "--insecure: the certificate is not checked; pin it with --fingerprint "+fp)
	default:
		pool := x509.NewCertPool()
		for _, c := range chain[1:] {
			pool.AddCert(c)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: u.Hostname(), Intermediates: pool}); err != nil {
			f.CheckLine("warn", "pinned", "not pinned and not trusted ("+oneLine(err.Error())+"): pin it with --fingerprint "+fp)
		} else {
			f.CheckLine("warn", "pinned", "trusted by the system's roots but not pinned; pin it with --fingerprint "+fp)
		}
	}

	// 2. The token and its permissions, through a client that records
	// the raw answers.
	rec := &recorder{}
	cl, err := access.NewClient(conn.URL, conn.Token(), f.ClientOptions(conn, rec.wrap)...)
	if err != nil {
		return err
	}
	f.CheckLine("ok", "mode", modeLine(cl))
	results := probeAll(ctx, cl, rec)
	// The token and the operations are judged only on answers of the
	// API: a probe that failed before (TLS, pinning, the connection)
	// says nothing about them.
	if err := reachedAPI(ctx, f, results); err != nil {
		f.CheckLine("FAIL", "api", oneLine(err.Error()))
		return err
	}
	// HTTP 401 answers every operation alike: the token itself is refused.
	for _, r := range results {
		if errors.Is(r.err, access.ErrUnauthorized) {
			f.CheckLine("FAIL", "token", "the console refused the token (invalid, expired or revoked)")
			return cmdutil.Exit(cmdutil.ExitAuth, prefixedError{"the token is not valid: ", r.err})
		}
	}
	f.CheckLine("ok", "token", "accepted")
	perms := map[string]string{}
	var order []string
	var unsupported []string
	for _, r := range results {
		if r.skipped != "" {
			continue
		}
		if _, seen := perms[r.perm]; !seen {
			order = append(order, r.perm)
			perms[r.perm] = "ok"
		}
		switch {
		case r.err == nil:
		case connect.PermissionRefused(r.err):
			perms[r.perm] = "missing"
		case errors.Is(r.err, access.ErrUnsupported):
			unsupported = append(unsupported, r.op)
		case errors.Is(r.err, access.ErrNotFound):
		default:
			if perms[r.perm] == "ok" {
				perms[r.perm] = "error: " + oneLine(r.err.Error())
			}
		}
	}
	for _, p := range order {
		switch st := perms[p]; st {
		case "ok":
			f.CheckLine("ok", p, "granted")
		case "missing":
			f.CheckLine("warn", p, "not granted (HTTP 403)")
		default:
			f.CheckLine("warn", p, st)
		}
	}
	f.CheckLine("--", "edit:* permissions", "not probed: that would change the console")
	for _, r := range results {
		if r.skipped != "" {
			f.CheckLine("--", "skipped", r.op+": "+r.skipped)
		}
	}
	if len(unsupported) == 0 {
		f.CheckLine("ok", "unsupported", "none of the probed operations")
	} else {
		f.CheckLine("warn", "unsupported", strings.Join(unsupported, ", "))
	}
	checkNotifications(ctx, f, cl)
	checkPace(f, results)
	if captureDir != "" {
		n, err := writeCapture(captureDir, results)
		if err != nil {
			return err
		}
		f.CheckLine("ok", "capture", fmt.Sprintf("%d answers written to %s (redacted; a CSV as a file, images summarized)", n, captureDir))
	}
	return nil
}

// modeLine describes how the client reaches the API.
func modeLine(cl *access.Client) string {
	if cl.Mode() == access.ModeProxy {
		return "proxy: a UniFi OS console's proxy (" + cl.BaseURL() + "), the credential in " + cl.AuthHeader()
	}
	return "direct: the API port (" + cl.BaseURL() + "/api/v1/developer), the credential in " + cl.AuthHeader()
}

// checkNotifications connects to the notifications socket once and says
// which path answered.
func checkNotifications(ctx context.Context, f *cmdutil.Factory, cl *access.Client) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	path, err := cl.Notifications.Check(ctx)
	switch {
	case err == nil:
		f.CheckLine("ok", "notifications", "the socket answered at "+path)
	case connect.PermissionRefused(err):
		f.CheckLine("warn", "notifications", "not granted (view:device)")
	default:
		f.CheckLine("warn", "notifications", oneLine(unprefixed(err)))
	}
}

// checkPace reports the pace of the bulk commands, and whether the console
// limited the probes' rate.
func checkPace(f *cmdutil.Factory, results []probe) {
	for _, r := range results {
		if errors.Is(r.err, access.ErrRateLimited) {
			f.CheckLine("warn", "pace", fmt.Sprintf("the console answered HTTP 429 to %s: lower the bulk commands' --rate (default %g requests/s)", r.op, cmdutil.DefaultRate))
			return
		}
	}
	f.CheckLine("ok", "pace", fmt.Sprintf("no rate limit met; bulk commands send at most %g requests/s (--rate), others are not paced", cmdutil.DefaultRate))
}

// reachedAPI returns nil when at least one probe got an answer from the
// API (a success or an *access.APIError), else an error naming the first
// failure, with the exit code that failure maps to.
func reachedAPI(ctx context.Context, f *cmdutil.Factory, results []probe) *cmdutil.ExitError {
	var first error
	for _, r := range results {
		if r.skipped != "" {
			continue
		}
		var apiErr *access.APIError
		if r.err == nil || errors.As(r.err, &apiErr) {
			return nil
		}
		if first == nil {
			first = r.err
		}
	}
	if first == nil {
		first = errors.New("nothing was probed")
	}
	return &cmdutil.ExitError{Code: f.ExitCode(ctx, first), Err: prefixedError{"no probe reached the API: ", first}}
}

// prefixedError puts a prefix before an error of the SDK, without its
// own "access: " (the command line adds one), and still unwraps to it.
type prefixedError struct {
	prefix string
	err    error
}

func (e prefixedError) Error() string { return e.prefix + unprefixed(e.err) }
func (e prefixedError) Unwrap() error { return e.err }

// unprefixed is err's message without the SDK's "access: ".
func unprefixed(err error) string { return strings.TrimPrefix(err.Error(), "access: ") }

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
