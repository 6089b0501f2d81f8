package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/h2non/gock.v1"
)

// These tests use gock as a transport-level interceptor on the inner client
// (the one under the retry layer), so every attempt meets the mocks. gock is
// process-global: they are not parallel, and nothing else here uses gock.

const gockBase = "https://console.invalid:12445"

func gockClient(t *testing.T, p RetryPolicy) *Client {
	t.Helper()
	t.Cleanup(gock.Off)
	hc := &http.Client{}
	gock.InterceptClient(hc)
	c, err := NewClient(gockBase, testToken, WithHTTPClient(hc), WithRetryPolicy(p))
	require.NoError(t, err)
	return c
}

func TestGockRetriesReachTheInnerTransport(t *testing.T) {
	c := gockClient(t, fastRetry())
	gock.New(gockBase).Get("/api/v1/developer/users/u1").
		MatchHeader("Authorization", "^Bearer "+testToken+"$").
		Times(2).Reply(503)
	gock.New(gockBase).Get("/api/v1/developer/users/u1").
		MatchParam("expand[]", "access_policy").
		Reply(200).JSON(map[string]any{"code": "SUCCESS", "msg": "success", "data": map[string]any{"id": "u1"}})

	u, resp, err := c.Users.Get(context.Background(), "u1", &UserGetOptions{Expand: []UserExpand{UserExpandAccessPolicy}})
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID)
	assert.Equal(t, 200, resp.StatusCode)
	assert.True(t, gock.IsDone(), "all three mocked attempts were used")
}

func TestGockPostNotRetriedAndUnmatchedNeverLeaves(t *testing.T) {
	c := gockClient(t, fastRetry())
	gock.New(gockBase).Post("/api/v1/developer/credentials/touch_passes").
		JSON(map[string]int{"count": 3}).
		Times(1).Reply(502)
	gock.New(gockBase).Post("/api/v1/developer/credentials/touch_passes").
		Reply(200).JSON(map[string]any{"code": "SUCCESS", "data": []any{}})

	_, _, err := c.TouchPasses.Purchase(context.Background(), 3)
	require.Error(t, err)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.StatusCode)
	assert.Equal(t, 1, apiErr.Attempts)
	assert.Len(t, gock.Pending(), 1, "the second mock was never reached: no duplicate purchase")

	// A request no mock matches fails as a transport error, without
	// networking (gock's default), and is not sent anywhere.
	gock.CleanUnmatchedRequest()
	_, _, err = c.Schedules.Get(context.Background(), "nope")
	var reqErr *RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.True(t, gock.HasUnmatchedRequest())
}
