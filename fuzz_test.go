package access

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ and run with every plain
// `go test`; `go test -fuzz=<FuzzName>` explores further.

func FuzzParseSignatureHeader(f *testing.F) {
	f.Add("t=1695902233,v1=" + vecSig)
	f.Add("t=1695902233, v1=" + vecSig + ",v2=x")
	f.Add("")
	f.Add("t=,v1=")
	f.Fuzz(func(t *testing.T, header string) {
		h, err := parseSignatureHeader(header)
		if err != nil {
			if !errors.Is(err, ErrNotSigned) && !errors.Is(err, ErrInvalidHeader) {
				t.Fatalf("unexpected error kind %v", err)
			}
			return
		}
		if h.timestamp.Unix() < 0 {
			t.Fatalf("negative timestamp from %q", header)
		}
		for _, s := range h.signatures {
			if len(s) != 32 {
				t.Fatalf("kept a %d-byte signature", len(s))
			}
		}
		// Whatever parses must not verify against the vector unless it
		// carries the vector's signature and timestamp.
		err = VerifySignature([]byte(vecBody), header, vecSecret, WithTolerance(0))
		if err == nil && (h.timestamp.Unix() != vecT || !strings.Contains(strings.ToLower(header), vecSig)) {
			t.Fatalf("forged header %q verified", header)
		}
	})
}

func FuzzSignVerifyRoundTrip(f *testing.F) {
	f.Add([]byte(vecBody), vecSecret, int64(vecT))
	f.Add([]byte{}, "k", int64(0))
	f.Fuzz(func(t *testing.T, payload []byte, secret string, sec int64) {
		if secret == "" || sec < 0 || sec > 1<<40 {
			return
		}
		at := time.Unix(sec, 0)
		h := SignPayload(payload, secret, at)
		clock := WithWebhookClock(func() time.Time { return at })
		if err := VerifySignature(payload, h, secret, clock); err != nil {
			t.Fatalf("own signature rejected: %v", err)
		}
		if err := VerifySignature(append(bytes.Clone(payload), 'x'), h, secret, clock); !errors.Is(err, ErrNoValidSignature) {
			t.Fatalf("changed payload: %v", err)
		}
		if err := VerifySignature(payload, h, secret+"x", clock); !errors.Is(err, ErrNoValidSignature) {
			t.Fatalf("other secret: %v", err)
		}
	})
}

func FuzzParseEvent(f *testing.F) {
	for _, name := range []string{"door_unlock", "doorbell_incoming", "doorbell_completed", "dps_status", "doorbell_incoming_ren", "emergency_status"} {
		f.Add(readEventSample(f, name))
	}
	f.Add([]byte(vecBody))
	f.Add([]byte(`{"event":"x","data":{"object":null,"device":null}}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := ParseEvent(payload)
		if err != nil {
			if !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("unexpected error kind %v", err)
			}
			return
		}
		if ev.Event == "" || !bytes.Equal(ev.Raw, payload) {
			t.Fatalf("bad event from %q", payload)
		}
		// Accessors never panic, and succeed or fail with a reason.
		_, _ = ev.DoorUnlock()
		_, _ = ev.Doorbell()
		_, _ = ev.DPSStatus()
		_, _ = ev.EmergencyStatus()
		var anyObj any
		_ = ev.DecodeObject(&anyObj)
	})
}

// FuzzResponseDecoding feeds arbitrary status codes and bodies to every
// operation: each must return either a result or an error that is an
// *APIError (with the status) or wraps ErrInvalidResponse, and never panic.
func FuzzResponseDecoding(f *testing.F) {
	for i, op := range allOps {
		f.Add(uint8(i), 200, []byte(op.success))
	}
	seeds := []string{
		`{"code":"CODE_PARAMS_INVALID","msg":"Invalid parameters."}`,
		`{"code":"SUCCESS","msg":"success","data":null}`,
		`{"code":"SUCCESS","data":"success"}`,
		`{"code":"SUCCESS","data":[{"id":1}]}`,
		`{"code":"SUCCESS","data":{"touch_pass":{"id":"a"},"onboard_time":"17"}}`,
		`<html><body>502 Bad Gateway</body></html>`,
		`{"code":"SUCC`, ``, `null`, `[]`, `{"code":null}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), 200, []byte(s))
		f.Add(uint8(i+3), 502, []byte(s))
	}
	f.Fuzz(func(t *testing.T, opIndex uint8, status int, body []byte) {
		if status < 100 || status > 999 {
			status = 200
		}
		op := allOps[int(opIndex)%len(allOps)]
		c := rtClient(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
		}))
		res, resp, err := op.call(context.Background(), c)
		if err == nil {
			if res == nil || resp == nil {
				t.Fatalf("%s: no error and no result", op.name)
			}
			if status < 200 || status > 299 {
				t.Fatalf("%s: status %d accepted", op.name, status)
			}
			return
		}
		if res != nil {
			t.Fatalf("%s: result with error %v", op.name, err)
		}
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr):
			if apiErr.StatusCode != status {
				t.Fatalf("%s: APIError status %d, want %d", op.name, apiErr.StatusCode, status)
			}
		case errors.Is(err, ErrInvalidResponse):
		default:
			t.Fatalf("%s: untyped error %T %v", op.name, err, err)
		}
		if strings.Contains(err.Error(), testToken) {
			t.Fatalf("token in error")
		}
	})
}

// FuzzVisitorListQuery checks the query encoder: whatever the keyword, the
// server reads back exactly the options that were set, and nothing leaks
// into the path.
func FuzzVisitorListQuery(f *testing.F) {
	f.Add("H", 3, 1, 25, uint8(0b11))
	f.Add("Example Name&x=1#?/ü%", 0, 0, 0, uint8(0))
	f.Add("expand[]=none", 6, 2, 100, uint8(0xff))
	f.Fuzz(func(t *testing.T, keyword string, status, pageNum, pageSize int, expandMask uint8) {
		var got *url.URL
		c := rtClient(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			got = r.URL
			return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"code":"SUCCESS","data":[]}`)), Request: r}, nil
		}))
		all := []VisitorExpand{VisitorExpandNone, VisitorExpandAccessPolicy, VisitorExpandResource, VisitorExpandSchedule, VisitorExpandNFCCard, VisitorExpandPINCode}
		var expand []VisitorExpand
		for i, e := range all {
			if expandMask&(1<<i) != 0 {
				expand = append(expand, e)
			}
		}
		opts := &VisitorListOptions{Status: VisitorStatus(status), Keyword: keyword, PageNum: pageNum, PageSize: pageSize, Expand: expand}
		_, _, err := c.Visitors.List(context.Background(), opts)
		if err != nil {
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("unexpected error %v", err)
			}
			if got != nil {
				t.Fatalf("request sent despite invalid options")
			}
			return
		}
		if got.Path != "/api/v1/developer/visitors" {
			t.Fatalf("path %q", got.Path)
		}
		q := got.Query()
		if keyword != "" && q.Get("keyword") != keyword {
			t.Fatalf("keyword %q came back as %q", keyword, q.Get("keyword"))
		}
		if keyword == "" && q.Has("keyword") {
			t.Fatalf("empty keyword sent")
		}
		if len(q["expand[]"]) != len(expand) {
			t.Fatalf("expand %v came back as %v", expand, q["expand[]"])
		}
		for k := range q {
			switch k {
			case "keyword", "status", "page_num", "page_size", "expand[]":
			default:
				t.Fatalf("unexpected query key %q", k)
			}
		}
	})
}
