// Package review answers who can open which door of a UniFi Access
// console, and when: can person P open door D at time T, and by which
// policy and schedule, or why not ([Evaluator.CanOpen]); when can P open
// D over the coming days, with the holidays that change it
// ([Evaluator.Windows]); who can open D at T ([Evaluator.WhoCanOpen]).
//
// It evaluates a [State], the console's objects as the SDK's values,
// which [Load] reads through the SDK; [New] builds an [Evaluator] of it in
// a time zone. No REST operation returns the console's time zone, so the
// caller gives it: schedules' "HH:MM:SS" ranges and holidays' dates are
// read as wall-clock times in that zone. Once built, an answer costs
// about a microsecond and makes no request.
//
// # Rules
//
// The rules the vendor's reference (the developer API of UniFi Access,
// §3 users and user groups, §4 visitors, §5 access policies, schedules
// and holiday groups, §7 door groups) states:
//
//   - A user opens only while their status is ACTIVE (§3.4: ACTIVE,
//     PENDING, DEACTIVATED); the reason otherwise is "status PENDING" or
//     "status DEACTIVATED".
//   - A user holds their own policies (access_policy_ids, §3.4) and the
//     policies of their user groups (§3.21, §3.22): the user's policy list
//     (§3.20) includes "the groups' policies" unless only_user_policies is
//     set.
//   - A policy's resources are doors ("door") and door groups
//     ("door_group"); the building is the door group of type "building"
//     that the door-group list leaves out (§7.5) and the topology holds
//     (§7.1): naming it names every door.
//   - A policy opens in its schedule's week ranges. A range's end second
//     is taken as inclusive: the reference's samples end ranges at
//     "17:00:59" (§5.16), a minute's last second.
//   - A visitor opens the doors and door groups of their resources from
//     start_time (inclusive) to end_time (exclusive), within the week
//     ranges of their schedule; a visitor whose schedule has no week
//     ranges (weekly null, "a one-time visit") opens throughout the visit
//     (§4.2, §4.3). A visitor is not a user: their status is not ACTIVE or
//     DEACTIVATED, and only CANCELLED (or CANCELED) closes the doors; the
//     others follow from the times.
//
// The rules the reference leaves unsaid, and the choice made:
//
//   - Overlapping policies: the union. The door opens when any policy
//     that covers it is in force; the decision names the first such, own
//     policies first (in the user's order), then their groups' (groups in
//     the order of the user-group list, each followed by its ancestors).
//     Source: the reference lists a user's policies as their own plus
//     their groups' (§3.20) and documents no deny rule or priority, so no
//     policy can take access away. A refusal gives every distinct reason of the
//     covering policies, joined by "; ".
//   - Group parents: a member of a group also holds the policies of its
//     ancestors (up_id, up_ids). Source: the reference documents the
//     parent link (§3.11–3.14) and "members of a group and of all its
//     subgroups" (§3.19, /users/all), which makes a subgroup's members
//     members of the parent; the issue (37) asks for the parents.
//   - A holiday in a schedule: while a holiday of the schedule's holiday
//     group is in force, the schedule's holiday ranges (holiday_schedule)
//     replace its week ranges; a schedule without holiday ranges is closed
//     throughout the holiday. The refusal reason is "group: holiday"
//     ("Public Holidays 2026: Good Friday"). Source: the reference gives
//     a schedule a holiday_group_id and holiday_schedule ranges (§5.14)
//     and says no more; this is the one reading under which both fields
//     mean something, and it errs on the side of a shut door.
//   - A holiday's times: the reference writes them as
//     "2023-08-25 00:00:00Z" to "2023-08-26 00:00:00Z" for one day
//     (§5.16's sample). They are read as wall-clock times in the console's
//     zone, start inclusive, end exclusive, so that a one-day holiday is
//     that calendar day where the console stands. A repeating holiday
//     (repeat true) comes back on the same month, day and time every
//     year.
//   - A deactivated group member: status comes first. A user who is not
//     ACTIVE opens nothing, whatever their groups grant. Source: the
//     reference gives status per user only (§3.3) and no status to
//     memberships.
//   - A policy whose schedule is not on the console opens nothing (reason
//     "policy P: schedule ID not found").
//
// # The report
//
// [NewReport] (or [Build], given the log as a sequence) makes the review
// an auditor signs: a row ([Access]) for each person whose access covers a
// door (a policy of theirs or of their groups, or a visitor's resources),
// with the covering policies, the weekly window and its holiday groups,
// whether the door opens at the report's moment and by which policy, the
// credentials held (kinds and counts, never values: [CredentialsNote]
// says what the API cannot show), the last use and the flags; and a
// summary of each person, door and policy. The rows read both ways:
// [Report.Rows] by door ([ByDoor]) or by person ([ByPerson]). [WriteCSV],
// [WriteJSON] (a [Document] with its format_version, which [ReadJSON]
// reads back) and [WriteHTML] (one self-contained page, a door × person
// matrix) write it; [Diff] compares two. The time zone is in every one.
//
// The last use is read from the system log in one pass of its pages
// (topic door_openings, from At minus the look-back, 90 days by default,
// to At): a granted door unlock (event access.door.unlock, result ACCESS)
// whose actor is a user or visitor of the state and whose target is one of
// its doors. One use is kept per person and door, so memory grows with
// people × doors, never with the log.
//
// The flags, and the rule chosen where the issue leaves it open:
//
//   - stale: an ACTIVE user whose access covers the door made no use of it
//     in the look-back (on the person: of no door). Visitors are never
//     stale: their access ends by itself.
//   - inactive_with_credentials: a user whose status is neither ACTIVE nor
//     PENDING (an invited user has not started), or a visitor whose visit
//     is over or cancelled, still holds NFC cards, a PIN, a touch pass or
//     license plates. The API has no expiry for users; a visitor's end is
//     the expiry.
//   - visitor_past_end: a visitor, not cancelled, whose end time is at or
//     before the report's moment and who is still on the console.
//   - unused_policy: no ACTIVE user holds the policy (own or by a group),
//     or it names no door of the console.
//   - door_nobody_can_open: no ACTIVE user's policy and no visitor whose
//     visit is not over covers the door (whatever the time of day).
//   - not_in_directory: given a directory ([Options.Directory]: employee
//     numbers and emails), a user who is not DEACTIVATED and is matched by
//     neither.
package review
