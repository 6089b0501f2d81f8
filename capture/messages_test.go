package capture_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/capture"
)

// TestConsoleMessagesKeepNoCardNumber: a console's own message that names
// a card, as the fake writes one for an unknown card ("Access Denied (NFC
// 04C0FFEE at Main entrance): unknown card", accesstest's PresentCard),
// is not kept in a capture: display_message, error_msg and msg are no
// member of the allow-list, so the whole text is replaced (one pseudonym
// per message) wherever it comes — a frame, a system-log answer, an
// error answer, a delivery — and the card number is in none of them.
// (access doctor --capture keeps these messages and scrubs them instead.)
func TestConsoleMessagesKeepNoCardNumber(t *testing.T) {
	t.Parallel()
	const msg = "Access Denied (NFC 04C0FFEE at Main entrance): unknown card"
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, &capture.WriterOptions{Key: []byte("k")})
	require.NoError(t, err)
	logEntry := `{"_source":{"event":{"type":"access.door.unlock","display_message":"` + msg + `","result":"BLOCKED"},` +
		`"authentication":{"credential_provider":"NFC"},"target":[{"type":"door","id":"d-1","display_name":"Main entrance"}]},"tag":"access"}`
	require.NoError(t, w.Frame(time.Second, []byte(`{"event":"access.logs.add","event_object_id":"","data":`+logEntry+`}`)))
	require.NoError(t, w.Answer("SystemLogs.Fetch", "POST", "/api/v1/developer/system/logs", 200,
		[]byte(`{"code":"SUCCESS","msg":"success","data":{"hits":[`+logEntry+`]}}`)))
	require.NoError(t, w.Answer("NFCCards.Get", "GET", "/api/v1/developer/credentials/nfc_cards/tokens/04C0FFEE", 404,
		[]byte(`{"code":"CODE_CREDS_NFC_CARD_NOT_EXIST","msg":"`+msg+`","data":{"error_msg":"`+msg+`"}}`)))
	require.NoError(t, w.Delivery(2*time.Second, http.Header{"Content-Type": {"application/json"}},
		[]byte(`{"event":"access.logs.add","data":`+logEntry+`}`)))
	require.NoError(t, w.Flush())
	out := buf.String()
	for _, gone := range []string{"04C0FFEE", "04c0ffee", "Access Denied (NFC"} {
		assert.NotContains(t, out, gone)
	}
	for _, kept := range []string{`"access.logs.add"`, `"BLOCKED"`, `"CODE_CREDS_NFC_CARD_NOT_EXIST"`, `"d-1"`} {
		assert.Contains(t, out, kept)
	}
	c, err := capture.Read(&buf)
	require.NoError(t, err)
	require.Len(t, c.Frames, 1)
	require.Len(t, c.Answers, 2)
	require.Len(t, c.Deliveries, 1)
	assert.True(t, strings.HasPrefix(c.Answers[1].Path, "/api/v1/developer/credentials/nfc_cards/tokens/"))
}
