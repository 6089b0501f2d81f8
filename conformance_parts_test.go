package access_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The parts of TestConformance, each on inputs small enough to check by
// eye.

func TestConformanceParseSpec(t *testing.T) {
	t.Parallel()
	md := strings.Join([]string{
		"## Operations",
		"| § | SDK | Operation | Method | Path | Query | Body | Response `data` | Perm | Min | Pg |",
		"|---|---|---|---|---|---|---|---|---|---|---|",
		"| 4.4 | Visitors.List, Visitors.All (exist) | Fetch All Visitors | GET | `/visitors` | `status` | — | `[Visitor]` | `view:visitor` | license plates ≥3.3.10 | **yes** |",
		"| 9.2 | SystemLogs.List | Fetch System Logs | **POST** | `/system/logs` | — | — | hits | `view:system_log` | — | yes |",
		"| 11.1 | Notifications.Subscribe (WebSocket; iter.Seq2[*Notification, error]) | Fetch Notifications [WebSocket] | GET (upgrade) | `/devices/notifications` | — | — | stream | `view:device` | 1.20.11 | — |",
		"| 11.4 | Webhooks.Create (exists), Webhooks.Ensure (exists) | Add Webhook Endpoints | POST | `/webhooks/endpoints` | — | — | endpoint | `edit:webhook` | **2.2.10** | no |",
		"### 2.1 What the vendor documents",
		"- **Documented events.** There are exactly three:",
		"  - `access.remote_view` — \"When a doorbell rings\".",
		"### 2.4 Webhook events versus the WebSocket",
		"| Topic | Webhook | WebSocket |",
		"|---|---|---|",
		"| Doorbell ring | `access.doorbell.incoming` (`object.request_id`) | `access.remote_view` (documented), `access.hw.door_bell` (observed) |",
		"| Unlock schedules | `access.unlock_schedule.activate` / `.deactivate` (≥3.3.10) | none documented |",
	}, "\n")
	ops, events, err := parseSpec(md)
	require.NoError(t, err)
	assert.Equal(t, []specOp{
		{Section: "4.4", SDK: []string{"Visitors.List", "Visitors.All"}, Operation: "Fetch All Visitors", Method: "GET", Path: "/visitors",
			Perm: "view:visitor", Since: "license plates ≥3.3.10"},
		{Section: "9.2", SDK: []string{"SystemLogs.List"}, Operation: "Fetch System Logs", Method: "POST", Path: "/system/logs",
			Perm: "view:system_log", Since: "—"},
		{Section: "11.1", SDK: []string{"Notifications.Subscribe"}, Operation: "Fetch Notifications [WebSocket]", Method: "GET",
			Path: "/devices/notifications", Perm: "view:device", Since: "1.20.11"},
		{Section: "11.4", SDK: []string{"Webhooks.Create", "Webhooks.Ensure"}, Operation: "Add Webhook Endpoints", Method: "POST",
			Path: "/webhooks/endpoints", Perm: "edit:webhook", Since: "2.2.10"},
	}, ops)
	assert.Equal(t, []specEvent{
		{Channel: "WebSocket", Name: "access.remote_view", Vendor: "documented", About: "When a doorbell rings", Perm: "view:device", Since: "1.20.11"},
		{Channel: "WebSocket", Name: "access.hw.door_bell", Vendor: "observed", About: "Doorbell ring", Perm: "view:device", Since: "1.20.11"},
		{Channel: "webhook", Name: "access.doorbell.incoming", Vendor: "documented", About: "Doorbell ring", Perm: "edit:webhook", Since: "2.2.10"},
		{Channel: "webhook", Name: "access.unlock_schedule.activate", Vendor: "documented", About: "Unlock schedules", Perm: "edit:webhook", Since: "3.3.10"},
		{Channel: "webhook", Name: "access.unlock_schedule.deactivate", Vendor: "documented", About: "Unlock schedules", Perm: "edit:webhook", Since: "3.3.10"},
	}, events)

	// The committed form reads back to the same facts.
	back, err := parseSpecOps(formatSpecOps(ops))
	require.NoError(t, err)
	assert.Equal(t, ops, back)
	evBack, err := parseSpecEvents(formatSpecEvents(events))
	require.NoError(t, err)
	assert.Equal(t, events, evBack)

	_, _, err = parseSpec("| 1.1 | A.B | too few cells |")
	assert.ErrorContains(t, err, "want 11")
	_, _, err = parseSpec(strings.Join(strings.Split(md, "\n")[:5], "\n"))
	assert.ErrorContains(t, err, "not found", "no WebSocket row, §2.1 or §2.4")
	_, err = parseSpecOps("section\tsdk\n")
	assert.ErrorContains(t, err, "header")
}

