package simulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"embed"
	"html/template"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/access-dev/access/accesstest"
)

//go:embed ui
var uiFiles embed.FS

// pageTemplate is the page's template, parsed when the page is first
// drawn: not in every process that links the simulator.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"ms":   func(t time.Time) int64 { return t.UnixMilli() },
		"when": func(t time.Time) string { return t.Format("15:04:05") },
	}).ParseFS(uiFiles, "ui/page.html"))
})

const (
	feedSize       = 200 // notifications kept for a new page
	deliveriesShow = 30  // newest webhook deliveries shown
	peopleShow     = 50  // people listed per search
	refreshEvery   = 500 * time.Millisecond
	minRedraw      = 50 * time.Millisecond
)

// console is the web console of one site: the page, its live updates
// (Server-Sent Events) and its buttons.
type console struct {
	fake     *accesstest.Server
	password string
	retries  int // Config.WebhookRetries, for the deliveries' hint
	mux      *http.ServeMux
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	poke     chan struct{}
	unhook   func()
	// hosts are the names the console answers to (Host header, port
	// aside); nil answers to any. On loopback they are the served names,
	// so that a page of another site whose name was made to resolve to
	// 127.0.0.1 (DNS rebinding) is refused.
	hosts *hostNames
	// unsaved, when set (with --state), returns the error of the state
	// file's saves while they fail: the page then says the state is not
	// saved.
	unsaved atomic.Pointer[func() error]

	live *broker
	// eventsGate, when set, is called before the event stream answers
	// (Config.eventsGate); set before the console serves.
	eventsGate func(ctx context.Context)
	// drawing serializes the sections' renders, so that an older render
	// never replaces a newer one.
	drawing sync.Mutex
}

// newConsole makes the web console of fake; hosts, when not nil, are the
// only names it answers to.
func newConsole(fake *accesstest.Server, password string, retries int, hosts *hostNames) *console {
	c := &console{fake: fake, password: password, retries: retries, mux: http.NewServeMux(), poke: make(chan struct{}, 1),
		hosts: hosts, live: newBroker()}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	static, _ := fs.Sub(uiFiles, "ui")
	c.mux.Handle("GET /ui/static/", http.StripPrefix("/ui/static/", http.FileServerFS(static)))
	c.mux.HandleFunc("GET /{$}", c.page)
	c.mux.HandleFunc("GET /ui/events", c.events)
	c.mux.HandleFunc("GET /ui/people", c.people)
	c.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	c.unhook = fake.OnChange(c.kick) // redraw at once after any change
	c.wg.Add(2)
	go c.subscribe()
	go c.refresh()
	return c
}

func (c *console) close() {
	c.unhook()
	c.cancel()
	c.live.close()
	c.wg.Wait()
}

// ServeHTTP checks the Host (when the console is on loopback), the
// password (when set) and that a button's POST comes from the page
// itself, then serves the console.
func (c *console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !c.hosts.allow(r.Host) {
		w.Header().Set("Connection", "close")
		http.Error(w, "This console answers to its own names only (DNS rebinding refused).", http.StatusMisdirectedRequest)
		return
	}
	if c.password != "" {
		_, pw, ok := r.BasicAuth()
		given, want := sha256.Sum256([]byte(pw)), sha256.Sum256([]byte(c.password))
		if !ok || subtle.ConstantTimeCompare(given[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="access fake", charset="UTF-8"`)
			http.Error(w, "The web console needs the password given with $ACCESS_FAKE_UI_PASSWORD or --ui-password-file.", http.StatusUnauthorized)
			return
		}
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		http.Error(w, "Cross-site request refused.", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	c.mux.ServeHTTP(w, r)
}

// hostNames are the names a console on loopback answers to: the names
// and addresses of its certificate and the address it listens on.
type hostNames struct {
	names map[string]bool // lower case
	ips   []net.IP
}

// servedNames are the names of cert and host, the --addr host.
func servedNames(cert *x509.Certificate, host string) *hostNames {
	h := &hostNames{names: map[string]bool{}}
	add := func(name string) {
		if ip := net.ParseIP(name); ip != nil {
			h.ips = append(h.ips, ip)
		} else if name != "" {
			h.names[strings.ToLower(strings.TrimSuffix(name, "."))] = true
		}
	}
	add(host)
	if cert != nil {
		for _, n := range cert.DNSNames {
			add(n)
		}
		h.ips = append(h.ips, cert.IPAddresses...)
	}
	return h
}

// allow reports whether hostport, a request's Host, names the console.
func (h *hostNames) allow(hostport string) bool {
	if h == nil {
		return true
	}
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip := net.ParseIP(host); ip != nil {
		return slices.ContainsFunc(h.ips, ip.Equal)
	}
	return h.names[strings.ToLower(strings.TrimSuffix(host, "."))]
}

// sameOrigin refuses cross-site form posts (another site's page posting
// to the loopback console).
func sameOrigin(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return o == ""
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// sectionNames are the parts of the page that live updates replace.
var sectionNames = []string{"emergency", "doors", "devices", "people-counts", "deliveries", "clock", "modes"}

func (c *console) render(name string, v any) string {
	var b bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&b, name, v); err != nil {
		return template.HTMLEscapeString("render " + name + ": " + err.Error())
	}
	return b.String()
}

func (c *console) page(w http.ResponseWriter, r *http.Request) {
	v := c.snapshot(r.URL.Query().Get("q"))
	v.Feed = c.live.feedNewestFirst()
	var b bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&b, "page", v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

func (c *console) people(w http.ResponseWriter, r *http.Request) {
	v := view{Query: r.URL.Query().Get("q")}
	v.People = searchPeople(c.fake.Users(), c.fake.Visitors(), v.Query)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, c.render("people-list", v))
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
