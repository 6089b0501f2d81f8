package access_test

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/testlog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// enrollServer is a console whose session answers the poll with the given
// bodies in turn (the last one repeats) and counts the calls.
type enrollServer struct {
	polls, starts, ends atomic.Int32
	answers             []string
	startBody           atomic.Value
	onPoll              func(n int) // called with the poll's number, from 1
	mu                  sync.Mutex
	pollTimes           []time.Time
}

// gaps returns the time between consecutive polls.
func (e *enrollServer) gaps() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(e.pollTimes); i++ {
		out = append(out, e.pollTimes[i].Sub(e.pollTimes[i-1]))
	}
	return out
}

func (e *enrollServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/v1/developer/credentials/nfc_cards/sessions":
		e.starts.Add(1)
		b, _ := io.ReadAll(r.Body)
		e.startBody.Store(string(b))
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":{"session_id":"s-1"}}`)
	case r.Method == "GET" && r.URL.Path == "/api/v1/developer/credentials/nfc_cards/sessions/s-1":
		n := int(e.polls.Add(1))
		e.mu.Lock()
		e.pollTimes = append(e.pollTimes, time.Now())
		e.mu.Unlock()
		if e.onPoll != nil {
			e.onPoll(n)
		}
		io.WriteString(w, e.answers[min(n-1, len(e.answers)-1)])
	case r.Method == "DELETE" && r.URL.Path == "/api/v1/developer/credentials/nfc_cards/sessions/s-1":
		e.ends.Add(1)
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":"success"}`)
	default:
		w.WriteHeader(404)
		io.WriteString(w, `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"no"}`)
	}
}

func enrollClient(t *testing.T, e *enrollServer, opts ...access.Option) *access.Client {
	srv := testlog.NewTLSServer(t, e)
	t.Cleanup(srv.Close)
	c, err := access.NewClient(srv.URL, "token-123", append([]access.Option{access.WithHTTPClient(srv.Client()), access.WithRetryPolicy(accesstest.RetryPolicy())}, opts...)...)
	require.NoError(t, err)
	return c
}

const (
	emptyToken = `{"code":"CODE_CREDS_NFC_READ_POLL_TOKEN_EMPTY","msg":"The NFC token is empty.","data":null}`
	readCard   = `{"code":"SUCCESS","msg":"success","data":{"token":"tok-1","card_id":"100004"}}`
)

func TestEnrollPollsWhileTheTokenIsEmpty(t *testing.T) {
	t.Parallel()
	e := &enrollServer{answers: []string{emptyToken, emptyToken, emptyToken, readCard}}
	c := enrollClient(t, e)
	var started string
	card, resp, err := c.NFCCards.Enroll(context.Background(), "942a6f4247b2", &access.EnrollOptions{
		PollInterval: time.Millisecond, ResetUACard: true, Started: func(id string) { started = id }})
	require.NoError(t, err)
	assert.Equal(t, &access.EnrolledCard{Token: "tok-1", CardID: "100004"}, card)
	assert.Equal(t, access.CodeSuccess, resp.Code)
	assert.Equal(t, "s-1", started)
	assert.Equal(t, `{"device_id":"942a6f4247b2","reset_ua_card":true}`, e.startBody.Load())
	assert.Equal(t, int32(4), e.polls.Load(), "polled until the card was read")
	assert.Equal(t, int32(1), e.ends.Load(), "session ended")
}

// TestEnrollWaitsThePollInterval: polls are at least the interval apart
// (only the lower bound is checked: a loaded machine may be slower), and
// the default interval is one second, as the vendor's flowchart says.
func TestEnrollWaitsThePollInterval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts *access.EnrollOptions
		want time.Duration
	}{
		{&access.EnrollOptions{PollInterval: 30 * time.Millisecond}, 30 * time.Millisecond},
		{nil, access.DefaultEnrollPollInterval},
	} {
		e := &enrollServer{answers: []string{emptyToken, emptyToken, readCard}}
		if tc.opts == nil {
			e.answers = []string{emptyToken, readCard}
		}
		c := enrollClient(t, e)
		_, _, err := c.NFCCards.Enroll(context.Background(), "d1", tc.opts)
		require.NoError(t, err)
		gaps := e.gaps()
		require.NotEmpty(t, gaps)
		for _, g := range gaps {
			assert.GreaterOrEqual(t, g, tc.want)
		}
	}
	assert.Equal(t, time.Second, access.DefaultEnrollPollInterval)
}

