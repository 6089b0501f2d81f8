// Package accesstest is an in-memory fake of an access controller's
// developer API, for testing code that uses package access without a
// console, in the spirit of pstest for Pub/Sub.
//
// A [Server] listens on an HTTPS loopback address with a self-signed
// certificate and implements the ten operations of the API (and the
// webhook-endpoint list) with the controller's envelope, error codes,
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
//   - No rate limiting, no version checks, no devices list: use
//     [Server.Inject] to simulate 429s, CODE_DEVICE_API_NOT_SUPPORTED and
//     the like.
//   - Webhook deliveries are made only when [Server.Emit] is called, once,
//     without retries; https receivers' certificates are not verified.
//   - Notifications are sent only when [Server.Notify] or
//     [Server.NotifyRaw] is called; no state change produces one yet. A
//     slow subscriber makes Notify wait rather than lose messages.
package accesstest
