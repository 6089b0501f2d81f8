// Package monitorcmd holds access monitor: its flags, the consoles it
// watches (one, or several profiles), the incident lines it prints, the
// /metrics and /healthz it serves and the --fake demo's scene. What it
// watches for, and how, is package monitor's (monitor/watch).
//
// It may import the standard library, cobra, Prometheus's client, the
// access module's public packages and the command line's machinery
// (internal/cmdutil, internal/output, internal/connect); never cmd/access
// nor another command package (TestLayering in cmd/access keeps that).
package monitorcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/monitor"
	"github.com/access-dev/access/monitor/watch"
)

// monitorFlags are the flags of access monitor.
type monitorFlags struct {
	listen                                       string
	heldOpen, unlockGrace, deviceOffline         time.Duration
	streamSilent, streamMute, pollEvery, usersEv time.Duration
	rate                                         float64
	burst, queue, count, events                  int
	forwardTo, secretFile                        string
	allProfiles                                  bool
}

// New returns access monitor, built on f.
func New(f *cmdutil.Factory) *cobra.Command {
	var mf monitorFlags
	c := &cobra.Command{
		Use:   "monitor",
		Short: "Watch a site: Prometheus metrics, incidents (held open, forced entry…) as JSON lines and webhooks",
		Long: `Watch one console, or several, until stopped (Ctrl-C, SIGTERM or SIGHUP end it
cleanly): subscribe to the notifications stream (reconnecting by itself), poll
what the stream does not carry (doors at start and after a gap, devices, the
emergency status, the users' statuses) within --rate requests per second, and
report:

  - metrics at http://--listen/metrics (Prometheus; every series has a console
    label; doors and devices by id, their names in access_door_info and
    access_device_info), and /healthz (200 when the stream and the polls work,
    503 otherwise, with the doors that have no position sensor);
  - incidents, as a JSON line each on stdout (text on a terminal), an
    incident.opened and later an incident.resolved line sharing one id:
      held_open            a door open longer than --held-open
      forced_entry         a door opened without an unlock within --unlock-grace before
      device_offline       a device offline longer than --device-offline
      emergency            a lockdown or evacuation, until it ends
      stream_silent        the stream down, or silent, longer than --stream-silent
      stream_mute          only unrecognised messages for longer than --stream-mute
      inactive_credential  a door opened for a user who is not ACTIVE
    held_open and forced_entry need a door position sensor: the doors without
    one are listed on start and in /healthz;
  - with --forward-to URL, each incident line as a webhook delivery signed as
    the console signs (verified by access.ConstructEvent) with the secret of
    $ACCESS_WEBHOOK_SECRET or --secret-file, through a bounded queue.

With --fake the demo site's server room is opened without an unlock and left
open, so that a forced entry and, after --held-open, a held-open door show.

--profile a,b watches those profiles of the config file, --all-profiles every
one; a console that is down is reported (access_console_up 0) while the others
are watched.

` + cmdutil.FactsHelp("Notifications.Subscribe, Doors.List, Devices.List, Doors.GetEmergency, Users.All", "view:device, view:space, view:user"),
		Example: "  access --fake monitor --listen 127.0.0.1:0 --held-open 2s --count 2",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runMonitor(c.Context(), f, mf)
		},
	}
	fl := c.Flags()
	fl.StringVar(&mf.listen, "listen", "127.0.0.1:9140", "the `ADDRESS` of /metrics and /healthz (another interface only when given)")
	fl.DurationVar(&mf.heldOpen, "held-open", monitor.DefaultHeldOpen, "a door open longer than this is held open")
	fl.DurationVar(&mf.unlockGrace, "unlock-grace", monitor.DefaultUnlockGrace, "an opening with no unlock within this before it is forced")
	fl.DurationVar(&mf.deviceOffline, "device-offline", monitor.DefaultDeviceOffline, "a device offline longer than this is an incident")
	fl.DurationVar(&mf.streamSilent, "stream-silent", monitor.DefaultStreamSilent, "the stream down or silent longer than this is an incident (more than the console's keepalive interval, about 5s)")
	fl.DurationVar(&mf.streamMute, "stream-mute", monitor.DefaultStreamMute, "only unrecognised messages for longer than this is an incident")
	fl.DurationVar(&mf.pollEvery, "poll-every", watch.DefaultPollEvery, "how often devices and the emergency status are polled")
	fl.DurationVar(&mf.usersEv, "users-every", watch.DefaultUsersEvery, "how often the users' statuses are polled")
	fl.Float64Var(&mf.rate, "rate", 2, "at most this many API requests per second per console")
	fl.IntVar(&mf.burst, "burst", 5, "API requests allowed at once before --rate paces them")
	fl.StringVar(&mf.forwardTo, "forward-to", "", "POST each incident line to `URL` as a signed webhook")
	fl.StringVar(&mf.secretFile, "secret-file", "", "read the webhook secret from `FILE` (default $ACCESS_WEBHOOK_SECRET)")
	fl.IntVar(&mf.queue, "queue", 1000, "webhook deliveries kept waiting at most (more are dropped and counted)")
	fl.BoolVar(&mf.allProfiles, "all-profiles", false, "watch every profile of the config file")
	fl.IntVar(&mf.count, "count", 0, "stop after N incident lines (0: run until stopped)")
	fl.IntVar(&mf.events, "events", 0, "stop after N notifications of the streams were handled (0: run until stopped)")
	return c
}

