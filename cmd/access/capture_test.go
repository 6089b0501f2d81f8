package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/require"
)

// TestDoctorCaptureRedacts seeds the fake with a visitor with an email
// and a phone number (the only one, so doctor probes it), a webhook whose
// URL holds credentials and a query secret, a remote unlock by a named
// actor (whose name the log entry carries inside a JSON string), a log
// entry with media; then checks that no file of doctor --capture holds
// the name, the secrets, or any user's or visitor's name, email or phone,
// and that the operations that take an id from a listing were probed.
func TestDoctorCaptureRedacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := accesstest.New(t, accesstest.WithDemoData())
	cl := srv.Client()

	var demoVisitors []access.Visitor
	for v, err := range cl.Visitors.All(ctx, nil) {
		require.NoError(t, err)
		demoVisitors = append(demoVisitors, v)
	}
	for _, v := range demoVisitors {
		_, err := cl.Visitors.Delete(ctx, v.ID, &access.VisitorDeleteOptions{Force: true})
		require.NoError(t, err)
	}
	// A chat webhook: its path is its secret.
	_, _, err := cl.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Name: "chat", Endpoint: "https://chat.example.com:8443/services/T0CHATPATH/B0CHATPATH",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	// A user with an employee number and a license plate.
	plated, _, err := cl.Users.Create(ctx, &access.UserRequest{FirstName: "Otto", LastName: "Lilienthal", EmployeeNumber: "EMP-77341"})
	require.NoError(t, err)
	_, err = cl.Users.AssignLicensePlates(ctx, plated.ID, []string{"KX4521Q"})
	require.NoError(t, err)
	start := time.Now().Add(time.Hour).Truncate(time.Second)
	visitor, _, err := cl.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Hedwig", LastName: "Kieslerova", Email: "hedwig.kieslerova@example.net",
		MobilePhone: "+15550100123", StartTime: start, EndTime: start.Add(time.Hour), VisitReason: access.VisitReasonInterview,
		VisitorCompany: "Umbrella Dynamics", Remarks: "Allergic to peanuts"})
	require.NoError(t, err)
	_, err = cl.Visitors.AssignQRCode(ctx, visitor.ID)
	require.NoError(t, err)
	var doorID string
	for _, d := range srv.Doors() {
		if d.Name == "Main entrance" {
			doorID = d.ID
		}
	}
	_, err = cl.Doors.Unlock(ctx, doorID, &access.UnlockRequest{ActorID: "42", ActorName: "Grace Brewster Hopper"})
	require.NoError(t, err)
	_, _, err = cl.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Name: "ops", Endpoint: "https://hookuser:HOOKPASSWORD@127.0.0.1:1/hook?apikey=SUPERSECRET&team=blue",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	srv.AddSystemLog(accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings, SystemLog: access.SystemLog{Source: access.SystemLogSource{
		Actor:  access.SystemLogActor{ID: "42", Type: "user", DisplayName: "Grace Brewster Hopper"},
		Event:  access.SystemLogEvent{Type: "access.door.unlock", DisplayMessage: "Grace Brewster Hopper opened Main entrance", Result: "ACCESS"},
		Target: []access.SystemLogTarget{{Type: "activities_resource", ID: "res-1", DisplayName: "clip"}},
	}}})
	srv.AddSystemLogResource("res-1", access.SystemLogResource{VideoRecord: "/activities_resource/video/v1.mp4", VideoRecordThumbnail: "/activities_resource/thumbnail/t1.jpg"})
	srv.AddStaticFile("activities_resource/thumbnail/t1.jpg", "image/jpeg", []byte("\xff\xd8\xff\xe0 a picture of Grace Brewster Hopper"))

	// Every person's name, email and phone, and the secrets.
	secrets := []string{"Grace", "Hopper", "SUPERSECRET", "hookuser", "HOOKPASSWORD", "Hedwig", "Kieslerova", "hedwig.kieslerova", "5550100123",
		"T0CHATPATH", "B0CHATPATH", "/hook", "EMP-77341", "KX4521Q", "Umbrella Dynamics", "Allergic to peanuts", string(access.VisitReasonInterview)}
	for u, err := range cl.Users.All(ctx, nil) {
		require.NoError(t, err)
		secrets = append(secrets, u.FirstName+" "+u.LastName, u.Email, u.Phone, u.EmployeeNumber)
		for _, p := range u.LicensePlates {
			secrets = append(secrets, p.Credential)
		}
	}
	for _, v := range demoVisitors {
		secrets = append(secrets, v.FirstName+" "+v.LastName, v.Email, v.MobilePhone, v.VisitorCompany, v.Remarks)
	}

	dir := filepath.Join(t.TempDir(), "cap")
	var out, errb bytes.Buffer
	code := run(ctx, []string{"doctor", "--capture", dir}, nil, &out, &errb, fakeEnv(srv, nil))
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", &out, &errb)
	require.Regexp(t, `(?m)^ok +capture +\d+ answers written to `+regexp.QuoteMeta(dir)+` \(redacted; a CSV as a file, images summarized\)$`, out.String())
	require.Regexp(t, `(?m)^-- +skipped +NFCCards.EnrollmentStatus: no enrollment session to probe`, out.String())
	require.NotContains(t, out.String(), "skipped +(TouchPasses.Search|QRCodes.Download|SystemLogs)")

	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	all := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		require.NoError(t, err)
		all[f.Name()] = string(b)
		for _, s := range secrets {
			if strings.TrimSpace(s) != "" && strings.Contains(string(b), s) {
				t.Errorf("%s holds %q", f.Name(), s)
			}
		}
	}

	// The newly probed operations answered, and what each answer became.
	exchanges := func(op string) []map[string]any {
		t.Helper()
		var rec struct {
			Skipped   string           `json:"skipped"`
			Exchanges []map[string]any `json:"exchanges"`
		}
		require.NoError(t, json.Unmarshal([]byte(all[op+".json"]), &rec), op)
		require.Empty(t, rec.Skipped, op)
		require.Len(t, rec.Exchanges, 1, op)
		require.EqualValues(t, 200, rec.Exchanges[0]["status"], op)
		return rec.Exchanges
	}
	require.Contains(t, exchanges("TouchPasses.Search")[0]["body"], "data")
	require.Contains(t, exchanges("SystemLogs.GetResource")[0]["body"].(map[string]any)["data"], "video_record_thumbnail")
	require.Regexp(t, `^\d+ bytes of image/jpeg, summarized: not stored$`, exchanges("SystemLogs.DownloadStatic")[0]["text"])
	require.Regexp(t, `^\d+ bytes of image/png, summarized: not stored$`, exchanges("QRCodes.Download")[0]["text"])
	require.Equal(t, "/api/v1/developer/credentials/qr_codes/download/"+visitor.ID, exchanges("QRCodes.Download")[0]["path"])
	require.Equal(t, "SystemLogs.Export.csv", exchanges("SystemLogs.Export")[0]["stored"])
	require.Contains(t, all["NFCCards.EnrollmentStatus.json"], `"skipped": "no enrollment session to probe`)

	// What was redacted, and what was kept: the actor inside the unlock
	// entry's JSON string, the URL's userinfo and query values, the
	// export's Actor column.
	require.Contains(t, all["SystemLogs.List.json"], `\"actor_id\":\"42\"`)
	require.Contains(t, all["SystemLogs.List.json"], `\"actor_name\":\"REDACTED\"`)
	require.Contains(t, all["SystemLogs.List.json"], `"display_message": "REDACTED opened REDACTED"`)
	require.Contains(t, all["Webhooks.List.json"], `"endpoint": "https://127.0.0.1:1/REDACTED"`)
	require.Contains(t, all["Webhooks.List.json"], `"endpoint": "https://chat.example.com:8443/REDACTED"`)
	require.Contains(t, all["Visitors.Get.json"], `"visitor_company": "REDACTED"`)
	require.Contains(t, all["Visitors.Get.json"], `"remarks": "REDACTED"`)
	require.Contains(t, all["Visitors.Get.json"], `"visit_reason": "REDACTED"`)
	require.Contains(t, all["Visitors.Get.json"], `"status": "UPCOMING"`)
	require.Contains(t, all["Users.List.json"], `"employee_number": "REDACTED"`)
	require.Contains(t, all["Users.List.json"], `"credential": "REDACTED"`)
	require.Contains(t, all["Visitors.Get.json"], `"id": "`+visitor.ID+`"`)
	require.Contains(t, all["Visitors.Get.json"], `"mobile_phone": "REDACTED"`)
	require.Regexp(t, `(?m)^Time,Topic,Event,Message,Result,Actor,Actor Type,Authentication,Door,Device\n(.*\n)*.*,REDACTED opened REDACTED,ACCESS,REDACTED,user,`, all["SystemLogs.Export.csv"])
}