func TestConformanceNormRoute(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"GET /api/v1/developer/users/{id}":                           "GET /users/{}",
		"GET /users/:id":                                             "GET /users/{}",
		"DELETE /users/:user_id/license_plates/:license_plate_id":    "DELETE /users/{}/license_plates/{}",
		"DELETE /api/v1/developer/users/{id}/license_plates/{plate}": "DELETE /users/{}/license_plates/{}",
		"GET /api/v1/developer/system/static/":                       "GET /system/static/{}",
		"GET /system/static/:path":                                   "GET /system/static/{}",
		"GET /api/v1/developer/system/static/{path...}":              "GET /system/static/{}",
		"Users.Get":             "",
		"get /users":            "",
		"user_get":              "",
		"testdata/samples/x.js": "",
	} {
		assert.Equal(t, want, normRoute(in), in)
	}
}

func TestConformanceFirstDiff(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "REPORT.md")
	require.NoError(t, os.WriteFile(file, []byte("a\nb\n"), 0o644))
	assert.NoError(t, stale(file, "a\nb\n"))
	assert.EqualError(t, stale(file, "a\nc\n"), file+" is out of date; regenerate it with go test -run TestConformance -update .\n"+
		"line 2:\n  committed: b\n  code:      c")
	assert.ErrorIs(t, stale(file+".missing", ""), os.ErrNotExist)

	assert.Equal(t, "", firstDiff("a\nb\n", "a\nb\n"))
	assert.Equal(t, "line 2:\n  committed: b\n  code:      c", firstDiff("a\nb\n", "a\nc\n"))
	assert.Equal(t, "line 3:\n  committed: \n  code:      d", firstDiff("a\nb\n", "a\nb\nd\n"))
}

