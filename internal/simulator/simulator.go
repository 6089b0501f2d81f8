// Package simulator is `access fake`: the fake controller of package
// accesstest served to other processes as a standalone console simulator,
// with a web console that plays the physical site, and state that
// survives restarts.
//
// The command is built by [NewCommand]; tests and benchmarks start the
// same simulator in their own process with [Start].
package simulator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/internal/atomicfile"
	"github.com/access-dev/access/internal/clierr"
)

// DefaultAddr is the address the simulator listens on by default: the
// console's own port, on loopback.
const DefaultAddr = "127.0.0.1:12445"

// DefaultSaveInterval is how often, at most, the state file is written
// while changes come in, with [Config.AsyncSave].
const DefaultSaveInterval = 100 * time.Millisecond

// Config is what `access fake` is started with; its zero value serves one
// empty site on [DefaultAddr] with a generated token and a self-signed
// certificate.
type Config struct {
	// Addr is host:port to listen on; port 0 picks a free port.
	Addr string
	// Token is the API token clients use; "" generates one.
	Token string
	// Permissions limits Token to these permission keys (e.g.
	// "view:space"); nil gives it every permission.
	Permissions []accesstest.Permission
	// Demo loads the demo site into a site that has no saved state.
	Demo bool
	// StatePath is the state file ("" keeps the state in memory). With
	// several sites, site i (from 2) uses StatePath + "." + i. A running
	// simulator holds an exclusive lock on each (StatePath + ".lock"); a
	// symbolic link is followed once, at start.
	StatePath string
	// SeedFrom is a seed folder (written by [Record]) the site starts
	// from; it is only read. Not with StatePath.
	SeedFrom string
	// AsyncSave answers writes before their change is saved, and saves
	// at most once per SaveInterval: faster, but a crash (kill -9, power
	// loss) can lose the changes of the last SaveInterval. By default a
	// write is answered only once its change is on disk (the file and
	// its directory synced), and a write whose save fails is answered
	// 503 and not acknowledged.
	AsyncSave bool
	// SaveInterval is, with AsyncSave, the longest a change waits to be
	// saved (DefaultSaveInterval when 0; at most 100 ms is sensible).
	SaveInterval time.Duration
	// LogSaves, when set, gets a line for every save of the state file
	// with how long it took.
	LogSaves io.Writer
	// CertFile and KeyFile are a PEM certificate and key; both empty
	// makes a self-signed certificate, which with StatePath is kept
	// beside the state file (StatePath + ".tls.pem", mode 0600) and
	// presented again after a restart.
	CertFile, KeyFile string
	// CertOut, when set, is where the certificate is written in PEM form,
	// for clients that trust a CA file (curl --cacert, Node's ca).
	CertOut string
	// EnvFile, when set, is where Run writes the export lines of
	// PrintEnv, with mode 0600 (they hold the token), removed when the
	// simulator stops.
	EnvFile string
	// Sites is how many consoles to simulate (0 means 1), each on its own
	// port: Addr's port and the ports after it (free ports for port 0).
	Sites int
	// UIPassword protects the web console with HTTP basic auth (any user
	// name). NoUI serves no web console. One of them is required on an
	// address that is not loopback.
	UIPassword string
	NoUI       bool
	// WebhookRetries is how many times a failed webhook delivery (an
	// error or an answer other than 2xx) is retried, 0 to
	// MaxWebhookRetries, after accesstest.DefaultWebhookRetryBackoff,
	// doubling (accesstest.WithWebhookRetries). The vendor documents no
	// retry policy; 0, the default, makes one attempt.
	WebhookRetries int
	// OlderProxySocket acts as older console firmware: through the proxy
	// layout the notifications socket answers only at the older path
	// (accesstest.WithOlderProxySocket).
	OlderProxySocket bool
	// WithoutAccess acts as a UniFi OS console without Access: the proxy
	// layout answers with an HTML page, the direct one not at all
	// (accesstest.WithoutAccess).
	WithoutAccess bool
	// Seed, with HasSeed, draws every id, token and secret the site
	// generates from a generator seeded with it (accesstest.WithSeed):
	// with ClockStart and FrozenClock a scenario replays byte for byte.
	Seed    uint64
	HasSeed bool
	// ClockStart, when set, is the site's time at start. FrozenClock
	// keeps it there until the clock is advanced (a scenario played
	// --fast); otherwise it runs on from ClockStart.
	ClockStart  time.Time
	FrozenClock bool
	// Scenario, when set, is played on every site once it serves (Run),
	// Fast: as fast as possible, the clock advanced to each act. Its
	// lines (one per act) go to ScenarioLog (none when nil).
	Scenario    *Scenario
	Fast        bool
	ScenarioLog io.Writer
	// Replay, when set, is a capture (package capture) every site
	// replays (accesstest.WithCapture): its answers for the requests it
	// holds, and, from the first subscription to the notifications stream
	// (at once when it has no frames), its frames and webhook deliveries
	// at their recorded offsets divided by ReplaySpeed (1 when 0;
	// math.Inf(1) for as fast as possible). A line on how it went goes to
	// ScenarioLog.
	Replay      *capture.Capture
	ReplaySpeed float64
	// ControlRemote serves the control API (ControlPrefix) on an address
	// that is not loopback; without it the API answers 403 there.
	ControlRemote bool
	// Retention bounds the system log, the webhook deliveries and the
	// request journal each site keeps, as a console bounds its history;
	// nil means accesstest.DefaultRetention(). A zero field keeps
	// everything of its kind.
	Retention *accesstest.Retention

	// failSave, when set, is called before each save of a state file:
	// an error fails that save (the tests' seam for a failing disk).
	failSave func() error
	// eventsGate, when set, is called with the request's context before
	// the page's event stream answers (the tests' seam for a slow one).
	eventsGate func(ctx context.Context)
}

