package accesstest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestGroupMembersInUserOrder checks that a group's members are listed in
// the order of the users list, whatever order they joined in, after a
// user is deleted and another added (the fake looks members up by id and
// orders them by their place in the list).
func TestGroupMembersInUserOrder(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	var ids []string
	for _, n := range []string{"A", "B", "C", "D"} {
		ids = append(ids, srv.AddUser(access.User{FirstName: n, LastName: n}).ID)
	}
	g := srv.AddUserGroup("", "G", "", ids[3], ids[0], ids[2])
	del := func(id string) {
		t.Helper()
		_, err := c.Users.Update(ctx, id, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
		require.NoError(t, err)
		_, err = c.Users.Delete(ctx, id)
		require.NoError(t, err)
	}
	list := func() []string {
		t.Helper()
		us, _, err := c.UserGroups.ListUsers(ctx, g)
		require.NoError(t, err)
		var out []string
		for _, u := range us {
			out = append(out, u.FirstName)
		}
		return out
	}
	require.Equal(t, []string{"A", "C", "D"}, list())
	del(ids[1])
	e := srv.AddUser(access.User{FirstName: "E", LastName: "E"})
	_, err := c.UserGroups.AddUsers(ctx, g, []string{e.ID, ids[0]})
	require.NoError(t, err)
	require.Equal(t, []string{"A", "C", "D", "E"}, list())
	del(ids[0])
	require.Equal(t, []string{"C", "D", "E"}, list())
}
