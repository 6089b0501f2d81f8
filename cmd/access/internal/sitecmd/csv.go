package sitecmd

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/site"
	"github.com/spf13/cobra"
)

// csvFlags override how the document's users_csv is read.
type csvFlags struct {
	delimiter string
	columns   map[string]string
}

func (f *csvFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.delimiter, "csv-delimiter", "", "read users_csv with this one-character `DELIMITER` (\";\", or tab), overriding the document's delimiter")
	c.Flags().StringToStringVar(&f.columns, "csv-column", nil, "map a users_csv column to the file's header, as `COLUMN=HEADER` (e.g. employee_number=Personalnummer); repeatable, overrides the document's columns")
}

func (f *csvFlags) set() bool { return f.delimiter != "" || len(f.columns) > 0 }

// options checks the flags and returns them as sitefile's override; nil
// when no flag is given.
func (f *csvFlags) options() (*site.CSVOptions, error) {
	if !f.set() {
		return nil, nil
	}
	o := &site.CSVOptions{Columns: f.columns}
	if d := f.delimiter; d != "" {
		if d == "tab" || d == `\t` {
			d = "\t"
		}
		r, size := utf8.DecodeRuneInString(d)
		if size != len(d) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' || r == ' ' {
			return nil, cmdutil.UsageErrorf("--csv-delimiter: %q is not one character that can separate fields", f.delimiter)
		}
		o.Delimiter = r
	}
	for k, v := range f.columns {
		if !slices.Contains(site.CSVColumns, k) {
			return nil, cmdutil.UsageErrorf("--csv-column: unknown column %q (want %s)", k, strings.Join(site.CSVColumns, ","))
		}
		if strings.TrimSpace(v) == "" {
			return nil, cmdutil.UsageErrorf("--csv-column %s=: the file's header is required", k)
		}
	}
	return o, nil
}
