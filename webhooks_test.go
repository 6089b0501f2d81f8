package access

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhooksCreate(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, true)
		assert.Empty(t, r.URL.RawQuery)
		assert.JSONEq(t, `{"endpoint":"https://hooks.example/a?x=1&y=<2>","name":"door events",
			"events":["access.door.unlock","access.doorbell.incoming.REN"],"headers":{"Authorization":"Bearer hook"}}`, readJSONBody(t, r))
		writeEnvelope(t, w, map[string]any{"id": "wh1", "endpoint": "https://hooks.example/a?x=1&y=<2>", "name": "door events",
			"secret": "1a7c9c6a69bb5a1e", "events": []string{"access.door.unlock"}, "headers": map[string]string{"Authorization": "Bearer hook"}})
	})
	ep, resp, err := c.Webhooks.Create(context.Background(), &WebhookEndpointRequest{
		Endpoint: "https://hooks.example/a?x=1&y=<2>",
		Name:     "door events",
		Events:   []EventType{"access.door.unlock", "access.doorbell.incoming.REN"},
		Headers:  map[string]string{"Authorization": "Bearer hook"},
	})
	require.NoError(t, err)
	assert.Equal(t, CodeSuccess, resp.Code)
	assert.Equal(t, "wh1", ep.ID)
	assert.Equal(t, "1a7c9c6a69bb5a1e", string(ep.Secret))
}

func TestWebhooksCreateValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request would fail the test
	ok := WebhookEndpointRequest{Endpoint: "http://192.168.1.1:8080", Name: "n", Events: []EventType{"access.door.unlock"}}
	bad := map[string]*WebhookEndpointRequest{
		"nil":            nil,
		"no endpoint":    {Name: "n", Events: ok.Events},
		"relative":       {Endpoint: "/hook", Name: "n", Events: ok.Events},
		"ftp":            {Endpoint: "ftp://x/y", Name: "n", Events: ok.Events},
		"unparseable":    {Endpoint: "http://[::1", Name: "n", Events: ok.Events},
		"no name":        {Endpoint: ok.Endpoint, Events: ok.Events},
		"no events":      {Endpoint: ok.Endpoint, Name: "n"},
		"an empty event": {Endpoint: ok.Endpoint, Name: "n", Events: []EventType{""}},
	}
	for name, req := range bad {
		_, resp, err := c.Webhooks.Create(context.Background(), req)
		assert.ErrorIs(t, err, ErrValidation, name)
		assert.Nil(t, resp, name)
	}
}

func TestWebhooksDelete(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("DELETE /api/v1/developer/webhooks/endpoints/{id}", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Equal(t, "a22ee283-c91f-432b-9d0f-e89bcccad4be", r.PathValue("id"))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":null,"msg":"success"}`)
	})
	resp, err := c.Webhooks.Delete(context.Background(), "a22ee283-c91f-432b-9d0f-e89bcccad4be")
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)

	_, err = c.Webhooks.Delete(context.Background(), "")
	assert.ErrorIs(t, err, ErrValidation)
}

func TestWebhooksListAndEnsure(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var creates atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		creates.Add(1)
		writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED","msg":"The provided endpoint already exists."}`)
	})
	mux.HandleFunc("GET /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		writeEnvelope(t, w, []map[string]any{
			{"id": "other", "endpoint": "http://10.0.0.9/x", "secret": "s0"},
			{"id": "mine", "endpoint": "http://192.168.1.1:8080", "name": "n", "events": []string{"access.door.unlock"}, "secret": "6601f1243d2ff70f"},
		})
	})
	var puts atomic.Int32
	mux.HandleFunc("PUT /api/v1/developer/webhooks/endpoints/{id}", func(w http.ResponseWriter, r *http.Request) {
		puts.Add(1)
		testHeaders(t, r, true)
		assert.Equal(t, "mine", r.PathValue("id"))
		assert.JSONEq(t, `{"endpoint":"http://192.168.1.1:8080","name":"renamed","events":["access.doorbell.incoming","access.door.unlock"],"headers":{"X-Hook-Token":"new"}}`, readJSONBody(t, r))
		// An answer without the secret: Ensure keeps the listed one.
		writeEnvelope(t, w, map[string]any{"id": "mine", "endpoint": "http://192.168.1.1:8080", "name": "renamed",
			"events": []string{"access.doorbell.incoming", "access.door.unlock"}, "headers": map[string]string{"X-Hook-Token": "new"}})
	})
	all, _, err := c.Webhooks.List(context.Background())
	require.NoError(t, err)
	require.Len(t, all, 2)

	ep, _, err := c.Webhooks.Ensure(context.Background(), &WebhookEndpointRequest{Endpoint: "http://192.168.1.1:8080", Name: "n", Events: []EventType{"access.door.unlock"}})
	require.NoError(t, err)
	assert.Equal(t, "mine", ep.ID)
	assert.Equal(t, "6601f1243d2ff70f", string(ep.Secret))

	assert.Equal(t, int32(0), puts.Load(), "an endpoint that already matches is not updated")

	// Same URL, other name, events and headers: updated in place.
	ep, _, err = c.Webhooks.Ensure(context.Background(), &WebhookEndpointRequest{Endpoint: "http://192.168.1.1:8080", Name: "renamed",
		Events: []EventType{"access.doorbell.incoming", "access.door.unlock"}, Headers: map[string]string{"X-Hook-Token": "new"}})
	require.NoError(t, err)
	assert.Equal(t, int32(1), puts.Load())
	assert.Equal(t, "mine", ep.ID)
	assert.Equal(t, "renamed", ep.Name)
	assert.Equal(t, "new", ep.Headers["X-Hook-Token"])
	assert.Equal(t, "6601f1243d2ff70f", ep.Secret.Value(), "same secret")

	// Duplicated but not in the list: the original conflict is returned.
	_, _, err = c.Webhooks.Ensure(context.Background(), &WebhookEndpointRequest{Endpoint: "http://elsewhere/", Name: "n", Events: []EventType{"access.door.unlock"}})
	assert.ErrorIs(t, err, ErrConflict)
	assert.Equal(t, int32(3), creates.Load(), "Create is not retried")
}

func TestWebhooksUpdateValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request would fail the test
	ok := &WebhookEndpointUpdate{Endpoint: "https://h/", Name: "n", Events: []EventType{EventDoorUnlock}}
	for name, tc := range map[string]struct {
		id    string
		req   *WebhookEndpointUpdate
		field string
	}{
		"empty id":    {"", ok, "id"},
		"dot id":      {"..", ok, "id"},
		"nil request": {"w1", nil, "upd"},
		"no name":     {"w1", &WebhookEndpointUpdate{Endpoint: "https://h/", Events: ok.Events}, "Name"},
		"no events":   {"w1", &WebhookEndpointUpdate{Endpoint: "https://h/", Name: "n"}, "Events"},
		"bad URL":     {"w1", &WebhookEndpointUpdate{Endpoint: "ftp://h/", Name: "n", Events: ok.Events}, "Endpoint"},
	} {
		_, _, err := c.Webhooks.Update(context.Background(), tc.id, tc.req)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.Equal(t, "Webhooks.Update", ve.Op, name)
			assert.Equal(t, tc.field, ve.Field, name)
		}
	}
}

// TestWebhooksUpdateHeaders: nil Headers leaves the key out, an empty map
// sends {} (remove them all), a map replaces them; Ensure with a request
// without headers removes the existing endpoint's headers for certain.
func TestWebhooksUpdateHeaders(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var bodies []string
	mux.HandleFunc("PUT /api/v1/developer/webhooks/endpoints/{id}", func(w http.ResponseWriter, r *http.Request) {
		bodies = append(bodies, readJSONBody(t, r))
		writeEnvelope(t, w, map[string]any{"id": r.PathValue("id"), "endpoint": "https://h/", "name": "n", "events": []string{"access.door.unlock"}})
	})
	mux.HandleFunc("POST /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED","msg":"The provided endpoint already exists."}`)
	})
	mux.HandleFunc("GET /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(t, w, []map[string]any{{"id": "mine", "endpoint": "https://h/", "name": "n", "events": []string{"access.door.unlock"},
			"headers": map[string]string{"X-Hook-Token": "old"}, "secret": "s"}})
	})
	ctx := context.Background()
	events := []EventType{EventDoorUnlock}
	for _, h := range []map[string]string{nil, {}, {"X-Hook-Token": "new"}} {
		_, _, err := c.Webhooks.Update(ctx, "w1", &WebhookEndpointUpdate{Endpoint: "https://h/", Name: "n", Events: events, Headers: h})
		require.NoError(t, err)
	}
	_, _, err := c.Webhooks.Ensure(ctx, &WebhookEndpointRequest{Endpoint: "https://h/", Name: "n", Events: events})
	require.NoError(t, err)
	assert.Equal(t, []string{
		`{"endpoint":"https://h/","name":"n","events":["access.door.unlock"]}`,
		`{"endpoint":"https://h/","name":"n","events":["access.door.unlock"],"headers":{}}`,
		`{"endpoint":"https://h/","name":"n","events":["access.door.unlock"],"headers":{"X-Hook-Token":"new"}}`,
		`{"endpoint":"https://h/","name":"n","events":["access.door.unlock"],"headers":{}}`,
	}, bodies)

	upd := WebhookEndpointUpdate{Endpoint: "https://h/", Name: "n", Events: events, Headers: map[string]string{"Authorization": "Bearer s3cr3t"}}
	for _, s := range []string{fmt.Sprint(upd), fmt.Sprintf("%+v", upd), fmt.Sprintf("%#v", upd), fmt.Sprint(&upd)} {
		assert.NotContains(t, s, "s3cr3t")
		assert.Contains(t, s, "Authorization")
	}
}

// TestWebhookRequestsLogWithoutHeaderValues: a request or an update given
// to slog (text or JSON) shows the header names, never their values.
func TestWebhookRequestsLogWithoutHeaderValues(t *testing.T) {
	t.Parallel()
	h := map[string]string{"Authorization": "Bearer hdr-credential"}
	req := WebhookEndpointRequest{Endpoint: "https://r/hook", Name: "n", Events: []EventType{EventDoorUnlock}, Headers: h}
	upd := WebhookEndpointUpdate(req)
	var text, js strings.Builder
	slog.New(slog.NewTextHandler(&text, nil)).Info("webhook", "req", req, "upd", upd, "preq", &req, "pupd", &upd)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("webhook", "req", req, "upd", upd, "preq", &req, "pupd", &upd)
	for _, out := range []string{text.String(), js.String()} {
		assert.NotContains(t, out, "hdr-credential")
		assert.Contains(t, out, "Authorization")
		assert.Contains(t, out, "https://r/hook")
	}
}
