package accesstest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// addCostAt returns the allocations one add of a new member to a group
// of size members costs (the add handler, under the lock, as a request
// makes it), averaged over 200 adds.
func addCostAt(t *testing.T, size int) float64 {
	const adds = 200
	s := New(t)
	s.mu.check = nil // checkStateCache encodes the whole site at every change: not what is measured here
	ids := make([]string, size+adds+1)
	for i := range ids {
		ids[i] = s.AddUser(access.User{ID: fmt.Sprintf("u%06d", i), FirstName: "F", LastName: "L"}).ID
	}
	g := s.AddUserGroup("", "G", "", ids[:size]...)
	next := size
	n := testing.AllocsPerRun(adds, func() {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`["`+ids[next]+`"]`))
		r.SetPathValue("id", g)
		w := httptest.NewRecorder()
		s.addGroupUsers(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("add %d: %d %s", next, w.Code, w.Body)
		}
		next++
	})
	require.Len(t, s.GroupMembers(g), size+adds+1)
	return n
}

// TestGroupAddCostFlat checks that adding a member to a user group costs
// the same at 1,000 members and at 20,000: the group's members are
// indexed, not walked (nor copied) at each add. A first import of N
// people into one group was quadratic in N when they were (issue 38:
// 765 s for 10,000 rows, slowing as the group grew). What is compared is
// allocations per add, which do not depend on the machine's load: it
// catches an add that copies the group (as the old one did), not one
// that only walks it without allocating; TestGroupMembersKeptOnce and
// dirsync's BenchmarkFirstImportGrowth (per-create time at two sizes)
// cover the rest.
func TestGroupAddCostFlat(t *testing.T) {
	small, large := addCostAt(t, 1_000), addCostAt(t, 20_000)
	t.Logf("allocations per add: %.0f at 1,000 members, %.0f at 20,000", small, large)
	require.LessOrEqual(t, large, small+1, "an add into a group of 20,000 allocates more than one into a group of 1,000")
}

// TestGroupMembersKeptOnce checks that a member added again, alone or
// twice in one request, is kept once and in its place; that a removed
// member added back goes last; that a deleted user leaves the group;
// and that the order survives the state file.
func TestGroupMembersKeptOnce(t *testing.T) {
	s := New(t)
	c := s.Client()
	ctx := context.Background()
	var ids []string
	for _, n := range []string{"A", "B", "C", "D"} {
		ids = append(ids, s.AddUser(access.User{FirstName: n, LastName: n}).ID)
	}
	a, b, cc, d := ids[0], ids[1], ids[2], ids[3]
	g := s.AddUserGroup("", "G", "", b, a, b)
	require.Equal(t, []string{b, a}, s.GroupMembers(g))

	_, err := c.UserGroups.AddUsers(ctx, g, []string{a})
	require.NoError(t, err)
	_, err = c.UserGroups.AddUsers(ctx, g, []string{cc, a, cc, b})
	require.NoError(t, err)
	require.Equal(t, []string{b, a, cc}, s.GroupMembers(g))
	us, _, err := c.UserGroups.ListUsers(ctx, g)
	require.NoError(t, err)
	require.Len(t, us, 3)

	_, err = c.UserGroups.RemoveUsers(ctx, g, []string{b, d})
	require.NoError(t, err)
	require.Equal(t, []string{a, cc}, s.GroupMembers(g))
	_, err = c.UserGroups.AddUsers(ctx, g, []string{d, b, d})
	require.NoError(t, err)
	require.Equal(t, []string{a, cc, d, b}, s.GroupMembers(g))

	_, err = c.Users.Update(ctx, cc, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
	require.NoError(t, err)
	_, err = c.Users.Delete(ctx, cc)
	require.NoError(t, err)
	require.Equal(t, []string{a, d, b}, s.GroupMembers(g))
	_, err = c.UserGroups.AddUsers(ctx, g, []string{a})
	require.NoError(t, err)
	require.Equal(t, []string{a, d, b}, s.GroupMembers(g))

	var buf strings.Builder
	require.NoError(t, s.WriteState(&buf))
	s2 := New(t)
	require.NoError(t, s2.ReadState(strings.NewReader(buf.String())))
	require.Equal(t, []string{a, d, b}, s2.GroupMembers(g))
	_, err = s2.Client().UserGroups.AddUsers(ctx, g, []string{b, a})
	require.NoError(t, err)
	require.Equal(t, []string{a, d, b}, s2.GroupMembers(g))
}
