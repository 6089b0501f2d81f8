package simulator

// The web console's live updates: Server-Sent Events to every open page.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// sseMsg is one Server-Sent Event.
type sseMsg struct {
	event string
	data  []byte
}

// pageQueue is how many live updates wait for one page before it loses
// them (it does not read); the others are not held up.
const pageQueue = 256

// broker hands the page's live updates to every open page: "section"
// messages (a part of the page, re-rendered, sent when it changed) and
// "feed" messages (a notification). It keeps the last message of each
// section, so that a page that opens gets the current sections alone and
// the pages already open get nothing for it: N open pages cost N times
// one page, not N squared.
type broker struct {
	mu       sync.Mutex
	closed   bool
	pages    map[chan sseMsg]struct{}
	sections map[string]sseMsg // the last message of each section
	html     map[string]string // and its HTML, to tell a change
	feed     []feedItem        // oldest first
	sent     int               // messages handed to pages, for tests
}

func newBroker() *broker {
	return &broker{pages: map[chan sseMsg]struct{}{}, sections: map[string]sseMsg{}, html: map[string]string{}}
}

// join opens a page's queue, holding the current sections already; it
// reports false once the broker is closed.
func (b *broker) join() (chan sseMsg, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, false
	}
	ch := make(chan sseMsg, pageQueue+len(sectionNames)+1)
	for _, name := range sectionNames {
		if m, ok := b.sections[name]; ok {
			ch <- m
			b.sent++
		}
	}
	// The page shows itself live once it has applied these sections: a
	// click after that is not lost to a section replaced under it.
	ch <- sseMsg{event: "ready", data: []byte("{}")}
	b.pages[ch] = struct{}{}
	return ch, true
}

func (b *broker) leave(ch chan sseMsg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pages, ch)
}

// open is how many pages are open.
func (b *broker) open() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pages)
}

// close ends every page's stream.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.pages {
		close(ch)
		delete(b.pages, ch)
	}
}

// broadcast hands m to every open page. The caller holds b.mu.
func (b *broker) broadcast(m sseMsg) {
	for ch := range b.pages {
		select {
		case ch <- m:
			b.sent++
		default: // a page that does not read loses updates, not the others
		}
	}
}

// section sends a section's HTML to every open page, when it changed.
func (b *broker) section(name, html string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.html[name]; ok && old == html {
		return
	}
	data, _ := json.Marshal(struct {
		ID   string `json:"id"`
		HTML string `json:"html"`
	}{name, html})
	m := sseMsg{event: "section", data: data}
	b.html[name], b.sections[name] = html, m
	b.broadcast(m)
}

// addFeed keeps a notification for the pages that open later (the
// newest feedSize) and sends it, rendered as html, to the open ones.
func (b *broker) addFeed(it feedItem, html string) {
	data, _ := json.Marshal(struct {
		HTML string `json:"html"`
	}{html})
	b.mu.Lock()
	defer b.mu.Unlock()
	b.feed = append(b.feed, it)
	if len(b.feed) > feedSize {
		b.feed = slices.Delete(b.feed, 0, len(b.feed)-feedSize)
	}
	b.broadcast(sseMsg{event: "feed", data: data})
}

// feedNewestFirst is the kept notifications, newest first.
func (b *broker) feedNewestFirst() []feedItem {
	b.mu.Lock()
	out := slices.Clone(b.feed)
	b.mu.Unlock()
	slices.Reverse(out)
	return out
}

// events streams the page's live updates: first the current sections,
// then the sections that change and the notifications.
func (c *console) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if c.eventsGate != nil {
		c.eventsGate(r.Context())
	}
	// The sections as they are now, first: the page shows itself live
	// once it applied them.
	c.redraw()
	ch, ok := c.live.join()
	if !ok {
		return
	}
	defer c.live.leave(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "retry: 1000\n: hello\n\n")
	fl.Flush()
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
			if len(ch) == 0 {
				fl.Flush()
			}
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
		if c.live.open() == 0 {
			continue
		}
		// At most one redraw per minRedraw, however fast changes come.
		gap := time.NewTimer(minRedraw)
		c.redraw()
		select {
		case <-c.ctx.Done():
			gap.Stop()
			return
		case <-gap.C:
		}
	}
}

// redraw renders every live section and sends those that changed.
func (c *console) redraw() {
	c.drawing.Lock()
	defer c.drawing.Unlock()
	v := c.snapshot("")
	for _, name := range sectionNames {
		c.live.section(name, c.render(name, v))
	}
}

// subscribe follows the site's notifications WebSocket with an SDK
// client, as any subscriber does, and relays each message to the feed.
func (c *console) subscribe() {
	defer c.wg.Done()
	client := c.fake.UnjournaledClient() // the page is no client: not in the journal nor the modes
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
		c.live.addFeed(it, c.render("feed-item", it))
		c.kick()
	}
}
