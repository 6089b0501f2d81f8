package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// personal are the members whose values are a person's: names, emails,
// phone numbers, employee numbers.
var personal = map[string]bool{
	"first_name": true, "last_name": true, "full_name": true, "display_name": true, "user_name": true, "username": true,
	"actor_name": true, "inviter_name": true, "given_name": true, "family_name": true, "middle_name": true,
	"nickname": true, "alias": true, "email": true, "emails": true, "user_email": true, "phone": true,
	"mobile_phone": true, "phone_number": true, "employee_number": true,
}

// people are the members that hold a person as an object: a "name" of
// theirs is the person's name (an actor's, a card holder's).
var people = map[string]bool{
	"actor": true, "user": true, "users": true, "guard": true, "guards": true, "inviter": true, "visitor": true,
	"visitors": true, "holder": true, "owner": true, "member": true, "members": true,
}

// Person reports whether the string member holds, in an object held by
// parent ("" at the top), is a person's value ([Pseudonyms.Person]): a
// name, email, phone or employee number, or the name of an actor, user,
// guard, holder… Kept members are not.
func Person(parent, member string) bool {
	member = strings.ToLower(member)
	if personal[member] {
		return true
	}
	return member == "name" && people[strings.ToLower(parent)]
}

// ReplaceIn is the pseudonym of the string s held by member in an object
// held by parent: [Pseudonyms.Person] of a person's value ([Person]),
// otherwise [Pseudonyms.Replace].
func (p *Pseudonyms) ReplaceIn(parent, member, s string) string {
	if Person(parent, member) {
		return p.Person(s)
	}
	return p.Replace(member, s)
}

// Person is the pseudonym of a person's value, drawn from the value alone,
// whatever member holds it: the same person's name in a seed recorded by
// access fake record and in an answer, a frame or a webhook delivery of a
// capture under the same key gets the same pseudonym. An email address is
// replaced as by [Pseudonyms.Replace]; a value without letters (a phone
// number) keeps its punctuation, its digits replaced; otherwise each
// space-separated word is replaced on its own, so that a full name is the
// pseudonyms of its first and last names: a word of letters by a
// generated, readable one in the same case ("Ada" -> "Kovira"), another
// (an employee number) by letters for letters and digits for digits.
func (p *Pseudonyms) Person(s string) string {
	switch {
	case s == "":
		return ""
	case strings.Count(s, "@") == 1 && !strings.ContainsAny(s, " \t\n"):
		return p.Replace("email", s)
	case !strings.ContainsFunc(s, unicode.IsLetter):
		return p.shape(s)
	}
	var b strings.Builder
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case w == "":
		case strings.Count(w, "@") == 1:
			b.WriteString(p.Replace("email", w))
		case strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !strings.ContainsRune("'’-.", r) }):
			b.WriteString(p.shape(w))
		default:
			b.WriteString(p.word(w))
		}
	}
	return b.String()
}

const (
	consonants = "bdfgklmnprstvz"
	vowels     = "aeiou"
)

// word is a generated, pronounceable word for the word w: two or three
// syllables drawn from its keyed digest, capitalised as w is.
func (p *Pseudonyms) word(w string) string {
	d := p.Sum("person", w)
	n := 2 + int(d[0]%2)
	out := make([]byte, 0, 2*n)
	for i := 0; i < n; i++ {
		out = append(out, consonants[int(d[1+2*i])%len(consonants)], vowels[int(d[2+2*i])%len(vowels)])
	}
	first, _ := utf8.DecodeRuneInString(w)
	switch {
	case strings.ToUpper(w) == w && utf8.RuneCountInString(w) > 1:
		return strings.ToUpper(string(out))
	case unicode.IsUpper(first):
		out[0] -= 'a' - 'A'
	}
	return string(out)
}

// shape replaces s's digits by digits and its letters by letters (in
// their case), drawn from the keyed digest of s, and keeps the rest.
func (p *Pseudonyms) shape(s string) string {
	d := p.Sum("person", s)
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i == len(d) { // a long value: draw more
			d, i = p.Sum("person", string(d)), 0
		}
		c := d[i]
		switch {
		case r >= '0' && r <= '9':
			b.WriteByte('0' + c%10)
		case unicode.IsUpper(r):
			b.WriteByte('A' + c%26)
		case unicode.IsLetter(r):
			b.WriteByte('a' + c%26)
		default:
			b.WriteRune(r)
			continue
		}
		i++
	}
	return b.String()
}