// MaxWebhookRetries is the most retries [Config.WebhookRetries] allows.
const MaxWebhookRetries = 10

// String describes the configuration without the token and the
// console's password, so that printing a Config (%v, %+v, %#v) or logging
// it leaks neither.
func (c Config) String() string {
	redact := func(s string) string {
		if s == "" {
			return `""`
		}
		return "REDACTED"
	}
	return fmt.Sprintf("simulator.Config{Addr:%q Token:%s Permissions:%v Demo:%t StatePath:%q AsyncSave:%t SaveInterval:%s CertFile:%q KeyFile:%q CertOut:%q Sites:%d UIPassword:%s NoUI:%t WebhookRetries:%d ControlRemote:%t}",
		c.Addr, redact(c.Token), c.Permissions, c.Demo, c.StatePath, c.AsyncSave, c.SaveInterval, c.CertFile, c.KeyFile, c.CertOut, c.Sites, redact(c.UIPassword), c.NoUI, c.WebhookRetries, c.ControlRemote)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// UsageError is a problem with how the simulator was started (a flag, the
// address, the state file). It prints as one line, and the command exits
// with status 2. It is the command line's usage error (internal/clierr).
type UsageError = clierr.UsageError

// usageErrorf is clierr.UsageErrorf, the one usage error of the command
// line and the simulator.
func usageErrorf(format string, args ...any) error { return clierr.UsageErrorf(format, args...) }

// Site is one simulated console.
type Site struct {
	// Fake is the fake controller; its methods act on the site as the
	// web console's buttons do.
	Fake *accesstest.Server
	// URL is the base URL clients use, e.g. https://127.0.0.1:12445.
	URL string
	// Fingerprint is the SHA-256 fingerprint (hex) of the certificate,
	// for access.WithPinnedCertificate; PublicKeyPin is curl's
	// --pinnedpubkey form.
	Fingerprint  string
	PublicKeyPin string
	// CertPEM is the certificate, for curl --cacert.
	CertPEM []byte
	// StatePath is the site's state file (absolute, its links
	// followed), or "".
	StatePath string

	token string
	page  string // the page credential (PageCookie)
	ctl   *control
	ln    net.Listener
	srv   *http.Server
	ui    *console
	saver *saver
	done  chan struct{}
}

// Token returns the API token of the site. It is kept out of the Site's
// printed form.
func (st *Site) Token() string { return st.token }

// String describes the site without its token.
func (st Site) String() string { return "simulator.Site(" + st.URL + ")" }

// GoString is String, for %#v.
func (st Site) GoString() string { return st.String() }

// Simulator is a running `access fake`.
type Simulator struct {
	// Sites are the simulated consoles, in port order.
	Sites   []*Site
	certOut string
	ownCert bool         // the certificate is the simulator's own (self-signed), not --cert
	locks   []*stateLock // of the state files, held until Close
	once    sync.Once
	err     error
}

// Start validates cfg, locks every state file, binds every site's
// listener, loads any saved state and starts serving every site. A
// refused start (a usage error) writes no file but a state file's lock
// file: everything is bound, read and checked first. Close it when done.
func Start(cfg Config) (*Simulator, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Sites <= 0 {
		cfg.Sites = 1
	}
	if cfg.SaveInterval <= 0 {
		cfg.SaveInterval = DefaultSaveInterval
	}
	host, portStr, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, usageErrorf("--addr %q: %v", cfg.Addr, err)
	}
	if host == "" { // ":0", ":12445": the port on loopback, like the default
		host = "127.0.0.1"
		cfg.Addr = net.JoinHostPort(host, portStr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, usageErrorf("--addr %q: bad port", cfg.Addr)
	}
	if port != 0 && port+cfg.Sites-1 > 65535 {
		return nil, usageErrorf("--sites %d: ports past 65535", cfg.Sites)
	}
	if !isLoopback(host) && !cfg.NoUI && cfg.UIPassword == "" {
		return nil, usageErrorf("--addr %s is not a loopback address: protect the web console with a password ($ACCESS_FAKE_UI_PASSWORD or --ui-password-file), or give --no-ui", cfg.Addr)
	}
	if cfg.WebhookRetries < 0 || cfg.WebhookRetries > MaxWebhookRetries {
		return nil, usageErrorf("--webhook-retries %d: give 0 to %d", cfg.WebhookRetries, MaxWebhookRetries)
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, usageErrorf("--cert and --key go together")
	}
	if cfg.SeedFrom != "" && cfg.StatePath != "" {
		return nil, usageErrorf("--seed-from and --state do not go together: start from the seed without --state")
	}
	// Each state file is resolved (its symbolic links followed, once)
	// and locked before anything else touches it: a second process
	// given the same file stops here.
	sim := &Simulator{certOut: cfg.CertOut, ownCert: cfg.CertFile == ""}
	if cfg.CertOut != "" {
		// ACCESS_CACERT names it absolutely: a client sourcing the
		// environment file runs from any directory.
		if abs, err := filepath.Abs(cfg.CertOut); err == nil {
			sim.certOut = abs
		}
	}
	statePaths := make([]string, cfg.Sites)
	if cfg.StatePath != "" {
		for i := range statePaths {
			p := cfg.StatePath
			if i > 0 {
				p += "." + strconv.Itoa(i+1)
			}
			if p, err = resolveStatePath(p); err == nil {
				var l *stateLock
				if l, err = lockState(p); err == nil {
					sim.locks = append(sim.locks, l)
				}
			}
			if err != nil {
				sim.Close()
				return nil, err
			}
			statePaths[i] = p
		}
	}
	var cert tls.Certificate
	keepCert := false // a new self-signed certificate to keep beside the state
	switch {
	case cfg.CertFile != "":
		cert, err = loadCert(cfg.CertFile, cfg.KeyFile)
	case cfg.StatePath != "":
		cert, keepCert, err = keptCert(statePaths[0], host)
	default:
		cert, err = selfSigned(host)
	}
	if err != nil {
		sim.Close()
		return nil, err
	}
	// Bad input overwrites nothing: every listener is bound and every
	// state file read and checked before any file is written (the
	// certificate, a state file's first save).
	for i := range cfg.Sites {
		p := 0
		if port != 0 {
			p = port + i
		}
		statePath := statePaths[i]
		addr := net.JoinHostPort(host, strconv.Itoa(p))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			sim.Close()
			hint := ""
			if errors.Is(err, syscall.EADDRINUSE) {
				hint = fmt.Sprintf(" (another process, perhaps an access fake, holds it: give --addr %s for a free port, or stop the other)", net.JoinHostPort(host, "0"))
			}
			return nil, usageErrorf("cannot listen on %s: %v%s", addr, errors.Unwrap(err), hint)
		}
		sim.Sites = append(sim.Sites, &Site{StatePath: statePath, ln: ln, done: make(chan struct{}),
			URL:         "https://" + urlHost(ln.Addr().(*net.TCPAddr), addr),
			Fingerprint: fingerprint(cert), PublicKeyPin: publicKeyPin(cert), CertPEM: certPEM(cert)})
	}
	for _, st := range sim.Sites {
		if err := st.load(cfg); err != nil {
			sim.Close()
			return nil, err
		}
	}
	for _, st := range sim.Sites {
		if err := checkWritable(st.StatePath); err != nil {
			sim.Close()
			return nil, err
		}
	}
	if keepCert {
		if err := writeKeptCert(statePaths[0], cert); err != nil {
			sim.Close()
			return nil, err
		}
	}
	if cfg.CertOut != "" {
		if err := writeCertOut(cfg.CertOut, cert); err != nil {
			sim.Close()
			return nil, err
		}
	}
	for _, st := range sim.Sites {
		if err := st.serve(cfg, cert); err != nil {
			sim.Close()
			return nil, err
		}
	}
	return sim, nil
}

