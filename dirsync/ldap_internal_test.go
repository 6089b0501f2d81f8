package dirsync

import (
	"testing"

	"github.com/go-ldap/ldap/v3"
)

// TestRangedMembersAreRefused: Active Directory's ranged member values
// ("member;range=0-1499", a group of more than 1,500) are recognised, so
// that a read of the first range only is refused, not taken as the group.
func TestRangedMembersAreRefused(t *testing.T) {
	e := ldap.NewEntry("cn=Big,ou=groups,dc=example,dc=com", map[string][]string{
		"cn": {"Big"}, "Member;Range=0-1499": {"uid=a,dc=example,dc=com"},
	})
	if got := rangedAttribute(e, "member"); got != "Member;Range=0-1499" {
		t.Errorf("rangedAttribute = %q", got)
	}
	e = ldap.NewEntry("cn=Small,ou=groups,dc=example,dc=com", map[string][]string{"member": {"uid=a,dc=example,dc=com"}})
	if got := rangedAttribute(e, "member"); got != "" {
		t.Errorf("rangedAttribute = %q", got)
	}
}
