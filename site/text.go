package site

import (
	"bufio"
	"fmt"
	"io"
)

// opSign is the sign of a change in a plan's text.
var opSign = map[Op]string{OpCreate: "+", OpUpdate: "~", OpDeactivate: "-", OpDelete: "-"}

// WriteText writes the plan as text, as access plan prints it: one section
// per step in apply order, each change with its members old -> new, then
// the objects the document does not hold (the leavers) with what a prune
// would do to them, then the summary. No ids, no times, no colours: the
// same plan prints the same bytes. It returns the first write error.
func (p *Plan) WriteText(out io.Writer) error {
	w := bufio.NewWriter(out)
	if !p.Drift() {
		fmt.Fprintln(w, "No changes: the console matches the document.")
		if n := p.Summary.OutOfScope; n > 0 {
			fmt.Fprintf(w, "%d users outside the scope left alone.\n", n)
		}
		return w.Flush()
	}
	section := ""
	for _, ch := range p.Changes {
		s := string(ch.Kind)
		if ch.Op == OpDelete || ch.Op == OpDeactivate {
			s += " (prune)"
		}
		if s != section {
			if section != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, s+":")
			section = s
		}
		line := "  " + opSign[ch.Op] + " " + ch.Key
		if ch.Name != "" {
			line += " " + ch.Name
		}
		if ch.Op == OpDelete || ch.Op == OpDeactivate {
			line += " (" + string(ch.Op) + ")"
		}
		fmt.Fprintln(w, line)
		for _, fc := range ch.Fields {
			if ch.Op == OpCreate {
				fmt.Fprintf(w, "      %s: %q\n", fc.Field, fc.New)
				continue
			}
			fmt.Fprintf(w, "      %s: %q -> %q\n", fc.Field, fc.Old, fc.New)
		}
	}
	p.writeUnlisted(w, section != "")
	fmt.Fprintln(w)
	fmt.Fprintln(w, p.Summary.String()+".")
	return w.Flush()
}

// writeUnlisted writes the objects the document does not hold and the
// plan keeps (the leavers), a section per kind, each with what a prune
// would do to it.
func (p *Plan) writeUnlisted(w io.Writer, after bool) {
	kind := Kind("")
	for _, u := range p.Unlisted {
		if u.Kind != kind {
			if after || kind != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s not in the document (kept without --prune):\n", u.Kind)
			kind = u.Kind
		}
		line := "  ! " + u.Key
		if u.Name != "" {
			line += " " + u.Name
		}
		fmt.Fprintf(w, "%s (--prune would %s)\n", line, u.Prune)
	}
}