// TestConformanceSamples runs the sample scan and the test analysis on a
// small module of its own: a vendor answer whose sidecar names its
// operation, one a test serves next to a route (which does not make it a
// sample of that operation), a captured frame with its sidecar, frames
// described in a README (a capture, a fixture, the vendor's), a picture
// read by a glob from testdata on, and a file no test reads.
func TestConformanceSamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("testdata/samples/user_get.json", `{"code":"SUCCESS","data":{}}`)
	write("testdata/samples/door_get.json", `{"code":"SUCCESS","data":{}}`)
	write("testdata/samples/door_get.json.source", "vendor: reference §7.7, response sample\nop: Doors.Get\n")
	write("testdata/samples/null.json", `{"code":"SUCCESS","data":null}`)
	write("testdata/samples/unread.json", `{}`)
	write("testdata/samples/pic.png", "\x89PNG")
	write("testdata/notifications/remote_view.json", `{"event":"access.remote_view","data":{}}`)
	write("testdata/notifications/captured.json", `{"event":"access.logs.add","data":{}}`)
	write("testdata/notifications/captured.json.source", "capture: https://example.invalid/issue/1#comment\n")
	write("testdata/notifications/README.md", "# Frames\n\n- `pasted.json`: from https://github.com/example/integration/issues/7#issuecomment-1 (Access 4.1).\n"+
		"- remote_view.json.orig: not this file\n- `doc.json` is the vendor's sample (v3 PDF §11.1).\n"+
		"- `made.json` — fixture: the vendor's §11.1 sample with other ids\n")
	write("testdata/notifications/made.json", `{"event":"access.remote_view","data":{}}`)
	write("testdata/notifications/pasted.json", `{"event":"access.data.v2.device.update","data":{}}`)
	write("testdata/notifications/doc.json", `{"event":"access.remote_view","data":{}}`)
	write("testdata/notifications/doc.json.source", "event: access.remote_view\n") // no kind: the README says it
	write("testdata/fuzz/FuzzX/seed", "go test fuzz v1")
	write("testdata/conformance/operations.tsv", opsHeader+"\n")
	write("a_test.go", `package a

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func read(name string) []byte {
	b, _ := os.ReadFile("testdata/samples/" + name + ".json")
	return b
}

var cases = []struct{ op, sample string }{
	{"Doors.Get", "door_get"},
}

func serve(route, name string) { _ = read(name) }

func TestUser(t *testing.T) {
	serve("GET /api/v1/developer/users/{id}", "user_get")
	_ = []string{"pic"} // a word: read completes names with ".json", never ".png"
}

func TestDoors(t *testing.T) {
	for _, c := range cases {
		_ = read(c.sample)
	}
}

func TestFrames(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "notifications", "*.json"))
	_ = files
	_ = "null" // a word, not samples/null.json: nothing here reads testdata/samples
}

func helperNobodyCalls() { _ = read("null") }

func TestPictures(t *testing.T) {
	pics, _ := filepath.Glob("testdata/*/*.png") // a glob from testdata on
	_ = pics
}
`)
	samples, err := scanSamples(filepath.Join(dir, "testdata"))
	require.NoError(t, err)
	sources, err := parseTests(dir)
	require.NoError(t, err)
	linkSamples(samples, sources)
	got := map[string]reportSample{}
	for _, s := range samples {
		got[s.Rel] = *s
	}
	assert.Equal(t, map[string]reportSample{
		"notifications/captured.json": {Rel: "notifications/captured.json", Kind: kindCapture, Source: "https://example.invalid/issue/1#comment",
			Event: "access.logs.add", Subjects: []string{"access.logs.add"}, Readers: []string{"TestFrames"}},
		"notifications/remote_view.json": {Rel: "notifications/remote_view.json", Event: "access.remote_view",
			Subjects: []string{"access.remote_view"}, Readers: []string{"TestFrames"}},
		"notifications/pasted.json": {Rel: "notifications/pasted.json", Kind: kindCapture,
			Source: "https://github.com/example/integration/issues/7#issuecomment-1", Event: "access.data.v2.device.update",
			Subjects: []string{"access.data.v2.device.update"}, Readers: []string{"TestFrames"}},
		"notifications/doc.json": {Rel: "notifications/doc.json", Kind: kindVendor,
			Source: "`doc.json` is the vendor's sample (v3 PDF §11.1).", Event: "access.remote_view",
			Subjects: []string{"access.remote_view"}, Readers: []string{"TestFrames"}},
		"notifications/made.json": {Rel: "notifications/made.json", Kind: kindFixture,
			Source: "`made.json` — fixture: the vendor's §11.1 sample with other ids", Event: "access.remote_view",
			Subjects: []string{"access.remote_view"}, Readers: []string{"TestFrames"}},
		"samples/door_get.json": {Rel: "samples/door_get.json", Kind: kindVendor, Source: "reference §7.7, response sample",
			Subjects: []string{"Doors.Get"}, Readers: []string{"TestDoors"}},
		"samples/null.json":     {Rel: "samples/null.json"},
		"samples/unread.json":   {Rel: "samples/unread.json"},
		"samples/pic.png":       {Rel: "samples/pic.png", Readers: []string{"TestPictures"}},
		"samples/user_get.json": {Rel: "samples/user_get.json", Readers: []string{"TestUser"}},
	}, got)

	assert.Equal(t, []string{
		"testdata/notifications/remote_view.json has no source: write a remote_view.json.source sidecar (capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it",
		"testdata/samples/door_get.json is a sample of \"Doors.Get\", which is no operation (by its first SDK name) or event of the spec",
		"testdata/samples/null.json has no source: write a null.json.source sidecar (capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it",
		"testdata/samples/pic.png has no source: write a pic.png.source sidecar (capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it",
		"testdata/samples/unread.json has no source: write a unread.json.source sidecar (capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it",
		"testdata/samples/user_get.json has no source: write a user_get.json.source sidecar (capture:, vendor: or fixture:, and op: for an answer) or a line naming it in a README beside it",
	}, checkSampleSources(samples, map[string]bool{"Users.Get": true, "access.remote_view": true, "access.logs.add": true,
		"access.data.v2.device.update": true}))
}

