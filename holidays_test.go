package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHolidayGroupsList(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/access_policies/holiday_groups", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Empty(t, r.URL.RawQuery)
		writeEnvelope(t, w, []map[string]any{{"id": "g1"}, {"id": "g2"}})
	})
	gs, _, err := c.HolidayGroups.List(context.Background())
	require.NoError(t, err)
	require.Len(t, gs, 2)
	assert.Equal(t, "g2", gs[1].ID)
}

func TestListNullDataIsEmpty(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/access_policies/holiday_groups", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"succ","data":null}`)
	})
	gs, _, err := c.HolidayGroups.List(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, gs)
	assert.Empty(t, gs)
}
