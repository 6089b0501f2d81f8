package capture_test

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/internal/apifacts"
)

// returnsData is the data type of the SDK method sdk when it returns
// (T, *access.Response, error), found by the test on its own.
func returnsData(t *testing.T, sdk string) (reflect.Type, bool) {
	t.Helper()
	svc, method, _ := strings.Cut(sdk, ".")
	f, ok := reflect.TypeOf(access.Client{}).FieldByName(svc)
	require.True(t, ok, "%s: no service %s on access.Client", sdk, svc)
	m, ok := f.Type.MethodByName(method)
	require.True(t, ok, "%s: no method", sdk)
	if m.Type.NumOut() != 3 || m.Type.Out(1).String() != "*access.Response" {
		return nil, false
	}
	out := m.Type.Out(0)
	if out.Kind() == reflect.Pointer {
		out = out.Elem()
	}
	return out, true
}

// undocumented is the operations of the table with an SDK method that
// returns data and no answer type in types.
func undocumented(t *testing.T, types map[string]reflect.Type) []string {
	var out []string
	for _, o := range apifacts.Operations() {
		for _, sdk := range o.SDK {
			if _, data := returnsData(t, sdk); data {
				if _, ok := types[o.SDK[0]]; !ok {
					out = append(out, o.SDK[0])
				}
				break
			}
		}
	}
	return out
}

// TestCheckCoversEveryOperation: every operation of the table whose SDK
// method returns data has a documented answer shape (under each of its
// SDK names), the type that method returns; and the check of this test
// notices an operation left out.
func TestCheckCoversEveryOperation(t *testing.T) {
	t.Parallel()
	types := capture.AnswerTypes()
	assert.Empty(t, undocumented(t, types))
	n := 0
	for _, o := range apifacts.Operations() {
		for _, sdk := range o.SDK {
			want, data := returnsData(t, sdk)
			if !data {
				continue
			}
			n++
			for _, name := range o.SDK {
				assert.True(t, capture.Documented(name), name)
			}
			if o.SDK[0] != "SystemLogs.List" && o.SDK[0] != "TouchPasses.Purchase" { // decoded as another type
				assert.Equal(t, want, types[o.SDK[0]], o.SDK[0])
			}
			break
		}
	}
	assert.Greater(t, n, 50, "operations returning data")
	assert.False(t, capture.Documented("Doors.Unlock"), "a write answered with its code only")
	assert.False(t, capture.Documented("QRCodes.Download"), "a download")
	// An operation left out is noticed.
	delete(types, "Doors.GetLockRule")
	assert.Equal(t, []string{"Doors.GetLockRule"}, undocumented(t, types))
}

// sampleOps are the repository's published answers (testdata/samples)
// by the operation their sidecar names ("op: Users.List").
func sampleOps(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "samples", "*.json.source"))
	require.NoError(t, err)
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if op, ok := strings.CutPrefix(sc.Text(), "op: "); ok {
				out[strings.TrimSpace(op)] = append(out[strings.TrimSpace(op)], strings.TrimSuffix(f, ".source"))
			}
		}
	}
	return out
}

// TestCheckOnTheRepositorysSampleAnswers: the published answers of
// testdata/samples, each recorded as an answer of its operation, give
// no '+' or '~' against the SDK's types: a documented answer's members
// are decoded, with their JSON types.
func TestCheckOnTheRepositorysSampleAnswers(t *testing.T) {
	t.Parallel()
	c := &capture.Capture{Header: capture.Record{Kind: capture.KindHeader, FormatVersion: capture.FormatVersion}}
	checked := 0
	for op, files := range sampleOps(t) {
		o, ok := apifacts.Lookup(op)
		require.True(t, ok, op)
		path := strings.NewReplacer(":id", "x1", ":device_id", "x1", ":visitor_id", "x1", ":user_id", "x1",
			":touch_pass_id", "x2", ":license_plate_id", "x2", ":token", "x1", ":path", "x1").Replace(o.Path)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			c.Answers = append(c.Answers, capture.Record{Kind: capture.KindAnswer, Operation: op, Method: o.Method, Path: path, Status: 200, Body: b})
			if capture.Documented(op) {
				checked++
			}
		}
	}
	var bad []string
	for _, d := range capture.Check(c) {
		bad = append(bad, d.String())
	}
	slices.Sort(bad)
	assert.Empty(t, bad)
	assert.Greater(t, checked, 60, "samples of documented answers")
	t.Logf("%d samples of documented answers; not exercised: %v", checked, capture.Missing(c))
}

// TestMissingListsTheReadsNotCaptured: the documented reads a capture
// holds no successful answer of, by their first SDK name; writes are not
// listed (a capture only reads).
func TestMissingListsTheReadsNotCaptured(t *testing.T) {
	t.Parallel()
	c := &capture.Capture{Answers: []capture.Record{
		{Kind: capture.KindAnswer, Operation: "Users.All", Method: "GET", Path: "/users", Status: 200, Body: []byte(`{"data":[]}`)},
		{Kind: capture.KindAnswer, Operation: "Doors.Get", Method: "GET", Path: "/doors/x", Status: 404, Body: []byte(`{"code":"CODE_NOT_EXISTS"}`)},
	}}
	m := capture.Missing(c)
	assert.NotContains(t, m, "Users.List")
	assert.NotContains(t, m, "Users.All")
	assert.Contains(t, m, "Doors.Get", "only an error answered it")
	assert.Contains(t, m, "SystemLogs.List", "a read that is a POST")
	assert.NotContains(t, m, "Doors.Unlock")
	assert.NotContains(t, m, "Users.Create")
	assert.NotContains(t, m, "QRCodes.Download", "no JSON answer")
	assert.Greater(t, len(m), 30)
}