// monitored is one console the monitor watches.
type monitored struct {
	name string
	w    *watch.Watcher
	fwd  *watch.Forwarder
}

func runMonitor(ctx context.Context, f *cmdutil.Factory, mf monitorFlags) error {
	for name, d := range map[string]time.Duration{"--held-open": mf.heldOpen, "--unlock-grace": mf.unlockGrace, "--device-offline": mf.deviceOffline,
		"--stream-silent": mf.streamSilent, "--stream-mute": mf.streamMute, "--poll-every": mf.pollEvery, "--users-every": mf.usersEv} {
		if d <= 0 {
			return cmdutil.UsageErrorf("%s must be positive", name)
		}
	}
	if mf.count < 0 {
		return cmdutil.UsageErrorf("--count must not be negative")
	}
	if mf.events < 0 {
		return cmdutil.UsageErrorf("--events must not be negative")
	}
	if mf.rate <= 0 || mf.burst < 1 {
		return cmdutil.UsageErrorf("--rate must be positive and --burst at least 1")
	}
	var secret string
	if mf.forwardTo != "" {
		if !strings.HasPrefix(mf.forwardTo, "http://") && !strings.HasPrefix(mf.forwardTo, "https://") {
			return cmdutil.UsageErrorf("--forward-to %q: want an http:// or https:// URL", mf.forwardTo)
		}
		var err error
		if secret, err = webhookSecret(f, mf.secretFile); err != nil {
			return err
		}
	}
	consoles, err := f.Watched(mf.allProfiles)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	reg := prometheus.NewPedanticRegistry()
	out := &incidentWriter{out: f.Out, text: f.Format() == "table", count: mf.count, done: stop}
	notified := eventCounter(mf.events, func() {
		fmt.Fprintf(f.ErrOut, "monitor: %d notifications handled (--events)\n", mf.events)
		stop()
	})
	var watched []*monitored
	ready := make(chan struct{}, len(consoles))
	for _, nc := range consoles {
		creg := prometheus.WrapRegistererWith(prometheus.Labels{"console": nc.Name}, reg)
		m, err := watch.NewMetrics(creg)
		if err != nil {
			return err
		}
		mc := &monitored{name: nc.Name}
		if mf.forwardTo != "" {
			mc.fwd = watch.NewForwarder(mf.forwardTo, func() string { return secret }, mf.queue, nil, m)
		}
		var w *watch.Watcher
		cl, err := nc.Client(access.WithRateLimit(mf.rate, mf.burst),
			access.WithTransportWrapper(m.Transport(func() {
				if w != nil {
					w.Upgraded()
				}
			})))
		if err != nil {
			return fmt.Errorf("console %s: %w", nc.Name, err)
		}
		w, err = watch.New(cl, watch.Options{
			Engine: monitor.Config{Console: nc.Name, HeldOpen: mf.heldOpen, UnlockGrace: mf.unlockGrace, DeviceOffline: mf.deviceOffline,
				StreamSilent: mf.streamSilent, StreamMute: mf.streamMute},
			PollEvery: mf.pollEvery, UsersEvery: mf.usersEv, Incident: out.write, Notified: notified, Forward: mc.fwd, Metrics: m,
			Ready: func(c monitor.Coverage, doors map[string]string) {
				reportCoverage(f, nc.Name, c, doors)
				ready <- struct{}{}
			},
		})
		if err != nil {
			return cmdutil.UsageErrorf("%v", err)
		}
		if err := creg.Register(w.Collector()); err != nil {
			return err
		}
		mc.w = w
		watched = append(watched, mc)
	}

	ln, err := net.Listen("tcp", mf.listen)
	if err != nil {
		return cmdutil.UsageErrorf("--listen %s: %v", mf.listen, err)
	}
	srv := &http.Server{Handler: monitorHandler(reg, watched), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(f.ErrOut, "monitor: %d console(s); metrics at http://%s/metrics, health at /healthz\n", len(watched), ln.Addr())

	var wg sync.WaitGroup
	if fake := f.FakeConsole(); fake != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-ready:
				propServerRoom(ctx, fake)
			case <-ctx.Done():
			}
		}()
	}
	for _, mc := range watched {
		wg.Add(1)
		go func() { defer wg.Done(); _ = mc.w.Run(ctx) }()
		if mc.fwd != nil {
			wg.Add(1)
			go func() { defer wg.Done(); mc.fwd.Run(ctx, 5*time.Second) }()
		}
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
		stop()
	}
	wg.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	fmt.Fprintln(f.ErrOut, "monitor: stopped")
	return nil
}

