package access

import (
	"context"
	"errors"
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
//
// It starts at page start (or 1) with size records a page (or
// [DefaultPageSize]) and stops after an empty page, once total records have
// been seen, after a short page when no total says more are left, when the
// loop body breaks, or after the first error, which it yields with a zero
// T. A console that serves fewer records than asked for (it caps
// page_size) while its total says more are left is asked again for the
// next page at the size it served, so that its page boundaries and the
// pager's agree and no record is skipped.
func paginate[T any](ctx context.Context, start, size int, key func(*T) string, fetch func(ctx context.Context, num, size int) (page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		num := max(start, 1)
		if size < 1 {
			size = DefaultPageSize
		}
		seen := (num - 1) * size
		var prevFirst string
		for {
			p, err := fetch(ctx, num, size)
			if err != nil {
				yield(zero, err)
				return
			}
			if len(p.items) == 0 {
				return
			}
			first := key(&p.items[0])
			if first != "" && first == prevFirst {
				yield(zero, ErrPageRepeated)
				return
			}
			prevFirst = first
			for _, v := range p.items {
				if !yield(v, nil) {
					return
				}
			}
			seen += len(p.items)
			if p.total > 0 && seen >= p.total {
				return
			}
			if len(p.items) < size {
				if p.total <= seen {
					return
				}
				// Capped: the pages served so far are len(p.items) long.
				size = len(p.items)
				num = seen / size
			}
			num++
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
