package access

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The property: every sample in testdata, decoded into the SDK's typed
// view and encoded again with encoding/json, gives back every non-zero leaf
// of the sample at the same place. A typed view that drops a field real
// consoles send fails here. The only tolerated differences are the
// documented real-console spellings listed in spellings.

// leaves flattens a JSON document into path -> canonical value for every
// non-zero leaf (not "", 0, false or null; empty objects and arrays have
// no leaves). Paths are dot-separated; array elements are their index.
func leaves(t *testing.T, doc []byte) map[string]string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(join(path, k), e)
			}
		case []any:
			for i, e := range x {
				walk(join(path, strconv.Itoa(i)), e)
			}
		case string:
			if x != "" {
				out[path] = strconv.Quote(x)
			}
		case json.Number:
			if f, err := x.Float64(); err != nil || f != 0 {
				out[path] = canonicalNumber(x)
			}
		case bool:
			if x {
				out[path] = "true"
			}
		}
	}
	walk("", v)
	return out
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func canonicalNumber(n json.Number) string {
	if i, err := n.Int64(); err == nil {
		return strconv.FormatInt(i, 10)
	}
	f, _ := n.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// spelling is a documented real-console spelling that the typed view reads
// under another name: a leaf whose path starts with From comes back under
// To instead. A "*" segment matches any one segment and is carried over.
type spelling struct{ From, To string }

// spellings per sample kind (the notification's event name, or the sample
// file's base name). Each is documented on the type that reads it.
var spellings = map[string][]spelling{
	// DeviceUpdateData: real hubs send is_online and location where the
	// short frames send online and door.
	string(NotificationDeviceUpdate): {{"data.is_online", "data.online"}, {"data.location", "data.door"}},
	// Schedule: controllers answer weekly, the SDK writes week_schedule.
	"schedule_get":    {{"data.weekly", "data.week_schedule"}},
	"visitors_list":   {{"data.*.schedule.weekly", "data.*.schedule.week_schedule"}},
	"visitor_get":     {{"data.schedule.weekly", "data.schedule.week_schedule"}},
	"visitor_create":  {{"data.schedule.weekly", "data.schedule.week_schedule"}},
	"visitor_update":  {{"data.schedule.weekly", "data.schedule.week_schedule"}},
	"schedule_create": {{"data.weekly", "data.week_schedule"}},
	// User.TouchPass: a user's single touch_pass object decodes as a list
	// of one.
	"user_get":          {{"data.touch_pass", "data.touch_pass.0"}},
	"users_list_vendor": {{"data.*.touch_pass", "data.*.touch_pass.0"}},
	// TouchPasses: a purchase answered with one object decodes as a list
	// of one.
	"touch_pass_purchase": {{"data", "data.0"}},
	// IdentityResources: the resource list spells ev_station "evstation".
	"identity_resources": {{"data.evstation", "data.ev_station"}},
}

// checkRoundTrip compares the sample's leaves with the re-encoded typed
// view's.
func checkRoundTrip(t *testing.T, kind string, sample []byte, view any) {
	t.Helper()
	enc, err := json.Marshal(view)
	require.NoError(t, err)
	want, got := leaves(t, sample), leaves(t, enc)
	var missing []string
	for p, v := range want {
		if got[p] == v {
			continue
		}
		if alt, ok := respelled(kind, p); ok && got[alt] == v {
			continue
		}
		missing = append(missing, fmt.Sprintf("%s = %s (got %q)", p, v, got[p]))
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%s: the typed view loses %d leaves:\n\t%s", kind, len(missing), strings.Join(missing, "\n\t"))
	}
}

// respelled returns path under the kind's documented spelling, if one
// applies.
func respelled(kind, path string) (string, bool) {
	segs := strings.Split(path, ".")
	for _, s := range spellings[kind] {
		from, to := strings.Split(s.From, "."), strings.Split(s.To, ".")
		if len(segs) < len(from) {
			continue
		}
		var stars []string
		ok := true
		for i, f := range from {
			switch {
			case f == "*":
				stars = append(stars, segs[i])
			case f != segs[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		out := make([]string, 0, len(to)+len(segs)-len(from))
		for _, x := range to {
			if x == "*" && len(stars) > 0 {
				x, stars = stars[0], stars[1:]
			}
			out = append(out, x)
		}
		return strings.Join(append(out, segs[len(from):]...), "."), true
	}
	return "", false
}

// notificationView decodes a notification's data through its typed
// accessor.
func notificationView(n *Notification) (any, error) {
	switch n.Event {
	case NotificationRemoteView:
		return n.RemoteView()
	case NotificationRemoteViewChange:
		return n.RemoteViewChange()
	case NotificationRemoteUnlock:
		return n.RemoteUnlock()
	case NotificationDeviceUpdate:
		return n.DeviceUpdate()
	case NotificationDeviceUpdateV2:
		return n.DeviceUpdateV2()
	case NotificationLocationUpdate:
		return n.LocationUpdate()
	case NotificationLocationUpdateV2, NotificationDeviceLocationUpdateV2:
		return n.LocationUpdateV2()
	case NotificationSettingUpdate:
		return n.SettingUpdate()
	case NotificationLogsAdd:
		return n.LogsAdd()
	case NotificationDoorBell:
		return n.DoorBell()
	case NotificationBaseInfo:
		var v struct {
			TopLogCount int `json:"top_log_count"`
		}
		err := n.DecodeData(&v)
		return v, err
	}
	return nil, fmt.Errorf("no typed view for %s", n.Event)
}

// eventObjectView decodes a webhook event's object through its typed
// accessor; nil for events without one.
func eventObjectView(e *WebhookEvent) (any, error) {
	switch e.Event {
	case EventDoorUnlock:
		return e.DoorUnlock()
	case EventDoorbellIncoming, EventDoorbellIncomingREN, EventDoorbellCompleted:
		return e.Doorbell()
	case EventDeviceDPSStatus:
		return e.DPSStatus()
	case EventDeviceEmergencyStatus:
		return e.EmergencyStatus()
	}
	return nil, nil
}

// sampleViews names the typed view of each REST sample's data.
var sampleViews = map[string]func() any{
	"access_policies_list":        func() any { return new([]AccessPolicy) },
	"access_policy_get":           func() any { return new(AccessPolicy) },
	"device_settings_get":         func() any { return new(DeviceSettings) },
	"devices_list":                func() any { return new(DeviceGroups) },
	"door_emergency_get":          func() any { return new(EmergencyStatus) },
	"door_get":                    func() any { return new(Door) },
	"door_group_create":           func() any { return new(DoorGroup) },
	"door_group_get":              func() any { return new(DoorGroup) },
	"door_group_topology":         func() any { return new([]DoorGroupTopology) },
	"door_group_update":           func() any { return new(DoorGroup) },
	"door_groups_list":            func() any { return new([]DoorGroup) },
	"door_lock_rule_get":          func() any { return new(LockRule) },
	"doors_list":                  func() any { return new([]Door) },
	"holiday_group_get":           func() any { return new(HolidayGroup) },
	"holiday_groups_list":         func() any { return new([]HolidayGroupSummary) },
	"identity_assigned":           func() any { return new(IdentityResources) },
	"identity_invitations":        func() any { return new([]InvitationFailure) },
	"identity_resources":          func() any { return new(IdentityResources) },
	"nfc_card_get":                func() any { return new(NFCCard) },
	"nfc_cards_list":              func() any { return new([]NFCCard) },
	"nfc_import":                  func() any { return new([]NFCImportResult) },
	"nfc_session_start":           func() any { return new(EnrollmentSession) },
	"nfc_session_status":          func() any { return new(EnrolledCard) },
	"pin_generate":                func() any { return new(string) },
	"schedule_get":                func() any { return new(Schedule) },
	"schedules_list":              func() any { return new([]Schedule) },
	"system_log_resource":         func() any { return new(SystemLogResource) },
	"system_logs_list":            func() any { return new(systemLogPage) },
	"system_logs_event_structure": func() any { return new(systemLogPage) },
	"touch_pass_get":              func() any { return new(TouchPass) },
	"touch_pass_list":             func() any { return new([]TouchPass) },
	"touch_pass_purchase":         func() any { return new(TouchPasses) },
	"touch_pass_search":           func() any { return new([]TouchPass) },
	"user_access_policies":        func() any { return new([]AccessPolicy) },
	"user_avatar":                 func() any { return new(Avatar) },
	"user_create":                 func() any { return new(User) },
	"user_get":                    func() any { return new(User) },
	"user_group_get":              func() any { return new(UserGroup) },
	"user_group_users":            func() any { return new([]User) },
	"user_groups_list":            func() any { return new([]UserGroup) },
	"users_list":                  func() any { return new([]User) },
	"users_search":                func() any { return new([]User) },
	"visitor_get":                 func() any { return new(Visitor) },
	"visitors_list":               func() any { return new([]Visitor) },
	"webhook_create":              func() any { return new(WebhookEndpoint) },
	"webhook_list":                func() any { return new([]WebhookEndpoint) },
	"schedule_update":             func() any { return new(Schedule) },
	// The vendor's samples of operations whose other sample is a fixture.
	"visitor_create":              func() any { return new(Visitor) },
	"visitor_update":              func() any { return new(Visitor) },
	"access_policy_create":        func() any { return new(AccessPolicy) },
	"schedule_create":             func() any { return new(Schedule) },
	"holiday_group_vendor":        func() any { return new(HolidayGroup) },
	"touch_pass_assign":           func() any { return new(TouchPass) },
	"touch_pass_unassign":         func() any { return new(TouchPass) },
	"touch_pass_batch_assign":     func() any { return new([]TouchPass) },
	"touch_pass_update":           func() any { return new(TouchPass) },
	"touch_pass_assignable":       func() any { return new([]TouchPass) },
	"user_group_users_vendor":     func() any { return new([]User) },
	"user_group_all_users":        func() any { return new([]User) },
	"user_access_policies_vendor": func() any { return new([]AccessPolicy) },
	"user_avatar_vendor":          func() any { return new(Avatar) },
	"identity_invitations_vendor": func() any { return new([]InvitationFailure) },
	"identity_assigned_vendor":    func() any { return new(IdentityResources) },
	"nfc_session_status_vendor":   func() any { return new(EnrolledCard) },
	"nfc_import_vendor":           func() any { return new([]NFCImportResult) },
	"system_log_resource_vendor":  func() any { return new(SystemLogResource) },
	"user_create_vendor":          func() any { return new(User) },
	"users_list_vendor":           func() any { return new([]User) },
	"users_search_vendor":         func() any { return new([]User) },
	"user_groups_list_vendor":     func() any { return new([]UserGroup) },
	"user_group_get_vendor":       func() any { return new(UserGroup) },
	"access_policy_get_vendor":    func() any { return new(AccessPolicy) },
	"access_policies_list_vendor": func() any { return new([]AccessPolicy) },
	"schedules_list_vendor":       func() any { return new([]Schedule) },
	"nfc_card_get_vendor":         func() any { return new(NFCCard) },
	"nfc_cards_list_vendor":       func() any { return new([]NFCCard) },
	"touch_pass_list_vendor":      func() any { return new([]TouchPass) },
	"touch_pass_get_vendor":       func() any { return new(TouchPass) },
	"identity_resources_vendor":   func() any { return new(IdentityResources) },
	"door_emergency_get_vendor":   func() any { return new(EmergencyStatus) },
	"system_logs_list_vendor":     func() any { return new(systemLogPage) },
	"error_params_invalid":        nil, // envelopes without data
	"nfc_session_token_empty":     nil,
	"null":                        nil,
	"success":                     nil,
	"webhook_delete":              nil,
	"device_settings_put":         nil,
}

func TestTypedViewsKeepEveryField(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	seen := 0
	for _, f := range files {
		dir, name := filepath.Base(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".json")
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		t.Run(dir+"/"+name, func(t *testing.T) {
			switch dir {
			case "notifications", "frames":
				n, err := ParseNotification(b)
				require.NoError(t, err)
				view, err := notificationView(n)
				require.NoError(t, err)
				// The envelope round-trips as a whole, with the typed data.
				data, err := json.Marshal(view)
				require.NoError(t, err)
				env := *n
				env.Data = data
				checkRoundTrip(t, string(n.Event), b, env)
			case "events":
				e, err := ParseEvent(b)
				require.NoError(t, err)
				checkRoundTrip(t, string(e.Event), b, e)
				// The object's typed view, where there is one.
				obj, err := eventObjectView(e)
				require.NoError(t, err)
				if obj != nil {
					enc, err := json.Marshal(obj)
					require.NoError(t, err)
					typed := *e
					typed.Data.Object = enc
					checkRoundTrip(t, string(e.Event), b, &typed)
				}
			case "samples":
				mk, ok := sampleViews[name]
				require.True(t, ok, "sample %s has no typed view in sampleViews", name)
				var env struct {
					Code       string          `json:"code"`
					Msg        string          `json:"msg"`
					Data       json.RawMessage `json:"data"`
					Pagination *Pagination     `json:"pagination,omitempty"`
				}
				require.NoError(t, json.Unmarshal(b, &env))
				if mk != nil {
					v := mk()
					require.NoError(t, json.Unmarshal(env.Data, v))
					enc, err := json.Marshal(v)
					require.NoError(t, err)
					env.Data = enc
				}
				checkRoundTrip(t, name, b, env)
			default:
				t.Skipf("no typed view for testdata/%s", dir)
			}
		})
		seen++
	}
	t.Logf("%d samples checked", seen)
}