func TestEnrollMapsTheEnrollmentCodes(t *testing.T) {
	t.Parallel()
	cases := map[access.ErrorCode]error{
		access.CodeCredsNFCCardIsProvision:     access.ErrCardProvisioned,
		access.CodeCredsNFCCardProvisionFailed: access.ErrCardProvisionFailed,
		access.CodeCredsNFCCardInvalid:         access.ErrCardInvalid,
		access.CodeCredsNFCReadSessionNotFound: access.ErrNotFound,
	}
	for code, want := range cases {
		t.Run(string(code), func(t *testing.T) {
			t.Parallel()
			e := &enrollServer{answers: []string{emptyToken, `{"code":"` + string(code) + `","msg":"m","data":null}`}}
			c := enrollClient(t, e)
			card, _, err := c.NFCCards.Enroll(context.Background(), "d1", &access.EnrollOptions{PollInterval: time.Millisecond})
			require.Error(t, err)
			assert.Nil(t, card)
			assert.ErrorIs(t, err, want)
			for _, other := range []error{access.ErrCardProvisioned, access.ErrCardProvisionFailed, access.ErrCardInvalid, access.ErrCardNotRead} {
				if other != want {
					assert.NotErrorIs(t, err, other)
				}
			}
			var ae *access.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, code, ae.Code)
			assert.Equal(t, int32(2), e.polls.Load())
			assert.Equal(t, int32(1), e.ends.Load(), "session ended after the error")
		})
	}
}

func TestEnrollEndsTheSessionWhenCancelled(t *testing.T) {
	t.Parallel()
	t.Run("while waiting", func(t *testing.T) {
		t.Parallel()
		e := &enrollServer{answers: []string{emptyToken}}
		c := enrollClient(t, e)
		ctx, cancel := context.WithCancel(context.Background())
		e.onPoll = func(n int) {
			if n == 3 {
				cancel()
			}
		}
		card, _, err := c.NFCCards.Enroll(ctx, "d1", &access.EnrollOptions{PollInterval: time.Millisecond})
		assert.Nil(t, card)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, int32(3), e.polls.Load())
		assert.Equal(t, int32(1), e.ends.Load(), "session ended with a fresh context")
	})
	t.Run("before the first poll", func(t *testing.T) {
		t.Parallel()
		e := &enrollServer{answers: []string{emptyToken}}
		c := enrollClient(t, e)
		ctx, cancel := context.WithCancel(context.Background())
		card, _, err := c.NFCCards.Enroll(ctx, "d1", &access.EnrollOptions{PollInterval: time.Hour, Started: func(string) { cancel() }})
		assert.Nil(t, card)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, int32(1), e.ends.Load())
	})
	t.Run("deadline", func(t *testing.T) {
		t.Parallel()
		// The deadline passes during the third poll, however long the
		// session's start took (a wall-clock deadline could pass before
		// the session even started on a loaded machine).
		e := &enrollServer{answers: []string{emptyToken}}
		c := enrollClient(t, e)
		ctx := newExpiringContext()
		e.onPoll = func(n int) {
			if n == 3 {
				ctx.expire()
			}
		}
		card, _, err := c.NFCCards.Enroll(ctx, "d1", &access.EnrollOptions{PollInterval: time.Millisecond})
		assert.Nil(t, card)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, context.Canceled)
		assert.Equal(t, int32(3), e.polls.Load())
		assert.Equal(t, int32(1), e.ends.Load(), "session ended with a fresh context")
	})
}

// expiringContext is a context whose deadline passes when the test says
// so: Done closes and Err is context.DeadlineExceeded, as for a context
// from context.WithDeadline once its time has come, without a clock.
type expiringContext struct {
	context.Context
	done chan struct{}
	once sync.Once
	at   atomic.Pointer[time.Time]
}