// load makes the site's fake, loads its state file (reading only) and
// sets the clients' token; on an error the fake is left for Close.
func (st *Site) load(cfg Config) error {
	// The fake's own token (all permissions) serves the web console's
	// subscription; it is the clients' token too unless --permissions
	// limits theirs. It is saved with the state, so that a restart
	// without --token keeps the clients' token.
	own := cfg.Token
	if own == "" || cfg.Permissions != nil {
		own = accesstest.NewToken()
	}
	// Live timers: a doorbell times out, a door relocks, a lock rule ends
	// when it falls due, for subscribers, with no request needed.
	keep := accesstest.DefaultRetention()
	if cfg.Retention != nil {
		keep = *cfg.Retention
	}
	opts := []accesstest.Option{accesstest.WithToken(own), accesstest.WithLiveTimers(),
		accesstest.WithWebhookRetries(cfg.WebhookRetries, 0), accesstest.WithRetention(keep)}
	if cfg.OlderProxySocket {
		opts = append(opts, accesstest.WithOlderProxySocket())
	}
	if cfg.WithoutAccess {
		opts = append(opts, accesstest.WithoutAccess())
	}
	if st.StatePath != "" && !cfg.AsyncSave {
		// A write is answered once its change is saved (st.saver is
		// made before the site serves).
		opts = append(opts, accesstest.WithCommit(func(ctx context.Context) error { return st.saver.commit(ctx) }))
	}
	if cfg.HasSeed {
		opts = append(opts, accesstest.WithSeed(cfg.Seed))
	}
	if start := cfg.ClockStart; !start.IsZero() {
		began := time.Now()
		clock := func() time.Time { return start.Add(time.Since(began)) }
		if cfg.FrozenClock {
			clock = func() time.Time { return start }
		}
		opts = append(opts, accesstest.WithClock(clock))
	}
	if cfg.Replay != nil {
		opts = append(opts, accesstest.WithCapture(cfg.Replay))
	}
	fake := accesstest.NewServer(opts...)
	st.Fake = fake
	loaded := false
	if st.StatePath != "" {
		var err error
		if loaded, err = loadState(fake, st.StatePath); err != nil {
			return err
		}
	}
	if cfg.SeedFrom != "" {
		if err := loadSeed(fake, cfg.SeedFrom); err != nil {
			return err
		}
		loaded = true
	}
	if !loaded && cfg.Demo {
		fake.LoadDemoData()
	}
	switch st.token = cfg.Token; {
	case cfg.Permissions == nil && st.token == "":
		st.token = fake.Token()
	case cfg.Permissions == nil:
		fake.AddToken(st.token, accesstest.AllPermissions()...)
	case st.token == fake.Token():
		return usageErrorf("ACCESS_FAKE_TOKEN or --token-file: with --permissions give a token other than the one the state file %s keeps for the fake itself", st.StatePath)
	default:
		if st.token == "" {
			st.token = accesstest.NewToken()
		}
		fake.AddToken(st.token, cfg.Permissions...)
	}
	return nil
}

