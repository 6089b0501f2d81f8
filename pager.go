package access

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// DefaultPageSize is the page size the All iterators ask for when the
// options set none.
const DefaultPageSize = 25

// ErrPageRepeated is yielded by the All iterators when the controller
// returns the same page twice, as a server that ignores page_num would;
// iterating on would never end.
var ErrPageRepeated = errors.New("access: the server returned the same page twice (page_num ignored?)")

// page is what one request of a paged list returned: the records and the
// total the controller reported (0 when it sent none).
type page[T any] struct {
	items []T
	total int
}

// paginate is the one pager behind every All iterator. fetch gets one page
// by number and size; key identifies a record, to notice a repeated page.
// A page's total is the number of records the console reports, 0 when it
// sends none or the caller does not trust it.
//
// It yields the records from the (start-1)·size-th on (start 1 when 0,
// size [DefaultPageSize] when 0), in order. A console may cap page_size:
// it then serves fewer records than asked for, and its page n starts at
// record (n-1)·cap, not (n-1)·size. So a short page ends the iteration only
// at a size the console is known to serve whole (a page of that size came
// back full, or the console served that many). A page that holds another
// number of records than asked for, at a size not yet known, teaches the
// pager the console's size: at the first record it is yielded and the
// pager goes on at the served size; in a resumed iteration (start > 1),
// which cannot tell a capped page from the last one, the page is dropped
// and the records are fetched again at the served size, from the page
// that holds the wanted record, skipping the records before it.
//
// It stops after an empty page, after a short page at a known size, once
// a trusted total says every record has been seen, when the loop body
// breaks, or after the first error, which it yields with a zero T. A
// console that returns the same page twice ends it with [ErrPageRepeated];
// one that serves more records than asked for at a size it served whole
// before ends it with an [ErrInvalidResponse].
func paginate[T any](ctx context.Context, start, size int, key func(*T) string, fetch func(ctx context.Context, num, size int) (page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		if size < 1 {
			size = DefaultPageSize
		}
		next := (max(start, 1) - 1) * size // the index of the next record wanted
		known := false                     // the console serves pages of size whole
		var prevFirst string
		for {
			p, err := fetch(ctx, next/size+1, size)
			if err != nil {
				yield(zero, err)
				return
			}
			skip := next % size // records on the page before the wanted one
			n := len(p.items)
			if n <= skip {
				return
			}
			if n != size {
				switch {
				case !known:
					size, known = n, true
					if next > 0 {
						continue // the page may start elsewhere: fetch it again
					}
				case n > size:
					yield(zero, fmt.Errorf("%w: %d records on a page of %d", ErrInvalidResponse, n, size))
					return
				}
			}
			known = true
			first := key(&p.items[0])
			if first != "" && first == prevFirst {
				yield(zero, ErrPageRepeated)
				return
			}
			prevFirst = first
			for _, v := range p.items[skip:] {
				if !yield(v, nil) {
					return
				}
			}
			next += n - skip
			if n < size || (p.total > 0 && next >= p.total) {
				return
			}
		}
	}
}

// checkPaging validates the page number and size of a list's options; zero
// means the controller's default.
func checkPaging(op string, num, size int) error {
	switch {
	case num < 0:
		return invalidArg(op, "PageNum", "must not be negative")
	case size < 0:
		return invalidArg(op, "PageSize", "must not be negative")
	}
	return nil
}
