package simulator_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
	"github.com/access-dev/access/internal/testlog"
)

// TestBrowserCrossSiteCannotChangeState: a page of another site (served
// from http://localhost, the console being https://127.0.0.1), opened in
// the browser that holds the console's page credential, tries every way a
// page can send a state change (a JSON fetch with credentials, a no-cors
// text/plain fetch, a form posted into a frame, to the control API and
// to the page's own endpoints): nothing changes. The console's page, same
// origin, changes the door with the same call.
func TestBrowserCrossSiteCannotChangeState(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1000, 800)
	openConsole(t, ctx, st)

	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>elsewhere</title>
<iframe name="sink"></iframe>
<form id="f1" method="post" action="%[1]s/_fake/v1/door/open" enctype="text/plain" target="sink">
<input name='{"door":"Main entrance","x":"' value='"}'></form>
<form id="f2" method="post" action="%[1]s/_fake/v1/emergency" target="sink"><input name="mode" value="lockdown"></form>
<form id="f3" method="post" action="%[1]s/ui/act" target="sink"><input name="do" value="lockdown"></form>
<script>
window.tried = 0;
const u = %[1]q;
const done = () => { window.tried++; };
fetch(u + "/_fake/v1/door/open", {method: "POST", credentials: "include",
  headers: {"Content-Type": "application/json"}, body: JSON.stringify({door: "Main entrance"})}).then(done, done);
fetch(u + "/_fake/v1/emergency", {method: "POST", mode: "no-cors", credentials: "include",
  headers: {"Content-Type": "text/plain"}, body: JSON.stringify({mode: "evacuation"})}).then(done, done);
let forms = ["f1", "f2", "f3"], i = 0;
const sink = document.querySelector("iframe");
sink.addEventListener("load", () => { window.tried++; if (i < forms.length) document.getElementById(forms[i++]).submit(); });
document.getElementById(forms[i++]).submit();
</script>`, st.URL)
	})
	// Another site (http://localhost: the page credential, SameSite=Strict,
	// is not even sent), and another origin of the same site
	// (https://127.0.0.1 on another port: the credential is sent, the
	// Origin check and the JSON content type refuse it).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	crossSite := httptest.NewUnstartedServer(page)
	crossSite.Listener = ln
	crossSite.Start()
	t.Cleanup(crossSite.Close)
	sameSite := testlog.NewTLSServer(t, page)
	t.Cleanup(sameSite.Close)
	for _, u := range []string{"http://localhost:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "/", sameSite.URL + "/"} {
		var tried int
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(u),
			chromedp.Poll(`window.tried >= 5`, nil),
			chromedp.Evaluate(`window.tried`, &tried),
		), u)
		assert.GreaterOrEqual(t, tried, 5, "every attempt ended")
		d, _ := st.Fake.Door(accesstest.DemoDoorID)
		assert.Equal(t, access.DoorClosed, d.PositionStatus, "the door stays closed: %s", u)
		assert.Equal(t, access.EmergencyStatus{}, st.Fake.Emergency(), "no emergency started: %s", u)
	}

	// The console's own page, same origin, with its credential: the same
	// call opens the door.
	var status int
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(st.URL+"/"),
		chromedp.WaitVisible(`#live.on`, chromedp.ByQuery),
		chromedp.Evaluate(`fetch("/_fake/v1/door/open", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({door: "Main entrance"})}).then(r => r.status)`, &status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
			return p.WithAwaitPromise(true)
		}),
	))
	assert.Equal(t, http.StatusOK, status)
	d, _ := st.Fake.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorOpen, d.PositionStatus)
}

