package simulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/access-dev/access"
)

// ControlClient calls the control API of a running `access fake`, as
// `access fake trigger` does.
type ControlClient struct {
	// URL is the fake's base URL (ACCESS_URL).
	URL string
	// HTTP makes the requests; NewControlClient sets one that trusts the
	// fake's certificate.
	HTTP  *http.Client
	token string
	key   bool // send the token as an X-API-KEY (ACCESS_URL in proxy form)
}

// NewControlClient is a client for the fake at url with its API token,
// trusting its certificate by SHA-256 fingerprint (hex; ACCESS_FINGERPRINT
// as --print-env prints it) or, when fingerprint is "", the PEM CA file
// caFile (--cert-out). url is either form --print-env prints: ACCESS_URL
// (the token is sent as a Bearer token) or ACCESS_PROXY_URL (its proxy
// path is dropped and the token sent as an X-API-KEY).
func NewControlClient(url, token, fingerprint, caFile string) (*ControlClient, error) {
	switch {
	case url == "":
		return nil, usageErrorf("no fake to trigger: set ACCESS_URL (access fake --print-env prints it)")
	case token == "":
		return nil, usageErrorf("no token: set ACCESS_TOKEN (access fake --print-env prints it)")
	}
	t := ControlTarget{URL: url, Token: token, Fingerprint: fingerprint}
	switch {
	case fingerprint != "":
	case caFile != "":
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, usageErrorf("ACCESS_CACERT: %v", errors.Unwrap(err))
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			return nil, usageErrorf("ACCESS_CACERT %s: no PEM certificate", caFile)
		}
		t.CAPEM = pem
	default:
		if strings.HasPrefix(url, "https://") {
			return nil, usageErrorf("set ACCESS_FINGERPRINT or ACCESS_CACERT to trust the fake's certificate (access fake --print-env prints both)")
		}
	}
	return t.Client()
}

// ControlTarget is a running fake as the access command line resolves a
// console (flags, environment or login profile): its URL in either form
// (see [NewControlClient]), its token, and how its certificate is
// trusted: a SHA-256 fingerprint pin, else the PEM CA certificates CAPEM,
// else any certificate with Insecure, else the system's roots.
type ControlTarget struct {
	URL, Token  string
	Fingerprint string
	CAPEM       []byte
	Insecure    bool
}

// String describes the target without its token.
func (t ControlTarget) String() string { return "simulator.ControlTarget(" + t.URL + ")" }

// GoString is String, for %#v.
func (t ControlTarget) GoString() string { return t.String() }

// Client makes the client of the target; bad input (no URL, no token, a
// URL that is not https://, a malformed pin or CA) is a usage error.
func (t ControlTarget) Client() (*ControlClient, error) {
	switch {
	case t.URL == "":
		return nil, usageErrorf("no fake to trigger: set ACCESS_URL (access fake --print-env prints it)")
	case t.Token == "":
		return nil, usageErrorf("no token: set ACCESS_TOKEN (access fake --print-env prints it)")
	case !strings.HasPrefix(t.URL, "https://"):
		return nil, usageErrorf("ACCESS_URL %q: the fake serves https://", t.URL)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	switch {
	case t.Fingerprint != "":
		want, err := hex.DecodeString(strings.NewReplacer(":", "", " ", "").Replace(strings.TrimSpace(t.Fingerprint)))
		if err != nil || len(want) != sha256.Size {
			return nil, usageErrorf("ACCESS_FINGERPRINT: give the certificate's SHA-256 fingerprint in hex")
		}
		cfg.InsecureSkipVerify = true //nolint:gosec // verified by pin below
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) > 0 {
				if sum := sha256.Sum256(raw[0]); bytes.Equal(sum[:], want) {
					return nil
				}
			}
			return errors.New("the fake's certificate does not match ACCESS_FINGERPRINT")
		}
	case t.CAPEM != nil:
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.CAPEM) {
			return nil, usageErrorf("ACCESS_CACERT: no PEM certificate")
		}
		cfg.RootCAs = pool
	case t.Insecure:
		cfg.InsecureSkipVerify = true //nolint:gosec // asked for (a profile saved with --insecure)
	}
	base, key := strings.CutSuffix(strings.TrimRight(t.URL, "/"), access.ProxyPrefix)
	return &ControlClient{URL: base, token: t.Token, key: key,
		HTTP: &http.Client{Timeout: 70 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}}, nil
}