func TestConformanceCheckSDK(t *testing.T) {
	t.Parallel()
	ops := []specOp{
		{Section: "3.4", SDK: []string{"Users.Get"}, Method: "GET", Path: "/users/:id"},
		{Section: "3.5", SDK: []string{"Users.List", "Users.Everything"}, Method: "GET", Path: "/users"},
		{Section: "3.23", SDK: []string{"Users.Delete"}, Method: "POST", Path: "/users/:id/delete"},
		{Section: "3.24", SDK: []string{"Users.Search"}, Method: "GET", Path: "/users/search"},
		{Section: "11.1", SDK: []string{"Notifications.Subscribe"}, Method: "GET", Path: "/devices/notifications"},
	}
	assert.Equal(t, []string{
		"§3.5: the spec names Users.Everything, which *access.Client does not have",
		"§3.23 Users.Delete sends DELETE /api/v1/developer/users/{id}; the vendor documents POST /users/:id/delete",
		"§3.24 Users.Search: not in allOps (ops_test.go)",
		"allOps has Doors.Get, which is no operation of the spec",
	}, checkSDK(ops, map[string]string{
		"Users.Get":    "GET /api/v1/developer/users/{id}",
		"Users.List":   "GET /api/v1/developer/users",
		"Users.Delete": "DELETE /api/v1/developer/users/{id}",
		"Doors.Get":    "GET /api/v1/developer/doors/{id}",
	}))
}

// TestConformanceFakeProbe shows that the probe of the fake tells a
// refused permission check: a fake that refuses Users.Get to every token
// "requires" every permission.
func TestConformanceFakeProbe(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: http.StatusForbidden, Code: access.CodeUnauthorized})
	ops := []specOp{
		{Section: "3.4", SDK: []string{"Users.Get"}, Method: "GET", Path: "/users/:id", Perm: "view:user"},
		{Section: "3.5", SDK: []string{"Users.List"}, Method: "GET", Path: "/users", Perm: "view:user"},
		{Section: "11.1", SDK: []string{"Notifications.Subscribe"}, Method: "GET", Path: "/devices/notifications", Perm: "view:device"},
		{Section: "0.0", SDK: []string{"Nothing.Here"}, Method: "GET", Path: "/nothing", Perm: "view:user"},
	}
	got := probeFakeOps(t, srv, ops)
	assert.Equal(t, fakeSupport{routed: true}, got["Users.List"])
	assert.Equal(t, fakeSupport{routed: true}, got["Notifications.Subscribe"])
	assert.Equal(t, fakeSupport{routed: true, needs: accesstest.AllPermissions()}, got["Users.Get"])
	assert.NotContains(t, got, "Nothing.Here", "no call: not probed")
	assert.Equal(t, "✓", fakeCell(got["Users.List"]))
	assert.Equal(t, "—", fakeCell(fakeSupport{}))
	assert.Equal(t, "✓, but requires `view:user`", fakeCell(fakeSupport{routed: true, needs: []accesstest.Permission{accesstest.ViewUser}}))
}

func TestConformanceNamesFile(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"x.json":                      true,
		"- `x.json`: from a console":  true,
		"see testdata/events/x.json.": true,
		"| x.json | capture |":        true,
		"ax.json":                     false,
		"x.json5":                     false,
		"x.json.orig":                 false,
		"x_json":                      false,
		"ax.json and x.json":          true,
	} {
		assert.Equal(t, want, namesFile(line, "x.json"), line)
	}
}

func TestConformanceCheckEvents(t *testing.T) {
	t.Parallel()
	events := []specEvent{
		{Channel: "WebSocket", Name: "access.remote_view", Vendor: "documented"},
		{Channel: "WebSocket", Name: "access.remote_view.gone", Vendor: "documented"},
		{Channel: "WebSocket", Name: "access.hw.door_bell", Vendor: "observed"},
		{Channel: "WebSocket", Name: "access.not.modelled", Vendor: "observed"},
		{Channel: "webhook", Name: "access.door.unlock", Vendor: "documented"},
		{Channel: "webhook", Name: "access.door.lock", Vendor: "documented"},
	}
	assert.Equal(t, []string{
		"WebSocket event access.remote_view.gone has no typed accessor on access.Notification",
		"webhook event access.door.lock is not in access.AllEvents",
		"access.AllEvents has access.doorbell.incoming, which the vendor does not document",
	}, checkEvents(events, []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming}))
}
