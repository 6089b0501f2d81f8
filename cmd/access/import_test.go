package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runImport runs an import command line against srv and returns its exit
// code, stdout and stderr.
func runImport(t *testing.T, srv *accesstest.Server, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	return code, stdout.String(), stderr.String()
}

func writeCSV(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.csv")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// withoutIDs drops the " (id)" of the result lines, and makes "created"
// "would-create": what a dry run prints for the same rows.
func withoutIDs(s string) string {
	s = regexp.MustCompile(` \([0-9a-f-]{16,}\)`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?m)^(row \d+): created `).ReplaceAllString(s, "$1: would-create ")
}

// TestUsersImportDryRunPredictsTheRun: with emails and employee numbers
// repeated inside the CSV, a row without either and rows the console
// holds, --dry-run prints the lines the run then prints (but for the verb
// and the new ids); a row with neither email nor employee number fails in
// both, and a re-run creates nothing more.
func TestUsersImportDryRunPredictsTheRun(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	csv := writeCSV(t, `first_name,last_name,email,employee_number
Ann,One,ann@example.com,
Bob,Two,,N-2
Ann,Again,ANN@example.com,
Bob,Again,,N-2
Cy,Three,cy@example.com,N-2
No,Key,,
Ada,Lovelace,ada.lovelace@example.com,
Bad,,x@example.com,
`)
	want := `row 2: would-create Ann One
row 3: would-create Bob Two
row 4: skipped Ann Again: email ANN@example.com is on row 2
row 5: skipped Bob Again: employee number N-2 is on row 3
row 6: skipped Cy Three: employee number N-2 is on row 3
row 7: failed No Key: no email or employee number: a re-run could not tell it was done (use access users create)
row 8: skipped Ada Lovelace: email ada.lovelace@example.com exists
row 9: failed Bad: first_name and last_name must not be empty
`
	code, dry, stderr := runImport(t, srv, "users", "import", csv, "--dry-run", "-o", "table")
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, want, withoutIDs(dry))
	assert.Equal(t, "0 created, 4 skipped, 2 failed, 2 would be created (dry run)\naccess: 2 rows failed\n", stderr)
	assert.Len(t, srv.Users(), accesstest.DemoUserCount, "a dry run creates nothing")

	code, real, stderr := runImport(t, srv, "users", "import", csv, "-o", "table")
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, withoutIDs(dry), withoutIDs(real), "the dry run's lines and the run's")
	assert.Regexp(t, `(?m)^row 4: skipped Ann Again \([0-9a-f-]{36}\): email ANN@example.com is on row 2$`, real, "the id of the user row 2 created")
	assert.Equal(t, "2 created, 4 skipped, 2 failed\naccess: 2 rows failed\n", stderr)
	assert.Len(t, srv.Users(), accesstest.DemoUserCount+2)

	code, again, stderr := runImport(t, srv, "users", "import", csv, "-o", "table")
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, "0 created, 6 skipped, 2 failed\naccess: 2 rows failed\n", stderr)
	assert.Regexp(t, `(?m)^row 2: skipped Ann One \([0-9a-f-]{36}\): email ann@example.com exists$`, again)
	assert.Len(t, srv.Users(), accesstest.DemoUserCount+2, "a re-run creates nothing")
}

// TestNFCImportInRowOrder: the result lines of nfc-cards import follow the
// file's rows (a row refused before the upload was printed first), cards
// and aliases repeated inside the file are skipped, and the dry run
// prints the same lines.
func TestNFCImportInRowOrder(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	csv := writeCSV(t, `nfc_id,alias
0A0B0C01,desk-1
XYZ,bad
0a0b0c01,desk-1b
0A0B0C02,desk-1
0A0B0C03,desk-3
`)
	want := `row 2: would-create 0A0B0C01
row 3: failed XYZ: nfc_id must be hexadecimal
row 4: skipped 0A0B0C01: card is on row 2
row 5: skipped 0A0B0C02: alias desk-1 is on row 2
row 6: would-create 0A0B0C03
`
	cards := len(srv.NFCCards())
	code, dry, stderr := runImport(t, srv, "nfc-cards", "import", csv, "--dry-run", "-o", "table")
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, want, dry)
	assert.Equal(t, cards, len(srv.NFCCards()), "a dry run imports nothing")

	code, real, stderr := runImport(t, srv, "nfc-cards", "import", csv, "-o", "table")
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, want, withoutIDs(real))
	tok := regexp.MustCompile(`(?m)^row 2: created 0A0B0C01 \(([0-9a-f]+)\)$`).FindStringSubmatch(real)
	require.NotNil(t, tok, real)
	assert.Contains(t, real, "row 4: skipped 0A0B0C01 ("+tok[1]+"): card is on row 2\n")
	assert.Equal(t, "2 created, 2 skipped, 1 failed\naccess: 1 row failed\n", stderr)
	assert.Equal(t, cards+2, len(srv.NFCCards()))
}
