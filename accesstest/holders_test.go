package accesstest_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestCardHoldersFollowChanges: who holds a card (the card list's status
// and holder, NFCHolder) follows seeding, assignment, a forced move, an
// unassignment, a holder's deletion and a state read, now that holders
// are indexed rather than found by a scan of every person.
func TestCardHoldersFollowChanges(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client(noRetry())
	ada := srv.AddUser(access.User{FirstName: "Ada", LastName: "L", NFCCards: []access.NFCCard{{ID: "100001", Token: "t1"}}})
	vis := srv.AddVisitor(access.Visitor{FirstName: "Vic", LastName: "V", NFCCards: []access.NFCCard{{ID: "100002", Token: "t2"}}})
	assert.Equal(t, ada.ID, srv.NFCHolder("t1"))
	assert.Equal(t, vis.ID, srv.NFCHolder("t2"))
	cards := srv.NFCCards()
	require.Len(t, cards, 2, "seeded cards join the card list")
	assert.Equal(t, access.NFCCardAssigned, cards[0].Status)
	assert.Equal(t, ada.ID, cards[0].UserID)

	_, err := c.Visitors.AssignNFCCard(ctx, vis.ID, &access.NFCCardAssignment{Token: "t1"})
	assert.ErrorIs(t, err, access.ErrConflict, "Ada holds it")
	_, err = c.Visitors.AssignNFCCard(ctx, vis.ID, &access.NFCCardAssignment{Token: "t1", ForceAdd: true})
	require.NoError(t, err)
	assert.Equal(t, vis.ID, srv.NFCHolder("t1"), "moved")
	got, _ := srv.User(ada.ID)
	assert.Empty(t, got.NFCCards)

	_, err = c.Visitors.UnassignNFCCard(ctx, vis.ID, "t1")
	require.NoError(t, err)
	assert.Empty(t, srv.NFCHolder("t1"), "unassigned")
	_, err = c.Users.AssignNFCCard(ctx, ada.ID, &access.NFCCardAssignment{Token: "t1"})
	require.NoError(t, err, "free again")
	assert.Equal(t, ada.ID, srv.NFCHolder("t1"))

	var state bytes.Buffer
	require.NoError(t, srv.WriteState(&state))
	other := accesstest.New(t)
	require.NoError(t, other.ReadState(&state))
	assert.Equal(t, ada.ID, other.NFCHolder("t1"), "a state read indexes the holders")
	assert.Equal(t, vis.ID, other.NFCHolder("t2"))

	deactivated := access.UserStatusDeactivated
	_, err = c.Users.Update(ctx, ada.ID, &access.UserUpdate{Status: &deactivated})
	require.NoError(t, err)
	_, err = c.Users.Delete(ctx, ada.ID)
	require.NoError(t, err)
	assert.Empty(t, srv.NFCHolder("t1"), "freed with its holder")
	card, _, err := c.NFCCards.Get(ctx, "t1")
	require.NoError(t, err)
	assert.Equal(t, access.NFCCardPending, card.Status)
}
