package access

import (
	"mime"
	"testing"
)

var mediaTypeCorpus = []string{
	"", " ", "application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8",
	"  text/csv ; charset=utf-8", "text/csv;", "text/csv;;", "image/png", "application/problem+json",
	"application/vnd.api+json; x=1", "text/html", "TEXT/HTML; charset=iso-8859-1", "application/xhtml+xml",
	"text", "text/", "/json", "text/ csv", "text /csv", "text/csv x", "a b/json", "foo bar+json",
	"application/json; a=1; a=2", "application/json; a=1; a=1", "application/json; a*0=x; a*1=y",
	"application/json; charset", "application/json; =x", "application/octet-stream",
	"application/json\x00", "application/jsön", "text/plain; charset=\"utf-8\"", "multipart/form-data; boundary=x;",
}

// TestMediaTypeLikeMime: mediaType gives the media type mime.ParseMediaType
// gives, for well-formed and malformed headers alike.
func TestMediaTypeLikeMime(t *testing.T) {
	t.Parallel()
	for _, ct := range mediaTypeCorpus {
		want, _, _ := mime.ParseMediaType(ct)
		if got := mediaType(ct); got != want {
			t.Errorf("mediaType(%q) = %q, mime says %q", ct, got, want)
		}
	}
}

func FuzzMediaType(f *testing.F) {
	for _, ct := range mediaTypeCorpus {
		f.Add(ct)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		want, _, _ := mime.ParseMediaType(ct)
		if got := mediaType(ct); got != want {
			t.Fatalf("mediaType(%q) = %q, mime says %q", ct, got, want)
		}
	})
}

// TestMediaTypeAllocations: the usual Content-Type costs no allocation
// (mime.ParseMediaType made four, twice per download).
func TestMediaTypeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "text/csv; charset=utf-8", "image/png"} {
		if n := leastAllocs(100, func() { _ = isFile(ct) }); n != 0 {
			t.Errorf("isFile(%q): %v allocations", ct, n)
		}
	}
}
