package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/internal/redact"
)

// personKey names one value of one person: the person's id and what the
// value is ("first", "last", "full", "email", "phone", "employee").
type personKey struct{ id, what string }

// personValues collects the person values of a JSON document by the
// person they belong to: the object's id (or its user_id for a user's
// name or email held by another record, its inviter_id for the inviter's
// name), whatever member holds them. A user's full name is also their
// first and last names joined.
func personValues(v any, parent string, into map[personKey]string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			personValues(e, parent, into)
		}
	case map[string]any:
		str := func(k string) string { s, _ := x[k].(string); return s }
		for k, e := range x {
			s, ok := e.(string)
			if !ok {
				personValues(e, k, into)
				continue
			}
			if s == "" || !redact.Person(parent, k) {
				continue
			}
			id, what := str("id"), ""
			switch k {
			case "first_name":
				what = "first"
			case "last_name":
				what = "last"
			case "full_name", "display_name", "name":
				what = "full"
			case "user_name":
				id, what = str("user_id"), "full"
			case "inviter_name":
				id, what = str("inviter_id"), "full"
			case "email", "user_email":
				what = "email"
				if k == "user_email" && str("user_id") != "" {
					id = str("user_id")
				}
			case "phone", "mobile_phone":
				what = "phone"
			case "employee_number":
				what = "employee"
			}
			if id != "" && what != "" {
				into[personKey{id, what}] = s
			}
		}
		if f, l := str("first_name"), str("last_name"); f != "" && l != "" && str("id") != "" {
			into[personKey{str("id"), "full"}] = f + " " + l
		}
	}
}

// seedAndCapture records the site of srv as a seed and captures it, each
// under its key file, and returns the person values of each.
func seedAndCapture(t *testing.T, srv *accesstest.Server, seedKey, captureKey string) (seed, capt map[personKey]string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"fake", "record", filepath.Join(dir, "seed"), "--pseudonym-key-file", seedKey},
		strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	require.Equal(t, 0, code, stderr.String())
	file := filepath.Join(dir, "console.capture")
	code = run(ctx, []string{"capture", "-O", file, "--no-stream", "--duration", "1ms", "--pseudonym-key-file", captureKey},
		strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	require.Equal(t, 0, code, stderr.String())

	b, err := os.ReadFile(filepath.Join(dir, "seed", "site.json"))
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(b, &doc))
	seed = map[personKey]string{}
	personValues(doc, "", seed)
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	c, err := capture.Read(f)
	require.NoError(t, err)
	capt = map[personKey]string{}
	for _, r := range append(append(c.Answers, c.Frames...), c.Deliveries...) {
		var v any
		require.NoError(t, json.Unmarshal(append(r.Body, r.Frame...), &v))
		personValues(v, "", capt)
	}
	return seed, capt
}

// TestPseudonymKeyFileSameInSeedAndCapture: a seed of the demo site
// (access fake record) and a capture of the same console (access
// capture) made under one key file give each person value of the site
// they both hold — names, full names as users, card holders, touch
// passes' and the system log's actors, emails, phones, employee numbers —
// the same pseudonym; under another key, other pseudonyms.
func TestPseudonymKeyFileSameInSeedAndCapture(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	dir := t.TempDir()
	keyA, keyB := filepath.Join(dir, "a.key"), filepath.Join(dir, "b.key")
	for _, k := range []string{keyA, keyB} {
		var stdout, stderr bytes.Buffer
		// --new-key-file writes the key; the seed written with it is
		// thrown away.
		code := run(context.Background(), []string{"fake", "record", filepath.Join(dir, "first-"+filepath.Base(k)), "--new-key-file", k},
			strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
		require.Equal(t, 0, code, stderr.String())
		st, err := os.Stat(k)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	}

	seed, capt := seedAndCapture(t, srv, keyA, keyA)
	both, kinds := 0, map[string]int{}
	for k, v := range seed {
		if w, ok := capt[k]; ok {
			both++
			kinds[k.what]++
			assert.Equal(t, v, w, "%s of %s: the seed's and the capture's pseudonyms", k.what, k.id)
		}
	}
	t.Logf("%d person values in both (%v); %d in the seed, %d in the capture", both, kinds, len(seed), len(capt))
	assert.Greater(t, both, 100)
	for _, what := range []string{"first", "last", "full", "email", "employee"} {
		assert.Positive(t, kinds[what], what)
	}

	// Another key: other pseudonyms (a generated word may coincide).
	seed, capt = seedAndCapture(t, srv, keyA, keyB)
	n, same := 0, 0
	for k, v := range seed {
		if w, ok := capt[k]; ok {
			n++
			if v == w {
				same++
			}
		}
	}
	assert.Greater(t, n, 100)
	assert.Less(t, same*20, n, "%d of %d person values the same under another key", same, n)
}