func newExpiringContext() *expiringContext {
	return &expiringContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *expiringContext) expire() {
	c.once.Do(func() {
		now := time.Now()
		c.at.Store(&now)
		close(c.done)
	})
}

func (c *expiringContext) Deadline() (time.Time, bool) {
	if at := c.at.Load(); at != nil {
		return *at, true
	}
	return time.Time{}, false
}

func (c *expiringContext) Done() <-chan struct{} { return c.done }

func (c *expiringContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestEnrollEndsTheSessionOnPanic(t *testing.T) {
	t.Parallel()
	e := &enrollServer{answers: []string{emptyToken}}
	c := enrollClient(t, e)
	func() {
		defer func() { assert.Equal(t, "boom", recover()) }()
		_, _, _ = c.NFCCards.Enroll(context.Background(), "d1", &access.EnrollOptions{Started: func(string) { panic("boom") }})
	}()
	assert.Equal(t, int32(1), e.ends.Load(), "the deferred cleanup ran")
}

func TestEnrollStartFailureOpensNothing(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	_, _, err := c.NFCCards.Enroll(context.Background(), "nope", nil)
	assert.ErrorIs(t, err, access.ErrNotFound)
	assert.Empty(t, srv.RequestsFor(accesstest.OpNFCCardsEndEnrollment), "no session, nothing to end")
}

func TestEnrollValidation(t *testing.T) {
	t.Parallel()
	e := &enrollServer{answers: []string{readCard}}
	c := enrollClient(t, e)
	ctx := context.Background()
	_, _, err := c.NFCCards.Enroll(ctx, "", nil)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.NFCCards.Enroll(ctx, "d", &access.EnrollOptions{PollInterval: -1})
	assert.ErrorIs(t, err, access.ErrValidation)
	//lint:ignore SA1012 a nil context is rejected
	_, _, err = c.NFCCards.Enroll(nil, "d", nil) //nolint:staticcheck
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.NFCCards.StartEnrollment(ctx, nil)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.NFCCards.EnrollmentStatus(ctx, " ")
	assert.ErrorIs(t, err, access.ErrValidation)
	_, err = c.NFCCards.EndEnrollment(ctx, "")
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.NFCCards.Get(ctx, "")
	assert.ErrorIs(t, err, access.ErrValidation)
	_, err = c.NFCCards.Delete(ctx, "..")
	assert.ErrorIs(t, err, access.ErrValidation)
	_, err = c.NFCCards.Update(ctx, "t", nil)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, err = c.NFCCards.Update(ctx, "t", &access.NFCCardUpdate{})
	assert.ErrorIs(t, err, access.ErrValidation, "changes nothing")
	_, _, err = c.NFCCards.List(ctx, &access.NFCCardListOptions{PageSize: -1})
	assert.ErrorIs(t, err, access.ErrValidation)
	for _, err := range c.NFCCards.All(ctx, &access.NFCCardListOptions{PageNum: -1}) {
		assert.ErrorIs(t, err, access.ErrValidation)
	}
	assert.Equal(t, int32(0), e.starts.Load()+e.polls.Load()+e.ends.Load(), "nothing sent")
}

// TestEnrollOnTheFake enrolls a card with the fake's tap, assigns it to a
// user, and checks the card list and the user's record.
func TestEnrollOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	var tapped string
	card, _, err := c.NFCCards.Enroll(ctx, accesstest.DemoDeviceID, &access.EnrollOptions{PollInterval: time.Millisecond,
		Started: func(string) {
			var err error
			tapped, err = srv.TapCard(accesstest.DemoDeviceID, "700001")
			require.NoError(t, err)
		}})
	require.NoError(t, err)
	assert.Equal(t, tapped, card.Token)
	assert.Equal(t, "700001", card.CardID)
	assert.Empty(t, srv.EnrollmentSessions(), "session ended")
	assert.Len(t, srv.RequestsFor(accesstest.OpNFCCardsEndEnrollment), 1)

	got, _, err := c.NFCCards.Get(ctx, card.Token)
	require.NoError(t, err)
	assert.Equal(t, access.NFCCardPending, got.Status)
	assert.Equal(t, "700001", got.DisplayID)

	require.NoError(t, ignoreResp(c.Users.AssignNFCCard(ctx, accesstest.DemoUserID, &access.NFCCardAssignment{Token: card.Token})))
	u, ok := srv.User(accesstest.DemoUserID)
	require.True(t, ok)
	assert.Contains(t, u.NFCCards, access.NFCCard{ID: "700001", Token: card.Token, Type: "ua_card"})
	got, _, err = c.NFCCards.Get(ctx, card.Token)
	require.NoError(t, err)
	assert.Equal(t, access.NFCCardAssigned, got.Status)
	assert.Equal(t, "USER", got.UserType)
	assert.Equal(t, accesstest.DemoUserID, got.UserID)
	require.NotNil(t, got.User)
	assert.Equal(t, "Ada Lovelace", got.User.Name)

	require.NoError(t, ignoreResp(c.Users.UnassignNFCCard(ctx, accesstest.DemoUserID, card.Token)))
	u, _ = srv.User(accesstest.DemoUserID)
	assert.NotContains(t, u.NFCCards, access.NFCCard{ID: "700001", Token: card.Token, Type: "ua_card"})
	assert.Empty(t, srv.NFCHolder(card.Token))
}

