package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsersGet(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var queries []string
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Equal(t, "17d2f099", r.PathValue("id"))
		queries = append(queries, r.URL.RawQuery)
		writeEnvelope(t, w, map[string]any{"id": "17d2f099", "first_name": "Ana"})
	})
	u, _, err := c.Users.Get(context.Background(), "17d2f099", &UserGetOptions{Expand: []UserExpand{UserExpandAccessPolicy}})
	require.NoError(t, err)
	assert.Equal(t, "Ana", u.FirstName)
	_, _, err = c.Users.Get(context.Background(), "17d2f099", nil)
	require.NoError(t, err)
	_, _, err = c.Users.Get(context.Background(), "17d2f099", &UserGetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"expand%5B%5D=access_policy", "", ""}, queries)
}

func TestUsersGetValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	for _, tc := range []struct {
		id   string
		opts *UserGetOptions
	}{{"", nil}, {"  ", nil}, {"u", &UserGetOptions{Expand: []UserExpand{""}}}} {
		u, resp, err := c.Users.Get(context.Background(), tc.id, tc.opts)
		assert.ErrorIs(t, err, ErrValidation)
		assert.Nil(t, u)
		assert.Nil(t, resp)
	}
}