// String describes the client without its token, so that printing it
// (%v, %+v) never shows the token.
func (c ControlClient) String() string { return "simulator.ControlClient(" + c.URL + ")" }

// GoString is String, for %#v.
func (c ControlClient) GoString() string { return c.String() }

// ControlError is a refusal of the control API: its HTTP status, code and
// message.
type ControlError struct {
	Status        int
	Code, Message string
}

// Error implements error.
func (e *ControlError) Error() string {
	return fmt.Sprintf("fake control API: HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// ExitCode follows the access command's codes: 2 for a bad request, 3
// for a device or door not found, 4 for a refused credential, else 1.
func (e *ControlError) ExitCode() int {
	switch {
	case e.Status == http.StatusBadRequest:
		return 2
	case e.Status == http.StatusNotFound:
		return 3
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return 4
	}
	return 1
}

// Post sends an act (path under ControlPrefix, e.g. "/card/tap") with
// body as JSON and returns the answer. An act is sent once: a failure is
// returned, never retried, since the act may have taken effect.
func (c *ControlClient) Post(ctx context.Context, path string, body any) (json.RawMessage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, http.MethodPost, path, bytes.NewReader(b))
}

// Get reads path under ControlPrefix.
func (c *ControlClient) Get(ctx context.Context, path string) (json.RawMessage, error) {
	return c.do(ctx, http.MethodGet, path, nil)
}

func (c *ControlClient) do(ctx context.Context, method, path string, body io.Reader) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.URL+ControlPrefix+path, body)
	if err != nil {
		return nil, err
	}
	if c.key {
		req.Header["X-API-KEY"] = []string{c.token} // as a script in proxy layout sends it
	} else {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fake control API: %s %s: %w", method, ControlPrefix+path, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSnapshotBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		if e.Error.Message == "" {
			e.Error.Message = strings.TrimSpace(string(b))
		}
		return nil, &ControlError{Status: resp.StatusCode, Code: e.Error.Code, Message: e.Error.Message}
	}
	return json.RawMessage(b), nil
}

// TriggerIO is how `access fake trigger` reaches the fake and writes its
// answers. A nil member takes its default.
type TriggerIO struct {
	// Getenv reads the environment (os.Getenv).
	Getenv func(string) string
	// Connect makes the client of the fake (NewControlClient from
	// ACCESS_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT and ACCESS_CACERT).
	Connect func() (*ControlClient, error)
	// Print writes an answer, a JSON document, to w (indented JSON);
	// line is true for the acts of a scenario, written one JSON line
	// each (JSON Lines, as they are without Print).
	Print func(w io.Writer, answer json.RawMessage, line bool) error
}

