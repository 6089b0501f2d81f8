package output

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/itchyny/gojq"
)

// WriteJSON writes v as JSON, or what the jq program makes of it.
// The program runs with ctx: Ctrl-C ends one that computes for long.
func WriteJSON(ctx context.Context, w io.Writer, v any, jq *gojq.Code, indent bool) error {
	if jq == nil {
		var b []byte
		var err error
		if indent {
			b, err = json.MarshalIndent(v, "", "  ")
		} else {
			b, err = json.Marshal(v)
		}
		if err != nil {
			return err
		}
		b = append(b, '\n')
		_, err = w.Write(b)
		return err
	}
	g, err := Generic(v)
	if err != nil {
		return err
	}
	it := jq.RunWithContext(ctx, g)
	for {
		out, ok := it.Next()
		if !ok {
			return nil
		}
		if err, isErr := out.(error); isErr {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if h, ok := err.(*gojq.HaltError); ok && h.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq: %v", err) // exit 1, as the console's errors
		}
		if s, ok := out.(string); ok {
			fmt.Fprintln(w, s)
			continue
		}
		b, err := gojq.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n", b)
	}
}
