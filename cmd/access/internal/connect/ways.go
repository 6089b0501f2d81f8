package connect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// Way is one way into a console: a base URL, whose mode the SDK reads
// from it, and what it is.
type Way struct {
	Kind string // "direct", "proxy", "older proxy"
	URL  string
}

// ConsoleWays returns the ways into the console at host (an address or a
// name, optionally with a port), in the order login and doctor try them:
// the API port 12445 (Authorization: Bearer), a UniFi OS console's proxy
// on 443 (X-API-KEY), and the older proxy path that NVR Pro consoles are
// reported to serve (vendor-notes §7). With a port in host, every way is
// tried on that port. It is the one place the candidates come from: tests
// replace it through the run's context (WithWays), since loopback tests
// cannot bind 443 or 12445.
func ConsoleWays(host string) []Way {
	direct, proxied := net.JoinHostPort(host, "12445"), host
	if _, _, err := net.SplitHostPort(host); err == nil {
		direct = host
	} else if strings.Contains(host, ":") { // a bare IPv6 address
		proxied = "[" + host + "]"
	}
	return []Way{
		{"direct", "https://" + direct},
		{"proxy", "https://" + proxied + access.ProxyPrefix},
		{"older proxy", "https://" + proxied + "/proxy/access/api/v1/developer"},
	}
}

type waysKey struct{}

// WithWays returns ctx carrying ways in place of ConsoleWays: a test seam
// (as a context carries a net/http/httptrace.ClientTrace), so that
// neither what commands share nor any command's flags hold it. The
// command line never sets it.
func WithWays(ctx context.Context, ways func(host string) []Way) context.Context {
	return context.WithValue(ctx, waysKey{}, ways)
}

// WaysInto returns the ways into host: ConsoleWays, or those ctx carries
// (WithWays).
func WaysInto(ctx context.Context, host string) []Way {
	if ways, ok := ctx.Value(waysKey{}).(func(string) []Way); ok && ways != nil {
		return ways(host)
	}
	return ConsoleWays(host)
}

// IsBareHost reports whether s names a host rather than a URL.
func IsBareHost(s string) bool { return !strings.Contains(s, "://") }

// PermissionRefused reports whether err is the console refusing the
// token the permission of the operation: HTTP 403, or the vendor's
// CODE_UNAUTHORIZED ("You are not allowed to perform this action"), both
// access.ErrForbidden. The SDK matches CODE_OPERATION_FORBIDDEN ("The
// requested operation is not allowed") with ErrForbidden too, but that
// code refuses the operation on that record whatever the token (a second
// touch pass for a user, deleting an active user): it is a permission
// refusal only on HTTP 401 or 403.
func PermissionRefused(err error) bool {
	if !errors.Is(err, access.ErrForbidden) {
		return false
	}
	var apiErr *access.APIError
	if errors.As(err, &apiErr) && apiErr.Code == access.CodeOperationForbidden {
		return apiErr.StatusCode == http.StatusUnauthorized || apiErr.StatusCode == http.StatusForbidden
	}
	return true
}

// PeekFingerprint is the SHA-256 fingerprint of the certificate the
// console at u presents, read without checking it ("" when none is read).
func PeekFingerprint(ctx context.Context, u *url.URL) string {
	chain, _, err := PeekCertificate(ctx, u)
	if err != nil {
		return ""
	}
	return access.CertificateFingerprint(chain[0].Raw)
}

// Prober is what FindWayIn tries the ways with and says what each
// answered to.
type Prober struct {
	// Trust adds the CA of --cacert or ACCESS_CACERT to a connection
	// (TrustCA).
	Trust func(*Connection) error
	// UserAgent is the clients' user agent.
	UserAgent string
	// Report prints one result: its mark ("ok", "--"), what and detail.
	Report func(mark, what, detail string)
}

// codeError is an error with the exit code of the command line it ends
// a run with.
type codeError struct {
	code int
	err  error
}

func (e *codeError) Error() string { return e.err.Error() }
func (e *codeError) Unwrap() error { return e.err }

// ExitCode is the code the process exits with.
func (e *codeError) ExitCode() int { return e.code }

