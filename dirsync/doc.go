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
// [NewCSVSource] reads an HR file with package site's CSV reader (its
// delimiter and column mapping) and, while [CSVSource.Watch] polls it, is
// a [Notifier] that signals once the file changed and held still; a
// file missing, empty, being written or refused is an error, never
// "everyone left".
//
// [MakePlan] and [Reconcile] turn a complete snapshot into console
// changes with package site's plan and apply, its guard and its scope:
// each active person is a user of a site document (key, names, email,
// status ACTIVE, user groups through [ReconcileOptions].Groups), and a
// person the directory disables or no longer lists is a leaver, whom
// site deactivates — revocation by default, with no prune option to give
// — and whose credentials (NFC cards, PIN, touch passes, licence plates)
// are then unassigned unless KeepCredentials is set. A person re-enabled
// gets their status back, never their credentials. Console users are
// deleted only with DeleteUsers. Users outside the scope are never
// touched, only counted; a plan that would deactivate more users than
// site's guard allows is refused with a [*site.GuardError] — and the
// users deactivated already (by hand, before the sync) whose credentials
// it would unassign count against the same guard ([*CredentialGuardError]),
// so that a first run against a console that kept its old leavers' cards
// stops for an operator instead of unassigning them all; a nil,
// incomplete or empty snapshot is refused with a [*SnapshotError] before
// any request, so that a failed read is never taken for "everyone left".
//
// Every change is written, as the console acknowledges it, to an
// [EvidenceLog]: one JSON [Record] per line, appended and synced to the
// disk, saying who, what, the source's time of the change, the console's
// acknowledgement, the credentials revoked (or to re-issue) and the
// latency. [ReadEvidence] reads a log and [Summarize] counts its leavers
// and their latencies (p50, p95, p99, the slowest by name) and lists the
// leavers flagged for opening a door after their revocation;
// [WriteReport] writes the summary as text, CSV, JSON or an HTML page.
// A deactivation the console took but whose answer was lost (the process
// killed in between) is recorded by the next run that finds the leaver
// DEACTIVATED: once, for a person the source lists as a leaver whose
// deactivation the log does not record and whose change the source does
// not date before the log began, marked FoundDone, acknowledged when
// found ([Plan.Unrecorded]).
// [CheckReentries] reads the console's door openings and
// [EvidenceLog.FlagReentries] flags, in the log, each leaver a door opened
// for after the console acknowledged their deactivation (a reader's
// offline cache honouring a revoked card).
//
// A [Runner] keeps a console equal to its sources for as long as it runs:
// every source at an interval ([DefaultInterval], 30 s), a source that is a
// [Notifier] (a SCIM store) at once when it signals a change, one
// reconcile at a time. A failed read never reaches the console; a guard
// trip holds the source ([ErrHeld]) until [Runner.SetOptions] changes its
// options; [Runner.Status] gives each source's last success, people,
// pending leavers and guard trips, for metrics (package
// dirsync/syncmetrics).
package dirsync
