package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/access-dev/access/capture"
)

// toolFrames is how many notification frames the capture of
// BenchmarkToolProcesses' monitor holds.
const toolFrames = 50_000

// publishedFrames are the frames of testdata/notifications that users
// published from live consoles (see its README.md): the real frames of
// monitor/watch's BenchmarkEvents.
var publishedFrames = []string{
	"device_update_hub_mini.json",
	"location_update_v2_guard.json",
	"location_update_v2_intercom.json",
	"device_update_eah8.json",
	"logs_add_hub_mini.json",
	"logs_add_log_category.json",
}

// writeFramesCapture writes to path a capture (package capture's
// format, as access fake --replay reads it) of n frames, the published
// frames in turn, compacted as consoles send them, 1 ms apart, and
// returns path. The frames are written as they are, not redacted: a
// capture.Writer would pseudonymise their names.
func writeFramesCapture(b *testing.B, path string, n int) string {
	var frames [][]byte
	for _, name := range publishedFrames {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "notifications", name))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		frames = append(frames, buf.Bytes())
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // the frames as they are
	started := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	if err := enc.Encode(capture.Record{Kind: capture.KindHeader, FormatVersion: capture.FormatVersion, Started: &started,
		Tool: "BenchmarkToolProcesses"}); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		rec := capture.Record{Kind: capture.KindFrame, Offset: time.Duration(i+1) * time.Millisecond, Frame: frames[i%len(frames)]}
		if err := enc.Encode(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
