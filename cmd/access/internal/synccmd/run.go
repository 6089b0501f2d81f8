package synccmd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
	"github.com/access-dev/access/dirsync/syncconfig"
	"github.com/access-dev/access/dirsync/syncmetrics"
	"github.com/access-dev/access/site"
)

// swap is an http.Handler replaced at each reload; 503 before the first.
type swap struct{ h atomic.Pointer[http.Handler] }

func (s *swap) set(h http.Handler) { s.h.Store(&h) }

func (s *swap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := s.h.Load()
	if h == nil {
		http.Error(w, "starting", http.StatusServiceUnavailable)
		return
	}
	(*h).ServeHTTP(w, r)
}

// generation is one configuration at work: its sources, evidence log and
// runner, until the next reload or the end.
type generation struct {
	opened   *syncconfig.Opened
	evidence *dirsync.EvidenceLog
	runner   *dirsync.Runner
	cancel   context.CancelFunc
	done     chan struct{}
	watchers sync.WaitGroup // the CSV sources' Watch
}

// stop ends the runner (after its run in progress) and closes what the
// generation opened.
func (g *generation) stop() {
	g.cancel()
	<-g.done
	g.watchers.Wait()
	if g.evidence != nil {
		_ = g.evidence.Close()
	}
	_ = g.opened.Close()
}

// daemon is the long-running sync.
type daemon struct {
	f       *cmdutil.Factory
	o       *options
	scimH   swap
	metrics swap
	mu      sync.Mutex // the output's lines

	reentryErr string // the last re-entry check's error, said once
}

// errWriter writes the servers' error log (a TLS handshake that failed)
// on stderr between the sync's own lines.
type errWriter struct{ d *daemon }

func (w errWriter) Write(p []byte) (int, error) {
	w.d.mu.Lock()
	defer w.d.mu.Unlock()
	return w.d.f.ErrOut.Write(p)
}

func (d *daemon) logf(format string, a ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.f.ErrOut, "sync: "+format+"\n", a...)
}