// serve starts saving the site's state (its first save creates or
// rewrites the file) and serving on its listener.
func (st *Site) serve(cfg Config, cert tls.Certificate) error {
	fake := st.Fake
	if st.StatePath != "" {
		var err error
		if st.saver, err = newSaver(fake, st.StatePath, cfg.SaveInterval, !cfg.AsyncSave, cfg.LogSaves, cfg.failSave); err != nil {
			return err
		}
	}
	api := fake.Handler()
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	mux.Handle("/proxy/access/", api) // the UniFi OS proxy layout (X-API-KEY)
	st.page = accesstest.NewToken()   // never seeded: the page credential is a secret
	var hosts *hostNames              // off loopback, the names a LAN gives the machine are not known
	if host, _, _ := net.SplitHostPort(cfg.Addr); isLoopback(host) {
		hosts = servedNames(cert.Leaf, host)
	}
	st.ctl = newControl(fake, st.page, controlAllowed(cfg.Addr, cfg.ControlRemote), hosts, st.token, fake.Token())
	mux.Handle(ControlPrefix+"/", st.durable(st.ctl))
	if cfg.NoUI {
		mux.Handle("/", api)
	} else {
		st.ui = newConsole(fake, cfg.UIPassword, cfg.WebhookRetries, hosts)
		st.ui.eventsGate = cfg.eventsGate
		if st.saver != nil {
			unsaved := st.saver.failing
			st.ui.unsaved.Store(&unsaved)
		}
		mux.Handle("/", withPageCredential(st.ui, st.page))
	}
	st.srv = &http.Server{
		Handler: mux,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"}, // the WebSocket upgrade needs HTTP/1.1
		},
		// HTTP/2 off: an empty map keeps net/http from adding it.
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          discardLogger(),
	}
	go func() {
		defer close(st.done)
		_ = st.srv.ServeTLS(st.ln, "", "")
	}()
	return nil
}

