package access

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceParse is ParseNotification as it was before the one-pass
// envelope (issue 24): encoding/json splits the envelope into raw members,
// then each is decoded apart. The one-pass decoding must give the same
// result for every message.
func referenceParse(msg []byte) (*Notification, error) {
	var w struct {
		Event         json.RawMessage `json:"event"`
		ReceiverID    json.RawMessage `json:"receiver_id"`
		EventObjectID json.RawMessage `json:"event_object_id"`
		SaveToHistory json.RawMessage `json:"save_to_history"`
		Data          json.RawMessage `json:"data"`
		Meta          json.RawMessage `json:"meta"`
	}
	if err := json.Unmarshal(msg, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidNotification, err)
	}
	var event string
	if err := json.Unmarshal(w.Event, &event); err != nil || strings.TrimSpace(event) == "" {
		return nil, fmt.Errorf("%w: no event name", ErrInvalidNotification)
	}
	looseString := func(b json.RawMessage) string {
		if len(b) == 0 {
			return ""
		}
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
		if b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || string(b) == "true" || string(b) == "false" {
			return string(b)
		}
		return ""
	}
	looseBool := func(b json.RawMessage) bool {
		switch strings.ToLower(strings.Trim(string(b), `"`)) {
		case "true", "1", "yes":
			return true
		}
		return false
	}
	nonNull := func(b json.RawMessage) json.RawMessage {
		if len(b) == 0 || string(b) == "null" {
			return nil
		}
		return b
	}
	return &Notification{
		Event:         NotificationEvent(event),
		ReceiverID:    looseString(w.ReceiverID),
		EventObjectID: looseString(w.EventObjectID),
		SaveToHistory: looseBool(w.SaveToHistory),
		Data:          nonNull(w.Data),
		Meta:          nonNull(w.Meta),
	}, nil
}

// envelopeCorpus is the frames in testdata and messages that take the
// lenient path or trip a walker: odd types, escapes, folded and repeated
// keys, white space everywhere, nesting.
func envelopeCorpus(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "notifications", "*.json"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	var msgs [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		require.NoError(tb, err)
		var compact bytes.Buffer
		require.NoError(tb, json.Compact(&compact, b))
		msgs = append(msgs, b, compact.Bytes())
	}
	for _, s := range []string{
		``, ` `, `Hello`, `"Hello"`, `[]`, `{}`, `null`, `7`, `{"event":""}`, `{"event":" "}`, `{"event":null}`, `{"event":7}`,
		`{"event":"a"`, `{"event":"a"}x`, `{"event":"a"} `, "\t{ \"event\" :\n\"a\" , \"data\" : [ 1 , {\"x\":\"}\"} ] }\r\n",
		`{"event":"x.y","receiver_id":42,"event_object_id":"o","save_to_history":"true","data":null,"meta":null}`,
		`{"event":"x","receiver_id":-1.5e3,"event_object_id":true,"save_to_history":1,"data":"s","meta":[]}`,
		`{"event":"x","receiver_id":{},"event_object_id":[1],"save_to_history":"YES","data":0,"meta":false}`,
		`{"event":"x","save_to_history":"True"}`, `{"event":"x","save_to_history":"\"true\""}`, `{"event":"x","save_to_history":"yeſ"}`,
		`{"EVENT":"x","Receiver_ID":"r","Event_Object_Id":"o","SAVE_TO_HISTORY":true,"Data":{},"META":{}}`,
		`{"event":"a","event":"b"}`, `{"event":"a","event":null}`, `{"event":"a","receiver_id":"x","receiver_id":null}`,
		`{"event":"a","data":{"k":1},"data":null}`, `{"event":"a","Data":1,"data":2}`,
		`{"\u0065vent":"a"}`, `{"event":"a","r\u0065ceiver_id":"r"}`, `{"ſave_to_history":true,"event":"a"}`, `{"event":"a","\u212aey":1}`,
		`{"event":"\u0061ccess.remote_view","event_object_id":"\ud83d\ude00"}`, `{"event":"a\"b","event_object_id":"x\\"}`,
		"{\"event\":\"a\xff\",\"event_object_id\":\"\xc3\"}", "{\"event\":\"caf\xc3\xa9\"}",
		`{"event":"access.remote_view","data":{"a":"]}\\\"","b":[[[{}]]]},"meta":{"s":"{"}}`,
		`{"event":"a","x":{"event":"inner"},"y":["event",{"data":1}]}`,
		`{"event":"a","data":  {"x" : 1}  ,"meta":	"m"	}`,
	} {
		msgs = append(msgs, []byte(s))
	}
	return msgs
}

func checkLikeReference(t *testing.T, msg []byte) {
	t.Helper()
	want, wantErr := referenceParse(msg)
	got, err := ParseNotification(msg)
	if wantErr != nil {
		require.Error(t, err, "%q", msg)
		assert.ErrorIs(t, err, ErrInvalidNotification, "%q", msg)
		assert.Equal(t, wantErr.Error(), err.Error(), "%q", msg)
		return
	}
	require.NoError(t, err, "%q", msg)
	assert.Equal(t, want, got, "%q", msg)
}

// TestParseNotificationLikeReference: the one-pass decoding gives what the
// member-by-member decoding gave, errors included, for every frame in
// testdata and every lenient case.
func TestParseNotificationLikeReference(t *testing.T) {
	t.Parallel()
	for _, msg := range envelopeCorpus(t) {
		checkLikeReference(t, msg)
	}
}

