package main

import (
	"io"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

var (
	visitorCols = []string{"id", "first_name", "last_name", "status", "visit_reason", "start_time", "end_time"}
	touchCols   = []string{"id", "card_id", "card_name", "status", "user_name"}
	cardCols    = []string{"token", "display_id", "alias", "status", "user_type", "user.name"}
)

// deref is the value p points at, or the zero value for nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// visitorFlags are the flags of visitors create and update.
var visitorFlags = []flagSpec{
	{name: "first-name"}, {name: "last-name"}, {name: "email"}, {name: "phone", usage: "mobile phone"},
	{name: "company", usage: "visitor company"}, {name: "remarks"},
	{name: "reason", usage: "Interview, Business, Cooperation or Others", values: []string{"Interview", "Business", "Cooperation", "Others"}},
	{name: "start", usage: "start of the visit: now, a date (2006-01-02 15:04) or a duration from now (2h)"},
	{name: "end", usage: "end of the visit: a date or a duration after the start (8h)"},
	{name: "door", kind: fStrings, usage: "doors the visitor may open (names or ids)"},
	{name: "door-group", kind: fStrings, usage: "door groups the visitor may open (names or ids)"},
}

// visitorFields reads the visitor flags into an update: a flag left out
// is nil (kept), --remarks "" and the like clear.
func visitorFields(x *inv) (*access.VisitorUpdate, error) {
	w := &access.VisitorUpdate{FirstName: x.sp("first-name"), LastName: x.sp("last-name"), Email: x.sp("email"), MobilePhone: x.sp("phone"),
		VisitorCompany: x.sp("company"), Remarks: x.sp("remarks")}
	if x.set("reason") {
		w.VisitReason = access.Ptr(access.VisitReason(x.s("reason")))
	}
	now := time.Now()
	start := time.Time{}
	if x.set("start") {
		var err error
		if start, err = parseForward(x.s("start"), now); err != nil {
			return w, usageErrorf("--start: %v", err)
		}
		w.StartTime = &start
	}
	if x.set("end") {
		base := start
		if base.IsZero() {
			base = now
		}
		end, err := parseForward(x.s("end"), base)
		if err != nil {
			return w, usageErrorf("--end: %v", err)
		}
		w.EndTime = &end
	}
	if x.set("door") || x.set("door-group") {
		r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
		w.Resources = []access.Resource{}
		for _, d := range x.ss("door") {
			id, err := r.resolve("door", d)
			if err != nil {
				return nil, err
			}
			w.Resources = append(w.Resources, access.VisitDoor(id))
		}
		for _, d := range x.ss("door-group") {
			id, err := r.resolve("door-group", d)
			if err != nil {
				return nil, err
			}
			w.Resources = append(w.Resources, access.VisitDoorGroup(id))
		}
	}
	return w, nil
}

// parseForward reads a time that lies ahead: "now", a duration after base
// or a date.
func parseForward(s string, base time.Time) (time.Time, error) {
	if s == "now" {
		return base, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if t, err := parseWhen(n+"d", base); err == nil {
			return base.Add(base.Sub(t)), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		return base.Add(d), nil
	}
	return parseWhen(s, base)
}

func visitorStatus(s string) (access.VisitorStatus, error) {
	if s == "" {
		return 0, nil
	}
	names := map[string]access.VisitorStatus{"upcoming": 1, "visited": 2, "visiting": 3, "cancelled": 4, "canceled": 4, "no_visit": 5, "no-visit": 5, "active": 6}
	if v, ok := names[strings.ToLower(s)]; ok {
		return v, nil
	}
	for _, v := range names {
		if s == string(rune('0'+int(v))) {
			return v, nil
		}
	}
	return 0, usageErrorf("--status %q: want upcoming, visited, visiting, cancelled, no_visit or active (or 1-6)", s)
}

// visitorOps adds the operations of visitors, credentials (PIN codes, NFC cards, touch passes) and QR codes to the registry.
func visitorOps(r *registry) {
	vArg := []argSpec{{name: "visitor", kind: "visitor"}}
	r.add(
		&opSpec{path: "visitors create", sdk: "Visitors.Create", perm: "edit:visitor", short: "Register a visitor", write: true, body: bodyOf[access.VisitorRequest](), flags: requiredFlags(visitorFlags, "first-name", "last-name", "reason", "start", "end"), cols: visitorCols,
			ex: `  access --fake visitors create --first-name Grace --last-name Hopper --reason Business --start now --end 8h --door "Main entrance"`,
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.VisitorRequest, error) {
					w, err := visitorFields(x)
					if err != nil {
						return access.VisitorRequest{}, err
					}
					return access.VisitorRequest{FirstName: deref(w.FirstName), LastName: deref(w.LastName), Remarks: deref(w.Remarks),
						MobilePhone: deref(w.MobilePhone), Email: deref(w.Email), VisitorCompany: deref(w.VisitorCompany),
						StartTime: deref(w.StartTime), EndTime: deref(w.EndTime), VisitReason: deref(w.VisitReason),
						Resources: w.Resources, WeekSchedule: w.WeekSchedule}, nil
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Visitors.Create(x.a.ctx, &req)
				return v, err
			}},
		&opSpec{path: "visitors get", ex: `  access --fake visitors get rafael.v0@example.org`, sdk: "Visitors.Get", perm: "view:visitor", short: "Fetch a visitor", args: vArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.Visitors.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "visitors list", sdk: "Visitors.List, Visitors.All", perm: "view:visitor", short: "List visitors", paged: true, cols: visitorCols,
			flags: []flagSpec{{name: "status", usage: "upcoming, visited, visiting, cancelled, no_visit or active",
				values: []string{"upcoming", "visited", "visiting", "cancelled", "no_visit", "active"}},
				{name: "keyword", usage: "name prefix (turns --status off)"}},
			ex: "  access --fake visitors list --status upcoming",
			run: func(x *inv) (any, error) {
				st, err := visitorStatus(x.s("status"))
				if err != nil {
					return nil, err
				}
				opts := func(num, size int) *access.VisitorListOptions {
					return &access.VisitorListOptions{Status: st, Keyword: x.s("keyword"), PageNum: num, PageSize: size}
				}
				return paged(x, func(num, size int) stream { return seq(x.c.Visitors.All(x.a.ctx, opts(num, size))) },
					func(num, size int) ([]access.Visitor, *access.Response, error) {
						return x.c.Visitors.List(x.a.ctx, opts(num, size))
					})
			}},
		&opSpec{path: "visitors update", ex: `  access --fake visitors update "Rafael Moreau" --remarks "Parking space 12"`, sdk: "Visitors.Update", perm: "edit:visitor", short: "Change a visitor", write: true, body: bodyOf[access.VisitorUpdate](), args: vArg, flags: visitorFlags, cols: visitorCols,
			long: "A flag left out keeps the visitor's value; --remarks, --email, --phone and --company \"\" clear it; --door and --door-group replace the doors (--door \"\" removes them all).",
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.VisitorUpdate, error) {
					w, err := visitorFields(x)
					if err != nil {
						return access.VisitorUpdate{}, err
					}
					return *w, nil
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Visitors.Update(x.a.ctx, x.arg(0), &req)
				return v, err
			}},
		&opSpec{path: "visitors delete", ex: `  access --fake visitors delete "Rafael Moreau" --force`, sdk: "Visitors.Delete", perm: "edit:visitor", short: "Cancel a visitor (--force: delete the record)", write: true, args: vArg,
			flags: []flagSpec{{name: "force", kind: fBool, usage: "delete the record instead of cancelling the visit"}},
			run: func(x *inv) (any, error) {
				_, err := x.c.Visitors.Delete(x.a.ctx, x.arg(0), &access.VisitorDeleteOptions{Force: x.b("force")})
				return done{"deleted visitor " + x.arg(0)}, err
			}},
		&opSpec{path: "visitors assign-nfc-card", ex: `  access --fake visitors assign-nfc-card jonas.v6@example.org 4dde097b8012ba204bb95f379dd3a618185c603069e77915bc45649a9c4c3feb`, sdk: "Visitors.AssignNFCCard", perm: "edit:visitor", short: "Assign an NFC card to a visitor", write: true, body: bodyOf[access.NFCCardAssignment](),
			args: []argSpec{{name: "visitor", kind: "visitor"}, {name: "token", body: true}}, flags: []flagSpec{{name: "force", kind: fBool, usage: "take the card from its current holder"}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.NFCCardAssignment, error) {
					return access.NFCCardAssignment{Token: x.arg(1), ForceAdd: x.b("force")}, nil
				})
				_, err := x.c.Visitors.AssignNFCCard(x.a.ctx, x.arg(0), &req)
				return x.then("assigned the card to visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors unassign-nfc-card", ex: `  access --fake visitors unassign-nfc-card "Rafael Moreau" 114cf2a2944437d9298425d4471a85bde4948fa30529695fb191161ae35e0c0a`, sdk: "Visitors.UnassignNFCCard", perm: "edit:visitor", short: "Take an NFC card from a visitor", write: true, body: bodyOf[string](), member: "token",
			args: []argSpec{{name: "visitor", kind: "visitor"}, {name: "token", body: true}},
			run: func(x *inv) (any, error) {
				token, _ := fromData(x, func() (string, error) { return x.arg(1), nil })
				_, err := x.c.Visitors.UnassignNFCCard(x.a.ctx, x.arg(0), token)
				return x.then("unassigned the card from visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors assign-pin", sdk: "Visitors.AssignPINCode", perm: "edit:visitor", short: "Assign a PIN code to a visitor", write: true, body: bodyOf[string](), member: "pin_code",
			long: pinHelp, ex: pinExample("visitors", demoVisitorID), flags: []flagSpec{pinFlag}, cols: []string{"id", "pin_code"},
			args: []argSpec{{name: "visitor", kind: "visitor"}, {name: "pin", body: true, optional: true}},
			run: func(x *inv) (any, error) {
				return assignPIN(x, "visitor", func(pin string) error {
					_, err := x.c.Visitors.AssignPINCode(x.a.ctx, x.arg(0), pin)
					return err
				})
			}},
		&opSpec{path: "visitors unassign-pin", ex: `  access --fake visitors unassign-pin "Rafael Moreau"`, sdk: "Visitors.UnassignPINCode", perm: "edit:visitor", short: "Remove a visitor's PIN code", write: true, args: vArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Visitors.UnassignPINCode(x.a.ctx, x.arg(0))
				return x.then("removed the PIN of visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors assign-qr-code", ex: `  access --fake visitors assign-qr-code "Rafael Moreau"`, sdk: "Visitors.AssignQRCode", perm: "edit:visitor", short: "Give a visitor a QR code", write: true, args: vArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Visitors.AssignQRCode(x.a.ctx, x.arg(0))
				return x.then("assigned a QR code to visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors unassign-qr-code", ex: `  access --fake visitors unassign-qr-code "Rafael Moreau"`, sdk: "Visitors.UnassignQRCode", perm: "edit:visitor", short: "Remove a visitor's QR code", write: true, args: vArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Visitors.UnassignQRCode(x.a.ctx, x.arg(0))
				return x.then("removed the QR code of visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors assign-license-plates", ex: `  access --fake visitors assign-license-plates "Rafael Moreau" B-RM-2026`, sdk: "Visitors.AssignLicensePlates", perm: "edit:visitor", short: "Add licence plates to a visitor", write: true, body: bodyOf[[]string](),
			args: []argSpec{{name: "visitor", kind: "visitor"}, {name: "plate", variadic: true, body: true}},
			run: func(x *inv) (any, error) {
				plates, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.Visitors.AssignLicensePlates(x.a.ctx, x.arg(0), plates)
				return x.then("assigned the plates to visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "visitors unassign-license-plate", ex: `  access --fake visitors unassign-license-plate wen.v4@example.org 2cf9b416-ac54-4953-adc6-70a1efa40d99`, sdk: "Visitors.UnassignLicensePlate", perm: "edit:visitor", short: "Remove a licence plate from a visitor", write: true,
			args: []argSpec{{name: "visitor", kind: "visitor"}, {name: "plate-id"}},
			run: func(x *inv) (any, error) {
				_, err := x.c.Visitors.UnassignLicensePlate(x.a.ctx, x.arg(0), x.arg(1))
				return x.then("removed the plate from visitor "+x.arg(0), err, reader(func() (*access.Visitor, *access.Response, error) { return x.c.Visitors.Get(x.a.ctx, x.arg(0)) }))
			}},
	)

	tArg := []argSpec{{name: "token"}}
	r.add(
		&opSpec{path: "pin-codes generate", ex: `  access --fake pin-codes generate`, sdk: "PINCodes.Generate", perm: "view:credential", short: "Generate an unused PIN code",
			run: func(x *inv) (any, error) { v, _, err := x.c.PINCodes.Generate(x.a.ctx); return v, err }},
		&opSpec{path: "nfc-cards enroll", sdk: "NFCCards.Enroll", perm: "edit:credential", short: "Read a card on a reader: start a session, wait for the tap, end it", write: true,
			flags: []flagSpec{{name: "device", usage: "the reader (name or id; required)"}, {name: "reset", kind: fBool, usage: "reset a UA card enrolled at another site"}},
			ex:    "  access --fake nfc-cards enroll --device \"UA Reader Main\"",
			run: func(x *inv) (any, error) {
				if x.s("device") == "" {
					return nil, usageErrorf("nfc-cards enroll: --device is required")
				}
				r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
				dev, err := r.resolve("device", x.s("device"))
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.NFCCards.Enroll(x.a.ctx, dev, &access.EnrollOptions{ResetUACard: x.b("reset"),
					Started: func(id string) {
						x.a.info("tap a card on the reader…")
						if started := seamsOf(x.a.ctx).enrollStarted; started != nil {
							started(id)
						}
						if x.a.fakeSrv != nil { // --fake: the demo holds a card to the reader
							_, _ = x.a.fakeSrv.PresentCard(dev, fakeDemoCard)
						}
					}})
				return v, err
			}},
		&opSpec{path: "nfc-cards start-enrollment", ex: `  access --fake nfc-cards start-enrollment "UA Reader Main"`, sdk: "NFCCards.StartEnrollment", perm: "edit:credential", short: "Wake a reader and open an enrollment session", write: true,
			args: []argSpec{{name: "device", kind: "device", body: true}}, flags: []flagSpec{{name: "reset", kind: fBool, usage: "reset a UA card enrolled at another site"}},
			body: bodyOf[access.EnrollmentRequest](),
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.EnrollmentRequest, error) {
					return access.EnrollmentRequest{DeviceID: x.arg(0), ResetUACard: x.b("reset")}, nil
				})
				v, _, err := x.c.NFCCards.StartEnrollment(x.a.ctx, &req)
				return v, err
			}},
		&opSpec{path: "nfc-cards enrollment-status", ex: `  access nfc-cards enrollment-status 3f9c2a7e-5b1d-4e8a-9c6f-2d7b4e1a8c05`, sdk: "NFCCards.EnrollmentStatus", perm: "edit:credential", short: "Poll an enrollment session once",
			args: []argSpec{{name: "session"}},
			run: func(x *inv) (any, error) {
				v, _, err := x.c.NFCCards.EnrollmentStatus(x.a.ctx, x.arg(0))
				return v, err
			}},
		&opSpec{path: "nfc-cards end-enrollment", ex: `  access nfc-cards end-enrollment 3f9c2a7e-5b1d-4e8a-9c6f-2d7b4e1a8c05`, sdk: "NFCCards.EndEnrollment", perm: "edit:credential", short: "Remove an enrollment session", write: true,
			args: []argSpec{{name: "session"}},
			run: func(x *inv) (any, error) {
				_, err := x.c.NFCCards.EndEnrollment(x.a.ctx, x.arg(0))
				return done{"ended session " + x.arg(0)}, err
			}},
		&opSpec{path: "nfc-cards get", ex: `  access --fake nfc-cards get 4dde097b8012ba204bb95f379dd3a618185c603069e77915bc45649a9c4c3feb`, sdk: "NFCCards.Get", perm: "view:credential", short: "Fetch an NFC card", args: tArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.NFCCards.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "nfc-cards list", ex: `  access --fake nfc-cards list --all -o jsonl`, sdk: "NFCCards.List, NFCCards.All", perm: "view:credential", short: "List NFC cards", paged: true, cols: cardCols,
			run: func(x *inv) (any, error) {
				opts := func(num, size int) *access.NFCCardListOptions {
					return &access.NFCCardListOptions{PageNum: num, PageSize: size}
				}
				return paged(x, func(num, size int) stream { return seq(x.c.NFCCards.All(x.a.ctx, opts(num, size))) },
					func(num, size int) ([]access.NFCCard, *access.Response, error) {
						return x.c.NFCCards.List(x.a.ctx, opts(num, size))
					})
			}},
		&opSpec{path: "nfc-cards delete", ex: `  access --fake nfc-cards delete 4dde097b8012ba204bb95f379dd3a618185c603069e77915bc45649a9c4c3feb`, sdk: "NFCCards.Delete", perm: "edit:credential", short: "Delete an unassigned NFC card", write: true, args: tArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.NFCCards.Delete(x.a.ctx, x.arg(0))
				return done{"deleted card " + x.arg(0)}, err
			}},
		&opSpec{path: "nfc-cards update", ex: `  access --fake nfc-cards update 4dde097b8012ba204bb95f379dd3a618185c603069e77915bc45649a9c4c3feb --alias "Spare card 1"`, sdk: "NFCCards.Update", perm: "edit:credential", short: "Change an NFC card's alias", write: true, body: bodyOf[access.NFCCardUpdate](), args: tArg,
			flags: []flagSpec{{name: "alias", usage: "the card's alias (\"\" clears it)"}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.NFCCardUpdate, error) { return access.NFCCardUpdate{Alias: x.sp("alias")}, nil })
				_, err := x.c.NFCCards.Update(x.a.ctx, x.arg(0), &req)
				return x.then("updated card "+x.arg(0), err, reader(func() (*access.NFCCard, *access.Response, error) { return x.c.NFCCards.Get(x.a.ctx, x.arg(0)) }))
			}},
	)

	r.add(
		&opSpec{path: "touch-passes list", ex: `  access --fake touch-passes list --all`, sdk: "TouchPasses.List, TouchPasses.All", perm: "view:credential", short: "List touch passes", paged: true, cols: touchCols,
			flags: []flagSpec{{name: "status", usage: "ACTIVE, PENDING, SUSPENDED or INACTIVE", values: []string{"ACTIVE", "PENDING", "SUSPENDED", "INACTIVE"}}},
			run: func(x *inv) (any, error) {
				opts := func(num, size int) *access.TouchPassListOptions {
					return &access.TouchPassListOptions{Status: access.TouchPassStatus(strings.ToUpper(x.s("status"))), PageNum: num, PageSize: size}
				}
				return paged(x, func(num, size int) stream { return seq(x.c.TouchPasses.All(x.a.ctx, opts(num, size))) },
					func(num, size int) ([]access.TouchPass, *access.Response, error) {
						return x.c.TouchPasses.List(x.a.ctx, opts(num, size))
					})
			}},
		&opSpec{path: "touch-passes search", ex: `  access --fake touch-passes search Lovelace`, sdk: "TouchPasses.Search", perm: "view:credential", short: "Search touch passes by card id or user name",
			args: []argSpec{{name: "condition"}}, cols: touchCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.TouchPasses.Search(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "touch-passes assignable", ex: `  access --fake touch-passes assignable`, sdk: "TouchPasses.ListAssignable", perm: "view:credential", short: "List the touch passes that can be assigned", cols: touchCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.TouchPasses.ListAssignable(x.a.ctx); return v, err }},
		&opSpec{path: "touch-passes get", ex: `  access --fake touch-passes get c83b69ff-1992-4e7f-9287-1e6a161adeea`, sdk: "TouchPasses.Get", perm: "view:credential", short: "Fetch a touch pass", args: []argSpec{{name: "touch-pass"}},
			run: func(x *inv) (any, error) { v, _, err := x.c.TouchPasses.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "touch-passes update", ex: `  access --fake touch-passes update c83b69ff-1992-4e7f-9287-1e6a161adeea --status SUSPENDED`, sdk: "TouchPasses.Update", perm: "edit:credential", short: "Rename, suspend or reactivate a touch pass", write: true, body: bodyOf[access.TouchPassUpdate](),
			args: []argSpec{{name: "touch-pass"}}, cols: touchCols,
			flags: []flagSpec{{name: "card-name", usage: "the card's name"}, {name: "status", usage: "ACTIVE or SUSPENDED", values: []string{"ACTIVE", "SUSPENDED"}}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.TouchPassUpdate, error) {
					req := access.TouchPassUpdate{CardName: x.sp("card-name")}
					if x.set("status") {
						req.Status = access.Ptr(access.TouchPassStatus(strings.ToUpper(x.s("status"))))
					}
					return req, nil
				})
				v, _, err := x.c.TouchPasses.Update(x.a.ctx, x.arg(0), &req)
				return v, err
			}},
		&opSpec{path: "touch-passes purchase", ex: `  access --fake touch-passes purchase --count 2`, sdk: "TouchPasses.Purchase", perm: "edit:credential", short: "Buy touch passes (spends money; never retried)", write: true, body: bodyOf[int](),
			flags: []flagSpec{{name: "count", kind: fInt, usage: "how many to buy (required)"}}, cols: touchCols,
			run: func(x *inv) (any, error) {
				n, _ := fromData(x, func() (int, error) { return x.i("count"), nil })
				if n <= 0 {
					return nil, usageErrorf("touch-passes purchase: --count must be at least 1")
				}
				v, _, err := x.c.TouchPasses.Purchase(x.a.ctx, n)
				return v, err
			}},
		&opSpec{path: "qr-codes download", ex: `  access --fake qr-codes download "Rafael Moreau" -O rafael.png`, sdk: "QRCodes.Download", perm: "view:credential", short: "Download a visitor's QR code image (PNG)",
			args: []argSpec{{name: "visitor", kind: "visitor"}}, flags: []flagSpec{{name: "output-file", shorthand: "O", usage: "write the PNG to `FILE` (- for stdout)"}},
			run: func(x *inv) (any, error) {
				return download(x, x.s("output-file"), func(w io.Writer) error {
					_, err := x.c.QRCodes.Download(x.a.ctx, x.arg(0), w)
					return err
				})
			}},
	)
}

// download writes a binary answer to a file (atomically: a partial file is
// removed) or to stdout, never to a terminal.
func download(x *inv, path string, fetch func(io.Writer) error) (any, error) {
	if path == "" || path == "-" {
		if x.a.isTerminal(x.a.stdout) {
			return nil, usageErrorf("refusing to write binary data to a terminal: use -O FILE or redirect stdout")
		}
		return nil, fetch(x.a.stdout)
	}
	if err := writeFileAtomic(x.a, path, fetch); err != nil {
		return nil, err
	}
	return done{"wrote " + path}, nil
}

// writeFileAtomic writes path through atomicfile (mode 0600): a
// temporary file in the same directory, synced and renamed into place
// only when fetch succeeded and the run was not interrupted, then the
// directory synced; otherwise the partial file is removed and path left
// as it was. A directory that takes no new file is a usage error.
func writeFileAtomic(a *app, path string, fetch func(io.Writer) error) error {
	return cmdutil.WriteFileAtomic(a.ctx, path, fetch)
}

// info writes a note for a person on stderr.
func (a *app) info(msg string) {
	if a.isTerminal(a.stderr) {
		io.WriteString(a.stderr, msg+"\n")
	}
}
