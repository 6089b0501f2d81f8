package simulator

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

//go:embed ui
var uiFiles embed.FS

var pageTemplate = template.Must(template.New("").Funcs(template.FuncMap{
	"ms":   func(t time.Time) int64 { return t.UnixMilli() },
	"when": func(t time.Time) string { return t.Format("15:04:05") },
}).ParseFS(uiFiles, "ui/page.html"))

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

	mu       sync.Mutex
	clients  map[chan sseMsg]struct{}
	feed     []feedItem // oldest first
	sections map[string]string
}

type sseMsg struct {
	event string
	data  []byte
}

type feedItem struct {
	Time    time.Time
	Event   string
	Summary string
	JSON    string
}

func newConsole(fake *accesstest.Server, password string, retries int) *console {
	c := &console{fake: fake, password: password, retries: retries, mux: http.NewServeMux(), poke: make(chan struct{}, 1),
		clients: map[chan sseMsg]struct{}{}, sections: map[string]string{}}
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
	c.mu.Lock()
	for ch := range c.clients {
		close(ch)
		delete(c.clients, ch)
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// ServeHTTP checks the password (when set) and that a button's POST
// comes from the page itself, then serves the console.
func (c *console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.password != "" {
		_, pw, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(pw), []byte(c.password)) != 1 {
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

// ---- the view ----

type view struct {
	Now        time.Time
	Emergency  access.EmergencyStatus
	Floors     []floorView
	Devices    []deviceView
	Users      int
	Visitors   int
	People     []personView
	Query      string
	Deliveries []deliveryView
	Retries    int // webhook retries allowed (--webhook-retries)
	Backoff    time.Duration
	Feed       []feedItem
	Ops        []string
}

type floorView struct {
	Name  string
	Doors []doorView
}

type doorView struct {
	access.Door
	Rule    access.LockRule
	HasRule bool
	Ends    time.Time
	Keep    bool
	Readers []access.Device
	Hub     bool
}

type deviceView struct {
	access.Device
	Door      string
	Ringing   bool
	Enrolling bool
	Doorbell  bool
	Reader    bool
}

type personView struct {
	Kind, Name, Status, Detail string
}

type deliveryView struct {
	URL, Event, Status, Error, Latency string
	Attempt                            int
}

func (c *console) snapshot(q string) view {
	f := c.fake
	v := view{Now: f.Now(), Emergency: f.Emergency(), Query: q, Ops: knownOps,
		Retries: c.retries, Backoff: accesstest.DefaultWebhookRetryBackoff}
	doors := f.Doors()
	devs := f.DeviceList().Devices()
	enrolling := f.EnrollingDevices()
	doorName := map[string]string{}
	for _, d := range doors {
		doorName[d.ID] = d.Name
	}
	readersAt := map[string][]access.Device{}
	for _, d := range devs {
		dv := deviceView{Device: d, Door: doorName[d.LocationID], Enrolling: slices.Contains(enrolling, d.ID),
			Doorbell: slices.Contains([]string{"UA-Intercom", "UA-G2-PRO", "UA-G3-PRO"}, d.Type),
			Reader:   !slices.Contains(d.Capabilities, "is_hub")}
		_, dv.Ringing = f.Ringing(d.ID)
		v.Devices = append(v.Devices, dv)
		if dv.Reader && d.LocationID != "" {
			readersAt[d.LocationID] = append(readersAt[d.LocationID], d)
		}
	}
	mk := func(d access.Door) doorView {
		dv := doorView{Door: d, Readers: readersAt[d.ID], Hub: d.IsBindHub}
		if r, ok := f.LockRule(d.ID); ok && r.Type != "" && r.Type != access.LockRuleNone {
			dv.Rule, dv.HasRule = r, true
			dv.Ends = r.EndedTime.Time()
			dv.Keep = dv.Ends.Sub(v.Now) > 365*24*time.Hour
		}
		return dv
	}
	placed := map[string]bool{}
	for _, fl := range f.Floors() {
		fv := floorView{Name: fl.Name}
		for _, d := range doors {
			if d.FloorID == fl.ID {
				fv.Doors = append(fv.Doors, mk(d))
				placed[d.ID] = true
			}
		}
		if len(fv.Doors) > 0 {
			v.Floors = append(v.Floors, fv)
		}
	}
	var other floorView
	for _, d := range doors {
		if !placed[d.ID] {
			other.Doors = append(other.Doors, mk(d))
		}
	}
	if len(other.Doors) > 0 {
		other.Name = "Other doors"
		v.Floors = append(v.Floors, other)
	}
	users, visitors := f.Users(), f.Visitors()
	v.Users, v.Visitors = len(users), len(visitors)
	v.People = searchPeople(users, visitors, q)
	ds := f.Deliveries()
	for i := len(ds) - 1; i >= 0 && len(v.Deliveries) < deliveriesShow; i-- {
		d := ds[i]
		dv := deliveryView{URL: d.URL, Event: string(d.Event), Latency: d.Latency.Round(100 * time.Microsecond).String(), Attempt: d.Attempt}
		if d.StatusCode != 0 {
			dv.Status = strconv.Itoa(d.StatusCode)
		}
		if d.Err != nil {
			dv.Error = d.Err.Error()
		}
		v.Deliveries = append(v.Deliveries, dv)
	}
	return v
}

func searchPeople(users []access.User, visitors []access.Visitor, q string) []personView {
	q = strings.ToLower(strings.TrimSpace(q))
	var out []personView
	match := func(s ...string) bool {
		if q == "" {
			return true
		}
		for _, x := range s {
			if strings.Contains(strings.ToLower(x), q) {
				return true
			}
		}
		return false
	}
	for _, u := range users {
		if len(out) == peopleShow {
			return out
		}
		name := strings.TrimSpace(u.FirstName + " " + u.LastName)
		if match(name, u.UserEmail, u.EmployeeNumber) {
			out = append(out, personView{Kind: "user", Name: name, Status: string(u.Status), Detail: u.UserEmail})
		}
	}
	for _, vi := range visitors {
		if len(out) == peopleShow {
			return out
		}
		name := strings.TrimSpace(vi.FirstName + " " + vi.LastName)
		if match(name, vi.Email) {
			out = append(out, personView{Kind: "visitor", Name: name, Status: vi.Status, Detail: vi.Email})
		}
	}
	return out
}

// sectionNames are the parts of the page that live updates replace.
var sectionNames = []string{"emergency", "doors", "devices", "people-counts", "deliveries", "clock"}

func (c *console) render(name string, v any) string {
	var b bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&b, name, v); err != nil {
		return template.HTMLEscapeString("render " + name + ": " + err.Error())
	}
	return b.String()
}

func (c *console) page(w http.ResponseWriter, r *http.Request) {
	v := c.snapshot(r.URL.Query().Get("q"))
	c.mu.Lock()
	v.Feed = slices.Clone(c.feed)
	c.mu.Unlock()
	slices.Reverse(v.Feed)
	var b bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&b, "page", v); err != nil {
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

// events streams the page's live updates: "section" messages (a part of
// the page, re-rendered) and "feed" messages (a notification).
func (c *console) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan sseMsg, 256)
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.clients[ch] = struct{}{}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.clients, ch)
		c.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "retry: 1000\n: hello\n\n")
	fl.Flush()
	c.mu.Lock()
	c.sections = map[string]string{} // send every section to this client too
	c.mu.Unlock()
	c.kick()
	for {
		select {
		case <-r.Context().Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", m.event, m.data); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func (c *console) broadcast(m sseMsg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.clients {
		select {
		case ch <- m:
		default: // a client that does not read loses updates, not the others
		}
	}
}

func (c *console) kick() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// refresh re-renders the live sections twice a second, and at once after
// a change of state, a notification or a button, sending those that
// changed. The fake's timers (relocks, rule ends) run by themselves
// (accesstest.WithLiveTimers), whether a page is open or not.
func (c *console) refresh() {
	defer c.wg.Done()
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		case <-c.poke:
		}
		c.mu.Lock()
		n := len(c.clients)
		c.mu.Unlock()
		if n == 0 {
			continue
		}
		v := c.snapshot("")
		// At most one redraw per minRedraw, however fast changes come.
		gap := time.NewTimer(minRedraw)
		for _, name := range sectionNames {
			html := c.render(name, v)
			c.mu.Lock()
			same := c.sections[name] == html
			c.sections[name] = html
			c.mu.Unlock()
			if same {
				continue
			}
			b, _ := json.Marshal(struct {
				ID   string `json:"id"`
				HTML string `json:"html"`
			}{name, html})
			c.broadcast(sseMsg{event: "section", data: b})
		}
		select {
		case <-c.ctx.Done():
			gap.Stop()
			return
		case <-gap.C:
		}
	}
}