// webhookSecret reads the secret of the incident webhooks: never a flag
// value, so that it shows in no process list.
func webhookSecret(f *cmdutil.Factory, file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", cmdutil.UsageErrorf("--secret-file: %v", err)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			return s, nil
		}
		return "", cmdutil.UsageErrorf("--secret-file %s is empty", file)
	}
	if s := f.Getenv("ACCESS_WEBHOOK_SECRET"); s != "" {
		return s, nil
	}
	return "", cmdutil.UsageErrorf("--forward-to needs a secret: set ACCESS_WEBHOOK_SECRET or --secret-file FILE")
}

// reportCoverage says, on start, which doors held open and forced entry
// cannot see.
func reportCoverage(f *cmdutil.Factory, console string, c monitor.Coverage, names map[string]string) {
	msg := fmt.Sprintf("monitor: %s: %d of %d doors have a position sensor", console, c.WithSensor, c.Doors)
	if len(c.WithoutSensor) > 0 {
		list := make([]string, len(c.WithoutSensor))
		for i, id := range c.WithoutSensor {
			list[i] = firstNonEmpty(names[id], id)
		}
		msg += fmt.Sprintf("; held_open and forced_entry are off for: %s", strings.Join(list, ", "))
	}
	fmt.Fprintln(f.ErrOut, msg)
}

// eventCounter returns the watchers' Notified hook of --events n: done
// is called once, when the consoles' streams together have brought n
// notifications. With n 0 there is no hook.
func eventCounter(n int, done func()) func() {
	if n <= 0 {
		return nil
	}
	var seen atomic.Int64
	return func() {
		if seen.Add(1) == int64(n) {
			done()
		}
	}
}

// incidentWriter writes incident lines: JSON lines, or text on a
// terminal.
type incidentWriter struct {
	out  io.Writer
	text bool
	// count, when positive, stops the monitor (done) after that many
	// lines.
	count   int
	done    func()
	written int
	mu      sync.Mutex
}

func (w *incidentWriter) write(in monitor.Incident) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.count > 0 && w.written >= w.count {
		return
	}
	w.written++
	if w.count > 0 && w.written == w.count {
		defer w.done()
	}
	if w.text {
		subject := firstNonEmpty(in.Door, in.Device, in.Mode)
		if subject != "" {
			subject = " " + subject
		}
		fmt.Fprintf(w.out, "%s  %-8s %-19s %s%s: %s [%s]\n", in.At.Local().Format(time.TimeOnly),
			strings.TrimPrefix(in.Type, "incident."), in.Kind, in.Console, subject, in.Detail, in.ID)
		return
	}
	b, err := json.Marshal(in)
	if err != nil {
		return
	}
	_, _ = w.out.Write(append(b, '\n'))
}

// monitorHandler serves /metrics and /healthz.
func monitorHandler(reg *prometheus.Registry, consoles []*monitored) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		var hs []watch.Health
		ok := true
		for _, mc := range consoles {
			h := mc.w.Health()
			ok = ok && h.OK
			hs = append(hs, h)
		}
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(struct {
			OK       bool           `json:"ok"`
			Consoles []watch.Health `json:"consoles"`
		}{ok, hs})
	})
	return mux
}

// propServerRoom is the --fake demo of the monitor: once the monitor
// has read the doors and subscribed, someone opens the server room without an unlock and leaves it
// open.
func propServerRoom(ctx context.Context, srv *accesstest.Server) {
	if srv.WaitNotificationClients(ctx, 1) != nil {
		return
	}
	_ = srv.SetDoorPosition(fakeServerRoomID, true)
}

// fakeServerRoomID is the demo site's server room (a door with a position
// sensor).
const fakeServerRoomID = "5c496423-6d25-4e4f-8cdf-95ad5135188a"

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
