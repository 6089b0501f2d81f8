// Package accesstest is an in-memory fake of an access controller's
// developer API, for testing code that uses package access without a
// console, in the spirit of pstest for Pub/Sub.
//
// A [Server] listens on an HTTPS loopback address with a self-signed
// certificate and implements the whole developer API: webhooks, doors,
// door groups, devices (list, access-method settings, doorbell), the
// people and policy operations (users, user groups, access policies,
// schedules, holiday groups, UniFi Identity), visitors and credentials
// (NFC cards with enrollment, PIN codes, touch passes, QR codes), the
// system logs (fetch, CSV export, resources, static files), the API
// server's certificate and the notifications WebSocket, with the
// controller's envelope, error codes, bearer authentication and paging:
//
//	srv := accesstest.New(t, accesstest.WithDemoData())
//	client := srv.Client() // trusts the certificate, carries the token
//	visitors, resp, err := client.Visitors.List(ctx, nil)
//
// Seed records with [Server.AddUser], [Server.AddVisitor],
// [Server.AddSchedule], [Server.AddHolidayGroup], [Server.AddDevice],
// [Server.AddTouchPass], [Server.AddAccessPolicy] and [Server.AddWebhook],
// or load the demo site with [WithDemoData]. Inspect what the code under
// test sent with [Server.Requests] and the resulting state with
// [Server.Users], [Server.Device], [Server.Webhooks] and
// [Server.TouchPasses]. Make operations fail with [Server.Inject] (a
// status, an error code on HTTP 200, Retry-After, a delay, a dropped
// connection, a raw body such as a proxy's HTML page), and deliver signed
// webhook events to registered endpoints with [Server.Emit].
//
// A server keeps every request, delivery and system-log entry unless
// [WithRetention] bounds them (`access fake` keeps [DefaultRetention]).
// Every store is indexed by id and the system log by time, topic and
// actor, so that lookups cost the same however large the site, and a page
// of the system log O(page + log N).
//
// # People and policies
//
// Users, user groups ([Server.AddUserGroup]), access policies, schedules,
// holiday groups and Identity resources ([Server.AddIdentityResource])
// reference each other, and the fake keeps them consistent: ids in
// requests must exist (users, groups, policies, schedules, holiday groups,
// holidays, doors, door groups, Identity resources), names are unique
// where the vendor has a code for it, and a record still in use cannot be
// deleted. Inspect the state with [Server.Users], [Server.UserGroups],
// [Server.GroupMembers], [Server.AccessPolicies], [Server.Schedules],
// [Server.HolidayGroup], [Server.Avatar] and [Server.Invited]. Seeding
// (Add...) does not check references, so tests can build dangling ones.
//
// # Notifications WebSocket
//
// The server serves the notifications WebSocket (permission view:device):
// each connection gets the access.base.info handshake, then "Hello"
// keepalives every [DefaultKeepalive] ([WithKeepalive] changes it) and
// whatever [Server.Notify] or [Server.NotifyRaw] sends to every connected
// client. [Server.WaitNotificationClients] and
// [Server.WaitNotificationConnections] let a test wait for a subscriber
// (or its reconnection) without sleeping; [Server.DropNotificationClients]
// and [Server.SilenceNotificationClients] make live sockets fail, and
// [Server.Inject] with [OpNotificationsSubscribe] refuses the upgrade.
//
// # Doors and the fake's time
//
// Build a site with [Server.AddFloor], [Server.AddDoor],
// [Server.AddDoorGroup] and [Server.AddDeviceInfo] (or the demo site's
// building) and inspect it with [Server.Door], [Server.Doors],
// [Server.LockRule], [Server.Emergency], [Server.DoorGroup],
// [Server.DeviceList] and [Server.Ringing]. Doors behave: an unlock opens
// the lock relay for [DoorUnlockDuration], lock rules set the relay and an
// end time, an emergency mode overrides both, a doorbell rings until it
// is cancelled or [DoorbellRingTimeout] passes. Those times run on the
// fake's clock: [Server.Advance] moves it forward and runs, in order, the
// relocks, expiries and timeouts that fall due, so tests never sleep.
// [WithClock] and [Server.SetNow] set the base clock (SetNow also resets
// what Advance added). A fake served to other processes on the real clock
// takes [WithLiveTimers]: a goroutine then runs each timer when it falls
// due, with no request needed.
//
// A card held to a reader ([Server.PresentCard]) is decided at the fake's
// time as a console decides it: the holder's status, their own and their
// user groups' access policies, the policies' schedules (read in the
// clock's time zone) with their holidays, a visitor's visit and schedule;
// a refusal says why ("outside Office hours"). [Server.Decide] gives the
// decision at any moment without acting on it. A test that expects a
// grant freezes the clock ([WithClock]) or gives the holder a policy on an
// always-open schedule; the demo cards ([DemoCardNumbers]) open at any
// hour.
//
// Every state change produces, in one place, the three things a console
// produces:
//
//   - Signed webhook deliveries: unlocks give access.door.unlock (actor
//     type "open_api", the request's extra in object.extra), lock rules
//     access.temporary_unlock.start and .end, emergency changes
//     access.device.emergency_status, doorbells access.doorbell.incoming
//     and .completed. They go to the subscribed endpoints.
//   - WebSocket notifications, as consoles send them: an API unlock
//     access.data.device.remote_unlock (data: the door), a ring
//     access.remote_view, its end access.remote_view.change (reason_code,
//     remote_call_request_id = the ring's request_id), an emergency change
//     access.data.setting.update ({evacuation, lockdown}), a temporary
//     unlock's start and end access.data.v2.location.update (the door's
//     state: lock, remain_unlock or remain_lock), and after each of them
//     the access.logs.add of its system-log entry.
//   - A system-log entry ([Server.SystemLogs]): the event type, the
//     actor, the targets (the device, the door; an API unlock adds an
//     "unlock_source" target whose id embeds {actor_id, actor_name,
//     extra}) and a topic: unlocks (and unlock schedules) door_openings,
//     emergency changes critical, temporary unlocks admin_activity (an
//     admin's rule, though its end is the system's), doorbells (and door
//     position) device_events, visitor changes visitor. Changes an API
//     call made carry the actor {type "open_api", display_name
//     [APIActorName]} unless the request named one (a doorbell or a visit
//     cancelled through the API included); those of the fake's timers (a
//     rule's end, an unanswered ring, a visit starting or ending) carry
//     {type "system"}.
//
// Notifications are handed to each subscriber's own queue as the change
// happens and sent in order by its socket; a subscriber that does not
// read is dropped once its queue is full, without holding up the others.
// Webhook deliveries are made in the background, outside the server's
// lock, in order for each endpoint, each endpoint on its own (one that
// hangs holds up nobody else); [Server.WaitDeliveries] waits for them and
// [Server.Deliveries] lists them. A delivery is made
// once; [WithWebhookRetries] retries failed ones (the vendor documents no
// retry policy), each attempt listed with its number.
//
// # System logs, static files and the API server
//
// The log pages as the console does: a POST with page_num and page_size
// in the query and the filter (topic, since, until, actor_id) in the body,
// newest entry first, page and total inside data. Seed entries with
// [Server.AddSystemLog], media with [Server.AddSystemLogResource] and
// files under /system/static with [Server.AddStaticFile]. The export is a
// real CSV (a header line, then one row per entry, times in the request's
// time zone); like the console, the fake refuses a range over one month,
// a missing or unknown time zone, or a missing since or until with
// CODE_PARAMS_INVALID. A certificate upload (multipart parts key and
// cert) is checked with tls.X509KeyPair ("parameter error" when they do
// not match) and kept for [Server.APICertificate]; the fake keeps serving
// its own certificate, as a console does until Access restarts.
//
// # Visitors and credentials
//
// Visitors created through the API change status on the fake's clock:
// UPCOMING until their start time, VISITING until their end time, then
// VISITED, each change delivered as access.visitor.status.changed (object
// {visitor_id, first_name, last_name, status, previous_status}, a payload
// the vendor does not document). A delete without is_force cancels
// (CANCELLED, the timers stop); with it the record goes, and its cards and
// PIN are free again. [Server.Visitor] reads one back.
//
// NFC enrollment sessions open on readers of the devices list with the
// nfc capability ([DemoDeviceID] on the demo site); [Server.TapCard]
// completes one with a card number (the token is derived from it, so a
// number always gives the same token), [Server.FailTap] makes the next
// poll answer CODE_CREDS_NFC_CARD_IS_PROVISION, _PROVISION_FAILED or
// _INVALID, and a session ends after [EnrollmentSessionTimeout] of the
// fake's time. [Server.EnrollmentSessions] lists the open ones. The card
// list holds enrolled, imported and seeded cards ([Server.NFCCards]).
//
// An NFC token and a PIN belong to at most one user or visitor, read from
// their records ([Server.NFCHolder], [Server.PINHolder]): assigning a held
// card answers CODE_CREDS_NFC_HAS_BIND_USER unless force_add moves it, a
// held card cannot be deleted (CODE_CREDS_NFC_CARD_CANNOT_BE_DELETE), and a
// PIN in use is refused with CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST.
// Generated PINs have [PINLength] digits, are unique and never in use;
// records show a PIN's token ([PINToken]), never its digits. Touch passes
// go INACTIVE -> PENDING (assigned to a user, one a user) -> ACTIVE
// ([Server.AddToWallet]) -> SUSPENDED (update, or unassigned from a pass
// in a wallet; a never-used one goes back to INACTIVE), and the user's
// touch_pass follows. QR code downloads are PNG images of a real QR code
// of the visitor id.
//
// # Authentication
//
// The server answers in both layouts on the same listener, as
// integrators report consoles do (the vendor describes only the first):
// under /api/v1/developer with "Authorization: Bearer <token>"
// ([Server.URL], [Server.Client]) and under a UniFi OS console's proxy,
// /proxy/access/integration/v1/developer, with "X-API-KEY: <token>"
// ([Server.ProxyURL], [Server.ProxyClient]); the notifications WebSocket
// also at the older /proxy/access/api/v1/developer/devices/notifications.
// A credential in the other layout's header is not accepted.
// [WithOlderProxySocket], [WithoutAccess] and [Server.Restart] act out
// older firmware, a console without Access and a restarting console.
//
// Every request needs its layout's credential header. [Server.Token] has
// every permission; [Server.AddToken] makes tokens with a subset of the
// vendor's permission keys (view:visitor, edit:device, …). A missing,
// unknown or revoked token gets HTTP 401 with CODE_ACCESS_TOKEN_INVALID; a
// token without the operation's permission gets HTTP 403 with
// CODE_UNAUTHORIZED.
//
// # Faults, sharing and saving
//
// [Server.Inject] makes requests fail before they are handled (a proxy,
// an overloaded console) or, with [Fault.AfterHandling], after they took
// effect (an answer lost on the way back), which is how tests show that a
// client never resends a call that may already have happened (not on the
// notifications WebSocket, whose upgrade has no answer to lose: Inject
// refuses it there). Answers are
// written after the server's lock is released, so one client that stops
// reading holds up no other. [Server.WriteState] and [Server.ReadState]
// save and restore the whole state as versioned JSON, and
// [Server.OnChange] reports every change, for a simulator that keeps its
// site across restarts.
//
// # Where the fake is simpler than a controller
//
// The vendor documents only part of the controller's behaviour; where it
// is silent the fake makes a plausible choice, and it may differ from a
// real console:
//
//   - Invalid parameters get HTTP 400 with CODE_PARAMS_INVALID; unknown
//     ids get HTTP 400 with the operation's not-found code
//     (CODE_USER_WORKER_NOT_EXISTS, CODE_DEVICE_DEVICE_NOT_FOUND,
//     CODE_ACCESS_POLICY_SCHEDULE_NOT_FOUND, CODE_RESOURCE_NOT_FOUND for
//     webhook endpoints). The vendor's status table has no 404.
//   - A second webhook endpoint with the same URL gets
//     CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED on HTTP 200, as controllers
//     answer. Unknown event names are rejected (controllers may accept
//     them). The list returns secrets, as controllers do.
//   - Visitors: page_num defaults to 1 and page_size to 25, with no upper
//     bound; total counts the matching visitors. keyword matches a prefix
//     of the first name, last name or full name, ignoring case, and turns
//     the status filter off (as the vendor documents). Without expand[]
//     every nested object is returned; with it, only the named ones
//     (none: no objects; access_policy has no visitor field to fill).
//   - Schedules (also inside visitors) carry their weekly ranges under
//     "weekly", as controllers send them, not the spec's "week_schedule".
//   - Device settings: an update merges the members and fields it sends
//     and accepts only "yes"/"no" flags and the documented face values;
//     it does not check which methods the device hardware supports, nor
//     the valid face combinations.
//   - Touch passes: a purchase of 1 to 100 passes answers an array
//     (controllers have been seen answering one object), creating INACTIVE
//     passes with random card ids; search matches a case-insensitive
//     substring of the card id or the user name. No payment happens.
//   - Credentials: not-found answers are CODE_RESOURCE_NOT_FOUND (cards,
//     touch passes, visitors, QR codes) and CODE_USER_WORKER_NOT_EXISTS
//     (users), on HTTP 400. A touch pass assigned to a user who already
//     has one, one that is not assignable, an ACTIVE status for a pass in
//     no wallet, and a batch assignment with too few assignable passes
//     (nothing is assigned then) get CODE_OPERATION_FORBIDDEN. PINs of 4
//     to 12 digits are accepted. An import's duplicate aliases fail the
//     whole file; ids that are not upper-case hex, cards already known
//     and aliases in use fail their row. Credential changes publish no
//     event: the vendor documents none.
//   - No rate limiting, no version checks: use [Server.Inject] to simulate
//     429s, CODE_DEVICE_API_NOT_SUPPORTED and the like.
//   - Door groups: the vendor has no specific codes for their errors, so
//     the fake answers with the documented general ones: a name already
//     in use (the building group's included) gets CODE_PARAMS_INVALID with
//     the message "The provided name already exists.", and an unknown
//     door id CODE_RESOURCE_NOT_FOUND. Changing or deleting the building
//     group, unlocking or setting a lock rule on a door without a hub, and
//     unlocking during a lockdown get CODE_OPERATION_FORBIDDEN. Deleting a
//     group removes it from access policies and visitors.
//   - Doors: a remote unlock opens the relay even under keep_lock; the
//     unlock schedules behind "schedule" and lock_early do not exist
//     (lock_early ends a temporary unlock and is reported until the next
//     rule). The temporary-unlock events, undocumented by the vendor,
//     carry the door as location, its hub as device, no actor and an
//     object {"lock_rule", "ended_time"}. The door position never changes.
//   - Doorbells ring on UA-Intercom, UA-G2-PRO and UA-G3-PRO devices
//     that are online; a second trigger while ringing gets
//     CODE_DEVICE_DEVICE_BUSY, a cancel completes the ring with reason
//     108. The devices list ignores refresh (true or false).
//   - Users: only DEACTIVATED users can be deleted; the vendor documents
//     the rule but no code, and the fake answers CODE_OPERATION_FORBIDDEN
//     (HTTP 400). Deleting a user drops their group memberships, avatar
//     and Identity assignments. A created user starts ACTIVE, onboarded at
//     the fake's time unless onboard_time is sent. Search matches keyword
//     as a case-insensitive substring of the name, email or employee
//     number and answers without pagination, like the vendor's sample;
//     the fake has no administrators, so only_admin=true finds nobody.
//     A licence plate number another user has gets CODE_PARAMS_INVALID.
//     ListAccessPolicies includes the policies of the user's groups and
//     of their ancestors unless only_user_policies=true.
//   - User groups: creating answers "success" without the id (as
//     consoles do); names are unique among siblings
//     (CODE_USER_NAME_DUPLICATED); unknown groups get
//     CODE_RESOURCE_NOT_FOUND; moving a group under itself or a subgroup
//     gets CODE_PARAMS_INVALID; deleting a group with subgroups or members
//     gets CODE_OPERATION_FORBIDDEN. full_name joins the names from the
//     top with " / ".
//   - Access policies: the door list is read from "resources" or, when
//     absent, from the v3 PDF's "resource"; a name in use gets
//     CODE_PARAMS_INVALID ("The provided name already exists."), an
//     unknown schedule CODE_ACCESS_POLICY_SCHEDULE_NOT_FOUND, an unknown
//     door or door group CODE_RESOURCE_NOT_FOUND; a policy users or groups
//     hold cannot be deleted (CODE_OPERATION_FORBIDDEN). An update answers
//     {"id"}.
//   - Schedules are written with "week_schedule" (a body with "weekly"
//     gets CODE_PARAMS_INVALID) and answered with "weekly"; the list has
//     no ranges and a status of 1; an update answers {}. A schedule that
//     policies or visitors use gets
//     CODE_ACCESS_POLICY_SCHEDULE_CAN_NOT_DELETE.
//   - Holiday groups: holiday times must be RFC 3339 in requests and are
//     answered as "2006-01-02 15:04:05Z"; an update replaces the holidays
//     (ids must be the group's: CODE_ACCESS_POLICY_HOLIDAY_NOT_FOUND). The
//     default group cannot be edited or deleted
//     (CODE_HOLIDAY_GROUP_CAN_NOT_EDIT, CODE_HOLIDAY_GROUP_CAN_NOT_DELETE),
//     nor a group schedules use
//     (CODE_ACCESS_POLICY_HOLIDAY_GROUP_CAN_NOT_DELETE).
//   - Identity: invitations to unknown users or users without a valid
//     email are listed as failures inside a SUCCESS answer; the resource
//     list uses the key "evstation", assignments "ev_station".
//   - Changes without a webhook event (users, user groups, policies,
//     schedules, holiday groups, Identity, door groups, visitors created,
//     updated or removed, lock rules other than keep_unlock and custom,
//     webhook endpoints, device settings, the API certificate) reach the
//     fake's one place for state changes as event-less changes: each
//     becomes a system-log entry by the API caller (topic admin_activity,
//     visitor for visitors) and its access.logs.add notification.
//   - Webhook deliveries are made for the door, lock-rule, emergency,
//     doorbell and visitor-status changes above and when [Server.Emit]
//     is called, once, without retries; https receivers' certificates
//     are not verified.
//   - Notifications are sent when [Server.Notify] or [Server.NotifyRaw]
//     is called and for the state changes listed under "Doors and the
//     fake's time". A slow subscriber makes the fake wait rather than lose
//     messages. The fake sends no device or v1 location updates, no
//     access.hw.door_bell, and no updates for unlocks' relocks.
//   - System logs: entries come from the fake's state changes and
//     [Server.AddSystemLog] only; their display messages and the CSV's
//     columns are the fake's own (the vendor documents neither). The
//     topic "all" is accepted (the vendor's request enum omits it). The
//     total is exact; real consoles are known to report the page size.
//     Static files and resources exist only when seeded.
package accesstest
