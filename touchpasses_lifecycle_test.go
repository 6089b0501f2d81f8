package access_test

import (
	"context"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTouchPassLifecycleOnTheFake walks a pass through INACTIVE ->
// PENDING -> ACTIVE -> SUSPENDED -> ACTIVE -> SUSPENDED (unassigned), with
// the user's record following.
func TestTouchPassLifecycleOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	bob := srv.AddUser(access.User{FirstName: "Bob", LastName: "Ng", UserEmail: "bob@example.com"})
	bought, _, err := c.TouchPasses.Purchase(ctx, 2)
	require.NoError(t, err)
	id := bought[0].ID

	assignable, _, err := c.TouchPasses.ListAssignable(ctx)
	require.NoError(t, err)
	assert.Len(t, assignable, 2)

	tp, _, err := c.Users.AssignTouchPass(ctx, bob.ID, id)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassPending, tp.Status)
	assert.Equal(t, bob.ID, tp.UserID)
	assert.Equal(t, "bob@example.com", tp.UserEmail)
	u, _ := srv.User(bob.ID)
	require.Len(t, u.TouchPass, 1)
	assert.Equal(t, id, u.TouchPass[0].ID)
	_, _, err = c.Users.AssignTouchPass(ctx, bob.ID, bought[1].ID)
	assert.ErrorIs(t, err, access.ErrForbidden, "one pass a user")

	_, ok := srv.AddToWallet(id, access.SourceApple, "Bob's iPhone")
	require.True(t, ok)
	tp, _, err = c.TouchPasses.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassActive, tp.Status)
	require.Len(t, tp.Bundles, 1)
	assert.Equal(t, access.SourceApple, tp.Bundles[0].Source)
	assert.Equal(t, access.BundleActive, tp.Bundles[0].BundleStatus)
	assert.True(t, tp.Activated(), "read from the status")
	assert.JSONEq(t, `{}`, string(tp.ActivatedAt), "as consoles send it, with no invented member")
	assert.False(t, tp.Expires())

	tp, _, err = c.TouchPasses.Update(ctx, id, &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassSuspended), CardName: access.Ptr("Bob's pass"),
		Bundles: []access.BundleUpdate{{BundleID: tp.Bundles[0].BundleID, BundleStatus: access.BundleDisabled}}})
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassSuspended, tp.Status)
	assert.Equal(t, "Bob's pass", tp.CardName)
	assert.Equal(t, access.BundleDisabled, tp.Bundles[0].BundleStatus)
	assert.False(t, tp.Activated(), "suspended")
	u, _ = srv.User(bob.ID)
	assert.Equal(t, access.TouchPassSuspended, u.TouchPass[0].Status, "the user's record follows")
	tp, _, err = c.TouchPasses.Update(ctx, id, &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassActive)})
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassActive, tp.Status)

	tp, _, err = c.Users.UnassignTouchPass(ctx, bob.ID, id)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassSuspended, tp.Status, "it was in a wallet")
	assert.Empty(t, tp.UserID)
	u, _ = srv.User(bob.ID)
	assert.Empty(t, u.TouchPass)
	_, _, err = c.Users.UnassignTouchPass(ctx, bob.ID, id)
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, _, err = c.TouchPasses.Update(ctx, id, &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassActive)})
	assert.ErrorIs(t, err, access.ErrForbidden, "no user, cannot be active")
	_, _, err = c.TouchPasses.Update(ctx, id, &access.TouchPassUpdate{Bundles: []access.BundleUpdate{{BundleID: "nope", BundleStatus: access.BundleDisabled}}})
	assert.ErrorIs(t, err, access.ErrInvalidParams)

	// The never-used pass goes back to INACTIVE.
	_, _, err = c.Users.AssignTouchPass(ctx, bob.ID, bought[1].ID)
	require.NoError(t, err)
	tp, _, err = c.Users.UnassignTouchPass(ctx, bob.ID, bought[1].ID)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassInactive, tp.Status)

	_, _, err = c.Users.AssignTouchPass(ctx, "nobody", id)
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, _, err = c.Users.AssignTouchPass(ctx, bob.ID, "nope")
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, _, err = c.TouchPasses.Get(ctx, "nope")
	assert.ErrorIs(t, err, access.ErrNotFound)
}

func TestTouchPassesBatchAssignOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	a := srv.AddUser(access.User{FirstName: "A", LastName: "A", UserEmail: "a@example.com"})
	b := srv.AddUser(access.User{FirstName: "B", LastName: "B", UserEmail: "b@example.com"})
	_, _, err := c.TouchPasses.Purchase(ctx, 1)
	require.NoError(t, err)
	_, _, err = c.Users.BatchAssignTouchPasses(ctx, &access.BatchTouchPassAssignment{UserIDs: []string{a.ID, b.ID}})
	assert.ErrorIs(t, err, access.ErrForbidden, "one pass for two users")
	assignable, _, _ := c.TouchPasses.ListAssignable(ctx)
	assert.Len(t, assignable, 1, "all or nothing")
	_, _, err = c.TouchPasses.Purchase(ctx, 1)
	require.NoError(t, err)
	tps, _, err := c.Users.BatchAssignTouchPasses(ctx, &access.BatchTouchPassAssignment{UserIDs: []string{a.ID, b.ID},
		Emails: map[string]string{b.ID: "b.private@example.org"}})
	require.NoError(t, err)
	require.Len(t, tps, 2)
	assert.Equal(t, access.TouchPassPending, tps[0].Status)
	assert.Equal(t, "a@example.com", tps[0].UserEmail)
	assert.Equal(t, "b.private@example.org", tps[1].UserEmail)
	_, _, err = c.Users.BatchAssignTouchPasses(ctx, &access.BatchTouchPassAssignment{UserIDs: []string{"nobody"}})
	assert.ErrorIs(t, err, access.ErrNotFound)
}

func TestTouchPassesListOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	all := srv.TouchPasses()
	count := map[access.TouchPassStatus]int{}
	for _, tp := range all {
		count[tp.Status]++
	}
	for _, st := range []access.TouchPassStatus{access.TouchPassActive, access.TouchPassPending, access.TouchPassSuspended, access.TouchPassInactive} {
		n := 0
		for tp, err := range c.TouchPasses.All(ctx, &access.TouchPassListOptions{Status: st, PageSize: 5}) {
			require.NoError(t, err)
			assert.Equal(t, st, tp.Status)
			n++
		}
		assert.Equal(t, count[st], n, st)
	}
	page, resp, err := c.TouchPasses.List(ctx, &access.TouchPassListOptions{PageNum: 2, PageSize: 10})
	require.NoError(t, err)
	assert.Len(t, page, 10)
	assert.Equal(t, all[10].ID, page[0].ID)
	assert.Equal(t, len(all), resp.Pagination.Total)
	assert.Equal(t, "succ", resp.Message)
	_, _, err = c.TouchPasses.List(ctx, &access.TouchPassListOptions{Status: access.TouchPassExpired})
	assert.ErrorIs(t, err, access.ErrValidation, "EXPIRED is not a list filter")
	for _, err := range c.TouchPasses.All(ctx, &access.TouchPassListOptions{PageSize: -1}) {
		assert.ErrorIs(t, err, access.ErrValidation)
	}
	assignable, _, err := c.TouchPasses.ListAssignable(ctx)
	require.NoError(t, err)
	for _, tp := range assignable {
		assert.Contains(t, []access.TouchPassStatus{access.TouchPassSuspended, access.TouchPassInactive}, tp.Status)
	}
	assert.Equal(t, count[access.TouchPassSuspended]+count[access.TouchPassInactive], len(assignable))
}

func TestTouchPassUpdateValidation(t *testing.T) {
	t.Parallel()
	c, _ := mockConsole(t)
	ctx := context.Background()
	for name, req := range map[string]*access.TouchPassUpdate{
		"nil":           nil,
		"status":        {Status: access.Ptr(access.TouchPassPending)},
		"bundle status": {Bundles: []access.BundleUpdate{{BundleID: "b", BundleStatus: access.BundleActive}}},
		"bundle id":     {Bundles: []access.BundleUpdate{{BundleStatus: access.BundleDisabled}}},
	} {
		_, _, err := c.TouchPasses.Update(ctx, "tp", req)
		assert.ErrorIs(t, err, access.ErrValidation, name)
	}
	_, _, err := c.TouchPasses.Update(ctx, "", &access.TouchPassUpdate{})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.TouchPasses.Get(ctx, "")
	assert.ErrorIs(t, err, access.ErrValidation)
}

func TestTouchPassPermissions(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	srv.AddToken("viewer", accesstest.ViewCredential)
	c := srv.ClientWithToken("viewer")
	ctx := context.Background()
	_, _, err := c.TouchPasses.List(ctx, nil)
	require.NoError(t, err)
	_, _, err = c.TouchPasses.Update(ctx, "c83b69ff-1992-4e7f-9287-1e6a161adeea", &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassSuspended)})
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, _, err = c.Users.AssignTouchPass(ctx, accesstest.DemoUserID, "c83b69ff-1992-4e7f-9287-1e6a161adeea")
	assert.ErrorIs(t, err, access.ErrForbidden, "user writes need edit:user")
}

// A pass given to another user does not carry the previous holder's
// wallets: it is PENDING with no bundles until the new holder adds it.
func TestTouchPassHandedOnStartsClean(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	ann := srv.AddUser(access.User{FirstName: "Ann", LastName: "Lee", UserEmail: "ann@example.com"})
	ben := srv.AddUser(access.User{FirstName: "Ben", LastName: "Ng", UserEmail: "ben@example.com"})
	bought, _, err := c.TouchPasses.Purchase(ctx, 1)
	require.NoError(t, err)
	id := bought[0].ID
	_, _, err = c.Users.AssignTouchPass(ctx, ann.ID, id)
	require.NoError(t, err)
	_, ok := srv.AddToWallet(id, access.SourceApple, "Ann's phone")
	require.True(t, ok)
	tp, _, err := c.Users.UnassignTouchPass(ctx, ann.ID, id)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassSuspended, tp.Status, "it was in a wallet")

	tp, _, err = c.Users.AssignTouchPass(ctx, ben.ID, id)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassPending, tp.Status)
	got, _, err := c.TouchPasses.Get(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, got.Bundles, "Ann's phone is not Ben's")
	assert.Equal(t, access.TouchPassPending, got.Status)
	assert.False(t, got.Activated(), "not activated")
	assert.JSONEq(t, `{}`, string(got.ActivatedAt))
}