// FindWayIn tries the ways into the console at host (WaysInto) with the
// token, pinned by fingerprint or not checked (insecure), reports what
// each answered, and returns the first that accepted it. None accepting
// it is an error with exit code 4 when one refused the credential, else 1.
func FindWayIn(ctx context.Context, p Prober, host, token, fingerprint string, insecure bool) (Way, error) {
	var refused int
	var untrusted string // the first way whose certificate was not trusted
	var tried []string
	for _, w := range WaysInto(ctx, host) {
		answer, ok, cause := p.probe(ctx, w, token, Connection{Fingerprint: fingerprint, Insecure: insecure})
		switch {
		case ok:
			p.Report("ok", "probe "+w.Kind, w.URL+": "+answer)
			p.Report("ok", "chosen", w.URL)
			return w, nil
		case errors.Is(cause, access.ErrUnauthorized):
			refused++
		case UntrustedCertificate(cause) && untrusted == "":
			untrusted = w.URL
		}
		p.Report("--", "probe "+w.Kind, w.URL+": "+answer)
		tried = append(tried, w.URL)
	}
	list := strings.Join(tried, ", ")
	switch {
	case refused > 0:
		return Way{}, &codeError{code: 4, err: fmt.Errorf("no way into %s accepted the key or token (tried %s)", host, list)}
	case untrusted != "" && fingerprint == "" && !insecure:
		hint := "pin it with --fingerprint"
		if u, err := url.Parse(untrusted); err == nil {
			if fp := PeekFingerprint(ctx, u); fp != "" {
				hint = fmt.Sprintf("if the SHA-256 fingerprint of %s is %s, run again with --fingerprint %s", u.Host, fp, fp)
			}
		}
		return Way{}, &codeError{code: 1, err: fmt.Errorf("the certificate of %s is not trusted; %s (tried %s)", host, hint, list)}
	}
	return Way{}, &codeError{code: 1, err: fmt.Errorf("no way into %s answered with the Access API (tried %s)", host, list)}
}

// probe sends one read (the doors) through w, once, and describes the
// answer: ok when the API accepted the credential (a missing permission
// included).
func (p Prober) probe(ctx context.Context, w Way, token string, conn Connection) (answer string, ok bool, err error) {
	if err := p.Trust(&conn); err != nil { // --cacert or ACCESS_CACERT
		return "", false, err
	}
	opts := append(ClientOptions(conn, p.UserAgent), access.WithRetryPolicy(access.RetryPolicy{}), access.WithTimeout(5*time.Second))
	cl, err := access.NewClient(w.URL, token, opts...)
	if err != nil {
		return "not a usable URL: " + oneLine(err.Error()), false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, _, err = cl.Doors.List(ctx)
	mode := fmt.Sprintf("%s mode, %s", cl.Mode(), cl.AuthHeader())
	var apiErr *access.APIError
	var reqErr *access.RequestError
	switch {
	case err == nil:
		return "the Access API, credential accepted (" + mode + ")", true, nil
	case PermissionRefused(err):
		return "the Access API, credential accepted, view:space not granted (" + mode + ")", true, nil
	case errors.Is(err, access.ErrUnauthorized):
		return "HTTP 401: the credential sent in " + cl.AuthHeader() + " was refused", false, err
	case errors.As(err, &apiErr) && apiErr.Err != nil:
		return fmt.Sprintf("HTTP %d, not the API: %s", apiErr.StatusCode, Unprefixed(apiErr.Err)), false, err
	case errors.As(err, &apiErr):
		return fmt.Sprintf("HTTP %d %s", apiErr.StatusCode, oneLine(firstNonEmpty(apiErr.Message, string(apiErr.Code)))), false, err
	case errors.As(err, &reqErr):
		return "no answer: " + oneLine(Unprefixed(reqErr.Err)), false, err
	}
	return oneLine(Unprefixed(err)), false, err
}

// Unprefixed is err's message without the SDK's "access: ".
func Unprefixed(err error) string { return strings.TrimPrefix(err.Error(), "access: ") }

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
