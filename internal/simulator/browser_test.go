package simulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/browsertest"
	"github.com/access-dev/access/internal/simulator"
)

// The browser tests drive Debian's headless Chromium with chromedp
// against a simulator started in this process (internal/browsertest:
// they skip where no Chromium is installed, except in CI).

// startSim starts a demo simulator on a free loopback port.
func startSim(t *testing.T, cfg simulator.Config) *simulator.Site {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	sim, err := simulator.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	return sim.Sites[0]
}

// sdkClient is an SDK client for the site that pins its certificate, as
// any program given the printed fingerprint would.
func sdkClient(t *testing.T, st *simulator.Site) *access.Client {
	t.Helper()
	c, err := access.NewClient(st.URL, st.Token(), access.WithPinnedCertificate(st.Fingerprint),
		access.WithRetryPolicy(accesstest.RetryPolicy()))
	require.NoError(t, err)
	return c
}

// browser opens a headless Chromium tab of the given size; the context
// ends with the test.
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	// The simulator's self-signed certificate, on loopback.
	return browsertest.Tab(t, width, height, chromedp.Flag("ignore-certificate-errors", true))
}

// openConsole loads the page and waits until its live updates are on.
func openConsole(t *testing.T, ctx context.Context, st *simulator.Site) {
	t.Helper()
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(st.URL+"/"),
		chromedp.WaitVisible(`#live.on`, chromedp.ByQuery),
		chromedp.Evaluate(`window.notReloaded = true`, nil),
	))
}

func notReloaded(t *testing.T, ctx context.Context) {
	t.Helper()
	var still bool
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`window.notReloaded === true`, &still)))
	assert.True(t, still, "the page was not reloaded")
}

// TestBrowserRingDoorbell: "Ring doorbell" on the page makes an SDK
// client subscribed to the WebSocket receive the ring, and the page's
// feed and device show it; the page never shows the token; a screenshot
// of it is a real, non-blank PNG.
func TestBrowserRingDoorbell(t *testing.T) {
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1280, 1000)
	client := sdkClient(t, st)

	sub, cancelSub := context.WithCancel(context.Background())
	defer cancelSub()
	rings := make(chan access.RemoteViewData, 4)
	go func() {
		for n, err := range client.Notifications.Subscribe(sub, nil) {
			if err == nil && n.Event == access.NotificationRemoteView {
				var d access.RemoteViewData
				if json.Unmarshal(n.Data, &d) == nil {
					rings <- d
				}
			}
		}
	}()
	wctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The page's own feed and this client.
	require.NoError(t, st.Fake.WaitNotificationClients(wctx, 2))

	openConsole(t, ctx, st)
	ring := `li[data-device="` + accesstest.DemoIntercomID + `"] button[data-ring]`
	require.NoError(t, chromedp.Run(ctx, click(ring)))

	select {
	case d := <-rings:
		assert.Equal(t, accesstest.DemoIntercomID, d.DeviceID)
		assert.Equal(t, "Main entrance", d.DoorName)
	case <-wctx.Done():
		t.Fatal("the SDK client got no access.remote_view")
	}
	var feed string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`li[data-device="`+accesstest.DemoIntercomID+`"] [data-ringing]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("feed").textContent.includes("access.remote_view")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		textOf(`#feed`, &feed),
	))
	assert.Contains(t, feed, "Doorbell rings at UA Intercom Main")
	notReloaded(t, ctx)

	var html string
	var shot []byte
	require.NoError(t, chromedp.Run(ctx,
		chromedp.OuterHTML(`html`, &html, chromedp.ByQuery),
		chromedp.FullScreenshot(&shot, 100),
	))
	assert.NotContains(t, html, st.Token(), "the page never shows the API token")
	path := filepath.Join(t.TempDir(), "console.png")
	require.NoError(t, os.WriteFile(path, shot, 0o600))
	assertNonBlankPNG(t, path)
}

// TestBrowserScreenshotForREADME writes docs/simulator.md's picture of the page to
// $ACCESS_FAKE_SCREENSHOT (docs/access-fake-console.png): the demo site
// with a door unlocked and open, a ringing intercom and a webhook
// delivered. It runs only when that variable is set.
func TestBrowserScreenshotForREADME(t *testing.T) {
	out := os.Getenv("ACCESS_FAKE_SCREENSHOT")
	if out == "" {
		t.Skip("set ACCESS_FAKE_SCREENSHOT=docs/access-fake-console.png to write it")
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer recv.Close()
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1280, 900)
	c := sdkClient(t, st)
	bg := context.Background()
	_, _, err := c.Webhooks.Create(bg, &access.WebhookEndpointRequest{Endpoint: recv.URL + "/unifi", Name: "integration",
		Events: []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming, access.EventDeviceDPSStatus}})
	require.NoError(t, err)
	openConsole(t, ctx, st)
	_, err = c.Doors.Unlock(bg, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.NoError(t, st.Fake.SetDoorPosition(accesstest.DemoDoorID, true))
	_, err = c.Doors.SetLockRule(bg, "5c496423-6d25-4e4f-8cdf-95ad5135188a", &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 15})
	require.NoError(t, err)
	_, err = st.Fake.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	require.NoError(t, st.Fake.WaitDeliveries(bg))
	var shot []byte
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(`li[data-device="`+accesstest.DemoIntercomID+`"] [data-ringing]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll("#deliveries tr").length >= 3`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.FullScreenshot(&shot, 100),
	))
	require.NoError(t, os.WriteFile(out, shot, 0o644))
}

