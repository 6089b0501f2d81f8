// Package site keeps a UniFi Access console in step with a document that
// describes what it should hold: holiday groups, schedules, door groups,
// access policies, user groups, users and, optionally, webhook endpoints.
//
// The document ([Document]) names objects, never ids; a policy's or door
// group's resources carry their type ([Resource]); a user is known by
// their employee number, else by their email ([User.Key]). [Export] reads
// a console into a document, [MakePlan] compares a document with a console
// and returns the ordered changes as data (a [Plan]: the function cannot
// share the type's name), and [Plan.Apply] makes them, reporting what was
// done, skipped and failed, and why. [Document.ForSite] merges the
// per-console overrides of one console.
//
// There is no state file: every plan reads the console, and every apply
// reads it again and refuses a plan the console no longer matches
// ([ErrStale]), so a run cut short only shortens the next plan. A create
// whose answer was lost is followed by a read by key before anything else
// is decided, so an object is never created twice. Deletion is explicit
// ([PlanOptions].Prune) and limited to the kinds the document lists; built-in
// objects (the default schedule and holiday group) are never deleted.
// Without it, what the console holds of a listed kind and the document
// does not (a user who left) is kept and reported ([Plan].Unlisted,
// [Plan.Drift]); with it, a guard refuses to deactivate more users than
// [PlanOptions].MaxDeactivate and MaxDeactivateShare allow
// ([*GuardError]), and a [Scope] limits the users the document manages.
//
// The package reads no files and parses no YAML: the caller decodes the
// document (JSON or YAML, the struct tags name both) and gives [Validate]
// a [Locator] that turns a path in the document into a position, so that
// errors carry the file, line and column. Package
// [github.com/access-dev/access/site/sitefile] does that as the access
// command does: strict members, positions, bounded aliases, users_csv.
package site
