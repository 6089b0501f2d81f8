package redact

import (
	"regexp"
	"strings"
	"testing"
)

// A person's value has one pseudonym whatever member holds it, a full
// name is the pseudonyms of its words, the form is kept (readable names,
// digits for digits), another key gives others, and nothing of the value
// is left.
func TestPersonOneMappingFromTheValue(t *testing.T) {
	p, q := NewPseudonyms([]byte("k1")), NewPseudonyms([]byte("k2"))
	first, last := p.ReplaceIn("", "first_name", "Ada"), p.ReplaceIn("", "last_name", "Lovelace")
	if !regexp.MustCompile(`^[A-Z][a-z]{3,5}$`).MatchString(first) || !regexp.MustCompile(`^[A-Z][a-z]{3,5}$`).MatchString(last) {
		t.Errorf("Ada Lovelace -> %q %q", first, last)
	}
	for _, c := range []struct{ parent, member string }{{"", "full_name"}, {"", "display_name"}, {"", "user_name"},
		{"actor", "name"}, {"user", "Name"}, {"guard", "name"}, {"x", "inviter_name"}} {
		if got := p.ReplaceIn(c.parent, c.member, "Ada Lovelace"); got != first+" "+last {
			t.Errorf("%s.%s: %q, want %q", c.parent, c.member, got, first+" "+last)
		}
	}
	if got := p.ReplaceIn("location", "name", "Ada Lovelace"); !strings.HasPrefix(got, "name ") {
		t.Errorf("a door's name: %q", got)
	}
	if p.ReplaceIn("", "email", "ada@example.com") != p.ReplaceIn("", "user_email", "ada@example.com") ||
		p.ReplaceIn("", "email", "ada@example.com") != p.Replace("x", "ada@example.com") {
		t.Error("an email by the member")
	}
	for _, c := range []struct{ in, form string }{
		{"+1 650 555 0100", `^\+[0-9] [0-9]{3} [0-9]{3} [0-9]{4}$`},
		{"E01000", `^[A-Z][0-9]{5}$`},
		{"P-7", `^[A-Z]-[0-9]$`},
		{"ADA", `^[A-Z]{4,6}$`},
		{"Zoë O'Brien-Smith", `^[A-Z][a-z]{3,5} [A-Z][a-z]{3,5}$`},
	} {
		got := p.Person(c.in)
		if !regexp.MustCompile(c.form).MatchString(got) || got == c.in {
			t.Errorf("%q -> %q, not of the form %s", c.in, got, c.form)
		}
		if p.Person(c.in) != got || q.Person(c.in) == got {
			t.Errorf("%q: the same key gave another, or another key the same", c.in)
		}
	}
	if strings.Contains(p.Person("Lovelace"), "Love") || p.Person("") != "" {
		t.Error("the value left in its pseudonym, or the empty string replaced")
	}
	// A long value without letters.
	long := strings.Repeat("0123456789", 10)
	if got := p.Person(long); len(got) != len(long) || got == long || strings.Trim(got, "0123456789") != "" {
		t.Errorf("%q", got)
	}
	// Through the walk: an actor's name and a user's full name alike.
	out, err := p.JSON([]byte(`{"actor":{"id":"u1","name":"Ada Lovelace"},"users":[{"full_name":"Ada Lovelace","name":"Ada Lovelace"}],"door":{"name":"Ada Lovelace"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"`+first+" "+last+`"`); n != 3 || !strings.Contains(string(out), `"name":"name `) {
		t.Errorf("%d person names in %s", n, out)
	}
}
