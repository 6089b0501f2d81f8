package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestConformance builds CONFORMANCE.md, the conformance report: for every
// operation and event of the vendor's API, the SDK method, what the fake
// (accesstest) does with it, the samples it is tested on, the permission
// and the minimum Access version. It fails when the committed report is
// not what the code gives today, and when the code disagrees with the
// vendor (a route or permission other than the vendor's, an SDK method
// the spec names but the client lacks). Regenerate with
//
//	go test -run TestConformance -update .
//
// (or go generate). The vendor's facts come from full-api.md, beside the
// clone, through internal/apifacts/operations.tsv and
// testdata/conformance/events.tsv; see conformance_spec_test.go.
// Samples and their readers: see conformance_samples_test.go.
func TestConformance(t *testing.T) {
	ops, events := loadSpec(t)
	sdkOps := map[string]string{}
	for _, op := range access.ConformanceOps() {
		sdkOps[op.Name] = op.Pattern
	}
	for _, problem := range append(checkSDK(ops, sdkOps), checkEvents(events, access.AllEvents())...) {
		t.Error(problem)
	}

	samples, err := scanSamples("testdata")
	require.NoError(t, err)
	sources, err := parseTests(".")
	require.NoError(t, err)
	linkSamples(samples, sources)
	subjects := map[string]bool{}
	for _, o := range ops {
		subjects[o.SDK[0]] = true
	}
	for _, e := range events {
		subjects[e.Name] = true
	}
	for _, problem := range checkSampleSources(samples, subjects) {
		t.Error(problem)
	}

	fake := probeFakeOps(t, accesstest.New(t), ops)
	for _, o := range ops {
		switch f := fake[o.SDK[0]]; {
		case f.op != "":
			t.Errorf("§%s: the fake serves %s as %s", o.Section, o.SDK[0], f.op)
		case len(f.needs) > 0:
			t.Errorf("§%s %s: the fake requires %v, the vendor %s", o.Section, o.SDK[0], f.needs, o.Perm)
		}
	}
	wsSeen, hookSeen := probeFakeEvents(t)
	report := renderReport(ops, events, samples, fake, wsSeen, hookSeen)
	compareOrUpdate(t, "CONFORMANCE.md", report)
}

// The -update flag. Registered here unless another test file of the
// binary (package access or access_test) already did, to share it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the generated files (CONFORMANCE.md, internal/apifacts/operations.tsv, testdata/conformance) from the code")
	}
}

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

//go:generate go test -run ^TestConformance$ -update .

// fullAPIPath is where the spec lives: beside the clone, or where
// ACCESS_FULL_API says.
func fullAPIPath() string {
	if p := os.Getenv("ACCESS_FULL_API"); p != "" {
		return p
	}
	return "../shared/spec/full-api.md"
}

// loadSpec returns the vendor's operations and events from the committed
// tables, after checking them against full-api.md when it is there.
func loadSpec(t *testing.T) ([]specOp, []specEvent) {
	t.Helper()
	if md, err := os.ReadFile(fullAPIPath()); err == nil {
		ops, events, err := parseSpec(string(md))
		require.NoError(t, err, fullAPIPath())
		compareOrUpdate(t, "internal/apifacts/operations.tsv", formatSpecOps(ops))
		compareOrUpdate(t, "testdata/conformance/events.tsv", formatSpecEvents(events))
	} else {
		t.Logf("%s not found: the committed operations.tsv and events.tsv are not checked against it", fullAPIPath())
	}
	b, err := os.ReadFile("internal/apifacts/operations.tsv")
	require.NoError(t, err)
	ops, err := parseSpecOps(string(b))
	require.NoError(t, err, "internal/apifacts/operations.tsv")
	b, err = os.ReadFile("testdata/conformance/events.tsv")
	require.NoError(t, err)
	events, err := parseSpecEvents(string(b))
	require.NoError(t, err, "testdata/conformance/events.tsv")
	return ops, events
}

// compareOrUpdate checks that file holds want, or writes it with -update.
func compareOrUpdate(t *testing.T, file, want string) {
	t.Helper()
	if updating() {
		require.NoError(t, os.WriteFile(file, []byte(want), 0o644))
		return
	}
	if err := stale(file, want); err != nil {
		t.Error(err)
	}
}

// stale returns an error saying where file differs from want, if it does.
func stale(file, want string) error {
	got, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if string(got) != want {
		return fmt.Errorf("%s is out of date; regenerate it with go test -run TestConformance -update .\n%s", file, firstDiff(string(got), want))
	}
	return nil
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  committed: %s\n  code:      %s", i+1, gl, wl)
		}
	}
	return ""
}

