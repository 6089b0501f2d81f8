package simulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// The web console's live updates: Server-Sent Events to every open page.

type sseMsg struct {
	event string
	data  []byte
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
