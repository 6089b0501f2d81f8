package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
)

// debugBodyMax is the most of a body --debug prints.
const debugBodyMax = 64 << 10

// debugTransport prints each attempt the SDK makes (--debug or
// ACCESS_DEBUG=1) on stderr: the request's method, URL and body, then the
// answer's status, how long it took and its body. It sits where
// doctor --capture's recorder does, under the SDK's retry layer
// (access.WithTransportWrapper), so it sees every attempt. No header is
// printed (the token is in Authorization), and bodies go through
// access.RedactSecrets, the redaction of APIError.Body.
type debugTransport struct {
	next http.RoundTripper
	mu   *sync.Mutex // one attempt's lines stay together
	w    io.Writer
}

func (d *debugTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, req.URL.Redacted())
	switch {
	case req.Body == nil || req.Body == http.NoBody:
	case req.GetBody != nil:
		if rc, err := req.GetBody(); err == nil {
			body, _ := io.ReadAll(io.LimitReader(rc, debugBodyMax+1))
			rc.Close()
			writeDebugBody(&b, "> ", req.Header.Get("Content-Type"), body)
		}
	default:
		fmt.Fprintf(&b, "> (a streamed %s body, not shown)\n", req.Header.Get("Content-Type"))
	}
	d.print(b.String())
	start := time.Now()
	resp, err := d.next.RoundTrip(req)
	took := time.Since(start).Round(10 * time.Microsecond)
	b.Reset()
	if err != nil {
		fmt.Fprintf(&b, "< %s %s: no answer after %s: %s\n", req.Method, req.URL.Redacted(), took, oneLine(err.Error()))
		d.print(b.String())
		return resp, err
	}
	fmt.Fprintf(&b, "< %s (%s) %s %s\n", resp.Status, took, req.Method, req.URL.Redacted())
	if resp.StatusCode != http.StatusSwitchingProtocols { // a WebSocket's body is the connection
		head, rerr := io.ReadAll(io.LimitReader(resp.Body, debugBodyMax+1))
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			fmt.Fprintf(&b, "< (the body broke off after %d bytes: %s)\n", len(head), oneLine(rerr.Error()))
		}
		writeDebugBody(&b, "< ", resp.Header.Get("Content-Type"), head)
		// The SDK reads the whole answer: what was printed, then the rest.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), errReader{rerr}, resp.Body), resp.Body}
	}
	d.print(b.String())
	return resp, nil
}

// errReader gives a read error again where the body broke off.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err == nil {
		return 0, io.EOF
	}
	return 0, e.err
}

func (d *debugTransport) print(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	io.WriteString(d.w, s)
}

// writeDebugBody writes a body, its secrets redacted, each line after
// prefix; a body that is not text is only described.
func writeDebugBody(b *strings.Builder, prefix, contentType string, body []byte) {
	if len(body) == 0 {
		return
	}
	more := ""
	if len(body) > debugBodyMax {
		body, more = body[:debugBodyMax], fmt.Sprintf(" (the first %d KiB)", debugBodyMax>>10)
	}
	ct := strings.ToLower(contentType)
	if !(ct == "" || strings.Contains(ct, "json") || strings.HasPrefix(ct, "text/")) {
		fmt.Fprintf(b, "%s(%d bytes of %s, not shown)\n", prefix, len(body), contentType)
		return
	}
	for _, line := range strings.Split(strings.TrimRight(string(access.RedactSecrets(body)), "\n"), "\n") {
		b.WriteString(prefix)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if more != "" {
		b.WriteString(prefix + more + "\n")
	}
}

// debug reports whether --debug or ACCESS_DEBUG=1 asks for the traffic.
func (a *app) debug() bool {
	return a.debugFlag || a.getenv("ACCESS_DEBUG") == "1"
}

// sdkOptions are the options of every client the run builds for a
// console: the connection's (clientOptions), the per-attempt --timeout,
// the retry policy whose retries are announced on a terminal, and the
// --debug transport; wraps (doctor --capture's recorder) go above it.
func (a *app) sdkOptions(c connection, wraps ...func(http.RoundTripper) http.RoundTripper) []access.Option {
	opts := clientOptions(c)
	opts = append(opts, access.WithTimeout(a.timeout))
	p := access.DefaultRetryPolicy()
	if a.isTerminal(a.stderr) {
		total := p.MaxRetries + 1
		p.OnRetry = func(ev access.RetryEvent) {
			why := fmt.Sprintf("HTTP %d %s", ev.StatusCode, http.StatusText(ev.StatusCode))
			if ev.Err != nil || ev.StatusCode == 0 {
				why = "an error"
				if err := ev.Err; err != nil {
					var ue *url.Error // Get "URL": …, the URL said once already
					if errors.As(err, &ue) {
						err = ue.Err
					}
					why = strings.TrimPrefix(oneLine(err.Error()), "access: ")
				}
			}
			fmt.Fprintf(a.stderr, "access: retrying (%d/%d) after %s\n", ev.Attempt, total, why)
		}
	}
	opts = append(opts, access.WithRetryPolicy(p))
	if a.debug() {
		d := &debugTransport{mu: &sync.Mutex{}, w: a.stderr}
		wraps = append([]func(http.RoundTripper) http.RoundTripper{func(next http.RoundTripper) http.RoundTripper {
			d.next = next
			return d
		}}, wraps...)
	}
	if len(wraps) > 0 {
		opts = append(opts, access.WithTransportWrapper(func(rt http.RoundTripper) http.RoundTripper {
			for _, w := range wraps {
				rt = w(rt)
			}
			return rt
		}))
	}
	return opts
}
