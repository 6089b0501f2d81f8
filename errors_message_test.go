package access

import (
	"errors"
	"fmt"
	"testing"

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
