package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

func (a *app) doctorCommand() *cobra.Command {
	var capture string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the connection, the certificate, the token and its permissions",
		Long: `Check, in order: that the console answers; its certificate (the SHA-256
fingerprint to pin, and a warning when it is not pinned); that the token is
valid; which permissions it has (read operations only are probed: nothing is
changed); and which operations this console answers as unsupported.

--capture DIR writes every read-only operation's raw answer to DIR, with
secrets, tokens, PINs, emails, names and phone numbers redacted, for a bug report.`,
		Example: "  access --fake doctor",
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return a.doctor(capture) },
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

func (a *app) doctor(captureDir string) error {
	var conn connection
	if a.fake {
		conn = a.startFake()
	} else {
		var err error
		if conn, err = a.resolveConnection(); err != nil {
			return err
		}
	}
	u, err := url.Parse(conn.URL)
	if err != nil || u.Host == "" {
		return usageErrorf("the console URL %q is not a URL", conn.URL)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}

	// 1. Reachability and the certificate.
	ctx, cancel := context.WithTimeout(a.ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: u.Hostname()}} //nolint:gosec // only to read the certificate
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		a.checkLine("FAIL", "reachable", fmt.Sprintf("%s: %v", host, err))
		return &exitError{code: 1, err: fmt.Errorf("the console at %s is not reachable", host)}
	}
	cs := nc.(*tls.Conn).ConnectionState()
	nc.Close()
	a.checkLine("ok", "reachable", fmt.Sprintf("%s (%s, from %s)", host, time.Since(start).Round(time.Millisecond), conn.Source))
	leaf := cs.PeerCertificates[0]
	fp := access.CertificateFingerprint(leaf.Raw)
	a.checkLine("ok", "certificate", fmt.Sprintf("%s, expires %s", certName(leaf), leaf.NotAfter.Format(time.DateOnly)))
	a.checkLine("ok", "fingerprint", fp)
	switch {
	case conn.Fingerprint != "":
		if normFP(conn.Fingerprint) != normFP(fp) {
			a.checkLine("FAIL", "pinned", "the pinned fingerprint "+conn.Fingerprint+" does not match")
			return &exitError{code: 1, err: access.ErrCertificateMismatch}
		}
		a.checkLine("ok", "pinned", "the certificate matches the pinned fingerprint")
	case conn.Insecure:
		a.checkLine("warn", "pinned", "--insecure: the certificate is not checked; pin it with --fingerprint "+fp)
	default:
		pool := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
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
	cl, err := access.NewClient(conn.URL, conn.Token(), append(clientOptions(conn), access.WithTransportWrapper(rec.wrap))...)
	if err != nil {
		return err
	}
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
	if len(unsupported) == 0 {
		a.checkLine("ok", "unsupported", "none of the probed operations")
	} else {
		a.checkLine("warn", "unsupported", strings.Join(unsupported, ", "))
	}
	if captureDir != "" {
		if err := writeCapture(captureDir, results); err != nil {
			return err
		}
		a.checkLine("ok", "capture", fmt.Sprintf("%d answers written to %s (redacted)", len(results), captureDir))
	}
	return nil
}

