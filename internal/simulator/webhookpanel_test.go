package simulator_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebhookPanelSpeaksHTTP: the page's webhook panel tells how to
// register an endpoint in HTTP and command-line terms, not by the SDK's
// Go names, and a delivery that got no answer says so.
func TestWebhookPanelSpeaksHTTP(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, WebhookRetries: 1})
	page := func() string {
		t.Helper()
		resp, err := insecureHTTP().Get(st.URL + "/")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		// The webhook panel alone (the fault panel names SDK methods,
		// the faults' own names).
		_, panel, ok := strings.Cut(string(b), `<div id="deliveries">`)
		require.True(t, ok, "no webhook panel")
		panel, _, _ = strings.Cut(panel, "</section>")
		return panel
	}
	empty := page()
	assert.Contains(t, empty, "<code>POST /api/v1/developer/webhooks/endpoints</code>")
	assert.Contains(t, empty, "<code>access webhooks create --name NAME --endpoint URL --event access.door.unlock</code>")
	assert.NotContains(t, empty, "Webhooks.Create")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdkClient(t, st)
	_, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: "http://127.0.0.1:1/hook", Name: "dead",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.NoError(t, st.Fake.WaitDeliveries(ctx))
	html := page()
	assert.Contains(t, html, "<th>Endpoint URL</th><th>HTTP status</th>")
	assert.Regexp(t, `<td data-status><span class="bad" title="[^"]+">no response</span></td><td data-attempt>1</td>`, html)
	assert.Contains(t, html, "A failed delivery (no response, or an HTTP status other than 2xx) is retried")
	assert.NotContains(t, html, "Webhooks.")
}
