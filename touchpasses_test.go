package access

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTouchPassesPurchase(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"array":  `[{"id":"p1","card_id":"F8AD-3A41-787D-4D30","status":"INACTIVE"},{"id":"p2","card_id":"0000-1111-2222-3333","status":"INACTIVE"}]`,
		"object": `{"id":"p1","card_id":"F8AD-3A41-787D-4D30","status":"INACTIVE"}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			mux.HandleFunc("POST /api/v1/developer/credentials/touch_passes", func(w http.ResponseWriter, r *http.Request) {
				testHeaders(t, r, true)
				assert.Equal(t, `{"count":2}`, readJSONBody(t, r))
				writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":`+data+`}`)
			})
			passes, _, err := c.TouchPasses.Purchase(context.Background(), 2)
			require.NoError(t, err)
			require.NotEmpty(t, passes)
			assert.Equal(t, "F8AD-3A41-787D-4D30", passes[0].CardID)
		})
	}
}

func TestTouchPassesSearch(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var queries []string
	mux.HandleFunc("GET /api/v1/developer/credentials/touch_passes/search", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		queries = append(queries, r.URL.RawQuery)
		assert.Equal(t, []string{r.URL.Query().Get("condition")}, r.URL.Query()["condition"])
		writeEnvelope(t, w, []map[string]any{{"id": "p1", "card_id": "057B-D703-0C6D-4AC9"}})
	})
	passes, _, err := c.TouchPasses.Search(context.Background(), "057B")
	require.NoError(t, err)
	require.Len(t, passes, 1)
	assert.Equal(t, "057B-D703-0C6D-4AC9", passes[0].CardID)
	_, _, err = c.TouchPasses.Search(context.Background(), "Example Name&x=1#?/ü%")
	require.NoError(t, err)
	assert.Equal(t, []string{"condition=057B", "condition=Example+Name%26x%3D1%23%3F%2F%C3%BC%25"}, queries)
}

func TestTouchPassesValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	for _, n := range []int{0, -1} {
		p, resp, err := c.TouchPasses.Purchase(context.Background(), n)
		assert.ErrorIs(t, err, ErrValidation)
		assert.Nil(t, p)
		assert.Nil(t, resp)
	}
	for _, cond := range []string{"", "   "} {
		_, _, err := c.TouchPasses.Search(context.Background(), cond)
		assert.ErrorIs(t, err, ErrValidation)
	}
}
