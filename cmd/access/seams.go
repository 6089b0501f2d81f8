package main

import "context"

// seams are what tests watch or replace inside one command while it runs:
// a run's context carries them (withSeams), as a context carries a
// net/http/httptrace.ClientTrace, so that neither the shared app nor any
// command's flags hold them. The command line never sets them.
type seams struct {
	// exportWrote sees the bytes system-logs export has written.
	exportWrote func(int64)
	// enrollStarted sees nfc-cards enroll's session open.
	enrollStarted func(sessionID string)
}

type seamsKey struct{}

// withSeams returns ctx carrying s.
func withSeams(ctx context.Context, s *seams) context.Context {
	return context.WithValue(ctx, seamsKey{}, s)
}

// seamsOf returns the seams ctx carries; none set when it carries none.
func seamsOf(ctx context.Context) *seams {
	if s, ok := ctx.Value(seamsKey{}).(*seams); ok && s != nil {
		return s
	}
	return &seams{}
}