// captureTestKept reports whether a capture may hold the value s of
// member as it is: an id, a time or a value of a documented enumeration.
// It is written out here apart from the capture's own list (package
// internal/redact).
func captureTestKept(member, s string) bool {
	switch member {
	case "display_id", "card_id", "nfc_id", "alternate_id", "token":
		return false // numbers and tokens of credentials
	case "type", "status", "user_status", "email_status", "card_type", "user_type", "credential_status", "credential_type",
		"bundle_status", "source", "door_lock_relay_status", "door_position_status", "enabled", "anti_spoofing_level",
		"detect_distance", "pin_code_shuffle", "capabilities", "device_type", "code", "result", "topic", "events", "event_type",
		"firmware", "model", "version", "timezone", "category", "level", "mode",
		"tag", "credential_provider", "log_key", "log_category", "authentication_type":
		return true
	case "display_message":
		// The console's own message, kept with the personal values in it
		// redacted: those values are collected from their own members.
		return true
	}
	if s == "" || member == "id" || strings.HasSuffix(member, "_id") || strings.HasSuffix(member, "_ids") || member == "members" ||
		member == "doors" || member == "mac" || member == "ip" {
		return true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// containsWord reports whether v occurs in b other than as a part of a
// longer word or number: a card's display id "100000" is not in a log's
// time, 1796054100000 (the demo's log times follow the clock).
func containsWord(b []byte, v string) bool {
	word := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(v))
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(v)
		if (start == 0 || !word(b[start-1]) || !word(v[0])) && (end == len(b) || !word(b[end]) || !word(v[len(v)-1])) {
			return true
		}
		from = start + 1
	}
}

