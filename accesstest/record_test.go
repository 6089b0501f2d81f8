package accesstest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/redact"
)

// readList reads every record of a list through the raw pager (or one GET
// for lists the console does not page), each as a map of its fields.
func readList(t *testing.T, c *access.Client, path string, paged bool) []map[string]any {
	t.Helper()
	ctx := context.Background()
	var raws []json.RawMessage
	if paged {
		for r, err := range c.DoAll(ctx, path) {
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			raws = append(raws, r)
		}
	} else {
		var data json.RawMessage
		if _, err := c.Do(ctx, "GET", path, nil, &data); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := json.Unmarshal(data, &raws); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	out := make([]map[string]any, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

func key(m map[string]any) string {
	for _, k := range []string{"id", "token", "card_id"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func recordDemo(t *testing.T) (src, dst *accesstest.Server, seed []byte) {
	t.Helper()
	src = accesstest.NewServer()
	t.Cleanup(src.Close)
	src.LoadDemoData()
	users, pols := src.Users(), src.AccessPolicies()
	top := src.AddUserGroup("", "Staff", "", users[0].ID, users[1].ID)
	sub := src.AddUserGroup("", "Night shift", top, users[2].ID)
	ctx := context.Background()
	for g, ps := range map[string][]string{top: {pols[0].ID}, sub: {pols[1].ID, pols[0].ID}} {
		if _, err := src.Client().UserGroups.SetAccessPolicies(ctx, g, ps); err != nil {
			t.Fatal(err)
		}
	}
	before := len(src.Requests())
	rec, err := accesstest.RecordSite(ctx, src.Client())
	if err != nil {
		t.Fatal(err)
	}
	reqs := src.Requests()[before:]
	if len(reqs) < 10 {
		t.Fatalf("recording made %d requests", len(reqs))
	}
	for _, r := range reqs {
		if r.Method != "GET" { // a recording only reads
			t.Errorf("recording sent %s %s", r.Method, r.Path)
		}
	}
	if err := rec.Pseudonymise([]byte("a key for the test")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rec.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	dst = accesstest.NewServer()
	t.Cleanup(dst.Close)
	if err := dst.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	return src, dst, buf.Bytes()
}

// A recorded demo site, loaded into a second fake, answers every list
// with the same records (count, ids, key sets): the structure exactly but
// for its names (pseudonyms: only ids, times and enumerations are kept),
// the people with pseudonyms in place of their names, emails, employee
// numbers, card tokens, PINs and plates, and the same relationships.
func TestRecordSiteRoundTrip(t *testing.T) {
	src, dst, seed := recordDemo(t)
	sc, dc := src.Client(), dst.Client()
	structure := []string{"/doors", "/door_groups", "/door_groups/topology", "/access_policies",
		"/access_policies/schedules", "/access_policies/holiday_groups", "/user_groups"}
	for _, p := range structure {
		a, b := readList(t, sc, p, false), readList(t, dc, p, false)
		if len(a) == 0 {
			t.Errorf("%s: the demo has no records", p)
		}
		if js(masked(a)) != js(masked(b)) {
			t.Errorf("%s differs:\n src %s\n dst %s", p, js(a), js(b))
		}
	}
	// Each record read by its id answers the same too.
	for _, p := range []string{"/doors", "/door_groups", "/access_policies", "/access_policies/schedules", "/access_policies/holiday_groups", "/user_groups"} {
		for _, r := range readList(t, sc, p, false) {
			var a, b json.RawMessage
			if _, err := sc.Do(context.Background(), "GET", p+"/"+key(r), nil, &a); err != nil {
				t.Fatal(err)
			}
			if _, err := dc.Do(context.Background(), "GET", p+"/"+key(r), nil, &b); err != nil {
				t.Fatalf("%s/%s: %v", p, key(r), err)
			}
			if js(masked(a)) != js(masked(b)) {
				t.Errorf("%s/%s differs:\n src %s\n dst %s", p, key(r), a, b)
			}
		}
	}
	// Device settings, by device.
	settings := 0
	for _, id := range src.DeviceIDs() {
		a, _ := src.Device(id)
		b, ok := dst.Device(id)
		if !ok || js(a) != js(b) {
			t.Errorf("device %s settings %s, recorded %s", id, js(a), js(b))
		}
		settings++
	}
	sa, sb := src.DeviceIDs(), dst.DeviceIDs()
	slices.Sort(sa)
	slices.Sort(sb)
	if settings == 0 || !slices.Equal(sa, sb) { // no list answers them: their order is not kept
		t.Errorf("device settings of %v, recorded %v", src.DeviceIDs(), dst.DeviceIDs())
	}
	// Devices come in groups: compare them flattened.
	var da, db [][]map[string]any
	if _, err := sc.Do(context.Background(), "GET", "/devices", nil, &da); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Do(context.Background(), "GET", "/devices", nil, &db); err != nil {
		t.Fatal(err)
	}
	if flat := slices.Concat(da...); len(flat) == 0 || js(masked(flat)) != js(masked(slices.Concat(db...))) {
		t.Errorf("devices differ:\n src %s\n dst %s", js(da), js(db))
	}

	people := map[string]bool{"/users?expand[]=access_policy": true, "/visitors": true,
		"/credentials/nfc_cards/tokens": true, "/credentials/touch_passes": true}
	var originals []string
	for p := range people {
		a, b := readList(t, sc, p, true), readList(t, dc, p, true)
		if len(a) != len(b) {
			t.Fatalf("%s: %d records, recorded %d", p, len(a), len(b))
		}
		if ua, ub := holders(a), holders(b); !slices.Equal(ua, ub) {
			t.Errorf("%s: holders %v, recorded %v", p, ua, ub)
		}
		for i := range a {
			if !slices.Equal(keys(a[i]), keys(b[i])) {
				t.Errorf("%s[%d] keys: %v, recorded %v", p, i, keys(a[i]), keys(b[i]))
			}
			for _, o := range personal(a[i]) {
				originals = append(originals, o)
				for _, n := range personal(b[i]) {
					if n == o {
						t.Errorf("%s %s kept its original %q", p, key(a[i]), o)
					}
				}
			}
			if strings.HasPrefix(p, "/users") {
				if key(a[i]) != key(b[i]) {
					t.Errorf("user ids %s, recorded %s", key(a[i]), key(b[i]))
				}
				pa, pb := refIDs(a[i]["access_policies"]), refIDs(b[i]["access_policies"])
				if !slices.Equal(pa, pb) {
					t.Errorf("user %s policies %v, recorded %v", key(a[i]), pa, pb)
				}
			}
		}
	}
	if len(originals) == 0 {
		t.Fatal("the demo has no personal values to check")
	}
	// Every string of the seed but ids (kept: they are no one's data).
	var doc any
	if err := json.Unmarshal(seed, &doc); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	strs(doc, "", &text)
	for _, s := range originals {
		if strings.Contains(text.String(), s) {
			t.Errorf("the seed holds the original %q", s)
		}
	}

	// Group membership and policies.
	for _, g := range readList(t, sc, "/user_groups", false) {
		id := key(g)
		for _, sub := range []string{"/users/all", "/access_policies"} {
			a, b := readList(t, sc, "/user_groups/"+id+sub, false), readList(t, dc, "/user_groups/"+id+sub, false)
			if !slices.Equal(idsOf(a), idsOf(b)) {
				t.Errorf("group %s%s: %v, recorded %v", id, sub, idsOf(a), idsOf(b))
			}
		}
	}
}

// The same person gets the same pseudonym wherever they appear, and
// another key gives other pseudonyms.
func TestPseudonymsConsistent(t *testing.T) {
	src := accesstest.NewServer()
	defer src.Close()
	src.LoadDemoData()
	rec, err := accesstest.RecordSite(context.Background(), src.Client())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := accesstest.RecordSite(context.Background(), src.Client())
	if err := rec.Pseudonymise([]byte("k1")); err != nil {
		t.Fatal(err)
	}
	if err := again.Pseudonymise([]byte("k1")); err != nil {
		t.Fatal(err)
	}
	if js(rec) != js(again) {
		t.Error("the same key gave other pseudonyms")
	}
	other, _ := accesstest.RecordSite(context.Background(), src.Client())
	if err := other.Pseudonymise([]byte("k2")); err != nil {
		t.Fatal(err)
	}
	if js(rec.Users) == js(other.Users) {
		t.Error("another key gave the same pseudonyms")
	}
	names := map[string]string{}
	for _, u := range rec.Users {
		names[u.ID] = u.FirstName + " " + u.LastName
	}
	n := 0
	for _, c := range rec.NFCCards {
		if c.User != nil && names[c.UserID] != "" {
			n++
			if c.User.FirstName+" "+c.User.LastName != names[c.UserID] {
				t.Errorf("card %s: holder %s %s, user %s", c.Token, c.User.FirstName, c.User.LastName, names[c.UserID])
			}
		}
	}
	for _, tp := range rec.TouchPasses {
		if tp.UserName != "" && names[tp.UserID] != "" {
			n++
			if tp.UserName != names[tp.UserID] {
				t.Errorf("touch pass %s: %s, user %s", tp.ID, tp.UserName, names[tp.UserID])
			}
		}
	}
	t.Logf("%d cross references checked", n)
}

// personal is the personal values of a record: the full name, the
// emails, the employee number, card tokens and display ids, PINs, plates,
// phone numbers (values of 5 characters or more, which cannot be found in
// the seed by chance).
func personal(m map[string]any) []string {
	var out []string
	add := func(v any) {
		if s, _ := v.(string); len(s) >= 5 {
			out = append(out, s)
		}
	}
	first, _ := m["first_name"].(string)
	last, _ := m["last_name"].(string)
	add(first + " " + last)
	for _, f := range []string{"email", "user_email", "employee_number", "mobile_phone", "phone", "user_name", "display_id", "card_name"} {
		add(m[f])
	}
	if m["card_id"] != nil || m["display_id"] != nil {
		add(m["token"])
		add(m["card_id"])
	}
	if pin, ok := m["pin_code"].(map[string]any); ok {
		add(pin["token"])
	}
	for _, f := range []string{"nfc_cards", "license_plates"} {
		l, _ := m[f].([]any)
		for _, x := range l {
			if c, ok := x.(map[string]any); ok {
				add(c["token"])
				add(c["credential"])
			}
		}
	}
	return out
}

// holders is the sorted user ids (user_id, inviter_id) the records of a
// list name: who holds which card or pass.
func holders(l []map[string]any) []string {
	var out []string
	for _, m := range l {
		for _, f := range []string{"user_id", "inviter_id"} {
			if s, _ := m[f].(string); s != "" {
				out = append(out, f+"="+s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// strs writes every string in v, but the values of ids, one a line.
func strs(v any, k string, b *strings.Builder) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			strs(x, k, b)
		}
	case []any:
		for _, x := range v {
			strs(x, k, b)
		}
	case string:
		if k != "id" && !strings.HasSuffix(k, "_id") && !strings.HasSuffix(k, "_ids") && !strings.HasSuffix(k, "members") {
			b.WriteString(v + "\n")
		}
	}
}

// masked is v (JSON, or what encodes to it) with every string but those
// of ids, times and enumerations (as testKept decides) emptied: what a
// recording keeps as it is.
func masked(v any) any {
	var doc any
	b, _ := json.Marshal(v)
	if raw, ok := v.(json.RawMessage); ok {
		b = raw
	}
	_ = json.Unmarshal(b, &doc)
	var mask func(v any, member string) any
	mask = func(v any, member string) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = mask(e, k)
			}
		case []any:
			for i, e := range x {
				x[i] = mask(e, member)
			}
		case string:
			if !testKept(member, x) {
				return "(replaced)"
			}
		}
		return v
	}
	return mask(doc, "")
}

// testKept reports whether a recording may keep the value s of member:
// an id, a time or a value of a documented enumeration. It is written out
// here apart from the recording's own list (package internal/redact).
func testKept(member, s string) bool {
	switch member {
	case "display_id", "card_id", "nfc_id", "alternate_id", "token":
		return false // numbers and tokens of credentials
	case "type", "status", "user_status", "email_status", "card_type", "user_type", "credential_status", "credential_type",
		"bundle_status", "source", "door_lock_relay_status", "door_position_status", "enabled", "anti_spoofing_level",
		"detect_distance", "pin_code_shuffle", "capabilities", "device_type", "code":
		return true
	case "visit_reason":
		return access.VisitReason(s).Valid()
	}
	if s == "" || member == "id" || strings.HasSuffix(member, "_id") || strings.HasSuffix(member, "_ids") || member == "members" || member == "doors" {
		return true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "15:04:05"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// TestRecordSeedHoldsNoSourceValue: no value of the source site but ids,
// times and enumerations appears anywhere in a recorded seed, the names
// of touch passes' phones ("Dmitri's phone") and visitors' companies
// included, nor the names of the site's doors, floors, groups, schedules
// and devices. The source is every string of the parts of the source
// fake's state that a recording reads.
func TestRecordSeedHoldsNoSourceValue(t *testing.T) {
	src, _, seed := recordDemo(t)
	var state bytes.Buffer
	if err := src.WriteState(&state); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(state.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
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
			if len(x) >= 3 && !testKept(member, x) {
				values[x] = path
			}
		}
	}
	for _, part := range []string{"users", "user_groups", "access_policies", "schedules", "holiday_groups", "visitors",
		"space", "device_settings", "touch_passes", "credentials"} {
		collect(doc[part], part, part)
	}
	for _, must := range []string{"Dmitri's phone", "Initech", "Main entrance", "Office hours", "Night shift"} {
		if values[must] == "" {
			t.Errorf("the source holds no %q to check", must)
		}
	}
	// A card number replaced keeps its form (six digits): the pseudonym
	// of one may be, by chance, another's original. Such a value is
	// excused when it is the pseudonym of another value of the source.
	p := redact.NewPseudonyms([]byte("a key for the test"))
	images := map[string]string{}
	for v := range values {
		images[p.Replace("", v)] = v
	}
	n := 0
	for v, where := range values {
		if !bytes.Contains(seed, []byte(v)) {
			continue
		}
		if o, ok := images[v]; ok && o != v {
			t.Logf("the seed holds %q (source %s): the pseudonym of %q", v, where, o)
			continue
		}
		n++
		t.Errorf("the seed holds %q (source %s)", v, where)
	}
	t.Logf("%d values of the source checked, %d found in the seed", len(values), n)
}

func refIDs(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, key(m))
		}
	}
	return out
}

func idsOf(l []map[string]any) []string {
	var out []string
	for _, m := range l {
		out = append(out, key(m))
	}
	return out
}
