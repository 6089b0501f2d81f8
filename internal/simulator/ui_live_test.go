package simulator

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
)

// sseEvent is one Server-Sent Event a test page read: its event name and,
// for a section, the section's id and HTML.
type sseEvent struct{ event, id, html string }

// openPage opens the console's live updates as a page does and returns
// the events it reads.
func openPage(t *testing.T, ctx context.Context, url string) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/ui/events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	out := make(chan sseEvent, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				var d struct{ ID, HTML string }
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d)
				ev.id, ev.html = d.ID, d.HTML
			case line == "" && ev.event != "":
				out <- ev
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// TestPagesCostLinearWork: pages opened one after the other each get the
// current sections once, and the pages already open get nothing for a
// new one: N pages receive N times one page's sections, not N squared.
// The site's clock stands still, so nothing else changes the sections.
func TestPagesCostLinearWork(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	fake := accesstest.NewServer(accesstest.WithDemoData())
	defer fake.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fake.SetNow(func() time.Time { return t0 })
	c := newConsole(fake, "", 0, nil)
	defer c.close()
	srv := httptest.NewServer(c)
	defer srv.Close()
	defer cancel() // the pages go first

	const pages = 30
	streams := make([]<-chan sseEvent, pages)
	got := make([]int, pages) // section messages each page received
	for i := range streams {
		streams[i] = openPage(t, ctx, srv.URL)
		seen := map[string]bool{}
		for len(seen) < len(sectionNames) {
			select {
			case ev, ok := <-streams[i]:
				require.True(t, ok, "page %d: the stream ended", i)
				if ev.event == "section" {
					seen[ev.id] = true
					got[i]++
				}
			case <-ctx.Done():
				t.Fatalf("page %d got %d sections of %d", i, len(seen), len(sectionNames))
			}
		}
	}
	// A change every page sees: what each page received before it is all
	// the work the pages' opening caused.
	fake.Advance(time.Hour)
	for i, s := range streams {
		for marker := false; !marker; {
			select {
			case ev, ok := <-s:
				require.True(t, ok, "page %d: the stream ended", i)
				if ev.event != "section" {
					continue
				}
				marker = ev.id == "clock" && strings.Contains(ev.html, "2026-01-02 04:04:05")
				if !marker {
					got[i]++
				}
			case <-ctx.Done():
				t.Fatalf("page %d did not get the clock's change", i)
			}
		}
	}
	for i, n := range got {
		// Its own sections, and at most each other section again with
		// the clock's change.
		assert.LessOrEqual(t, n, 2*len(sectionNames)-1, "page %d (of %d) received %d section messages", i+1, pages, n)
	}
}

// BenchmarkOpenPages opens 400 pages of the console at once, as many
// browser tabs would, and reports the live-update messages the pages
// received per page until each had the whole page: the work is linear
// when that stays near one page's sections (6), whatever the count.
func BenchmarkOpenPages(b *testing.B) {
	const pages = 400
	fake := accesstest.NewServer(accesstest.WithDemoData())
	defer fake.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fake.SetNow(func() time.Time { return t0 })
	hc := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: pages}}
	for range b.N {
		c := newConsole(fake, "", 0, nil)
		srv := httptest.NewServer(c)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, pages)
		for range pages {
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/ui/events", nil)
				resp, err := hc.Do(req)
				if err != nil {
					done <- -1
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				sc.Buffer(nil, 1<<20)
				seen, n := map[string]bool{}, 0
				for sc.Scan() && len(seen) < len(sectionNames) {
					if id, ok := strings.CutPrefix(sc.Text(), `data: {"id":"`); ok {
						id, _, _ = strings.Cut(id, `"`)
						seen[id] = true
						n++
					}
				}
				done <- n
			}()
		}
		for range pages {
			if n := <-done; n < 0 {
				b.Fatal("a page did not open")
			}
		}
		c.live.mu.Lock()
		sent := c.live.sent
		c.live.mu.Unlock()
		cancel()
		c.close()
		srv.Close()
		b.ReportMetric(float64(sent)/pages, "msgs/page")
	}
}
