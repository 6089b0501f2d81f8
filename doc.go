// Package access is a typed client for the developer API of UniFi Access
// consoles: the interface served under /api/v1/developer, usually at
// https://<console>:12445.
//
//	client, err := access.NewClient("https://192.168.1.1:12445", token,
//		access.WithPinnedCertificate("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"))
//	if err != nil { ... }
//	user, _, err := client.Users.Get(ctx, id, &access.UserGetOptions{
//		Expand: []access.UserExpand{access.UserExpandAccessPolicy},
//	})
//
// One [Client] holds the base URL and the token; its services
// ([Client.Webhooks], [Client.Visitors], [Client.Users], [Client.Devices],
// [Client.Schedules], [Client.HolidayGroups], [Client.TouchPasses],
// [Client.Notifications], [Client.Doors], [Client.DoorGroups],
// [Client.UserGroups], [Client.AccessPolicies], [Client.Identity],
// [Client.SystemLogs], [Client.APIServer], [Client.NFCCards],
// [Client.PINCodes], [Client.QRCodes]) have one
// method per operation. Every method that talks to the console takes a
// context first. Reads return the decoded data, a [*Response] (the HTTP
// response with the envelope's code, message and pagination) and an error;
// writes whose answer carries no data, and downloads into an [io.Writer],
// return the Response and an error; the All and SearchAll iterators and
// [NotificationsService.Subscribe] return an iter.Seq2 of values and
// errors. The Response is non-nil whenever the controller answered, even
// with an error.
//
// # Authentication
//
// Create an API token in the Access application (Settings, General,
// Advanced, API Token) with the permission scopes you need. The token is
// sent only in the credential header, never in a URL, an error, a log
// line or the output of fmt or log/slog for any value of this package. A
// redirect to another host is refused rather than followed with the token.
// API keys of the UniFi "Control Plane" do not work on the direct port.
//
// The base URL decides the [Mode]. Direct (https://<console>:12445) sends
// "Authorization: Bearer <token>". A UniFi OS console's own proxy
// (https://<console>/proxy/access/integration/v1/developer, the only way
// into a Cloud Key Gen2+, as integrators report) sends "X-API-KEY: <key>";
// the same string argument holds the token or the key.
//
// # Certificates
//
// Consoles serve a self-generated certificate that does not name their LAN
// address. Pin it with [WithPinnedCertificate] (the SHA-256 fingerprint of
// the certificate), trust it or a private CA with [WithRootCAs], or, knowing
// that anyone on the path can then read the token, turn verification off
// with [WithInsecureSkipVerify].
//
// # Errors
//
// Bad arguments (an empty id, a visitor status outside 1 to 6, a purchase
// count below 1, a nil request) fail with a [*ValidationError] before
// anything is sent. Every answer that is not a success is an [*APIError]:
// non-2xx statuses, HTTP 200 with a code other than SUCCESS (controllers
// report a duplicated webhook endpoint that way), and bodies that are not the
// expected JSON envelope (HTML from a proxy, truncated JSON, a body over the
// size cap), which match [ErrInvalidResponse]. Classify with errors.Is and
// the sentinels [ErrNotFound], [ErrUnauthorized], [ErrForbidden],
// [ErrRateLimited], [ErrInvalidParams], [ErrConflict] and [ErrServer], or
// read [APIError.Code], compared with the [ErrorCode] constants; a known
// code decides the class, the HTTP status decides otherwise, and 429 and 5xx
// always match [ErrRateLimited] and [ErrServer]. Failures
// without a response (connection errors, certificate mismatches, a cancelled
// context) are a [*RequestError]; errors.Is(err, context.Canceled) works
// through it.
//
// # Updates
//
// Every update type ([UserUpdate], [UserGroupUpdate], [VisitorUpdate],
// [AccessPolicyUpdate], [ScheduleUpdate], [HolidayGroupUpdate],
// [DoorGroupUpdate], [NFCCardUpdate], [TouchPassUpdate],
// [DeviceSettingsUpdate], [WebhookEndpointUpdate]) follows one rule:
// an optional member is a pointer, a slice or a map; nil keeps the
// controller's value, a value set with [Ptr] changes it, and the empty
// value (Ptr(""), an empty non-nil slice or map) clears it where the
// vendor allows that. Members the vendor requires on every update are
// plain values. Times a caller passes are [time.Time] everywhere.
//
//	_, err := client.Users.Update(ctx, id, &access.UserUpdate{
//		EmployeeNumber: access.Ptr("E-1042"), // set
//		UserEmail:      access.Ptr(""),       // clear
//	}) // the other members are nil: kept
//
// # Retries
//
// GET, PUT and DELETE are retried on connection errors and on HTTP 429, 502,
// 503 and 504, with capped exponential backoff; a Retry-After header is
// honoured up to the cap. POST is not retried unless the [RetryPolicy] says
// RetryWrites, because the API has no idempotency key; a touch-pass purchase
// is never retried. The operations that act on the physical site (door
// unlock, lock rules, emergency mode, doorbell, waking a reader for
// enrollment) are retried only after a failure that proves the console did
// not act: a connection refused before the request was written, 429, 503,
// a busy or offline device. The context bounds the whole call, backoff waits
// included. A call cancelled after its request was sent may still have been
// carried out by the controller. See [DefaultRetryPolicy] and
// [WithRetryPolicy].
//
// # Doors
//
// [DoorsService.Unlock] unlocks a door remotely, optionally naming the
// actor and passing extra data through to the webhook;
// [DoorsService.SetLockRule] keeps a door locked or unlocked or unlocks it
// for some minutes; [DoorsService.SetEmergency] locks down or evacuates
// the whole site (a real console sounds its alarm). [DevicesService.List]
// returns the devices grouped by door ([DeviceGroups], with a flat view
// without duplicates) and [DevicesService.TriggerDoorbell] rings an
// intercom. None of these is repeated when the console may already have
// acted (see # Retries): a door is unlocked once.
//
// # People and policies
//
// [UsersService] creates, updates, lists ([UsersService.All]), searches
// ([UsersService.SearchAll]) and deletes users; only deactivated users can
// be deleted, so deactivate with [UsersService.Update] first.
// [UserGroupsService.Create] answers without the new group's id:
// [UserGroupsService.CreateAndGet] finds it by name and parent.
// [AccessPoliciesService] ties doors and door groups to a schedule
// ([SchedulesService], written with week_schedule, read back as weekly),
// whose holidays come from [HolidayGroupsService] (sent as RFC 3339, read
// back in the console's format as a [DateTime]).
// [IdentityService.SendInvitations] reports invitations that failed inside
// a successful answer as an [*InvitationError].
//
// # Visitors and credentials
//
// [VisitorsService.Create] registers a visitor with typed times
// ([time.Time], sent as Unix seconds), a [VisitReason], doors and door
// groups ([VisitDoor], [VisitDoorGroup]) and a [WeekSchedule];
// [VisitorsService.Delete] cancels the visit, or removes the record with
// [VisitorDeleteOptions].Force. [NFCCardsService.Enroll] enrolls a card at
// a reader: it polls until the card is read, maps the enrollment codes to
// [ErrCardProvisioned], [ErrCardProvisionFailed] and [ErrCardInvalid], and
// always ends the session. [NFCCardsService.Import] streams typed rows as
// the vendor's CSV. [PINCodesService.Generate] reserves nothing and is
// retried like a read. [QRCodesService.Download] streams a visitor's QR
// code into an [io.Writer]. Assign cards, PINs and touch passes to users
// with [UsersService.AssignNFCCard], [UsersService.AssignPINCode] and
// [UsersService.AssignTouchPass], and to visitors with the
// [VisitorsService] methods of the same names.
//
// # Pagination
//
// [VisitorsService.List] returns one page and its [Pagination];
// [VisitorsService.All] returns an iterator over every matching visitor that
// fetches pages as the loop advances and stops on an empty page, on a short
// page at a size the console is known to serve whole, at the reported total,
// or when the controller repeats a page. A console that caps page_size is
// followed at the size it serves, from any start page, so no record is lost.
// [UsersService.All] and [UsersService.SearchAll] page the same way.

