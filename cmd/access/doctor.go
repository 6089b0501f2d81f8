package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/spf13/cobra"
)

func (a *app) doctorCommand() *cobra.Command {
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
		RunE:    func(c *cobra.Command, args []string) error { return a.doctor(capture, firstNonEmpty(args...)) },
	}
	cmd.Flags().StringVar(&capture, "capture", "", "write the redacted raw answers of the read-only operations to `DIR`")
	return cmd
}

// checkLine prints one result of doctor.
func (a *app) checkLine(mark, what, detail string) {
	if a.color() {
		switch mark {
		case "ok":
			mark = "\x1b[32mok\x1b[0m"
		case "warn":
			mark = "\x1b[33mwarn\x1b[0m"
		case "FAIL":
			mark = "\x1b[31mFAIL\x1b[0m"
		}
	}
	fmt.Fprintf(a.stdout, "%-4s  %-24s %s\n", mark, what, detail)
}

func (a *app) doctor(captureDir, arg string) error {
	var conn connection
	if a.fake {
		conn = a.startFake()
	} else {
		bare := arg != "" && isBareHost(arg)
		switch {
		case bare:
			a.urlFlag = a.waysInto(arg)[0].URL
		case arg != "":
			a.urlFlag = arg
		}
		var err error
		if conn, err = a.resolveConnection(); err != nil {
			return err
		}
		if bare {
			w, err := a.findWayIn(arg, conn.Token(), conn.Fingerprint, conn.Insecure)
			if err != nil {
				return err
			}
			conn.URL, conn.Source = w.URL, "the probe of "+arg
		}
	}
	u, err := url.Parse(conn.URL)
	if err != nil || u.Host == "" {
		return usageErrorf("the console URL %q is not a URL", conn.URL)
	}

	// 1. Reachability and the certificate.
	start := time.Now()
	chain, host, err := connect.PeekCertificate(a.ctx, u)
	if err != nil {
		a.checkLine("FAIL", "reachable", fmt.Sprintf("%s: %v", host, err))
		return &exitError{code: 1, err: fmt.Errorf("the console at %s is not reachable", host)}
	}
	a.checkLine("ok", "reachable", fmt.Sprintf("%s (%s, from %s)", host, time.Since(start).Round(time.Millisecond), conn.Source))
	leaf := chain[0]
	fp := access.CertificateFingerprint(leaf.Raw)
	a.checkLine("ok", "certificate", fmt.Sprintf("%s, expires %s", connect.CertName(leaf), leaf.NotAfter.Format(time.DateOnly)))
	a.checkLine("ok", "fingerprint", fp)
	switch {
	case conn.Fingerprint != "":
		if connect.NormFP(conn.Fingerprint) != connect.NormFP(fp) {
			a.checkLine("FAIL", "pinned", "the pinned fingerprint "+conn.Fingerprint+" does not match")
			return &exitError{code: 1, err: &access.CertificateMismatchError{Presented: connect.NormFP(fp)}}
		}
		a.checkLine("ok", "pinned", "the certificate matches the pinned fingerprint")
	case conn.CACert != nil:
		if err := connect.VerifyWithCA(leaf, chain[1:], conn.CACert, u.Hostname()); err != nil {
			a.checkLine("FAIL", "trusted", fmt.Sprintf("not by the CA of %s %s: %s", conn.CASrc, conn.CAFile, oneLine(err.Error())))
			return &exitError{code: 1, err: fmt.Errorf("the console's certificate is not trusted by the CA of %s", conn.CASrc)}
		}
		a.checkLine("ok", "trusted", fmt.Sprintf("by the CA of %s %s (not pinned; or pin it with --fingerprint %s)", conn.CASrc, conn.CAFile, fp))
	case conn.Insecure:
		a.checkLine("warn", "pinned", "--insecure: the certificate is not checked; pin it with --fingerprint "+fp)
	default:
		pool := x509.NewCertPool()
		for _, c := range chain[1:] {
			pool.AddCert(c)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: u.Hostname(), Intermediates: pool}); err != nil {
			a.checkLine("warn", "pinned", "not pinned and not trusted ("+oneLine(err.Error())+"): pin it with --fingerprint "+fp)
		} else {
			a.checkLine("warn", "pinned", "trusted by the system's roots but not pinned; pin it with --fingerprint "+fp)
		}
	}

	// 2. The token and its permissions, through a client that records
	// the raw answers.
	rec := &recorder{}
	cl, err := access.NewClient(conn.URL, conn.Token(), a.sdkOptions(conn, rec.wrap)...)
	if err != nil {
		return err
	}
	a.checkLine("ok", "mode", modeLine(cl))
	results := probeAll(a.ctx, cl, rec)
	// The token and the operations are judged only on answers of the
	// API: a probe that failed before (TLS, pinning, the connection)
	// says nothing about them.
	if err := reachedAPI(a.ctx, results); err != nil {
		a.checkLine("FAIL", "api", oneLine(err.Error()))
		return err
	}
	// HTTP 401 answers every operation alike: the token itself is refused.
	for _, r := range results {
		if errors.Is(r.err, access.ErrUnauthorized) {
			a.checkLine("FAIL", "token", "the console refused the token (invalid, expired or revoked)")
			return &exitError{code: 4, err: prefixedError{"the token is not valid: ", r.err}}
		}
	}
	a.checkLine("ok", "token", "accepted")
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
		case permissionRefused(r.err):
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
			a.checkLine("ok", p, "granted")
		case "missing":
			a.checkLine("warn", p, "not granted (HTTP 403)")
		default:
			a.checkLine("warn", p, st)
		}
	}
	a.checkLine("--", "edit:* permissions", "not probed: that would change the console")
	for _, r := range results {
		if r.skipped != "" {
			a.checkLine("--", "skipped", r.op+": "+r.skipped)
		}
	}
	if len(unsupported) == 0 {
		a.checkLine("ok", "unsupported", "none of the probed operations")
	} else {
		a.checkLine("warn", "unsupported", strings.Join(unsupported, ", "))
	}
	a.checkNotifications(cl)
	a.checkPace(results)
	if captureDir != "" {
		n, err := writeCapture(captureDir, results)
		if err != nil {
			return err
		}
		a.checkLine("ok", "capture", fmt.Sprintf("%d answers written to %s (redacted; a CSV as a file, images summarized)", n, captureDir))
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
func (a *app) checkNotifications(cl *access.Client) {
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	path, err := cl.Notifications.Check(ctx)
	switch {
	case err == nil:
		a.checkLine("ok", "notifications", "the socket answered at "+path)
	case permissionRefused(err):
		a.checkLine("warn", "notifications", "not granted (view:device)")
	default:
		a.checkLine("warn", "notifications", oneLine(unprefixed(err)))
	}
}

// checkPace reports the pace of the bulk commands, and whether the console
// limited the probes' rate.
func (a *app) checkPace(results []probe) {
	for _, r := range results {
		if errors.Is(r.err, access.ErrRateLimited) {
			a.checkLine("warn", "pace", fmt.Sprintf("the console answered HTTP 429 to %s: lower the bulk commands' --rate (default %g requests/s)", r.op, cmdutil.DefaultRate))
			return
		}
	}
	a.checkLine("ok", "pace", fmt.Sprintf("no rate limit met; bulk commands send at most %g requests/s (--rate), others are not paced", cmdutil.DefaultRate))
}

// reachedAPI returns nil when at least one probe got an answer from the
// API (a success or an *access.APIError), else an error naming the first
// failure, with the exit code that failure maps to.
func reachedAPI(ctx context.Context, results []probe) *exitError {
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
	return &exitError{code: exitCode(ctx, first), err: prefixedError{"no probe reached the API: ", first}}
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

// probe is the outcome of one read-only operation, or why it was
// skipped.
type probe struct {
	op, perm string
	err      error
	raw      []exchange
	skipped  string // "no visitor to probe"
}

// probeAll runs the read-only operations: those without arguments, then
// those that take the id of a record the first ones returned.
func probeAll(ctx context.Context, c *access.Client, rec *recorder) []probe {
	var out []probe
	run := func(op, perm string, f func() error) {
		rec.reset()
		err := f()
		out = append(out, probe{op: op, perm: perm, err: err, raw: rec.take()})
	}
	var doorID, groupID, deviceID, userID, ugID, visitorID, policyID, scheduleID, holidayID, cardToken, passID string
	var passCardID, resourceID, avatarPath string
	run("Doors.List", "view:space", func() error {
		v, _, err := c.Doors.List(ctx)
		if len(v) > 0 {
			doorID = v[0].ID
		}
		return err
	})
	run("Doors.GetEmergency", "view:space", func() error { _, _, err := c.Doors.GetEmergency(ctx); return err })
	run("DoorGroups.List", "view:space", func() error {
		v, _, err := c.DoorGroups.List(ctx)
		if len(v) > 0 {
			groupID = v[0].ID
		}
		return err
	})
	run("DoorGroups.Topology", "view:space", func() error { _, _, err := c.DoorGroups.Topology(ctx); return err })
	run("Devices.List", "view:device", func() error {
		v, _, err := c.Devices.List(ctx, nil)
		for _, g := range v {
			if len(g) > 0 && deviceID == "" {
				deviceID = g[0].ID
			}
		}
		return err
	})
	run("Users.List", "view:user", func() error {
		v, _, err := c.Users.List(ctx, &access.UserListOptions{PageSize: 5})
		if len(v) > 0 {
			userID = v[0].ID
		}
		return err
	})
	run("Users.Search", "view:user", func() error {
		v, _, err := c.Users.Search(ctx, &access.UserSearchOptions{PageSize: 5})
		for _, u := range v {
			if u.AvatarRelativePath != "" && avatarPath == "" {
				avatarPath = u.AvatarRelativePath
			}
		}
		return err
	})
	run("UserGroups.List", "view:user", func() error {
		v, _, err := c.UserGroups.List(ctx)
		if len(v) > 0 {
			ugID = v[0].ID
		}
		return err
	})
	run("Identity.ListResources", "view:user", func() error { _, _, err := c.Identity.ListResources(ctx, nil); return err })
	run("Visitors.List", "view:visitor", func() error {
		v, _, err := c.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 5})
		if len(v) > 0 {
			visitorID = v[0].ID
		}
		return err
	})
	run("AccessPolicies.List", "view:policy", func() error {
		v, _, err := c.AccessPolicies.List(ctx)
		if len(v) > 0 {
			policyID = v[0].ID
		}
		return err
	})
	run("Schedules.List", "view:policy", func() error {
		v, _, err := c.Schedules.List(ctx)
		if len(v) > 0 {
			scheduleID = v[0].ID
		}
		return err
	})
	run("HolidayGroups.List", "view:policy", func() error {
		v, _, err := c.HolidayGroups.List(ctx)
		if len(v) > 0 {
			holidayID = v[0].ID
		}
		return err
	})
	run("NFCCards.List", "view:credential", func() error {
		v, _, err := c.NFCCards.List(ctx, &access.NFCCardListOptions{PageSize: 5})
		if len(v) > 0 {
			cardToken = v[0].Token
		}
		return err
	})
	run("TouchPasses.List", "view:credential", func() error {
		v, _, err := c.TouchPasses.List(ctx, &access.TouchPassListOptions{PageSize: 5})
		if len(v) > 0 {
			passID = v[0].ID
		}
		for _, p := range v {
			if p.CardID != "" && passCardID == "" {
				passCardID = p.CardID
			}
		}
		return err
	})
	run("TouchPasses.ListAssignable", "view:credential", func() error { _, _, err := c.TouchPasses.ListAssignable(ctx); return err })
	run("SystemLogs.List", "view:system_log", func() error {
		v, _, err := c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageSize: 5})
		for _, l := range v {
			for _, t := range l.Source.Target {
				if t.Type == "activities_resource" && t.ID != "" && resourceID == "" {
					resourceID = t.ID
				}
			}
		}
		return err
	})
	run("SystemLogs.Export", "view:system_log", func() error {
		now := time.Now()
		_, err := c.SystemLogs.Export(ctx, &access.SystemLogExportRequest{Topic: access.SystemLogTopicAll, Since: now.Add(-time.Hour), Until: now, Timezone: "UTC"}, io.Discard)
		return err
	})
	run("Webhooks.List", "view:webhook", func() error { _, _, err := c.Webhooks.List(ctx); return err })
	// withID probes an operation on a record an earlier listing gave,
	// or records that there was none.
	withID := func(id, what, op, perm string, f func() error) {
		if id == "" {
			out = append(out, probe{op: op, perm: perm, skipped: "no " + what + " to probe"})
			return
		}
		run(op, perm, f)
	}
	withID(doorID, "door", "Doors.Get", "view:space", func() error { _, _, err := c.Doors.Get(ctx, doorID); return err })
	withID(doorID, "door", "Doors.GetLockRule", "view:space", func() error { _, _, err := c.Doors.GetLockRule(ctx, doorID); return err })
	withID(groupID, "door group", "DoorGroups.Get", "view:space", func() error { _, _, err := c.DoorGroups.Get(ctx, groupID); return err })
	withID(deviceID, "device", "Devices.GetSettings", "view:device", func() error { _, _, err := c.Devices.GetSettings(ctx, deviceID); return err })
	withID(userID, "user", "Users.Get", "view:user", func() error { _, _, err := c.Users.Get(ctx, userID, nil); return err })
	withID(userID, "user", "Users.ListAccessPolicies", "view:user", func() error { _, _, err := c.Users.ListAccessPolicies(ctx, userID, nil); return err })
	withID(userID, "user", "Identity.ListForUser", "view:user", func() error { _, _, err := c.Identity.ListForUser(ctx, userID); return err })
	withID(ugID, "user group", "UserGroups.Get", "view:user", func() error { _, _, err := c.UserGroups.Get(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListUsers", "view:user", func() error { _, _, err := c.UserGroups.ListUsers(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListAllUsers", "view:user", func() error { _, _, err := c.UserGroups.ListAllUsers(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListAccessPolicies", "view:user", func() error { _, _, err := c.UserGroups.ListAccessPolicies(ctx, ugID); return err })
	withID(ugID, "user group", "Identity.ListForUserGroup", "view:user", func() error { _, _, err := c.Identity.ListForUserGroup(ctx, ugID); return err })
	withID(visitorID, "visitor", "Visitors.Get", "view:visitor", func() error { _, _, err := c.Visitors.Get(ctx, visitorID); return err })
	withID(policyID, "access policy", "AccessPolicies.Get", "view:policy", func() error { _, _, err := c.AccessPolicies.Get(ctx, policyID); return err })
	withID(scheduleID, "schedule", "Schedules.Get", "view:policy", func() error { _, _, err := c.Schedules.Get(ctx, scheduleID); return err })
	withID(holidayID, "holiday group", "HolidayGroups.Get", "view:policy", func() error { _, _, err := c.HolidayGroups.Get(ctx, holidayID); return err })
	withID(cardToken, "NFC card", "NFCCards.Get", "view:credential", func() error { _, _, err := c.NFCCards.Get(ctx, cardToken); return err })
	withID(passID, "touch pass", "TouchPasses.Get", "view:credential", func() error { _, _, err := c.TouchPasses.Get(ctx, passID); return err })
	withID(passCardID, "touch pass card id", "TouchPasses.Search", "view:credential", func() error {
		_, _, err := c.TouchPasses.Search(ctx, passCardID)
		return err
	})
	withID(visitorID, "visitor", "QRCodes.Download", "view:credential", func() error {
		_, err := c.QRCodes.Download(ctx, visitorID, io.Discard)
		return err
	})
	// A log entry's media, then a static file: the entry's thumbnail (or
	// clip), else a user's avatar.
	staticPath := avatarPath
	withID(resourceID, "log entry with a resource", "SystemLogs.GetResource", "view:system_log", func() error {
		res, _, err := c.SystemLogs.GetResource(ctx, resourceID)
		if res != nil {
			staticPath = firstNonEmpty(res.VideoRecordThumbnail, res.VideoRecord, staticPath)
		}
		return err
	})
	withID(staticPath, "static file (a log resource or an avatar)", "SystemLogs.DownloadStatic", "view:system_log", func() error {
		_, err := c.SystemLogs.DownloadStatic(ctx, staticPath, io.Discard)
		return err
	})
	// An enrollment session is opened only by NFCCards.StartEnrollment, a
	// write, and no operation lists them.
	out = append(out, probe{op: "NFCCards.EnrollmentStatus", perm: "edit:credential",
		skipped: "no enrollment session to probe (only nfc-cards start-enrollment, a write, opens one)"})
	return out
}
