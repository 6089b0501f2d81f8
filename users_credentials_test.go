package access_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPINCodesOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	seen := map[string]bool{}
	for range 50 {
		pin, _, err := c.PINCodes.Generate(ctx)
		require.NoError(t, err)
		assert.Len(t, pin, accesstest.PINLength)
		assert.False(t, seen[pin], "generated PINs are unique")
		seen[pin] = true
	}
	pin, _, err := c.PINCodes.Generate(ctx)
	require.NoError(t, err)
	bob := srv.AddUser(access.User{FirstName: "Bob", LastName: "Ng"})
	v := srv.AddVisitor(access.Visitor{FirstName: "Vera", LastName: "Visit"})

	require.NoError(t, ignoreResp(c.Users.AssignPINCode(ctx, bob.ID, pin)))
	u, _ := srv.User(bob.ID)
	require.NotNil(t, u.PINCode)
	assert.Equal(t, accesstest.PINToken(pin), u.PINCode.Token, "the user shows the PIN's token, never the digits")
	assert.NotContains(t, u.PINCode.Token, pin)
	assert.Equal(t, bob.ID, srv.PINHolder(pin))

	// In use: refused for a visitor and another user alike.
	for name, err := range map[string]error{
		"visitor": ignoreResp(c.Visitors.AssignPINCode(ctx, v.ID, pin)),
		"user":    ignoreResp(c.Users.AssignPINCode(ctx, accesstest.DemoUserID, pin)),
	} {
		assert.ErrorIs(t, err, access.ErrConflict, name)
		var ae *access.APIError
		require.ErrorAs(t, err, &ae, name)
		assert.Equal(t, access.CodeCredsPINCodeCredsAlreadyExist, ae.Code, name)
	}
	require.NoError(t, ignoreResp(c.Users.AssignPINCode(ctx, bob.ID, pin)), "again to its holder")
	// Generate never hands out a PIN in use.
	for range 20 {
		p, _, err := c.PINCodes.Generate(ctx)
		require.NoError(t, err)
		assert.NotEqual(t, pin, p)
	}

	require.NoError(t, ignoreResp(c.Users.UnassignPINCode(ctx, bob.ID)))
	u, _ = srv.User(bob.ID)
	assert.Nil(t, u.PINCode)
	require.NoError(t, ignoreResp(c.Visitors.AssignPINCode(ctx, v.ID, pin)), "free again")
	got, _, err := c.Visitors.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, &access.PINCode{Token: accesstest.PINToken(pin)}, got.PINCode)
	require.NoError(t, ignoreResp(c.Visitors.UnassignPINCode(ctx, v.ID)))
	got, _, _ = c.Visitors.Get(ctx, v.ID)
	assert.Nil(t, got.PINCode)

	err = ignoreResp(c.Users.AssignPINCode(ctx, bob.ID, "12"))
	var ae *access.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, access.CodeCredsPINCodeCredsLengthInvalid, ae.Code)
	assert.ErrorIs(t, err, access.ErrInvalidParams)
	err = ignoreResp(c.Users.AssignPINCode(ctx, "nobody", pin))
	assert.ErrorIs(t, err, access.ErrNotFound)
	err = ignoreResp(c.Users.UnassignPINCode(ctx, "nobody"))
	assert.ErrorIs(t, err, access.ErrNotFound)
}

// TestPINCodesGenerateIsRetried: generating has no side effect, so a
// failed attempt is retried like a read, without RetryWrites.
func TestPINCodesGenerateIsRetried(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	srv.Inject(accesstest.OpPINCodesGenerate, accesstest.Fault{Status: 503, Times: 2})
	pin, _, err := srv.Client().PINCodes.Generate(context.Background())
	require.NoError(t, err)
	assert.Len(t, pin, accesstest.PINLength)
	assert.Len(t, srv.RequestsFor(accesstest.OpPINCodesGenerate), 3)
	// The vendor's permission for this POST is view:credential.
	srv.AddToken("viewer", accesstest.ViewCredential)
	_, _, err = srv.ClientWithToken("viewer").PINCodes.Generate(context.Background())
	require.NoError(t, err)
	srv.AddToken("none")
	_, _, err = srv.ClientWithToken("none").PINCodes.Generate(context.Background())
	assert.ErrorIs(t, err, access.ErrForbidden)
}

func TestPINCodesGenerateDecoding(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		string(sample(t, "pin_generate")):                  "67203419",
		`{"code":"SUCCESS","msg":"success","data":123456}`: "123456",
	} {
		c, mux := mockConsole(t)
		mux.HandleFunc("POST /api/v1/developer/credentials/pin_codes", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, body)
		})
		pin, _, err := c.PINCodes.Generate(context.Background())
		require.NoError(t, err)
		assert.Equal(t, want, pin)
	}
	for _, body := range []string{`{"code":"SUCCESS","data":""}`, `{"code":"SUCCESS","data":null}`, `{"code":"SUCCESS","data":{}}`} {
		c, mux := mockConsole(t)
		mux.HandleFunc("POST /api/v1/developer/credentials/pin_codes", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, body) })
		pin, _, err := c.PINCodes.Generate(context.Background())
		assert.ErrorIs(t, err, access.ErrInvalidResponse, body)
		assert.Empty(t, pin)
	}
}

func TestUserCredentialsValidation(t *testing.T) {
	t.Parallel()
	c, _ := mockConsole(t)
	ctx := context.Background()
	_, _, err1 := c.Users.AssignTouchPass(ctx, "", "tp")
	_, _, err2 := c.Users.AssignTouchPass(ctx, "u", "..")
	_, _, err3 := c.Users.UnassignTouchPass(ctx, " ", "tp")
	_, _, err4 := c.Users.BatchAssignTouchPasses(ctx, nil)
	_, _, err5 := c.Users.BatchAssignTouchPasses(ctx, &access.BatchTouchPassAssignment{})
	_, _, err6 := c.Users.BatchAssignTouchPasses(ctx, &access.BatchTouchPassAssignment{UserIDs: []string{"u", ""}})
	for name, err := range map[string]error{
		"assign nfc id":    ignoreResp(c.Users.AssignNFCCard(ctx, "", &access.NFCCardAssignment{Token: "t"})),
		"assign nfc token": ignoreResp(c.Users.AssignNFCCard(ctx, "u", &access.NFCCardAssignment{Token: " "})),
		"assign nfc nil":   ignoreResp(c.Users.AssignNFCCard(ctx, "u", nil)),
		"unassign nfc":     ignoreResp(c.Users.UnassignNFCCard(ctx, "u", "")),
		"assign pin":       ignoreResp(c.Users.AssignPINCode(ctx, "u", "12 34")),
		"assign pin id":    ignoreResp(c.Users.AssignPINCode(ctx, "", "1234")),
		"unassign pin":     ignoreResp(c.Users.UnassignPINCode(ctx, "")),
		"assign tp user":   err1,
		"assign tp pass":   err2,
		"unassign tp":      err3,
		"batch nil":        err4,
		"batch empty":      err5,
		"batch blank id":   err6,
	} {
		assert.ErrorIs(t, err, access.ErrValidation, name)
	}
}
