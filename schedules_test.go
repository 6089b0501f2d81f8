package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchedulesGet(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/access_policies/schedules/{id}", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Empty(t, r.URL.RawQuery)
		assert.Equal(t, "908079e7-e26b-4951-9073-d775446d3584", r.PathValue("id"))
		writeEnvelope(t, w, map[string]any{"id": "908079e7-e26b-4951-9073-d775446d3584"})
	})
	s, _, err := c.Schedules.Get(context.Background(), "908079e7-e26b-4951-9073-d775446d3584")
	require.NoError(t, err)
	assert.Equal(t, "908079e7-e26b-4951-9073-d775446d3584", s.ID)

	_, _, err = c.Schedules.Get(context.Background(), "")
	assert.ErrorIs(t, err, ErrValidation)
}