// # System logs
//
// [SystemLogsService.List] and [SystemLogsService.All] read the console's
// activity log by [SystemLogTopic], time range and actor: who opened which
// door and how ([SystemLog.UnlockSource] tells an API unlock's caller),
// emergencies, device and admin events. The fetch is a POST that only
// reads, so it is retried like a GET; the console's total is unreliable
// there, and All does not trust it to stop. [SystemLogsService.Export]
// streams a CSV of up to one month into an io.Writer with flat memory;
// [SystemLogsService.GetResource] and [SystemLogsService.DownloadStatic]
// fetch an entry's video clip and thumbnail, and only the console's static
// folders can be reached.
//
// # API server certificate
//
// [APIServerService.UploadCertificate] installs a certificate and key for
// the API server on port 12445, refusing a key that is not the
// certificate's before sending; [APIServerService.DeleteCertificate]
// removes it. Both take effect once Access has been restarted on the
// console.
//
// # Webhooks
//
// [WebhooksService.Create] registers an endpoint for some [EventType]s and
// returns the [Secret] that signs its deliveries; [WebhooksService.Ensure]
// reuses the endpoint already registered for the same URL, so a receiver
// can register itself on every start. A delivery is a POST whose Signature
// header ("t=<unix>,v1=<hex>") is an HMAC-SHA256, keyed with the secret,
// of the timestamp, a dot and the raw body. [VerifySignature] checks it
// (several v1 values, a tolerance of [DefaultTolerance] that
// [WithTolerance] changes or disables), [ConstructEvent] also decodes the
// [WebhookEvent], and [WebhookHandler] is an http.Handler doing both, plus
// checking the custom headers the endpoint was registered with.
// [SignPayload] signs payloads for your own tests.
//
//	h, err := access.WebhookHandler(secret,
//		func(ctx context.Context, ev *access.WebhookEvent) error {
//			if ev.Event == access.EventDoorUnlock {
//				o, err := ev.DoorUnlock()
//				...
//			}
//			return nil
//		}, access.WithRequiredHeader("X-Hook-Token", hookToken))
//	if err != nil { ... } // an empty secret or a bad option
//	http.Handle("POST /hooks/access", h)
//
// # Live events
//
// [NotificationsService.Subscribe] streams the notifications WebSocket
// (/devices/notifications) as an iter.Seq2 of [*Notification] and error.
// It dials with the client's own HTTP client, so certificate pinning and
// root CAs protect the stream, and reconnects by itself with backoff and
// jitter ([DefaultSubscribeMinBackoff] to [DefaultSubscribeMaxBackoff]) and
// an idle watchdog ([DefaultSubscribeIdleTimeout]). An outage is yielded as
// one non-fatal [*DisconnectedError] (errors.Is(err, [ErrDisconnected])) at
// the first failed reconnection, with the cause and the time since the
// last message; each reconnection as a non-fatal [*ReconnectedError]
// (errors.Is(err, [ErrReconnected])): notifications may have been missed.
// 401, 403, an unsupported console ([ErrUnsupported]), certificate failures
// and a transport that cannot carry the WebSocket end the sequence;
// breaking out of the loop or cancelling the context closes the connection
// with no goroutine left. The WebSocket uses
// github.com/coder/websocket: maintained, context-aware, no dependencies.
//
//	for n, err := range client.Notifications.Subscribe(ctx, nil) {
//		if errors.Is(err, access.ErrDisconnected) {
//			continue // down, still reconnecting: alert or poll
//		}
//		if errors.Is(err, access.ErrReconnected) {
//			continue // catch up through the REST operations
//		}
//		if err != nil {
//			return err
//		}
//		if v, err := n.RemoteView(); err == nil { // the documented doorbell
//			fmt.Println("doorbell at", v.DoorName)
//		}
//	}
//
// A [Notification] keeps the envelope and the raw data, with lenient typed
// accessors for the three documented events ([Notification.RemoteView],
// the doorbell; [Notification.RemoteViewChange]; [Notification.RemoteUnlock],
// whose actor comes in the access.logs.add that follows where consoles
// send it) and for the
// observed ones (device, location, setting and access-log events, and
// [Notification.DoorBell], an extra doorbell event some consoles send
// besides access.remote_view). Webhooks carry more event types, documented and signed; the
// WebSocket needs no reachable receiver.
//
// # Testing
//
// Package accesstest runs an in-memory fake controller over HTTPS on
// loopback, with seeding, a demo site, request inspection, fault injection
// and signed webhook delivery; its Server.Client method returns a Client
// ready to talk to it. Use it instead of mocking the services:
//
//	srv := accesstest.New(t)
//	srv.AddUser(access.User{ID: "u1", FirstName: "Ada"})
//	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 503, Times: 1})
//	user, _, err := srv.Client().Users.Get(ctx, "u1", nil) // retried, succeeds
package access