func ignoreResp(_ *access.Response, err error) error { return err }

func TestEnrollFailedTapsOnTheFake(t *testing.T) {
	t.Parallel()
	cases := map[access.ErrorCode]error{
		access.CodeCredsNFCCardIsProvision:     access.ErrCardProvisioned,
		access.CodeCredsNFCCardProvisionFailed: access.ErrCardProvisionFailed,
		access.CodeCredsNFCCardInvalid:         access.ErrCardInvalid,
	}
	for code, want := range cases {
		t.Run(string(code), func(t *testing.T) {
			t.Parallel()
			srv := accesstest.New(t, accesstest.WithDemoData())
			_, _, err := srv.Client().NFCCards.Enroll(context.Background(), accesstest.DemoDeviceID, &access.EnrollOptions{
				PollInterval: time.Millisecond,
				Started:      func(string) { require.NoError(t, srv.FailTap(accesstest.DemoDeviceID, code)) }})
			assert.ErrorIs(t, err, want)
			var ae *access.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, code, ae.Code)
			assert.Empty(t, srv.EnrollmentSessions(), "session ended")
		})
	}
	t.Run("reset_ua_card resets a card of another site", func(t *testing.T) {
		t.Parallel()
		srv := accesstest.New(t, accesstest.WithDemoData())
		card, _, err := srv.Client().NFCCards.Enroll(context.Background(), accesstest.DemoDeviceID, &access.EnrollOptions{
			PollInterval: time.Millisecond, ResetUACard: true,
			Started: func(string) {
				require.NoError(t, srv.FailTap(accesstest.DemoDeviceID, access.CodeCredsNFCCardIsProvision))
				_, err := srv.TapCard(accesstest.DemoDeviceID, "700002")
				require.NoError(t, err)
			}})
		require.NoError(t, err)
		assert.Equal(t, "700002", card.CardID)
	})
}

func TestEnrollmentSessionExpiresOnTheFakesClock(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	_, _, err := c.NFCCards.Enroll(ctx, accesstest.DemoDeviceID, &access.EnrollOptions{PollInterval: time.Millisecond,
		Started: func(string) { srv.Advance(accesstest.EnrollmentSessionTimeout) }})
	assert.ErrorIs(t, err, access.ErrNotFound)
	var ae *access.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, access.CodeCredsNFCReadSessionNotFound, ae.Code)
	assert.Empty(t, srv.EnrollmentSessions())

	// A session just short of the timeout still answers.
	sess, _, err := c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	require.NoError(t, err)
	srv.Advance(accesstest.EnrollmentSessionTimeout - time.Second)
	_, _, err = c.NFCCards.EnrollmentStatus(ctx, sess.SessionID)
	assert.ErrorIs(t, err, access.ErrCardNotRead)
	_, err = c.NFCCards.EndEnrollment(ctx, sess.SessionID)
	require.NoError(t, err)
	_, err = c.NFCCards.EndEnrollment(ctx, sess.SessionID)
	assert.ErrorIs(t, err, access.ErrNotFound, "a second end finds nothing")
}

