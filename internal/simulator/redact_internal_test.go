package simulator

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// TestJournalRedactsWhatTheSDKRedacts: the request journal redacts a body
// exactly as access.RedactSecrets does, so every secret member the SDK
// names (a member added there included) is redacted in the journal too;
// the journal keeps no list of its own.
func TestJournalRedactsWhatTheSDKRedacts(t *testing.T) {
	t.Parallel()
	// The members access.RedactSecrets documents, in mixed case, nested.
	body := []byte(`{"name":"n","Secret":"v1","token":"v2","pin_code":"v3","PIN":"v4","password":"v5","passphrase":"v6",
		"passwd":"v7","api_key":"v8","apiKey":"v9","access_token":"v10","refresh_token":"v11","client_secret":"v12",
		"private_key":"v13","Authorization":"v14","headers":{"X-Hook-Auth":"v15"},"nested":[{"pin_code":"v16","first_name":"Ada"}]}`)
	var want any
	require.NoError(t, json.Unmarshal(access.RedactSecrets(body), &want))
	assert.Equal(t, want, redactBody(body))
	got, err := json.Marshal(redactBody(body))
	require.NoError(t, err)
	assert.NotRegexp(t, `"v[0-9]+"|X-Hook-Auth`, string(got))
	assert.Contains(t, string(got), `"Ada"`)
	assert.Equal(t, "REDACTED (9 bytes, not JSON)", redactBody([]byte(`{"pin":"1`)))
	assert.Nil(t, redactBody([]byte(" \n")))
}