// TestDoctorCaptureHoldsNoSourceValue: no value of the demo site but ids,
// times and enumerations appears in any file of doctor --capture: the
// names of touch passes' phones ("Dmitri's phone") and visitors'
// companies, the names of doors, devices, groups and schedules included.
// The source is every string of the fake's state.
func TestDoctorCaptureHoldsNoSourceValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := accesstest.New(t, accesstest.WithDemoData())
	var state bytes.Buffer
	require.NoError(t, srv.WriteState(&state))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(state.Bytes(), &doc))
	values := map[string]string{} // value: where
	var collect func(v any, member, path string)
	collect = func(v any, member, path string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				collect(e, k, path+"."+k)
			}
		case []any:
			for _, e := range x {
				collect(e, member, path+"[]")
			}
		case string:
			if len(x) >= 3 && !captureTestKept(member, x) {
				values[x] = path
			}
		}
	}
	for _, part := range []string{"users", "user_groups", "access_policies", "schedules", "holiday_groups", "visitors",
		"space", "device_settings", "touch_passes", "credentials", "webhooks", "system_logs"} {
		collect(doc[part], part, part)
	}
	for _, must := range []string{"Dmitri's phone", "Initech", "Main entrance", "Office hours"} {
		require.NotEmpty(t, values[must], "the source holds no %q to check", must)
	}

	dir := filepath.Join(t.TempDir(), "cap")
	var out, errb bytes.Buffer
	code := run(ctx, []string{"doctor", "--capture", dir}, nil, &out, &errb, fakeEnv(srv, nil))
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", &out, &errb)
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, files)
	found := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		require.NoError(t, err)
		for v, where := range values {
			if containsWord(b, v) {
				found[v+" (source "+where+")"] = append(found[v+" (source "+where+")"], f.Name())
			}
		}
	}
	for v, in := range found {
		t.Errorf("%s in %v", v, in)
	}
	t.Logf("%d values of the source checked in %d files, %d found", len(values), len(files), len(found))
}

// TestDoctorCaptureScrubsCardNumbers: the console's own messages are
// kept, but the number of a presented card in them ("Access Denied (NFC
// 04C0FFEE at Main entrance): unknown card", as consoles log a denied
// tap) is redacted; no other member holds it for the redactor to collect.
func TestDoctorCaptureScrubsCardNumbers(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	for _, card := range []string{"04C0FFEE", "7731905"} {
		res, err := srv.PresentCard(accesstest.DemoDeviceID, card)
		require.NoError(t, err)
		require.False(t, res.Granted, card)
	}
	dir := filepath.Join(t.TempDir(), "cap")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"doctor", "--capture", dir}, nil, &out, &errb, fakeEnv(srv, nil))
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", &out, &errb)
	b, err := os.ReadFile(filepath.Join(dir, "SystemLogs.List.json"))
	require.NoError(t, err)
	require.Contains(t, string(b), `"display_message": "Access Denied (NFC REDACTED at REDACTED): unknown card"`)
	for _, card := range []string{"04C0FFEE", "7731905"} {
		require.NotContains(t, string(b), card)
	}
}