// TriggerCommand is `access fake trigger`, a subcommand of [NewCommand]'s:
// one subcommand per act, devices and doors by name (or id), through the
// control API of the fake that tio.Connect reaches.
func TriggerCommand(tio TriggerIO) *cobra.Command {
	getenv := tio.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	connect := tio.Connect
	if connect == nil {
		connect = func() (*ControlClient, error) {
			return NewControlClient(getenv("ACCESS_URL"), getenv("ACCESS_TOKEN"), getenv("ACCESS_FINGERPRINT"), getenv("ACCESS_CACERT"))
		}
	}
	print := tio.Print
	if print == nil {
		print = func(w io.Writer, answer json.RawMessage, _ bool) error { return printIndented(w, answer) }
	}
	cmd := &cobra.Command{
		Use:   "trigger",
		Short: "Act on a running fake's site through its control API (tap a card, ring a doorbell, open a door, inject a fault…)",
		Long: `trigger acts on the site of a running access fake through its control API
(` + ControlPrefix + `/), as its web console's buttons do, and prints the answer:
the act's result and what it caused (events, system-log entries, journal
cursors). Devices and doors are named by name or id.

The fake is reached as every access command reaches a console: the one
--print-env describes (ACCESS_URL, ACCESS_TOKEN, and ACCESS_FINGERPRINT or
ACCESS_CACERT, the --cert-out file, to trust it), --url with --token-file, or
the login profile. The URL may also be the proxy form (ACCESS_PROXY_URL's
value): the token then goes as an X-API-KEY, as through a UniFi OS console's
proxy. --jq and -o filter and format the answers.

  access fake --print-env > fake.env & ...; . ./fake.env
  access fake trigger tap-card --reader "UA Reader Main" --card 100000
  access fake trigger doorbell --device "UA Intercom Main"
  access fake trigger door-open --door "Main entrance" --hold 90s
  access fake trigger fault --status 503 --times 3
  access fake trigger restart --bad-gateway 10s --unauthorized 5s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	post := func(cmd *cobra.Command, path string, body any) error {
		c, err := connect()
		if err != nil {
			return err
		}
		out, err := c.Post(cmd.Context(), path, body)
		if err != nil {
			return err
		}
		return print(cmd.OutOrStdout(), out, false)
	}
	sub := func(use, short string, run func(cmd *cobra.Command) error) *cobra.Command {
		c := &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs, SilenceUsage: true, SilenceErrors: true,
			RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) }}
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
		cmd.AddCommand(c)
		return c
	}
	var reader, card, code string
	c := sub("tap-card", "Tap a card at a reader (granted, denied, or enrolled in an open session)", func(cmd *cobra.Command) error {
		return post(cmd, "/card/tap", map[string]string{"device": reader, "card": card})
	})
	c.Flags().StringVar(&reader, "reader", "", "the reader (name or id)")
	c.Flags().StringVar(&card, "card", "", "the number printed on the card (the demo site's 100000, 100050 and 100100 open the main entrance at any hour; while an enrollment session is open at the reader, the tap enrolls the card instead)")
	must(c, "reader", "card")
	var failReader string // each command's flags have variables of their own (TestNoFlagLeaksIntoAnotherCommand)
	c = sub("fail-tap", "Fail the tap of a reader's enrollment session with an enrollment code", func(cmd *cobra.Command) error {
		return post(cmd, "/card/fail", map[string]string{"device": failReader, "code": code})
	})
	c.Flags().StringVar(&failReader, "reader", "", "the reader (name or id)")
	c.Flags().StringVar(&code, "code", "CODE_CREDS_NFC_CARD_INVALID", "CODE_CREDS_NFC_CARD_IS_PROVISION, CODE_CREDS_NFC_CARD_PROVISION_FAILED or CODE_CREDS_NFC_CARD_INVALID")
	must(c, "reader")

	var bell, device string
	var cancel bool
	c = sub("doorbell", "Ring a doorbell (or, with --cancel, give up the ringing call)", func(cmd *cobra.Command) error {
		if cancel {
			return post(cmd, "/doorbell/cancel", map[string]string{"device": bell})
		}
		return post(cmd, "/doorbell/ring", map[string]string{"device": bell})
	})
	c.Flags().StringVar(&bell, "device", "UA Intercom Main", "the intercom or reader with a doorbell (name or id)")
	c.Flags().BoolVar(&cancel, "cancel", false, "cancel the ringing call instead")

	var door string
	var hold time.Duration
	c = sub("door-open", "Open a door (its position sensor reports it), or hold it open for --hold", func(cmd *cobra.Command) error {
		body := map[string]string{"door": door}
		if hold != 0 {
			if hold < 0 {
				return usageErrorf("--hold %s: give a positive duration", hold)
			}
			body["hold"] = hold.String()
		}
		return post(cmd, "/door/open", body)
	})
	c.Flags().StringVar(&door, "door", "", "the door (name or id)")
	c.Flags().DurationVar(&hold, "hold", 0, "close it again after this long on the fake's clock (e.g. 90s)")
	must(c, "door")
	var closeDoor string
	c = sub("door-close", "Close a door", func(cmd *cobra.Command) error {
		return post(cmd, "/door/close", map[string]string{"door": closeDoor})
	})
	c.Flags().StringVar(&closeDoor, "door", "", "the door (name or id)")
	must(c, "door")
	var exitDoor string
	c = sub("exit-button", "Press a door's request-to-exit button", func(cmd *cobra.Command) error {
		return post(cmd, "/door/exit", map[string]string{"door": exitDoor})
	})
	c.Flags().StringVar(&exitDoor, "door", "", "the door (name or id)")
	must(c, "door")

	var offline bool
	c = sub("device", "Take a device offline (--offline) or bring it back online", func(cmd *cobra.Command) error {
		return post(cmd, "/device/online", map[string]any{"device": device, "online": !offline})
	})
	c.Flags().StringVar(&device, "device", "", "the device (name or id)")
	c.Flags().BoolVar(&offline, "offline", false, "take it offline (default: bring it online)")
	must(c, "device")

	var mode string
	c = sub("emergency", "Start a lockdown or an evacuation, or end it (--mode none)", func(cmd *cobra.Command) error {
		return post(cmd, "/emergency", map[string]string{"mode": mode})
	})
	c.Flags().StringVar(&mode, "mode", "", "lockdown, evacuation or none")
	must(c, "mode")

	var by time.Duration
	c = sub("advance", "Advance the fake's clock (timers that fall due run)", func(cmd *cobra.Command) error {
		if by <= 0 {
			return usageErrorf("--by %s: give a positive duration", by)
		}
		return post(cmd, "/clock/advance", map[string]string{"by": by.String()})
	})
	c.Flags().DurationVar(&by, "by", 0, "how far, e.g. 5m or 2h")
	must(c, "by")

	var badGateway, unauthorized time.Duration
	c = sub("restart", "Restart the console: through the proxy, HTTP 502 and then 401 for a while; the sockets drop", func(cmd *cobra.Command) error {
		if badGateway < 0 || unauthorized < 0 || badGateway+unauthorized <= 0 {
			return usageErrorf("--bad-gateway %s --unauthorized %s: give durations of 0 or more, not both 0", badGateway, unauthorized)
		}
		return post(cmd, "/console/restart", map[string]string{"bad_gateway": badGateway.String(), "unauthorized": unauthorized.String()})
	})
	c.Flags().DurationVar(&badGateway, "bad-gateway", defaultRestartBadGateway, "how long the proxy answers HTTP 502, on the fake's clock")
	c.Flags().DurationVar(&unauthorized, "unauthorized", defaultRestartUnauthorized, "then how long it answers HTTP 401 before the console serves again")

	var f faultBody
	var retryAfter, delay time.Duration
	c = sub("fault", "Make the fake misbehave for an operation (every one by default)", func(cmd *cobra.Command) error {
		body := map[string]any{"op": f.Op, "status": f.Status, "code": f.Code, "message": f.Message,
			"retry_after": retryAfter.String(), "delay": delay.String(), "drop_connection": f.DropConnection,
			"body": f.Body, "content_type": f.ContentType, "times": f.Times, "after_handling": f.AfterHandling}
		return post(cmd, "/faults", body)
	})
	fl := c.Flags()
	fl.StringVar(&f.Op, "op", "*", "the operation, Service.Method (e.g. Doors.List); * for every one")
	fl.IntVar(&f.Status, "status", 0, "the HTTP status to answer")
	fl.StringVar(&f.Code, "code", "", "the error code of the envelope")
	fl.StringVar(&f.Message, "message", "", "the message of the envelope")
	fl.DurationVar(&retryAfter, "retry-after", 0, "send Retry-After")
	fl.DurationVar(&delay, "delay", 0, "hold the answer back this long")
	fl.BoolVar(&f.DropConnection, "drop", false, "close the connection without an answer")
	fl.StringVar(&f.Body, "body", "", "answer this body instead of an envelope")
	fl.StringVar(&f.ContentType, "content-type", "", "the Content-Type of --body")
	fl.IntVar(&f.Times, "times", 0, "how many requests it affects (0: all, until cleared)")
	fl.BoolVar(&f.AfterHandling, "after-handling", false, "let the request take effect first, then answer with the fault")
	sub("clear-faults", "Remove every injected fault", func(cmd *cobra.Command) error {
		return post(cmd, "/faults/clear", map[string]any{})
	})

	var fastPlay bool
	c = &cobra.Command{Use: "scenario FILE", Short: "Play a scenario (YAML) into the running fake, one JSON line per act",
		Long: `scenario plays a scenario into the running fake through its control API and
prints one JSON line per act (its time, step and answer).

FILE is a scenario: YAML with a version and steps, each a control act (do: a
path such as card/tap, with: its body) at an offset on the fake's clock (at:),
optionally repeated (every:, for:); examples/scenarios has three.

With --fast the fake's clock is advanced to each act and stays there: the
running fake is ahead of the wall clock for good (the fake has no way back
but a restart, or POST /_fake/v1/reset, which also resets the site).`,
		Args: cobra.ExactArgs(1), SilenceUsage: true, SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if wd := getenv("PWD"); wd != "" && !filepath.IsAbs(path) {
				path = filepath.Join(wd, path) // the environment's directory (a test's)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return usageErrorf("%v", err)
			}
			sc, err := ParseScenario(args[0], b)
			if err != nil {
				return err
			}
			cl, err := connect()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if tio.Print != nil {
				out = &lineWriter{w: out, print: tio.Print}
			}
			return cl.Play(cmd.Context(), sc, fastPlay, out)
		}}
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	c.Flags().BoolVar(&fastPlay, "fast", false, "play as fast as possible, advancing the fake's clock to each act (it stays ahead once the play ends)")
	cmd.AddCommand(c)

	var site string
	c = sub("reset", "Reset the site to the demo or to an empty one (the token stays)", func(cmd *cobra.Command) error {
		return post(cmd, "/reset", map[string]string{"site": site})
	})
	c.Flags().StringVar(&site, "site", "demo", "demo or empty")
	examples := map[string]string{
		"tap-card":     `access fake trigger tap-card --reader "UA Reader Main" --card 100000`,
		"fail-tap":     `access fake trigger fail-tap --reader "UA Reader Main" --code CODE_CREDS_NFC_CARD_INVALID`,
		"doorbell":     "access fake trigger doorbell\n  access fake trigger doorbell --device \"UA Intercom Main\" --cancel",
		"door-open":    `access fake trigger door-open --door "Main entrance" --hold 90s`,
		"door-close":   `access fake trigger door-close --door "Main entrance"`,
		"exit-button":  `access fake trigger exit-button --door "Main entrance"`,
		"device":       `access fake trigger device --device "UA Intercom Main" --offline`,
		"emergency":    "access fake trigger emergency --mode lockdown\n  access fake trigger emergency --mode none",
		"advance":      "access fake trigger advance --by 5m",
		"fault":        "access fake trigger fault --status 503 --times 3\n  access fake trigger fault --op Doors.Unlock --status 500 --after-handling --times 1",
		"clear-faults": "access fake trigger clear-faults",
		"restart":      "access fake trigger restart\n  access fake trigger restart --bad-gateway 10s --unauthorized 5s",
		"scenario":     "access fake trigger scenario examples/scenarios/visitor-day.yaml --fast",
		"reset":        "access fake trigger reset --site empty",
	}
	for _, c := range cmd.Commands() {
		c.Example = "  " + examples[c.Name()]
	}
	cmd.Example = "  " + examples["tap-card"] + "\n  " + examples["door-open"]
	return cmd
}

// printIndented writes a JSON answer indented, as it is when it is not
// JSON.
func printIndented(w io.Writer, answer json.RawMessage) error {
	var b bytes.Buffer
	if json.Indent(&b, answer, "", "  ") != nil {
		b.Reset()
		b.Write(answer)
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// lineWriter hands each write, one JSON line of a scenario's acts, to
// print.
type lineWriter struct {
	w     io.Writer
	print func(io.Writer, json.RawMessage, bool) error
}

func (l *lineWriter) Write(p []byte) (int, error) {
	if err := l.print(l.w, json.RawMessage(bytes.TrimSpace(p)), true); err != nil {
		return 0, err
	}
	return len(p), nil
}

func must(c *cobra.Command, names ...string) {
	for _, n := range names {
		_ = c.MarkFlagRequired(n)
	}
}
