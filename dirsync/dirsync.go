package dirsync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"
)

// Errors of a read or of a source's configuration. Each error a package
// function returns matches one of them with [errors.Is]; a read cut short
// by its context matches both [ErrIncomplete] and the context's error.
var (
	// ErrConfig reports a source configuration that cannot be used (a
	// missing base DN, a password file that cannot be read, an ldap://
	// URL with neither StartTLS nor AllowPlaintext, …). It is returned
	// before any connection is made.
	ErrConfig = errors.New("dirsync: invalid source configuration")
	// ErrUnavailable reports a directory that could not be reached.
	ErrUnavailable = errors.New("dirsync: directory unavailable")
	// ErrTLS reports a TLS handshake that failed: an unknown authority, a
	// name mismatch, a certificate that does not match the pin, a server
	// that refuses StartTLS.
	ErrTLS = errors.New("dirsync: TLS failed")
	// ErrInvalidCredentials reports a bind the directory refused.
	ErrInvalidCredentials = errors.New("dirsync: directory refused the bind credentials")
	// ErrIncomplete reports a read that did not reach the end of the
	// directory's answer: the connection dropped, a size or time limit
	// cut it short, the context ended. Nothing of it is used.
	ErrIncomplete = errors.New("dirsync: directory read incomplete")
	// ErrEmpty reports a directory that answered no person: a wrong base
	// DN or filter, or permissions that hide the entries, far more often
	// than a company with no one left.
	ErrEmpty = errors.New("dirsync: directory answered no person")
	// ErrDuplicateKey reports two entries with one employee number: which
	// of them is the person cannot be told.
	ErrDuplicateKey = errors.New("dirsync: two directory entries have one key")
)

// A Source reads the people of a directory.
type Source interface {
	// Name names the source in snapshots, errors and logs.
	Name() string
	// Read reads the whole directory. On error the snapshot, if not nil,
	// has Complete false and no People nor Skipped; it keeps the counters
	// and times.
	Read(ctx context.Context) (*Snapshot, error)
}

// A Snapshot is what one read of a source found.
type Snapshot struct {
	// Source is the source's name.
	Source string `json:"source"`
	// People are the people read, sorted by Key; empty unless Complete.
	People []Person `json:"people"`
	// Complete is true when the directory's whole answer was read and
	// it names at least one person with no key twice. Only a complete
	// snapshot may be used to decide who left.
	Complete bool `json:"complete"`
	// Skipped are the entries that were read but are not people (no
	// employee number, an unreadable status), with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Started and Finished are when the read began and ended.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Pages is the number of result pages read (1 a search without
	// paging), those of group entries included.
	Pages int `json:"pages"`
	// Entries is the number of entries the people's search answered.
	Entries int `json:"entries"`
}

// Inactive returns the number of people who are not active.
func (s *Snapshot) Inactive() int {
	n := 0
	for _, p := range s.People {
		if !p.Active {
			n++
		}
	}
	return n
}

// Summary is one line for logs: the source, the people (and how many of
// them are inactive), the skipped entries, the pages, and "complete" or
// "INCOMPLETE".
func (s *Snapshot) Summary() string {
	state := "complete"
	if !s.Complete {
		state = "INCOMPLETE"
	}
	return fmt.Sprintf("%s: %d people (%d inactive), %d skipped, %d entries in %d pages, %s",
		s.Source, len(s.People), s.Inactive(), len(s.Skipped), s.Entries, s.Pages, state)
}

// A Person is one person of a directory.
type Person struct {
	// Key is the employee number, the person's identity on the console.
	Key string `json:"key"`
	// FirstName and LastName are the given name and the surname.
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// Email is the person's email address, if the directory has one.
	Email string `json:"email,omitempty"`
	// Groups are the names of the groups the person is a member of (the
	// value of the first RDN of each memberOf DN, and the groups whose
	// entries list the person), sorted.
	Groups []string `json:"groups,omitempty"`
	// Active is false for a person the directory disables.
	Active bool `json:"active"`
	// InactiveReason says why Active is false.
	InactiveReason string `json:"inactive_reason,omitempty"`
	// SourceID identifies the entry in the source: its DN for LDAP.
	SourceID string `json:"source_id"`
	// Modified is the entry's last change (LDAP modifyTimestamp), zero
	// when the directory does not say.
	Modified time.Time `json:"modified"`
}

// A Skipped entry is a directory entry that is not used, and why.
type Skipped struct {
	// SourceID identifies the entry: its DN for LDAP.
	SourceID string `json:"source_id"`
	// Key is the entry's employee number, if it has one.
	Key string `json:"key,omitempty"`
	// Reason says why the entry is not used.
	Reason string `json:"reason"`
}

const redacted = "[redacted]"

// A Secret holds a password. It never prints: String, GoString, every fmt
// verb, JSON and slog show "[redacted]". Make one with [NewSecret],
// [SecretFromFile] or [SecretFromEnv]; a secret is never taken from a
// command-line flag, where other users of the machine can read it.
type Secret struct {
	value string
}

// NewSecret returns a secret holding value (from a vault, say).
func NewSecret(value string) Secret { return Secret{value: value} }

// SecretFromFile reads a secret from a file, without one trailing newline.
// A file that cannot be read or that is empty is an [ErrConfig].
func SecretFromFile(path string) (Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, fmt.Errorf("%w: password file: %w", ErrConfig, err)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return Secret{}, fmt.Errorf("%w: password file %s is empty", ErrConfig, path)
	}
	return Secret{value: v}, nil
}

// SecretFromEnv reads a secret from an environment variable. An unset or
// empty variable is an [ErrConfig].
func SecretFromEnv(name string) (Secret, error) {
	v := os.Getenv(name)
	if v == "" {
		return Secret{}, fmt.Errorf("%w: environment variable %s is unset or empty", ErrConfig, name)
	}
	return Secret{value: v}, nil
}

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.value == "" }

// String returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString returns "[redacted]", for %#v.
func (s Secret) GoString() string { return redacted }

// Format writes "[redacted]" whatever the verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalJSON returns "[redacted]" as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText returns "[redacted]", for encoders that use text.
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue returns "[redacted]" for log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// reveal returns the secret's value, for the bind only.
func (s Secret) reveal() string { return s.value }