// FuzzParseNotificationLikeReference extends that to any message.
func FuzzParseNotificationLikeReference(f *testing.F) {
	for _, msg := range envelopeCorpus(f) {
		f.Add(msg)
	}
	f.Fuzz(func(t *testing.T, msg []byte) { checkLikeReference(t, msg) })
}

// FuzzSplitEnvelope: the one-pass walk splits no message that json.Valid
// refuses, and wherever it splits one it finds the members encoding/json
// finds.
func FuzzSplitEnvelope(f *testing.F) {
	for _, msg := range envelopeCorpus(f) {
		f.Add(msg)
	}
	f.Fuzz(func(t *testing.T, msg []byte) { checkSplitEnvelope(t, msg) })
}

// TestSplitEnvelopeValidates runs FuzzSplitEnvelope's check on the JSON
// validity corpus, the envelopes and their truncations, and envelopes
// broken after a member: the walk that splits also validates.
func TestSplitEnvelopeValidates(t *testing.T) {
	t.Parallel()
	msgs := append(validJSONCorpus, notificationStrings(t)...)
	msgs = append(msgs, `{"event":"a","data":{"x":[1,2}}`, `{"event":"a","data":"\x"}`, `{"event":"a" "data":1}`,
		`{"event":"a",}`, `{"event":"a"}x`, `{"event":"a","data":tru}`, "{\"event\":\"a\x01\"}", `{"event":01}`,
		`{"event":"a","data":{"b":1}}`, ` {"event":"a"} `, `{}`)
	valid := 0
	for _, s := range msgs {
		checkSplitEnvelope(t, []byte(s))
		if _, ok := splitEnvelope([]byte(s)); ok {
			valid++
		}
	}
	assert.Greater(t, valid, 10, "the walk split too few messages to test anything")
}

func checkSplitEnvelope(t *testing.T, msg []byte) {
	t.Helper()
	got, ok := splitEnvelope(msg)
	if !json.Valid(msg) {
		if ok {
			t.Fatalf("%q: not valid JSON, but the walk split it", msg)
		}
		return
	}
	if !ok {
		return
	}
	want, err := splitEnvelopeJSON(msg)
	require.NoError(t, err, "%q", msg)
	for i, pair := range [][2][]byte{{got.event, want.event}, {got.receiverID, want.receiverID},
		{got.eventObjectID, want.eventObjectID}, {got.saveToHistory, want.saveToHistory},
		{got.data, want.data}, {got.meta, want.meta}} {
		if !bytes.Equal(pair[0], pair[1]) || (pair[0] == nil) != (pair[1] == nil) {
			t.Fatalf("%q: member %d: walk %q, encoding/json %q", msg, i, pair[0], pair[1])
		}
	}
}

// TestSplitEnvelopeLeavesEscapedKeysToEncodingJSON: keys that
// encoding/json decodes or folds beyond ASCII are not matched by the walk.
func TestSplitEnvelopeLeavesEscapedKeysToEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`{"\u0065vent":"a"}`, `{"ſave_to_history":true}`, `{"event":"a","\u212aey":1}`, `[]`, `null`, `"x"`} {
		_, ok := splitEnvelope([]byte(s))
		assert.False(t, ok, s)
	}
	m, ok := splitEnvelope([]byte(`{"x":{"event":"no"},"EVENT":"yes","data":[1,"]"]}`))
	require.True(t, ok)
	assert.Equal(t, `"yes"`, string(m.event))
	assert.Equal(t, `[1,"]"]`, string(m.data))
}

// TestParseNotificationCopiesItsMembers: Data, Meta and the strings do not
// point into the message, whose buffer Subscribe reuses.
func TestParseNotificationCopiesItsMembers(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "notifications", "device_update_v2.json"))
	require.NoError(t, err)
	for _, msg := range [][]byte{b, []byte(`{"event":"x","receiver_id":7,"event_object_id":"o","data":{"a":1},"meta":{"b":2}}`)} {
		want, err := ParseNotification(bytes.Clone(msg))
		require.NoError(t, err)
		buf := bytes.Clone(msg)
		got, err := ParseNotification(buf)
		require.NoError(t, err)
		for i := range buf {
			buf[i] = 'x'
		}
		assert.Equal(t, want, got)
		// Appending to Data does not reach into Meta.
		meta := bytes.Clone(got.Meta)
		_ = append(got.Data, "tail"...)
		assert.Equal(t, meta, []byte(got.Meta))
	}
}

// TestParseNotificationAllocations: a frame as consoles send it costs the
// Notification, one allocation for Data and Meta together, and one per
// non-empty id; a known event name costs none. The decoding this replaced
// made about 35.
func TestParseNotificationAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "notifications", "*.json"))
	require.NoError(t, err)
	for _, name := range files {
		msg, err := os.ReadFile(name)
		require.NoError(t, err)
		n, err := ParseNotification(msg)
		require.NoError(t, err)
		want := 2.0
		for _, id := range []string{n.ReceiverID, n.EventObjectID} {
			if id != "" {
				want++
			}
		}
		allocs := leastAllocs(100, func() { _, _ = ParseNotification(msg) })
		assert.LessOrEqual(t, allocs, want, "%s (%s)", filepath.Base(name), n.Event)
	}
}

var _ = errors.New
