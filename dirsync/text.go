package dirsync

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the plan as text: site's plan as access plan prints it
// ([site.Plan.WriteText]: the users to create, change and deactivate, the
// users outside the scope), then the leavers whose credentials are to be
// unassigned, each with their credentials (a PIN by its type only). It
// returns the first write error.
func (p *Plan) WriteText(out io.Writer) error {
	w := bufio.NewWriter(out)
	if p.Site != nil {
		if err := p.Site.WriteText(w); err != nil {
			return err
		}
	}
	if len(p.Revoke) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "credentials (revoke):")
		n := 0
		for _, r := range p.Revoke {
			creds := make([]string, len(r.Credentials))
			for i, c := range r.Credentials {
				creds[i] = strings.TrimSpace(c.Type + " " + c.ID)
			}
			n += len(r.Credentials)
			line := "  - " + r.Key
			if r.Name != "" {
				line += " " + r.Name
			}
			fmt.Fprintf(w, "%s: %s\n", line, strings.Join(creds, ", "))
		}
		fmt.Fprintf(w, "\n%d credentials of %d leavers to unassign.\n", n, len(p.Revoke))
	}
	return w.Flush()
}
