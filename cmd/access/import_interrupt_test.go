package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
)

// TestInterruptedImportSaysWhatItDidNotDo: Ctrl-C while the console holds
// the answer to the third create (which took effect) ends the import
// with 130, and the summary says which row was in flight (it may or may
// not exist: here it does) and which rows were not attempted. Nothing is
// timed: the context is cancelled when the third user exists.
func TestInterruptedImportSaysWhatItDidNotDo(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	base := len(srv.Users())
	var b strings.Builder
	b.WriteString("first_name,last_name,email\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "New%d,Person,new%d@example.com\n", i, i)
	}
	csv := writeCSV(t, b.String())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	remove := srv.OnChange(func() {
		switch len(srv.Users()) - base {
		case 2: // the third create takes effect, its answer is held back
			once.Do(func() {
				srv.Inject(accesstest.OpUsersCreate, accesstest.Fault{Delay: time.Minute, AfterHandling: true, Times: 1})
			})
		case 3:
			cancel()
		}
	})
	defer remove()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"users", "import", csv, "-o", "table"}, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	assert.Equal(t, 130, code, stderr.String())
	assert.Equal(t, base+3, len(srv.Users()), "the row in flight was created")
	out := stdout.String()
	assert.Regexp(t, `(?m)^row 2: created New1 Person \(`, out)
	assert.Regexp(t, `(?m)^row 3: created New2 Person \(`, out)
	assert.Regexp(t, `(?m)^row 4: interrupted New3 Person: in flight: the user may or may not exist \(a re-run skips it if it does\)$`, out)
	assert.NotContains(t, out, "row 5")
	assert.Contains(t, stderr.String(), "2 created, 0 skipped, 0 failed, 1 in flight (may or may not exist), 5 not attempted\n")
	assert.Contains(t, stderr.String(), "in flight when interrupted: row 4 (New3 Person): sent, unanswered; each may or may not exist, a re-run skips it if it does\n")
	assert.Contains(t, stderr.String(), "not attempted: rows 5-9\n")

	// A re-run does the rest, and skips the row that was in flight.
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"users", "import", csv, "-o", "table"}, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	assert.Equal(t, 0, code, stderr.String())
	assert.Regexp(t, `(?m)^row 4: skipped New3 Person \(.*\): email new3@example.com exists$`, stdout.String())
	assert.Contains(t, stderr.String(), "5 created, 3 skipped, 0 failed\n")
}

// TestInterruptedNFCImportSaysWhatItDidNotDo: Ctrl-C while the console
// holds the answer to the upload (which took effect): every card of the
// upload was in flight.
func TestInterruptedNFCImportSaysWhatItDidNotDo(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	base := len(srv.NFCCards())
	csv := writeCSV(t, "nfc_id,alias\n0A1B2C3D,lobby-1\n0A1B2C3E,lobby-2\n")
	srv.Inject(accesstest.OpNFCCardsImport, accesstest.Fault{Delay: time.Minute, AfterHandling: true, Times: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	remove := srv.OnChange(func() {
		if len(srv.NFCCards()) > base {
			cancel()
		}
	})
	defer remove()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"nfc-cards", "import", csv, "-o", "table"}, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	assert.Equal(t, 130, code, stderr.String())
	assert.Equal(t, "row 2: interrupted 0A1B2C3D: in flight: the card may or may not have been imported (a re-run skips it if it was)\n"+
		"row 3: interrupted 0A1B2C3E: in flight: the card may or may not have been imported (a re-run skips it if it was)\n", stdout.String())
	assert.Contains(t, stderr.String(), "0 created, 0 skipped, 0 failed, 2 in flight (may or may not exist)\n")
	assert.Contains(t, stderr.String(), "in flight when interrupted: rows 2-3 (0A1B2C3D, 0A1B2C3E): ")
}