// checkSDK returns how the SDK disagrees with the vendor: a vendor
// operation missing from allOps or sent with another method or path, an
// allOps entry the vendor does not have, an SDK method the spec names that
// the client lacks.
func checkSDK(ops []specOp, sdkOps map[string]string) []string {
	var problems []string
	inSpec := map[string]bool{}
	for _, o := range ops {
		for _, m := range o.SDK {
			if !sdkMethodExists(m) {
				problems = append(problems, fmt.Sprintf("§%s: the spec names %s, which *access.Client does not have", o.Section, m))
			}
		}
		if o.WebSocket() {
			continue
		}
		inSpec[o.SDK[0]] = true
		pattern, ok := sdkOps[o.SDK[0]]
		if !ok {
			problems = append(problems, fmt.Sprintf("§%s %s: not in allOps (ops_test.go)", o.Section, o.SDK[0]))
			continue
		}
		if got, want := normRoute(pattern), normRoute(o.Method+" "+o.Path); got != want {
			problems = append(problems, fmt.Sprintf("§%s %s sends %s; the vendor documents %s %s", o.Section, o.SDK[0], pattern, o.Method, o.Path))
		}
	}
	var extra []string
	for name := range sdkOps {
		if !inSpec[name] {
			extra = append(extra, fmt.Sprintf("allOps has %s, which is no operation of the spec", name))
		}
	}
	slices.Sort(extra)
	return append(problems, extra...)
}

// checkEvents returns how the SDK's events disagree with the vendor's: a
// documented webhook event missing from AllEvents (or one there the vendor
// does not document), a documented WebSocket event without a typed
// accessor on Notification.
func checkEvents(events []specEvent, all []access.EventType) []string {
	var problems []string
	hooks := map[string]bool{}
	for _, e := range events {
		switch {
		case e.Channel == channelWebhook:
			hooks[e.Name] = true
			if !slices.Contains(all, access.EventType(e.Name)) {
				problems = append(problems, fmt.Sprintf("webhook event %s is not in access.AllEvents", e.Name))
			}
		case e.Vendor == "documented" && len(accessors(&access.Notification{Event: access.NotificationEvent(e.Name), Data: json.RawMessage(`{}`)})) == 0:
			problems = append(problems, fmt.Sprintf("WebSocket event %s has no typed accessor on access.Notification", e.Name))
		}
	}
	for _, e := range all {
		if !hooks[string(e)] {
			problems = append(problems, fmt.Sprintf("access.AllEvents has %s, which the vendor does not document", e))
		}
	}
	return problems
}

// sdkMethodExists reports whether "Service.Method" is a method of the
// client's service field.
func sdkMethodExists(name string) bool {
	svc, m, ok := strings.Cut(name, ".")
	if !ok {
		return false
	}
	f, ok := reflect.TypeOf(access.Client{}).FieldByName(svc)
	if !ok {
		return false
	}
	_, ok = f.Type.MethodByName(m)
	return ok
}

// fakeSupport is what the fake does with one operation.
type fakeSupport struct {
	routed bool   // the fake serves it, under the SDK's name
	op     string // the name the fake gave the request, when another
	// needs lists the permissions the fake requires, when not exactly
	// the vendor's.
	needs []accesstest.Permission
}