// reachedAPI returns nil when at least one probe got an answer from the
// API (a success or an *access.APIError), else an error naming the first
// failure, with the exit code that failure maps to.
func reachedAPI(ctx context.Context, results []probe) *exitError {
	var first error
	for _, r := range results {
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

// certName names a certificate for doctor: its common name, else its
// subject alternative names, else "(no name)".
func certName(c *x509.Certificate) string {
	if c.Subject.CommonName != "" {
		return c.Subject.CommonName
	}
	sans := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		sans = append(sans, ip.String())
	}
	sans = append(sans, c.EmailAddresses...)
	for _, u := range c.URIs {
		sans = append(sans, u.String())
	}
	if len(sans) == 0 {
		return "(no name)"
	}
	return "SAN " + strings.Join(sans, " ")
}

func normFP(s string) string {
	return strings.ToLower(strings.NewReplacer(":", "", " ", "").Replace(s))
}

// probe is the outcome of one read-only operation.
type probe struct {
	op, perm string
	err      error
	raw      []exchange
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
	run("Users.Search", "view:user", func() error { _, _, err := c.Users.Search(ctx, &access.UserSearchOptions{PageSize: 5}); return err })
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
		return err
	})
	run("TouchPasses.ListAssignable", "view:credential", func() error { _, _, err := c.TouchPasses.ListAssignable(ctx); return err })
	run("SystemLogs.List", "view:system_log", func() error {
		_, _, err := c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageSize: 5})
		return err
	})
	run("SystemLogs.Export", "view:system_log", func() error {
		now := time.Now()
		_, err := c.SystemLogs.Export(ctx, &access.SystemLogExportRequest{Topic: access.SystemLogTopicAll, Since: now.Add(-time.Hour), Until: now, Timezone: "UTC"}, io.Discard)
		return err
	})
	run("Webhooks.List", "view:webhook", func() error { _, _, err := c.Webhooks.List(ctx); return err })
	withID := func(id, op, perm string, f func() error) {
		if id != "" {
			run(op, perm, f)
		}
	}
	withID(doorID, "Doors.Get", "view:space", func() error { _, _, err := c.Doors.Get(ctx, doorID); return err })
	withID(doorID, "Doors.GetLockRule", "view:space", func() error { _, _, err := c.Doors.GetLockRule(ctx, doorID); return err })
	withID(groupID, "DoorGroups.Get", "view:space", func() error { _, _, err := c.DoorGroups.Get(ctx, groupID); return err })
	withID(deviceID, "Devices.GetSettings", "view:device", func() error { _, _, err := c.Devices.GetSettings(ctx, deviceID); return err })
	withID(userID, "Users.Get", "view:user", func() error { _, _, err := c.Users.Get(ctx, userID, nil); return err })
	withID(userID, "Users.ListAccessPolicies", "view:user", func() error { _, _, err := c.Users.ListAccessPolicies(ctx, userID, nil); return err })
	withID(userID, "Identity.ListForUser", "view:user", func() error { _, _, err := c.Identity.ListForUser(ctx, userID); return err })
	withID(ugID, "UserGroups.Get", "view:user", func() error { _, _, err := c.UserGroups.Get(ctx, ugID); return err })
	withID(ugID, "UserGroups.ListUsers", "view:user", func() error { _, _, err := c.UserGroups.ListUsers(ctx, ugID); return err })
	withID(ugID, "UserGroups.ListAllUsers", "view:user", func() error { _, _, err := c.UserGroups.ListAllUsers(ctx, ugID); return err })
	withID(ugID, "UserGroups.ListAccessPolicies", "view:user", func() error { _, _, err := c.UserGroups.ListAccessPolicies(ctx, ugID); return err })
	withID(ugID, "Identity.ListForUserGroup", "view:user", func() error { _, _, err := c.Identity.ListForUserGroup(ctx, ugID); return err })
	withID(visitorID, "Visitors.Get", "view:visitor", func() error { _, _, err := c.Visitors.Get(ctx, visitorID); return err })
	withID(policyID, "AccessPolicies.Get", "view:policy", func() error { _, _, err := c.AccessPolicies.Get(ctx, policyID); return err })
	withID(scheduleID, "Schedules.Get", "view:policy", func() error { _, _, err := c.Schedules.Get(ctx, scheduleID); return err })
	withID(holidayID, "HolidayGroups.Get", "view:policy", func() error { _, _, err := c.HolidayGroups.Get(ctx, holidayID); return err })
	withID(cardToken, "NFCCards.Get", "view:credential", func() error { _, _, err := c.NFCCards.Get(ctx, cardToken); return err })
	withID(passID, "TouchPasses.Get", "view:credential", func() error { _, _, err := c.TouchPasses.Get(ctx, passID); return err })
	return out
}

// exchange is one recorded request and its raw answer.
type exchange struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body,omitempty"`
	Text   string          `json:"text,omitempty"`
}

// recorder is an http.RoundTripper that keeps the raw answers. It wraps
// the SDK's own transport (access.WithTransportWrapper), so the
// connection's pinning or --insecure stays the SDK's.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []exchange
}

// wrap is the recorder's access.WithTransportWrapper.
func (r *recorder) wrap(next http.RoundTripper) http.RoundTripper {
	r.base = next
	return r
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err // a WebSocket's body is the connection
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return nil, rerr
	}
	ex := exchange{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode}
	if json.Valid(body) {
		ex.Body = redactJSON(body)
	} else {
		ex.Text = fmt.Sprintf("(%d bytes of %s)", len(body), resp.Header.Get("Content-Type"))
	}
	r.mu.Lock()
	r.got = append(r.got, ex)
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) reset() { r.mu.Lock(); r.got = nil; r.mu.Unlock() }
func (r *recorder) take() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.got
	r.got = nil
	return g
}

var emailRE = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)

// redactKey reports whether a member's value is personal or secret.
func redactKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "secret", "token", "headers", "pin_code", "pin", "authorization", "password", "alias", "username",
		"phone", "mobile_phone", "email", "user_email", "condition", "authentication_value", "display_id", "card_id", "nfc_id":
		return true
	}
	return strings.Contains(k, "name") || strings.Contains(k, "email") || strings.Contains(k, "phone") ||
		strings.Contains(k, "token") || strings.Contains(k, "secret")
}

// redactJSON replaces secrets, tokens, PINs, emails, names and phone
// numbers with "REDACTED".
func redactJSON(b []byte) json.RawMessage {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return json.RawMessage(`"REDACTED (undecodable)"`)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if redactKey(k) && e != nil {
					x[k] = "REDACTED"
				} else {
					x[k] = walk(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			return emailRE.ReplaceAllString(x, "REDACTED")
		}
		return v
	}
	out, _ := json.MarshalIndent(walk(v), "", "  ")
	return out
}

func writeCapture(dir string, results []probe) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, r := range results {
		rec := struct {
			Op        string     `json:"op"`
			Error     string     `json:"error,omitempty"`
			Exchanges []exchange `json:"exchanges"`
		}{Op: r.op, Exchanges: r.raw}
		if r.err != nil {
			rec.Error = emailRE.ReplaceAllString(r.err.Error(), "REDACTED")
		}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, r.op+".json"), append(b, '\n'), 0o600); err != nil {
			return err
		}
	}
	return nil
}
