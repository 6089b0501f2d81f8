package apifacts

import "testing"

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		sdk, section, perm, min string
		ok                      bool
	}{
		{"NFCCards.All", "6.8", "view:credential", "1.22.16", true},
		{"NFCCards.Import", "6.19", "edit:credential", "3.3.10", true},
		{"Users.Get", "3.4", "view:user", "touch_pass in response ≥3.2.20", true},
		{"Users.Create", "3.2", "edit:user", "", true},
		{"UserGroups.CreateAndGet", "", "", "", false},
	} {
		o, ok := Lookup(tc.sdk)
		if ok != tc.ok || o.Section != tc.section || o.Perm != tc.perm || o.MinVersion() != tc.min {
			t.Errorf("Lookup(%q) = §%s %s %q, %t; want §%s %s %q, %t", tc.sdk, o.Section, o.Perm, o.MinVersion(), ok, tc.section, tc.perm, tc.min, tc.ok)
		}
	}
}
