package access

import (
	"encoding/json"
	"strings"
	"testing"
)

var validJSONCorpus = []string{
	``, ` `, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e5`, `1E+5`, `1e`, `1.e5`, `-1.5e-3`, `.5`, `+1`, `1 2`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `"`, `""`, `"a"`, `"\u00e9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, `"\/\b\f\n\r\t\"\\"`,
	"\"\x01\"", "\"\x7f\xff\xfe\"", `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2]`, `{}`, `{ }`, `{"a"}`, `{"a":}`, `{"a":1,}`,
	`{"a":1 "b":2}`, `{"a":1,"b":[{"c":null}]}`, `{1:2}`, `{"a":1]`, `[1}`, `[[[]]]`, `{"a":{"b":{}}}`, "\t{\n\"a\"\r: [ 1 , 2 ] }\n",
	`{"a":1}x`, `{"a":1}}`, `]`, `}`, `,`, `:`, `"a":1`,
	strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70),
	strings.Repeat("[", 65) + strings.Repeat("]", 64),
}

// TestValidJSONLikeEncodingJSON: validJSON answers as json.Valid does.
func TestValidJSONLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range append(validJSONCorpus, notificationStrings(t)...) {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.80q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func notificationStrings(t testing.TB) []string {
	var out []string
	for _, b := range envelopeCorpus(t) {
		out = append(out, string(b))
		for _, cut := range []int{1, len(b) / 2, len(b) - 1} {
			if cut > 0 && cut < len(b) {
				out = append(out, string(b[:cut]))
			}
		}
	}
	return out
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range append(validJSONCorpus, notificationStrings(f)...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}
