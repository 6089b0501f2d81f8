// Package scim receives SCIM 2.0 pushes (RFC 7643, RFC 7644) from an
// identity provider — Okta, Microsoft Entra — so that the people it
// provisions, their group memberships and their deactivations reach a
// UniFi Access console as a directory's would.
//
// A [Store] holds what was pushed in a file: every change is appended to
// the file's journal and fsynced before it is acknowledged, and [Open] of
// the same file restores every acknowledged change, so that a process
// killed between the answer and the console write loses nothing. The
// store is a [dirsync.Source]: its Read answers the pushed users as
// [dirsync.Person]s (a deactivated user with Active false), so that a
// push is turned into console changes by the same code as an LDAP pull;
// [Store.Changed] tells a sync loop to read it at once.
//
// A [Handler] serves /scim/v2 on a store: Users, Groups,
// ServiceProviderConfig, ResourceTypes and Schemas; filters (at least eq
// on userName, externalId and displayName); PATCH in the forms Okta and
// Entra send (lower-case or capitalised ops, string booleans, paths with
// value filters such as emails[type eq "work"].value, a value object
// without path); PUT; pagination with startIndex and count; errors as
// RFC 7644 §3.12 gives them. It requires a bearer token, compared in
// constant time and never logged, and bounds the request body. Filters
// and paths are parsed by github.com/scim2/filter-parser/v2.
package scim