// start opens cfg's sources and evidence log and starts its runner.
func (d *daemon) start(ctx context.Context, cfg *syncconfig.Config) (*generation, error) {
	if d.o.scimListen != "" && cfg.SCIMSource() == nil {
		return nil, cmdutil.UsageErrorf("--scim-listen: the configuration has no scim source")
	}
	var token string
	if d.o.scimListen != "" {
		var err error
		if token, err = cfg.SCIMToken(d.f.Getenv); err != nil {
			return nil, cmdutil.Exit(cmdutil.ExitUsage, err)
		}
	}
	client, err := d.f.Client()
	if err != nil {
		return nil, err
	}
	opened, err := openSources(cfg)
	if err != nil {
		return nil, err
	}
	g := &generation{opened: opened, done: make(chan struct{})}
	if cfg.Evidence != "" {
		if g.evidence, err = dirsync.OpenEvidence(cfg.Path(cfg.Evidence)); err != nil {
			_ = opened.Close()
			return nil, err
		}
	}
	var m *syncmetrics.Metrics
	g.runner, err = dirsync.NewRunner(client, dirsync.RunnerOptions{
		Sources:  opened.Sources,
		Interval: cfg.Interval,
		Apply:    &dirsync.ApplyOptions{Evidence: g.evidence},
		// With an evidence log, each run ends with the check of the door
		// openings since the last one: a leaver a door opened for after
		// their revocation is flagged in the log.
		CheckReentries: g.evidence != nil,
		OnRun: func(res dirsync.RunResult) {
			if m != nil {
				m.Observe(res)
			}
			d.report(res)
		},
	})
	if err == nil && d.o.metricsListen != "" {
		reg := prometheus.NewPedanticRegistry()
		if m, err = syncmetrics.New(reg, g.runner); err == nil {
			d.metrics.set(syncmetrics.Handler(reg, g.runner))
		}
	}
	if err == nil && opened.Store != nil && token != "" {
		var h *scim.Handler
		if h, err = scim.NewHandler(opened.Store, scim.Config{Token: token, MaxBodyBytes: cfg.SCIMSource().SCIM.MaxBodyBytes}); err == nil {
			d.scimH.set(h)
		}
	}
	if err != nil {
		if g.evidence != nil {
			_ = g.evidence.Close()
		}
		_ = opened.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	g.cancel = cancel
	for _, cs := range opened.CSV {
		g.watchers.Add(1)
		go func() { defer g.watchers.Done(); _ = cs.Watch(rctx) }()
	}
	go func() {
		defer close(g.done)
		_ = g.runner.Run(rctx)
	}()
	return g, nil
}

// report prints a run: a line per evidence record on stdout, and on stderr
// what stopped it (a failed source, a guard) or what it did.
func (d *daemon) report(res dirsync.RunResult) {
	d.mu.Lock()
	if res.Report != nil {
		writeRecords(d.f.Out, res.Report.Records)
	}
	for _, r := range res.Reentries {
		line := fmt.Sprintf("%-7s %s %s %s", r.Status, r.Action, r.Key, r.Name)
		if r.Door != "" {
			line += ": " + r.Door
		}
		if r.Opened != nil {
			line += " at " + r.Opened.UTC().Format(time.RFC3339)
		}
		fmt.Fprintln(d.f.Out, line)
	}
	reentryErr := ""
	if res.ReentryErr != nil && !errors.Is(res.ReentryErr, context.Canceled) {
		reentryErr = strings.Join(strings.Fields(res.ReentryErr.Error()), " ")
	}
	changed := reentryErr != d.reentryErr
	d.reentryErr = reentryErr
	d.mu.Unlock()
	if changed && reentryErr != "" {
		d.logf("%s: the check of door openings after revocations failed (said again only when it changes): %s", res.Source, reentryErr)
	}
	var ge *site.GuardError
	switch {
	case res.Err != nil && errors.Is(res.Err, context.Canceled):
	case errors.Is(res.Err, dirsync.ErrHeld):
		d.logf("%s (%s): held since its guard tripped, nothing applied: raise the source's guard in %s and send SIGHUP", res.Source, res.Trigger, d.o.config)
	case errors.As(res.Err, &ge):
		d.logf("%s (%s): %v; the source is held until its guard is raised in %s and SIGHUP reloads it", res.Source, res.Trigger, guardError(res.Source, ge), d.o.config)
	case res.Err != nil:
		d.logf("%s (%s): %s", res.Source, res.Trigger, strings.Join(strings.Fields(res.Err.Error()), " "))
	case res.Report != nil:
		r := res.Report
		d.logf("%s (%s): %d deactivated, %d reactivated, %d credentials revoked, %d failed%s", res.Source, res.Trigger, r.Deactivated, r.Reactivated, r.Revoked, r.Failed, foundDone(r))
	case res.Snapshot != nil:
		d.logf("%s (%s): no change; %s", res.Source, res.Trigger, res.Snapshot.Summary())
	}
}

// listen opens a listener; with mustBeSafe and no TLS files, only on a
// loopback address (checked before anything is bound).
func listen(addr, flag string, tlsFiles []string, mustBeSafe bool) (net.Listener, error) {
	if mustBeSafe && len(tlsFiles) == 0 && !loopback(addr) {
		return nil, cmdutil.UsageErrorf("%s %s: the bearer token would cross the network in clear: give --tls-cert and --tls-key, or a loopback address behind your TLS proxy", flag, addr)
	}
	var cfg *tls.Config
	if len(tlsFiles) == 2 {
		cert, err := tls.LoadX509KeyPair(tlsFiles[0], tlsFiles[1])
		if err != nil {
			return nil, cmdutil.UsageErrorf("--tls-cert/--tls-key: %v", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s %s: %v", flag, addr, err)
	}
	if cfg != nil {
		return tls.NewListener(ln, cfg), nil
	}
	return ln, nil
}

// loopback reports whether addr's host is a loopback address or
// localhost.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runLong runs until ctx ends: every source at the interval, a push at
// once, a reload at each SIGHUP.
func runLong(ctx context.Context, f *cmdutil.Factory, o *options, cfg *syncconfig.Config) error {
	d := &daemon{f: f, o: o}
	hup, release := o.hangup, func() {}
	if hup == nil {
		hup, release = claimHangup()
	}
	defer release()

	var servers []*http.Server
	served := make(chan error, 2)
	serve := func(ln net.Listener, h http.Handler) {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(errWriter{d}, "sync: ", 0)}
		servers = append(servers, srv)
		go func() { served <- srv.Serve(ln) }()
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, s := range servers {
			_ = s.Shutdown(sctx)
		}
	}()

	g, err := d.start(ctx, cfg)
	if err != nil {
		return err
	}
	var scimAddr, metricsAddr string
	if o.scimListen != "" {
		var files []string
		if o.tlsCert != "" {
			files = []string{o.tlsCert, o.tlsKey}
		}
		ln, err := listen(o.scimListen, "--scim-listen", files, true)
		if err != nil {
			g.stop()
			return err
		}
		scheme := "http"
		if files != nil {
			scheme = "https"
		}
		scimAddr = ln.Addr().String()
		serve(ln, &d.scimH)
		d.logf("SCIM at %s://%s%s", scheme, scimAddr, scim.Prefix)
	}
	if o.metricsListen != "" {
		ln, err := listen(o.metricsListen, "--metrics-listen", nil, false)
		if err != nil {
			g.stop()
			return err
		}
		metricsAddr = ln.Addr().String()
		serve(ln, &d.metrics)
		d.logf("metrics at http://%s/metrics, health at /healthz", metricsAddr)
	}
	d.logf("%d source(s); every %s, pushes at once; SIGHUP reloads %s", len(cfg.Sources), interval(cfg), o.config)
	if o.ready != nil {
		o.ready(scimAddr, metricsAddr)
	}
	for {
		select {
		case <-ctx.Done():
			g.stop()
			d.logf("stopped")
			return nil
		case err := <-served:
			g.stop()
			return err
		case <-hup:
			next, err := loadConfig(f, o.config)
			if err != nil {
				d.logf("reload refused, the running configuration is kept: %v", err)
				continue
			}
			// The store's lock goes with the old generation before the
			// new one opens it.
			g.stop()
			if g, err = d.start(ctx, next); err != nil {
				d.logf("reload failed (%v); the previous configuration is restored", err)
				if g, err = d.start(ctx, cfg); err != nil {
					return fmt.Errorf("the previous configuration cannot be restored: %w", err)
				}
				continue
			}
			cfg = next
			d.logf("reloaded %s: %d source(s)", o.config, len(cfg.Sources))
		}
	}
}

func interval(cfg *syncconfig.Config) time.Duration {
	if cfg.Interval > 0 {
		return cfg.Interval
	}
	return dirsync.DefaultInterval
}
