package access

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestErrorMessagesNameThePackageOnce(t *testing.T) {
	t.Parallel()
	apiErr := &APIError{StatusCode: 200, Method: "GET", URL: "https://c/x", Err: fmt.Errorf("%w: truncated", ErrInvalidResponse)}
	assert.Equal(t, "access: GET https://c/x: HTTP 200: invalid response: truncated", apiErr.Error())
	assert.ErrorIs(t, apiErr, ErrInvalidResponse)
	reqErr := &RequestError{Method: "GET", URL: "https://c/qr", Attempts: 2, Err: errors.New("access: writing the download: disk full")}
	assert.Equal(t, "access: GET https://c/qr: writing the download: disk full (after 2 attempts)", reqErr.Error())
	assert.Equal(t, "access: GET https://c/qr: <nil>", (&RequestError{Method: "GET", URL: "https://c/qr"}).Error())
}

// The stream's errors wrap this package's errors (a refused upgrade, an
// unreachable console, ErrStreamIdle) and name the package once too.
func TestStreamErrorMessagesNameThePackageOnce(t *testing.T) {
	t.Parallel()
	refused := &APIError{StatusCode: 503, Method: "GET", URL: "wss://c/devices/notifications", Code: CodeSystemError, Message: "busy"}
	unreachable := &RequestError{Method: "GET", URL: "wss://c/devices/notifications", Attempts: 1, Err: errors.New("dial tcp: connection refused")}
	t0 := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	down := &DisconnectedError{Cause: refused, Lost: ErrStreamIdle, Disconnected: t0, LastMessage: t0.Add(-time.Minute),
		SinceLastMessage: 61 * time.Second, Attempts: 1}
	assert.Equal(t, "access: notifications stream is down: GET wss://c/devices/notifications: HTTP 503 "+string(CodeSystemError)+": busy"+
		" (connection lost: notifications stream went silent); last message 1m1s ago", down.Error())
	back := &ReconnectedError{Cause: ErrStreamIdle, Disconnected: t0, Reconnected: t0.Add(2 * time.Second), Attempts: 2, LastAttemptErr: unreachable}
	assert.Equal(t, "access: notifications stream reconnected after 2s (2 attempts): lost: notifications stream went silent"+
		"; last failed attempt: GET wss://c/devices/notifications: dial tcp: connection refused; notifications may have been missed", back.Error())
	for _, err := range []error{down, back} {
		assert.Equal(t, 1, strings.Count(err.Error(), "access:"), err.Error())
	}
}