// probeFakeOps sends every operation to the fake twice: with a token that
// has every permission but the vendor's (it must be refused with
// CODE_UNAUTHORIZED) and with one that has only the vendor's (it must
// not be). The fake's request log says which operation it took the
// request for.
func probeFakeOps(t *testing.T, srv *accesstest.Server, ops []specOp) map[string]fakeSupport {
	t.Helper()
	all := accesstest.AllPermissions()
	clients := map[string]*access.Client{}
	tokens := map[*access.Client]string{}
	client := func(perms ...accesstest.Permission) *access.Client {
		key := fmt.Sprint(perms)
		if c, ok := clients[key]; ok {
			return c
		}
		token := fmt.Sprintf("conformance-%d", len(clients))
		srv.AddToken(token, perms...)
		c := srv.ClientWithToken(token, access.WithRetryPolicy(access.RetryPolicy{}))
		clients[key], tokens[c] = c, token
		return c
	}
	without := func(p accesstest.Permission) []accesstest.Permission {
		return slices.DeleteFunc(slices.Clone(all), func(q accesstest.Permission) bool { return q == p })
	}
	calls := map[string]func(context.Context, *access.Client) error{}
	for _, op := range access.ConformanceOps() {
		calls[op.Name] = op.Call
	}
	calls["Notifications.Subscribe"] = func(ctx context.Context, c *access.Client) error {
		// A plain GET of the WebSocket's path: the fake checks the token
		// before the upgrade, which this request does not ask for.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/api/v1/developer/devices/notifications", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tokens[c])
		resp, err := srv.HTTPClient().Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var env struct {
			Code access.ErrorCode `json:"code"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&env)
		return &access.APIError{StatusCode: resp.StatusCode, Code: env.Code}
	}
	refused := func(err error) bool {
		var ae *access.APIError
		return errors.As(err, &ae) && ae.StatusCode == http.StatusForbidden && ae.Code == access.CodeUnauthorized
	}
	ctx := context.Background()
	out := map[string]fakeSupport{}
	for _, o := range ops {
		call := calls[o.SDK[0]]
		if call == nil {
			continue
		}
		var fs fakeSupport
		srv.ResetRequests()
		deniedWithout := refused(call(ctx, client(without(accesstest.Permission(o.Perm))...)))
		reqs := srv.Requests()
		if len(reqs) == 0 || reqs[0].Op == "" {
			out[o.SDK[0]] = fs
			continue
		}
		fs.routed = true
		if string(reqs[0].Op) != o.SDK[0] {
			fs.op = string(reqs[0].Op)
		}
		allowedWith := !refused(call(ctx, client(accesstest.Permission(o.Perm))))
		if !deniedWithout || !allowedWith {
			for _, p := range all {
				if refused(call(ctx, client(without(p)...))) {
					fs.needs = append(fs.needs, p)
				}
			}
			if len(fs.needs) == 0 {
				fs.needs = []accesstest.Permission{"(none)"}
			}
		}
		out[o.SDK[0]] = fs
	}
	return out
}

// eventStep is one step of the scenario probeFakeEvents plays on the fake.
type eventStep struct {
	name string
	do   func(ctx context.Context, srv *accesstest.Server, c *access.Client) error
}

// probeFakeEvents plays a scenario on the fake (with its demo site) and
// records which WebSocket notifications and webhook events each step
// makes it send: a raw WebSocket client reads every frame (the handshake
// too, which Subscribe does not yield), a webhook endpoint subscribed to
// every event receives the deliveries. After each step the test waits for
// the fake's delivery queue to drain and for a marker frame sent after it,
// so every event is attributed to the step that caused it, without
// sleeping.
func probeFakeEvents(t *testing.T) (ws, hooks map[string]string) {
	t.Helper()
	// Only a bound in case the fake stops answering: nothing waits on time.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(recv.Close)
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL + "/hook", Name: "conformance", Secret: "0123456789abcdef", Events: access.AllEvents()})

	conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(srv.URL(), "https")+"/api/v1/developer/devices/notifications",
		&websocket.DialOptions{HTTPClient: srv.HTTPClient(), HTTPHeader: http.Header{"Authorization": {"Bearer " + srv.Token()}}})
	require.NoError(t, err)
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 20)
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))

	ws, hooks = map[string]string{}, map[string]string{}
	const marker = "conformance.step.done"
	// drain reads frames up to the next marker and attributes them to step.
	drain := func(step string) {
		for {
			_, msg, err := conn.Read(ctx)
			require.NoError(t, err)
			var head struct {
				Event string `json:"event"`
			}
			require.NoError(t, json.Unmarshal(msg, &head))
			if head.Event == marker {
				return
			}
			if _, ok := ws[head.Event]; !ok {
				ws[head.Event] = step
			}
		}
	}
	delivered := 0
	finish := func(step string) {
		require.NoError(t, srv.WaitDeliveries(ctx))
		srv.NotifyRaw([]byte(`{"event":"` + marker + `"}`))
		drain(step)
		ds := srv.Deliveries()
		for _, d := range ds[delivered:] {
			if _, ok := hooks[string(d.Event)]; !ok {
				hooks[string(d.Event)] = step
			}
		}
		delivered = len(ds)
	}
	finish("connecting")

	doors := srv.Doors()
	require.NotEmpty(t, doors, "demo site")
	door := doors[0].ID
	steps := []eventStep{
		{"`Doors.Unlock`", func(ctx context.Context, _ *accesstest.Server, c *access.Client) error {
			_, err := c.Doors.Unlock(ctx, door, nil)
			return err
		}},
		{"`Doors.SetLockRule` (custom)", func(ctx context.Context, _ *accesstest.Server, c *access.Client) error {
			_, err := c.Doors.SetLockRule(ctx, door, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 10})
			return err
		}},
		{"the rule's end (`Server.Advance`)", func(_ context.Context, srv *accesstest.Server, _ *access.Client) error {
			srv.Advance(11 * time.Minute)
			return nil
		}},
		{"`Doors.SetEmergency`", func(ctx context.Context, _ *accesstest.Server, c *access.Client) error {
			if _, err := c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true}); err != nil {
				return err
			}
			_, err := c.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
			return err
		}},
		{"`Devices.TriggerDoorbell`", func(ctx context.Context, srv *accesstest.Server, c *access.Client) error {
			err := errors.New("no device of the demo site rings")
			for _, d := range srv.DeviceList().Devices() {
				if _, err = c.Devices.TriggerDoorbell(ctx, d.ID, &access.DoorbellRequest{}); err == nil {
					_, err = c.Devices.TriggerDoorbell(ctx, d.ID, &access.DoorbellRequest{Cancel: true})
					break
				}
			}
			return err
		}},
		{"a visitor's status (`Visitors.Delete`)", func(ctx context.Context, srv *accesstest.Server, c *access.Client) error {
			v := srv.AddVisitor(access.Visitor{FirstName: "Con", LastName: "Formance"})
			_, err := c.Visitors.Delete(ctx, v.ID, nil)
			return err
		}},
	}
	for _, st := range steps {
		require.NoError(t, st.do(ctx, srv, c), st.name)
		finish(st.name)
	}
	return ws, hooks
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
