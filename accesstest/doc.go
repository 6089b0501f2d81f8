// Package accesstest is an in-memory fake of an access controller's
// developer API, for testing code that uses package access without a
// console, in the spirit of pstest for Pub/Sub.
//
// A [Server] listens on an HTTPS loopback address with a self-signed
// certificate and implements the ten operations of the API, the
// webhook-endpoint list, and the doors, door groups, devices list and
// doorbell operations, with the controller's envelope, error codes,
// bearer authentication and paging:
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
// what Advance added).
//
// Every state change produces what a console produces: unlocks give
// access.door.unlock (actor type "open_api", the request's extra in
// object.extra), lock rules access.temporary_unlock.start and .end,
// emergency changes access.device.emergency_status, doorbells
// access.doorbell.incoming and .completed. They are delivered, signed, to
// the subscribed endpoints in order and in the background;
// [Server.WaitDeliveries] waits for them and [Server.Deliveries] lists
// them.
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
// Every request needs "Authorization: Bearer <token>". [Server.Token] has
// every permission; [Server.AddToken] makes tokens with a subset of the
// vendor's permission keys (view:visitor, edit:device, …). A missing,
// unknown or revoked token gets HTTP 401 with CODE_ACCESS_TOKEN_INVALID; a
// token without the operation's permission gets HTTP 403 with
// CODE_UNAUTHORIZED.
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
//   - Webhook deliveries are made for the door, lock-rule, emergency,
//     doorbell and visitor-status changes above and when [Server.Emit] is called, once,
//     without retries; https receivers' certificates are not verified.
//   - Notifications are sent when [Server.Notify] or [Server.NotifyRaw]
//     is called and for the state changes listed under "Doors and the
//     fake's time". A slow subscriber makes the fake wait rather than lose
//     messages. No system-log entries yet.
package accesstest