// TestBrowserButtonsCallTheControlAPI: the page's buttons act through
// the control API with the page's credential: a door opened, the exit
// button, a lockdown and its end, the clock advanced, a fault injected
// (the SDK then gets it) and cleared, each with its toast; a refusal
// (no card number) shows the API's message; the console restarted (the
// proxy then answers 502).
func TestBrowserButtonsCallTheControlAPI(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	ctx := browser(t, 1280, 900)
	openConsole(t, ctx, st)
	door := `li[data-door="` + accesstest.DemoDoorID + `"]`
	toastIs := func(want string) chromedp.Action {
		return chromedp.Poll(`document.getElementById("toast").textContent === `+strconv.Quote(want), nil)
	}
	require.NoError(t, chromedp.Run(ctx,
		click(door+` button[value=open]`),
		toastIs("Door opened"),
		chromedp.WaitVisible(door+` button[value=close]`, chromedp.ByQuery),
	))
	d, _ := st.Fake.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorOpen, d.PositionStatus)

	require.NoError(t, chromedp.Run(ctx, click(door+` button[value=exit]`), toastIs("Exit button pressed")))
	d, _ = st.Fake.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus)

	before := st.Fake.Now()
	require.NoError(t, chromedp.Run(ctx, click(`button[name=by][value="5m"]`), toastIs("Clock advanced by 5m")))
	assert.GreaterOrEqual(t, st.Fake.Now().Sub(before), 5*time.Minute)
	d, _ = st.Fake.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus, "relocked on the advanced clock")

	require.NoError(t, chromedp.Run(ctx, click(`button[value=lockdown]`), toastIs("Lockdown started"),
		chromedp.WaitVisible(`.banner.lockdown`, chromedp.ByQuery)))
	assert.Equal(t, access.EmergencyStatus{Lockdown: true}, st.Fake.Emergency())
	require.NoError(t, chromedp.Run(ctx, click(`button[value=emergency-off]`), toastIs("Emergency ended")))
	assert.Equal(t, access.EmergencyStatus{}, st.Fake.Emergency())

	require.NoError(t, chromedp.Run(ctx,
		chromedp.SetValue(`form.fault input[name=op]`, "Doors.List", chromedp.ByQuery),
		chromedp.SetValue(`form.fault input[name=status]`, "503", chromedp.ByQuery),
		chromedp.SetValue(`form.fault input[name=retry_after]`, "1", chromedp.ByQuery),
		click(`form.fault button[type=submit]`),
		toastIs("Fault injected into Doors.List"),
	))
	c := sdkClient(t, st)
	noRetry, err := access.NewClient(st.URL, st.Token(), access.WithPinnedCertificate(st.Fingerprint), access.WithRetryPolicy(access.RetryPolicy{}))
	require.NoError(t, err)
	_, _, err = noRetry.Doors.List(context.Background())
	assert.ErrorIs(t, err, access.ErrServer)
	_, _, err = c.Doors.List(context.Background())
	assert.NoError(t, err, "the fault hit only the next call")

	dev := `li[data-device="` + accesstest.DemoDeviceID + `"]`
	require.NoError(t, chromedp.Run(ctx, click(dev+` button[data-tap]`), toastIs("give the card number to tap")))

	// The console restarts: through the proxy 502 (then 401) for 30 s on
	// the site's clock; the direct layout serves.
	var toast string
	require.NoError(t, chromedp.Run(ctx, click(`button[value=restart]`),
		chromedp.Poll(`document.getElementById("toast").textContent.startsWith("Console restarting: ")`, nil),
		chromedp.Text(`#toast`, &toast, chromedp.ByQuery)))
	assert.Regexp(t, `^Console restarting: through the proxy 502, then 401, until \d\d:\d\d:\d\d UTC$`, toast)
	proxied, err := access.NewClient(st.URL+access.ProxyPrefix, st.Token(), access.WithPinnedCertificate(st.Fingerprint), access.WithRetryPolicy(access.RetryPolicy{}))
	require.NoError(t, err)
	_, _, err = proxied.Doors.List(context.Background())
	var ae *access.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
	_, _, err = c.Doors.List(context.Background())
	assert.NoError(t, err, "the direct layout serves")
	notReloaded(t, ctx)
}