// withPageCredential sets the page credential cookie when the web
// console's page is served (after the console's own checks: a page
// refused by its password sets none).
func withPageCredential(h http.Handler, page string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			w = &cookieWriter{ResponseWriter: w, cookie: &http.Cookie{Name: PageCookie, Value: page, Path: ControlPrefix + "/",
				HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode}}
		}
		h.ServeHTTP(w, r)
	})
}

// cookieWriter adds its cookie to a 2xx answer.
type cookieWriter struct {
	http.ResponseWriter
	cookie *http.Cookie
	wrote  bool
}

func (w *cookieWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 && code < 300 {
		http.SetCookie(w.ResponseWriter, w.cookie)
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *cookieWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// controlKeepsState names the control API's POSTs that change nothing
// the state file holds: a snapshot, faults and a console restart (not
// state). durable
// serves them as they are; openapi.json documents the 503
// state_not_saved for every other POST (TestControlDocumentsStateNotSaved).
var controlKeepsState = map[string]bool{"/snapshot": true, "/faults": true, "/faults/clear": true, "/console/restart": true}

// durable makes a POST of the control API (an act) answered only once
// the changes it made are saved, as accesstest.WithCommit does for the
// developer API: its answer is held, and when the save fails the answer
// is a 503 instead (code state_not_saved). Without durable saves h is
// served as it is, and so are the POSTs of controlKeepsState, which
// never wait for the changes others made meanwhile.
func (st *Site) durable(h http.Handler) http.Handler {
	sv := st.saver
	if sv == nil || !sv.durable {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || controlKeepsState[strings.TrimPrefix(r.URL.Path, ControlPrefix)] {
			h.ServeHTTP(w, r)
			return
		}
		before := sv.changes.Load()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if sv.changes.Load() != before {
			if err := sv.commit(r.Context()); err != nil {
				controlError(w, http.StatusServiceUnavailable, "state_not_saved", "the change could not be saved; it is not acknowledged")
				return
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// urlHost is the host:port of the site's URL: the address asked for with
// the port actually bound, and 127.0.0.1 for an unspecified host.
func urlHost(bound *net.TCPAddr, asked string) string {
	host, _, _ := net.SplitHostPort(asked)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(bound.Port))
}

// Close stops serving, saves the state a last time and closes the fakes.
// It also undoes a start that was refused part of the way (listeners
// bound, fakes made, nothing saved).
// It returns the errors of the final saves, joined.
func (sim *Simulator) Close() error {
	sim.once.Do(func() {
		var errs []error
		for _, st := range sim.Sites {
			if st.ui != nil {
				st.ui.close()
			}
			if st.srv != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				if err := st.srv.Shutdown(ctx); err != nil {
					_ = st.srv.Close()
				}
				cancel()
				<-st.done
			} else {
				_ = st.ln.Close() // a start that was refused: never served
			}
			if st.saver != nil {
				errs = append(errs, st.saver.close())
			}
			if st.Fake != nil {
				st.Fake.Close()
			}
		}
		for _, l := range sim.locks {
			l.Unlock()
		}
		sim.err = errors.Join(errs...)
	})
	return sim.err
}

// Run starts the simulator, prints where it serves to out (or, with
// printEnv, export lines to source), and serves until ctx ends; then it
// saves the state and returns.
func Run(ctx context.Context, cfg Config, printEnv bool, out io.Writer) error {
	sim, err := Start(cfg)
	if err != nil {
		return err
	}
	switch {
	case cfg.EnvFile != "":
		var b strings.Builder
		sim.PrintEnv(&b)
		if err := writePrivate(cfg.EnvFile, b.String()); err != nil {
			_ = sim.Close()
			return usageErrorf("--env-file %s: %v", cfg.EnvFile, err)
		}
		// The file holds the token and is only good while the
		// simulator serves: it goes when it stops.
		defer os.Remove(cfg.EnvFile)
		for _, st := range sim.Sites {
			// What PrintInfo prints, all but the token (it is in the file).
			fmt.Fprintf(out, "access fake: serving the developer API at %s/api/v1/developer\n", st.URL)
			fmt.Fprintf(out, "  ACCESS_FINGERPRINT=%s\n", st.Fingerprint)
			if !cfg.NoUI {
				fmt.Fprintf(out, "  web console: %s/\n", st.URL)
			}
		}
		fmt.Fprintf(out, "  environment (token included) in %s, mode 0600: . %s\n", cfg.EnvFile, shellQuote(cfg.EnvFile))
	case printEnv:
		sim.PrintEnv(out)
	default:
		sim.PrintInfo(out, !cfg.NoUI)
	}
	if cfg.Scenario != nil {
		log := cfg.ScenarioLog
		if log == nil {
			log = io.Discard
		}
		for i, st := range sim.Sites {
			go func() {
				err := st.Play(ctx, cfg.Scenario, cfg.Fast, log) // a line per act, as it is played
				status := "played"
				if err != nil && ctx.Err() == nil {
					status = "stopped: " + err.Error()
				}
				fmt.Fprintf(log, "scenario %q (site %d) %s\n", cfg.Scenario.Name, i+1, status)
			}()
		}
	}
	if cfg.Replay != nil {
		log := cfg.ScenarioLog
		if log == nil {
			log = io.Discard
		}
		speed := cfg.ReplaySpeed
		if speed == 0 {
			speed = 1
		}
		for i, st := range sim.Sites {
			go func() {
				if len(cfg.Replay.Frames) > 0 {
					if err := st.Fake.WaitNotificationClients(ctx, 1); err != nil {
						return
					}
				}
				rs, err := st.Fake.PlayCapture(ctx, speed)
				status := "played"
				if err != nil && ctx.Err() == nil {
					status = "stopped: " + err.Error()
				}
				fmt.Fprintf(log, "replay (site %d) %s: %d frames, %d webhook deliveries\n", i+1, status, rs.Frames, rs.Deliveries)
			}()
		}
	}
	<-ctx.Done()
	return sim.Close()
}

// writePrivate writes content to path with mode 0600, atomically
// (atomicfile), so that a reader waiting for the file sees all of it or
// nothing, and a file that was readable by others no longer is.
func writePrivate(path, content string) error {
	return atomicfile.WriteFile(path, []byte(content), 0o600)
}

// withoutTempName is err, or its cause alone when it is atomicfile's
// error making the temporary file, whose random name means nothing to
// the user: "permission denied", not "open dir/.f.tmp-123: permission
// denied".
// writeCertOut writes the certificate's PEM to path (--cert-out), mode
// 0644, whole: a script that waits for the file to appear and hands it to
// curl --cacert never reads part of it, and it survives a crash once the
// fake serves. An error names the flag and the path, and its cause.
func writeCertOut(path string, cert tls.Certificate) error {
	err := atomicfile.WriteFile(path, certPEM(cert), 0o644)
	if err == nil {
		return nil
	}
	err = withoutTempName(err)
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return usageErrorf("--cert-out %s: %v", path, err)
}

func withoutTempName(err error) error {
	var ce *atomicfile.CreateError
	if errors.As(err, &ce) {
		if cause := errors.Unwrap(ce.Err); cause != nil {
			return cause
		}
	}
	return err
}

// PrintEnv writes the sites as shell export lines: ACCESS_URL,
// ACCESS_PROXY_URL (the same site through the UniFi OS proxy layout, for
// proxy mode), ACCESS_TOKEN, ACCESS_FINGERPRINT (access.WithPinnedCertificate and the
// access command) and ACCESS_PUBKEY_PIN (curl --pinnedpubkey) for the
// first site; the same names with _2, _3, ... for the others; and
// ACCESS_CACERT, the certificate file's absolute path, when Config.CertOut
// is set.
func (sim *Simulator) PrintEnv(w io.Writer) {
	var b strings.Builder
	for i, st := range sim.Sites {
		sfx := ""
		if i > 0 {
			sfx = "_" + strconv.Itoa(i+1)
		}
		fmt.Fprintf(&b, "export ACCESS_URL%s=%s\n", sfx, shellQuote(st.URL))
		fmt.Fprintf(&b, "export ACCESS_PROXY_URL%s=%s\n", sfx, shellQuote(st.URL+access.ProxyPrefix))
		fmt.Fprintf(&b, "export ACCESS_TOKEN%s=%s\n", sfx, shellQuote(st.token))
		fmt.Fprintf(&b, "export ACCESS_FINGERPRINT%s=%s\n", sfx, shellQuote(st.Fingerprint))
		fmt.Fprintf(&b, "export ACCESS_PUBKEY_PIN%s=%s\n", sfx, shellQuote(st.PublicKeyPin))
	}
	if sim.certOut != "" {
		fmt.Fprintf(&b, "export ACCESS_CACERT=%s\n", shellQuote(sim.certOut))
	}
	_, _ = io.WriteString(w, b.String()) // one write: a reader polling the file sees all or nothing
}

// PrintInfo writes, for a person, where each site serves, its token and
// its certificate's fingerprint.
func (sim *Simulator) PrintInfo(w io.Writer, ui bool) {
	for i, st := range sim.Sites {
		if len(sim.Sites) > 1 {
			fmt.Fprintf(w, "site %d of %d\n", i+1, len(sim.Sites))
		}
		fmt.Fprintf(w, "access fake: serving the developer API at %s/api/v1/developer (Bearer)\n", st.URL)
		fmt.Fprintf(w, "  and through a UniFi OS console's proxy at %s%s (X-API-KEY)\n", st.URL, access.ProxyPrefix)
		fmt.Fprintf(w, "  ACCESS_URL=%s\n  ACCESS_TOKEN=%s\n  ACCESS_FINGERPRINT=%s\n  curl --pinnedpubkey %s\n", st.URL, st.token, st.Fingerprint, st.PublicKeyPin)
		if ui {
			fmt.Fprintf(w, "  web console: %s/\n", st.URL)
			if sim.ownCert {
				sim.printBrowserTrust(w)
			}
		}
		if st.StatePath != "" {
			fmt.Fprintf(w, "  state: %s\n", st.StatePath)
		}
	}
}

// printBrowserTrust tells a person why a browser warns about the web
// console's certificate (the simulator's own, self-signed) and how to
// trust it.
func (sim *Simulator) printBrowserTrust(w io.Writer) {
	file := "the file --cert-out FILE writes"
	if sim.certOut != "" {
		file = sim.certOut
	}
	fmt.Fprintf(w, "  a browser warns about its certificate, the fake's own (self-signed): check that the SHA-256\n"+
		"  fingerprint it shows is ACCESS_FINGERPRINT and accept it for this address, or trust %s\n"+
		"  (docs/simulator.md, \"The web console in a browser\")\n", file)
}

// ParsePermissions reads a comma-separated list of permission keys
// (view:space,edit:space,...); an unknown or empty key is a usage error.
func ParsePermissions(list string) ([]accesstest.Permission, error) {
	all := accesstest.AllPermissions()
	out := []accesstest.Permission{}
	for _, f := range strings.Split(list, ",") {
		p := accesstest.Permission(strings.TrimSpace(f))
		if !slices.Contains(all, p) {
			names := make([]string, len(all))
			for i, a := range all {
				names[i] = string(a)
			}
			return nil, usageErrorf("--permissions: unknown permission %q (known: %s)", p, strings.Join(names, ","))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
