// Package dirsync reads the people of a directory — LDAP, Active
// Directory — so that a UniFi Access console can be kept equal to it.
//
// A [Source] answers one [Snapshot] per [Source.Read]: every person it
// holds ([Person], known by their employee number), whether each is active,
// and the entries it could not use ([Skipped]) with the reason. A snapshot
// is the whole directory or nothing: a source that cannot be reached,
// refuses the credentials, is cut short, answers nobody or answers two
// people with one key returns an error ([ErrUnavailable],
// [ErrInvalidCredentials], [ErrTLS], [ErrIncomplete], [ErrEmpty],
// [ErrDuplicateKey]) and a snapshot, if any, whose Complete is false and
// which holds no people, so that a failed read is never taken for
// "everyone left".
//
// [NewLDAPSource] reads an LDAP directory or Active Directory with
// github.com/go-ldap/ldap/v3: ldaps:// or StartTLS with a CA file or a
// pinned certificate, a bind password from a file or the environment (a
// [Secret], which never prints), a base DN, a filter, an attribute
// mapping, groups from memberOf or from group entries, and paged results (RFC 2696), without which Active Directory
// stops at 1,000 entries. Active Directory's disabled bit
// (userAccountControl & 2) and, for other directories, a mapped attribute
// with the values that mean "gone" make a person inactive.
//
// The package changes nothing: turning a snapshot into console changes is
// package site's plan and apply.
package dirsync