func TestEnrollmentNeedsAnOnlineNFCReader(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	_, _, err := c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: "7483c2773855"}) // a hub
	assert.ErrorIs(t, err, access.ErrUnsupported)
	_, _, err = c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: "000000000000"})
	assert.ErrorIs(t, err, access.ErrNotFound)
	// TapCard without a session is a test mistake, reported as an error.
	_, err = srv.TapCard(accesstest.DemoDeviceID, "1")
	assert.Error(t, err)
	assert.Error(t, srv.FailTap(accesstest.DemoDeviceID, access.CodeCredsNFCCardInvalid))
	assert.Error(t, srv.FailTap(accesstest.DemoDeviceID, access.CodeParamsInvalid))
}

// TestNFCOwnershipOnTheFake: a token belongs to at most one user or
// visitor; force_add moves it; an assigned card cannot be deleted.
func TestNFCOwnershipOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	token := enrollOnFake(t, srv, "800001")
	bob := srv.AddUser(access.User{FirstName: "Bob", LastName: "Ng"})
	v := srv.AddVisitor(access.Visitor{FirstName: "Vera", LastName: "Visit"})

	require.NoError(t, ignoreResp(c.Users.AssignNFCCard(ctx, bob.ID, &access.NFCCardAssignment{Token: token})))
	err := ignoreResp(c.Visitors.AssignNFCCard(ctx, v.ID, &access.NFCCardAssignment{Token: token}))
	assert.ErrorIs(t, err, access.ErrConflict)
	var ae *access.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, access.CodeCredsNFCHasBindUser, ae.Code)
	assert.Equal(t, bob.ID, srv.NFCHolder(token))
	// Assigning it again to its holder is a no-op.
	require.NoError(t, ignoreResp(c.Users.AssignNFCCard(ctx, bob.ID, &access.NFCCardAssignment{Token: token})))
	u, _ := srv.User(bob.ID)
	assert.Len(t, u.NFCCards, 1)

	_, err = c.NFCCards.Delete(ctx, token)
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, access.CodeCredsNFCCardCannotBeDelete, ae.Code)

	require.NoError(t, ignoreResp(c.Visitors.AssignNFCCard(ctx, v.ID, &access.NFCCardAssignment{Token: token, ForceAdd: true})))
	assert.Equal(t, v.ID, srv.NFCHolder(token))
	u, _ = srv.User(bob.ID)
	assert.Empty(t, u.NFCCards, "moved away from Bob")
	got, _, err := c.Visitors.Get(ctx, v.ID)
	require.NoError(t, err)
	require.Len(t, got.NFCCards, 1)
	assert.Equal(t, token, got.NFCCards[0].Token)
	card, _, err := c.NFCCards.Get(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, "VISITOR", card.UserType)

	err = ignoreResp(c.Users.UnassignNFCCard(ctx, bob.ID, token))
	assert.ErrorIs(t, err, access.ErrNotFound, "Bob no longer holds it")
	require.NoError(t, ignoreResp(c.Visitors.UnassignNFCCard(ctx, v.ID, token)))
	assert.Empty(t, srv.NFCHolder(token))
	require.NoError(t, ignoreResp(c.NFCCards.Update(ctx, token, &access.NFCCardUpdate{Alias: access.Ptr("Spare 1")})))
	card, _, err = c.NFCCards.Get(ctx, token)
	require.NoError(t, err)
	assert.Equal(t, "Spare 1", card.Alias)
	assert.Equal(t, access.NFCCardPending, card.Status)
	require.NoError(t, ignoreResp(c.NFCCards.Delete(ctx, token)))
	_, _, err = c.NFCCards.Get(ctx, token)
	assert.ErrorIs(t, err, access.ErrNotFound)
	err = ignoreResp(c.Users.AssignNFCCard(ctx, bob.ID, &access.NFCCardAssignment{Token: token}))
	assert.ErrorIs(t, err, access.ErrNotFound, "a deleted card cannot be assigned")
}

