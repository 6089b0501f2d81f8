package capture_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/capture"
)

// realPayloads is a capture of the repository's published payloads:
// the notification frames of testdata/notifications and the webhook
// deliveries of testdata/events.
func realPayloads(t *testing.T) *capture.Capture {
	t.Helper()
	c := &capture.Capture{Header: capture.Record{Kind: capture.KindHeader, FormatVersion: capture.FormatVersion}}
	read := func(glob string) [][]byte {
		files, err := filepath.Glob(filepath.Join("..", "testdata", glob))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		var out [][]byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, json.Compact(&buf, b), f)
			out = append(out, buf.Bytes())
		}
		return out
	}
	for _, b := range read("notifications/*.json") {
		c.Frames = append(c.Frames, capture.Record{Kind: capture.KindFrame, Frame: b})
	}
	for _, b := range read("events/*.json") {
		c.Deliveries = append(c.Deliveries, capture.Record{Kind: capture.KindDelivery, Body: b})
	}
	return c
}

func lines(ds []capture.Difference) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// TestCheckOnTheRepositorysRealPayloads: the published frames and
// webhook deliveries of testdata/, checked against the SDK's types: the
// members consoles send that the SDK does not decode, and nothing else.
func TestCheckOnTheRepositorysRealPayloads(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `frame access.data.device.update: + data.is_online (boolean)
frame access.data.device.update: + data.location (object)
frame access.data.device.update: + data.source (null)
frame access.logs.add: + data._source.event.event (string)
frame access.logs.add: + data._source.event.level (number)
`, lines(capture.Check(realPayloads(t))))
}

// TestCompareReportsDrift: the real payloads against the same with a
// member added, one gone, one retyped and an event kind no one knew: one
// line each; the same capture twice has no difference.
func TestCompareReportsDrift(t *testing.T) {
	t.Parallel()
	a := realPayloads(t)
	assert.Empty(t, capture.Compare(capture.ShapesOf(a), capture.ShapesOf(a)))
	b := realPayloads(t)
	for i, f := range b.Frames {
		if bytes.Contains(f.Frame, []byte(`"access.remote_view"`)) {
			var v map[string]any
			require.NoError(t, json.Unmarshal(f.Frame, &v))
			data := v["data"].(map[string]any)
			data["new_field"] = "x"
			delete(data, "floor_name")
			data["reason_code"] = "0"
			b.Frames[i].Frame, _ = json.Marshal(v)
		}
	}
	b.Frames = append(b.Frames, capture.Record{Kind: capture.KindFrame, Frame: []byte(`{"event":"access.data.v3.door.update","data":{}}`)})
	assert.Equal(t, `frame access.data.v3.door.update: ? only in the second (unknown event kind)
frame access.remote_view: - data.floor_name
frame access.remote_view: + data.new_field (string)
frame access.remote_view: ~ data.reason_code: number -> string
`, lines(capture.Compare(capture.ShapesOf(a), capture.ShapesOf(b))))
	assert.Equal(t, "frame access.data.v3.door.update: ? unknown event kind (the SDK does not name it)",
		capture.Check(&capture.Capture{Frames: b.Frames[len(b.Frames)-1:]})[0].String())
}