// subscribe follows the site's notifications WebSocket with an SDK
// client, as any subscriber does, and relays each message to the feed.
func (c *console) subscribe() {
	defer c.wg.Done()
	client := c.fake.Client()
	for n, err := range client.Notifications.Subscribe(c.ctx, nil) {
		if c.ctx.Err() != nil {
			return
		}
		if err != nil {
			continue
		}
		it := feedItem{Time: c.fake.Now(), Event: string(n.Event), Summary: summarize(n)}
		if b, err := json.MarshalIndent(n, "", "  "); err == nil {
			it.JSON = string(b)
		}
		c.mu.Lock()
		c.feed = append(c.feed, it)
		if len(c.feed) > feedSize {
			c.feed = slices.Delete(c.feed, 0, len(c.feed)-feedSize)
		}
		c.mu.Unlock()
		b, _ := json.Marshal(struct {
			HTML string `json:"html"`
		}{c.render("feed-item", it)})
		c.broadcast(sseMsg{event: "feed", data: b})
		c.kick()
	}
}

// summarize is a one-line description of a notification for the feed.
func summarize(n *access.Notification) string {
	var m map[string]any
	_ = json.Unmarshal(n.Data, &m)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	switch n.Event {
	case access.NotificationRemoteView:
		return "Doorbell rings at " + str("device_name") + " (" + str("door_name") + ")"
	case access.NotificationRemoteViewChange:
		if rc, ok := m["reason_code"].(float64); ok {
			return "Doorbell call ended: " + access.RemoteViewReason(int(rc)).String()
		}
	case access.NotificationRemoteUnlock:
		return "Remote unlock: " + str("name")
	case access.NotificationLocationUpdateV2:
		s := str("name")
		if st, ok := m["state"].(map[string]any); ok {
			s += fmt.Sprintf(": lock %v, position %v", st["lock"], st["dps"])
		}
		return s
	case access.NotificationSettingUpdate:
		return fmt.Sprintf("Emergency settings: lockdown %v, evacuation %v", m["lockdown"], m["evacuation"])
	case access.NotificationLogsAdd:
		var e access.SystemLog
		if json.Unmarshal(n.Data, &e) == nil {
			return e.Source.Event.DisplayMessage
		}
	}
	return n.EventObjectID
}

// ---- the buttons ----

// knownOps are offered for fault injection (any Service.Method works).
// The buttons call the control API (control.go) from the page's script.
var knownOps = []string{
	string(accesstest.OpDoorsList), string(accesstest.OpDoorsGet), string(accesstest.OpDoorsUnlock),
	string(accesstest.OpDevicesList), string(accesstest.OpDevicesTriggerDoorbell),
	string(accesstest.OpUsersGet), "Users.List", "Users.Create", string(accesstest.OpVisitorsList), "Visitors.Create",
	string(accesstest.OpNotificationsSubscribe), string(accesstest.OpWebhooksCreate), string(accesstest.OpSystemLogsList),
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }
