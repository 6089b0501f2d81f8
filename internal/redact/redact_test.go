package redact

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Ids, times and enumerations are kept, in any case; names, companies,
// credentials and unknown members are not.
func TestKept(t *testing.T) {
	for _, m := range []string{"id", "user_id", "Location_ID", "building_id", "start_time", "last_activity", "monday", "status",
		"type", "bundle_status", "capabilities", "enabled"} {
		if !Kept(m) {
			t.Errorf("%s not kept", m)
		}
	}
	for _, m := range []string{"name", "full_name", "device_name", "visitor_company", "remarks", "token", "display_id", "card_id",
		"nfc_id", "alternate_id", "employee_number", "email", "visit_reason", "msg", "a_member_added_later", ""} {
		if Kept(m) {
			t.Errorf("%s kept", m)
		}
	}
	n := 0
	for _, l := range Members() {
		for _, m := range l {
			n++
			if !Kept(m) {
				t.Errorf("%s listed, not kept", m)
			}
		}
	}
	if n != len(kept()) {
		t.Errorf("%d members listed, %d kept", n, len(kept()))
	}
}

// Walk replaces every string outside the kept members, at any depth, an
// array's strings by the array's member, and keeps the rest.
func TestWalk(t *testing.T) {
	in := `{"id":"u1","name":"Dmitri Ivanov","status":"ACTIVE","touch_pass":[{"card_id":"c0ffee","bundles":[{"device_name":"Dmitri's phone",
		"device_id":"device-1","source":"apple","device_type":10}]}],"capabilities":["nfc","face"],"aliases":["Dima","D."],"start_time":"09:00:00",
		"new_member":{"nested":"secret place"},"empty":"","flag":true,"none":null,"n":7}`
	var v any
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	var got []string
	out := Walk(v, func(member, s string) string { got = append(got, member+"="+s); return "X" })
	b, _ := json.Marshal(out)
	want := `{"aliases":["X","X"],"capabilities":["nfc","face"],"empty":"","flag":true,"id":"u1","n":7,"name":"X","new_member":{"nested":"X"},` +
		`"none":null,"start_time":"09:00:00","status":"ACTIVE","touch_pass":[{"bundles":[{"device_id":"device-1","device_name":"X",` +
		`"device_type":10,"source":"apple"}],"card_id":"X"}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if len(got) != 6 || !strings.Contains(strings.Join(got, "|"), "aliases=Dima") {
		t.Errorf("replaced %q", got)
	}
	if s := Walk("top", func(string, string) string { return "X" }); s != "X" {
		t.Errorf("a string at the top: %v", s)
	}
}

// A pseudonym keeps the form of its value, is the same for the same value
// under one key, differs under another, and holds nothing of the value.
func TestPseudonymsReplace(t *testing.T) {
	p, q := NewPseudonyms([]byte("k1")), NewPseudonyms([]byte("k2"))
	for _, c := range []struct{ member, in, form string }{
		{"display_id", "100023", `^[0-9]{6}$`},
		{"token", "0117eaa8848afcf62eed859084031c6e", `^[0-9a-f]{32}$`},
		{"credential", "KX4521Q", `^[0-9A-F]{7}$`},
		{"user_email", "dmitri.ivanov@example.com", `^[0-9a-f]{12}@example\.invalid$`},
		{"device_name", "Dmitri's phone", `^device name [0-9a-f]{8}$`},
		{"visitor_company", "Initech", `^visitor company [0-9a-f]{8}$`},
		{"Weird-Member.x", "Some text", `^weird member x [0-9a-f]{8}$`},
		{"名前", "Some text", `^value [0-9a-f]{8}$`},
		{"", "Some text", `^value [0-9a-f]{8}$`},
	} {
		got := p.Replace(c.member, c.in)
		if !regexp.MustCompile(c.form).MatchString(got) {
			t.Errorf("%s %q -> %q, not of the form %s", c.member, c.in, got, c.form)
		}
		if got == c.in || strings.Contains(got, "Dmitri") || strings.Contains(got, "Initech") {
			t.Errorf("%q -> %q", c.in, got)
		}
		if again := p.Replace(c.member, c.in); again != got {
			t.Errorf("%q -> %q, then %q", c.in, got, again)
		}
		if other := q.Replace(c.member, c.in); other == got {
			t.Errorf("%q -> %q under both keys", c.in, got)
		}
	}
	if p.Replace("name", "") != "" {
		t.Error("the empty string replaced")
	}
	// The same value under another member: the same tag.
	a, b := p.Replace("name", "Main entrance"), p.Replace("door_name", "Main entrance")
	if a[len(a)-8:] != b[len(b)-8:] {
		t.Errorf("%q and %q", a, b)
	}
}

// JSON replaces through the walk and keeps numbers as they are written.
func TestPseudonymsJSON(t *testing.T) {
	p := NewPseudonyms([]byte("k"))
	out, err := p.JSON([]byte(`{"id":"d1","name":"Main entrance","start_time":1700000000123456789,"doors":[{"id":"d2","name":"Main entrance"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Start json.Number
		Doors []struct{ ID, Name string }
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.ID != "d1" || v.Name == "Main entrance" || v.Doors[0].Name != v.Name || v.Doors[0].ID != "d2" ||
		!strings.Contains(string(out), `"start_time":1700000000123456789`) {
		t.Errorf("%s", out)
	}
	if _, err := p.JSON([]byte(`{"id":`)); err == nil {
		t.Error("no error for a cut-off document")
	}
}
