package access

import "context"

// ConformanceOp is one operation of allOps, for the conformance report in
// package access_test (which may import accesstest; this package may not).
type ConformanceOp struct {
	// Name is the SDK method ("Users.Get") and Pattern the request it
	// sends, as a Go mux pattern ("GET /api/v1/developer/users/{id}").
	Name, Pattern string
	// Call makes the request with the values allOps uses.
	Call func(ctx context.Context, c *Client) error
}

// ConformanceOps returns allOps, in its order.
func ConformanceOps() []ConformanceOp {
	out := make([]ConformanceOp, 0, len(allOps))
	for _, op := range allOps {
		out = append(out, ConformanceOp{Name: op.name, Pattern: op.pattern, Call: func(ctx context.Context, c *Client) error {
			_, _, err := op.call(ctx, c)
			return err
		}})
	}
	return out
}