func assertNonBlankPNG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err, "a PNG")
	r := img.Bounds()
	require.Greater(t, r.Dx(), 500)
	require.Greater(t, r.Dy(), 500)
	colours := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 7 {
		for x := r.Min.X; x < r.Max.X; x += 7 {
			c1, c2, c3, _ := img.At(x, y).RGBA()
			colours[[3]uint32{c1 >> 8, c2 >> 8, c3 >> 8}] = true
		}
	}
	assert.Greater(t, len(colours), 20, "a page, not a blank image")
}

// TestBrowserSeesUnlockLive: a door unlocked through the API turns
// unlocked on the open page within a second (five under the race
// detector, which slows the simulator in this process), without a
// reload, and relocks there when the site's clock moves on.
func TestBrowserSeesUnlockLive(t *testing.T) {
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1280, 900)
	client := sdkClient(t, st)
	openConsole(t, ctx, st)
	relay := `li[data-door="` + accesstest.DemoDoorID + `"] [data-relay]`
	var text string
	require.NoError(t, chromedp.Run(ctx, textOf(relay, &text)))
	require.Equal(t, "Locked", text)

	_, err := client.Doors.Unlock(context.Background(), accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	limit := time.Second
	if raceEnabled {
		limit = 5 * time.Second
	}
	within, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	require.NoError(t, chromedp.Run(within, chromedp.WaitVisible(`li[data-door="`+accesstest.DemoDoorID+`"] .relay.unlocked`, chromedp.ByQuery)),
		"the door shows unlocked within %s", limit)
	notReloaded(t, ctx)

	st.Fake.Advance(accesstest.DoorUnlockDuration)
	require.NoError(t, chromedp.Run(ctx, chromedp.WaitVisible(`li[data-door="`+accesstest.DemoDoorID+`"] .relay.locked`, chromedp.ByQuery)))
}

// TestBrowserTapEnrollsCard: a card tapped on the page at a reader where
// an enrollment was started through the API is what Enroll returns.
func TestBrowserTapEnrollsCard(t *testing.T) {
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1280, 900)
	client := sdkClient(t, st)
	openConsole(t, ctx, st)

	type result struct {
		card *access.EnrolledCard
		err  error
	}
	done := make(chan result, 1)
	ectx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		c, _, err := client.NFCCards.Enroll(ectx, accesstest.DemoDeviceID, &access.EnrollOptions{PollInterval: 20 * time.Millisecond})
		done <- result{c, err}
	}()
	dev := `li[data-device="` + accesstest.DemoDeviceID + `"]`
	require.NoError(t, chromedp.Run(ctx,
		chromedp.WaitVisible(dev+` [data-enrolling]`, chromedp.ByQuery),
		chromedp.SendKeys(dev+` input[name=card]`, "04A1B2C3D4", chromedp.ByQuery),
		click(dev+` button[data-tap]`),
	))
	select {
	case r := <-done:
		require.NoError(t, r.err)
		assert.Equal(t, "04A1B2C3D4", r.card.CardID)
		assert.NotEmpty(t, r.card.Token)
	case <-ectx.Done():
		t.Fatal("Enroll did not return the tapped card")
	}
	require.NoError(t, chromedp.Run(ctx, chromedp.WaitNotPresent(dev+` [data-enrolling]`, chromedp.ByQuery)))
	notReloaded(t, ctx)
}

// TestBrowserPhoneLayout: on a phone-sized screen nothing is wider than
// the screen, and the site controls work (a lockdown shows its banner).
func TestBrowserPhoneLayout(t *testing.T) {
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 390, 844)
	openConsole(t, ctx, st)
	var overflow bool
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth`, &overflow)))
	assert.False(t, overflow, "no sideways scrolling on a phone")
	require.NoError(t, chromedp.Run(ctx,
		click(`button[value=lockdown]`),
		chromedp.WaitVisible(`.banner.lockdown`, chromedp.ByQuery),
	))
	assert.Equal(t, access.EmergencyStatus{Lockdown: true}, st.Fake.Emergency())
}

// textOf reads an element's text in one step in the page. The live page
// replaces nodes as events arrive, so a node id taken by one protocol call
// can be gone by the next (chromedp.Text's "No node with given id").
func textOf(sel string, text *string) chromedp.Action {
	return chromedp.Evaluate(`(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); return e ? e.textContent.trim() : "" })()`, text)
}

// click clicks an element with the mouse, as chromedp.Click does, and
// tries again when the live page replaced the element between the query
// and the click (the protocol's "node with given id" errors): the next
// try finds the new element.
func click(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		for range 5 {
			if err = chromedp.Click(sel, chromedp.ByQuery).Do(ctx); err == nil || !strings.Contains(err.Error(), "node with given id") {
				return err
			}
		}
		return err
	})
}

// TestBrowserBadgeConnectsBeforeOffline: until the page's live updates
// answer, its badge says "connecting", not "offline"; once they do, "live".
func TestBrowserBadgeConnectsBeforeOffline(t *testing.T) {
	release := make(chan struct{})
	cfg := simulator.Config{Demo: true}
	simulator.SetEventsGate(&cfg, func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	})
	st := startSim(t, cfg)
	ctx := browser(t, 1280, 900)
	var text, class string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(st.URL+"/"),
		chromedp.WaitReady(`body`, chromedp.ByQuery),
		textOf(`#live`, &text),
		chromedp.AttributeValue(`#live`, "class", &class, nil, chromedp.ByQuery),
	))
	assert.Equal(t, "connecting", text, "while the event stream has not answered")
	assert.NotContains(t, class, "on")
	close(release)
	require.NoError(t, chromedp.Run(ctx, chromedp.WaitVisible(`#live.on`, chromedp.ByQuery), textOf(`#live`, &text)))
	assert.Equal(t, "live", text)
}
