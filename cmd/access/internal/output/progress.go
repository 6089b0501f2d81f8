package output

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress draws a progress line on stderr, only when stderr is a
// terminal, redrawn in place at most ten times a second. With a known
// total (an import: the CSV's rows) it is a bar, "[=====>    ] 3/8 rows",
// cleared at the end; without one (a list, an export) a counter of rows
// and bytes, "76 rows, 12.3 KiB", left as the last line.
type Progress struct {
	W      io.Writer // stderr
	What   string    // the singular noun: "row", "record"
	Note   string    // said after the count ("paced at 10 requests/s (--rate)")
	Total  int64     // the rows expected; 0: unknown
	Rows   int64     // the rows done
	Bytes  int64     // the bytes written
	Active bool      // drawn (stderr is a terminal)
	last   time.Time
	drawn  bool // the line is on the screen
}

// progressWidth is the number of cells of the bar.
const progressWidth = 30

// Add counts rows more done and sets the bytes written so far, redrawing
// the line at most ten times a second.
func (p *Progress) Add(rows int64, bytes int64) {
	p.Rows += rows
	p.Bytes = bytes
	if !p.Active {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.Draw()
	}
}

// Line is the text of the progress line, with its note.
func (p *Progress) Line() string {
	if p.Note != "" {
		return p.count() + ", " + p.Note
	}
	return p.count()
}

// count is the progress line's bar or counter.
func (p *Progress) count() string {
	if p.Total > 0 {
		done := min(p.Rows, p.Total)
		n := int(done * progressWidth / p.Total)
		bar := strings.Repeat("=", n)
		if n < progressWidth {
			if n > 0 {
				bar = bar[:n-1] + ">"
			}
			bar += strings.Repeat(" ", progressWidth-n)
		}
		return fmt.Sprintf("[%s] %d/%s", bar, done, Count(p.Total, p.What))
	}
	if p.Bytes > 0 {
		return Count(p.Rows, p.What) + ", " + HumanBytes(p.Bytes)
	}
	return Count(p.Rows, p.What)
}

// Draw writes the line over the one on the screen ("\r", then erase to
// the end of the line).
func (p *Progress) Draw() {
	fmt.Fprint(p.W, "\r\x1b[K"+p.Line())
	p.drawn = true
}

// Clear erases the line, so that other output can take its place.
func (p *Progress) Clear() {
	if p.drawn {
		fmt.Fprint(p.W, "\r\x1b[K")
		p.drawn = false
	}
}

// Above prints a line on w above the progress line: the progress line is
// erased, the line written and the progress line drawn again below it.
func (p *Progress) Above(w io.Writer, line string) {
	if !p.Active {
		fmt.Fprintln(w, line)
		return
	}
	p.Clear()
	fmt.Fprintln(w, line)
	p.last = time.Now()
	p.Draw()
}

// Done ends the progress line: a bar is erased; a counter is drawn a last
// time and kept.
func (p *Progress) Done() {
	if !p.Active || !p.drawn {
		return
	}
	if p.Total > 0 {
		p.Clear()
		return
	}
	p.Draw()
	fmt.Fprintln(p.W)
}

// Drawn reports whether the line is on the screen.
func (p *Progress) Drawn() bool { return p.drawn }
