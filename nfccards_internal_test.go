package access

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzNFCImportCSV: whatever the rows, Import either rejects them before
// sending, or writes a CSV that reads back as the rows, with upper-case
// ids, one record of two fields a row, and unique aliases.
func FuzzNFCImportCSV(f *testing.F) {
	f.Add("04a2b3c4d5e680", "Contractor 1", "04A2B3C4D5E681", "Contractor 2")
	f.Add("04", "Desk", "05", "Desk")
	f.Add("0g", "a,b", "", "")
	f.Add("AB", " spaced ", "cd", "")
	f.Fuzz(func(t *testing.T, id1, alias1, id2, alias2 string) {
		rows := []NFCImportRow{{NFCID: id1, Alias: alias1}, {NFCID: id2, Alias: alias2}}
		if err := validateImport(rows); err != nil {
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		cr := &csvReader{rows: rows}
		want := cr.Len()
		first := make([]byte, 3)
		n, _ := cr.Read(first)
		if left := cr.Len(); left != want-n {
			t.Fatalf("Len after reading %d bytes = %d, want %d", n, left, want-n)
		}
		rest, err := io.ReadAll(cr)
		if err != nil {
			t.Fatal(err)
		}
		b := append(first[:n], rest...)
		if len(b) != want || cr.Len() != 0 {
			t.Fatalf("Len announced %d bytes, %d read, %d left", want, len(b), cr.Len())
		}
		r := csv.NewReader(strings.NewReader(string(b)))
		r.TrimLeadingSpace = true
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("CSV %q does not parse: %v", b, err)
		}
		if len(recs) != len(rows) {
			t.Fatalf("%d records for %d rows: %q", len(recs), len(rows), b)
		}
		seen := map[string]bool{}
		for i, rec := range recs {
			if len(rec) != 2 {
				t.Fatalf("record %q", rec)
			}
			if rec[0] != strings.ToUpper(strings.TrimSpace(rows[i].NFCID)) || rec[1] != strings.TrimSpace(rows[i].Alias) {
				t.Fatalf("record %q for row %+v", rec, rows[i])
			}
			if rec[1] != "" && seen[rec[1]] {
				t.Fatalf("duplicate alias %q passed", rec[1])
			}
			seen[rec[1]] = true
		}
	})
}