// enrollOnFake enrolls a card with the given number and returns its token.
func enrollOnFake(t *testing.T, srv *accesstest.Server, number string) string {
	t.Helper()
	card, _, err := srv.Client().NFCCards.Enroll(context.Background(), accesstest.DemoDeviceID, &access.EnrollOptions{
		PollInterval: time.Millisecond,
		Started: func(string) {
			_, err := srv.TapCard(accesstest.DemoDeviceID, number)
			require.NoError(t, err)
		}})
	require.NoError(t, err)
	return card.Token
}

func TestNFCCardsListAndAllOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	want := srv.NFCCards()
	require.NotEmpty(t, want, "the demo users' cards are in the card list")
	page, resp, err := c.NFCCards.List(ctx, &access.NFCCardListOptions{PageNum: 2, PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, want[10:20], page)
	assert.Equal(t, len(want), resp.Pagination.Total)
	var all []access.NFCCard
	for card, err := range c.NFCCards.All(ctx, &access.NFCCardListOptions{PageSize: 30}) {
		require.NoError(t, err)
		all = append(all, card)
	}
	assert.Equal(t, want, all)
	for _, card := range all {
		if card.Status == access.NFCCardAssigned {
			assert.Equal(t, "USER", card.UserType)
			assert.NotEmpty(t, card.UserID)
		}
	}
}

func TestNFCCardsImport(t *testing.T) {
	t.Parallel()
	c, mux := mockConsole(t)
	var csv, ctype string
	mux.HandleFunc("POST /api/v1/developer/credentials/nfc_cards/import", func(w http.ResponseWriter, r *http.Request) {
		ctype = r.Header.Get("Content-Type")
		mt, params, err := mime.ParseMediaType(ctype)
		require.NoError(t, err)
		assert.Equal(t, "multipart/form-data", mt)
		mr := multipart.NewReader(r.Body, params["boundary"])
		part, err := mr.NextPart()
		require.NoError(t, err)
		assert.Equal(t, "file", part.FormName())
		assert.Equal(t, "text/csv", part.Header.Get("Content-Type"))
		b, _ := io.ReadAll(part)
		csv = string(b)
		_, err = mr.NextPart()
		assert.Equal(t, io.EOF, err, "one part")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(sample(t, "nfc_import"))
	})
	res, _, err := c.NFCCards.Import(context.Background(), []access.NFCImportRow{
		{NFCID: "04a2b3c4d5e680", Alias: "Contractor 1"}, {NFCID: " 04A2B3C4D5E681 ", Alias: "Contractor 2"}})
	assert.Equal(t, "04A2B3C4D5E680, Contractor 1\n04A2B3C4D5E681, Contractor 2\n", csv, "upper-case hex, one line a row")
	var ie *access.NFCImportError
	require.ErrorAs(t, err, &ie)
	require.Len(t, res, 2, "all results come back with the error")
	assert.False(t, res[0].Failed())
	assert.Equal(t, "5b0e7c1d2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d", res[0].Token)
	assert.True(t, res[1].Failed())
	assert.Equal(t, []access.NFCImportResult{{NFCID: "04A2B3C4D5E681", Alias: "Contractor 2"}}, ie.Failed)
	assert.Contains(t, err.Error(), "04A2B3C4D5E681")
}

func TestNFCCardsImportValidation(t *testing.T) {
	t.Parallel()
	c, _ := mockConsole(t)
	ctx := context.Background()
	for name, rows := range map[string][]access.NFCImportRow{
		"none":            nil,
		"not hex":         {{NFCID: "04XZ"}},
		"odd digits":      {{NFCID: "04A"}},
		"empty id":        {{NFCID: " ", Alias: "a"}},
		"duplicate alias": {{NFCID: "04", Alias: "Desk"}, {NFCID: "05", Alias: "Desk"}},
		"comma in alias":  {{NFCID: "04", Alias: "a,b"}},
	} {
		_, _, err := c.NFCCards.Import(ctx, rows)
		assert.ErrorIs(t, err, access.ErrValidation, name)
	}
}

func TestNFCCardsImportOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	rows := []access.NFCImportRow{{NFCID: "04A2B3C4D5E680", Alias: "Contractor 1"}, {NFCID: "04a2b3c4d5e681", Alias: "Contractor 2"}}
	res, _, err := c.NFCCards.Import(ctx, rows)
	require.NoError(t, err)
	require.Len(t, res, 2)
	for _, r := range res {
		card, _, err := c.NFCCards.Get(ctx, r.Token)
		require.NoError(t, err)
		assert.Equal(t, r.Alias, card.Alias)
		assert.Equal(t, r.NFCID, card.DisplayID)
	}
	// Importing the same cards again fails per row.
	res, _, err = c.NFCCards.Import(ctx, append(rows, access.NFCImportRow{NFCID: "0A0B", Alias: "New"}))
	var ie *access.NFCImportError
	require.ErrorAs(t, err, &ie)
	assert.Len(t, ie.Failed, 2)
	assert.False(t, res[2].Failed())
	assert.Len(t, srv.NFCCards(), 3)
	req := srv.RequestsFor(accesstest.OpNFCCardsImport)
	assert.True(t, strings.HasPrefix(req[0].Header.Get("Content-Type"), "multipart/form-data; boundary="))
}

func TestNFCCardPermissions(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	srv.AddToken("viewer", accesstest.ViewCredential)
	c := srv.ClientWithToken("viewer")
	ctx := context.Background()
	_, _, err := c.NFCCards.List(ctx, nil)
	require.NoError(t, err)
	_, _, err = c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, err = c.NFCCards.Delete(ctx, "t")
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, _, err = c.NFCCards.Import(ctx, []access.NFCImportRow{{NFCID: "04"}})
	assert.ErrorIs(t, err, access.ErrForbidden)
	assert.Empty(t, srv.EnrollmentSessions())
}

// An answer whose data is empty where a value is needed is an invalid
// response, not a success with a zero value.
func TestEmptyDataIsAnInvalidResponse(t *testing.T) {
	t.Parallel()
	c, mux := mockConsole(t)
	mux.HandleFunc("/api/v1/developer/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, `{"code":"SUCCESS","msg":"success","data":{}}`)
	})
	ctx := context.Background()
	sess, _, err := c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: "d"})
	assert.Nil(t, sess)
	assert.ErrorIs(t, err, access.ErrInvalidResponse)
	var ae *access.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "POST", ae.Method)
	assert.Contains(t, ae.URL, "/credentials/nfc_cards/sessions")
	// A poll answering SUCCESS without a token is still waiting.
	card, _, err := c.NFCCards.EnrollmentStatus(ctx, "s1")
	assert.Nil(t, card)
	assert.ErrorIs(t, err, access.ErrCardNotRead)
}

func TestFakePagingSurvivesHugeValues(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	const huge = int(^uint(0) >> 1)
	cards, _, err := c.NFCCards.List(ctx, &access.NFCCardListOptions{PageNum: 2, PageSize: huge})
	require.NoError(t, err)
	assert.Empty(t, cards)
	cards, _, err = c.NFCCards.List(ctx, &access.NFCCardListOptions{PageNum: 1, PageSize: huge})
	require.NoError(t, err)
	assert.Len(t, cards, len(srv.NFCCards()))
	tps, _, err := c.TouchPasses.List(ctx, &access.TouchPassListOptions{PageNum: huge, PageSize: huge})
	require.NoError(t, err)
	assert.Empty(t, tps)
}

// A session whose card was read and then deleted still answers the card
// it read (the fake used to panic there).
func TestEnrollmentStatusAfterTheCardIsDeleted(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	sess, _, err := c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	require.NoError(t, err)
	token, err := srv.TapCard(accesstest.DemoDeviceID, "999")
	require.NoError(t, err)
	_, err = c.NFCCards.Delete(ctx, token)
	require.NoError(t, err)
	got, _, err := c.NFCCards.EnrollmentStatus(ctx, sess.SessionID)
	require.NoError(t, err)
	assert.Equal(t, token, got.Token)
	assert.Equal(t, "999", got.CardID)
}
