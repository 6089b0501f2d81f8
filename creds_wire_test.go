package access

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// credWireCases are the visitor and credential operations (issue 13) and
// the users' credential operations: the exact request and the vendor
// sample each decodes.
func credWireCases() []wireCase {
	var lastMessage, lastPagination atomic.Value
	const tok = "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c"
	start := time.Date(2023, 7, 5, 8, 41, 0, 0, time.UTC)
	none := func(r *Response, err error) (any, error) { return r, err }
	return []wireCase{
		// NFC cards
		{"NFCCards.StartEnrollment", "POST", "/credentials/nfc_cards/sessions", `{"device_id":"942a6f4247b2","reset_ua_card":true}`, "nfc_session_start",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.NFCCards.StartEnrollment(ctx, &EnrollmentRequest{DeviceID: "942a6f4247b2", ResetUACard: true})
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, &EnrollmentSession{SessionID: "e8a97c52-6676-4c48-8589-bd518afc4094"}, v)
			}},
		{"NFCCards.StartEnrollment (no reset)", "POST", "/credentials/nfc_cards/sessions", `{"device_id":"942a6f4247b2"}`, "nfc_session_start",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.NFCCards.StartEnrollment(ctx, &EnrollmentRequest{DeviceID: "942a6f4247b2"})
				return v, err
			}, nil},
		{"NFCCards.EnrollmentStatus", "GET", "/credentials/nfc_cards/sessions/s%2F1", "", "nfc_session_status",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.NFCCards.EnrollmentStatus(ctx, "s/1")
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, &EnrolledCard{Token: tok, CardID: "100004"}, v)
			}},
		{"NFCCards.EndEnrollment", "DELETE", "/credentials/nfc_cards/sessions/s1", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return none(c.NFCCards.EndEnrollment(ctx, "s1")) }, nil},
		{"NFCCards.Get", "GET", "/credentials/nfc_cards/tokens/" + tok, "", "nfc_card_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.NFCCards.Get(ctx, tok)
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, &NFCCard{Token: tok, DisplayID: "100004", Status: NFCCardAssigned, Alias: "Front desk spare 3", CardType: "ua_card",
					UserID: "3e763e5d-6804-437d-ae8d-3fee74119b80", UserType: "USER",
					User: &NFCCardOwner{ID: "3e763e5d-6804-437d-ae8d-3fee74119b80", FirstName: "Example", LastName: "Name", Name: "Example Name"}}, v)
			}},
		{"NFCCards.List", "GET", "/credentials/nfc_cards/tokens?page_num=1&page_size=25", "", "nfc_cards_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, resp, err := c.NFCCards.List(ctx, &NFCCardListOptions{PageNum: 1, PageSize: 25})
				if err == nil {
					lastPagination.Store(*resp.Pagination)
				}
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, Pagination{PageNum: 1, PageSize: 25, Total: 2}, lastPagination.Load())
				cards := v.([]NFCCard)
				require.Len(t, cards, 2)
				assert.Equal(t, NFCCardPending, cards[1].Status)
				assert.Nil(t, cards[1].User)
			}},
		{"NFCCards.Delete", "DELETE", "/credentials/nfc_cards/tokens/" + tok, "", "success",
			func(ctx context.Context, c *Client) (any, error) { return none(c.NFCCards.Delete(ctx, tok)) }, nil},
		{"NFCCards.Update", "PUT", "/credentials/nfc_cards/tokens/" + tok, `{"alias":"Spare 1"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.NFCCards.Update(ctx, tok, &NFCCardUpdate{Alias: Ptr("Spare 1")}))
			}, nil},
		{"NFCCards.Update (clear the alias)", "PUT", "/credentials/nfc_cards/tokens/" + tok, `{"alias":""}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.NFCCards.Update(ctx, tok, &NFCCardUpdate{Alias: Ptr("")}))
			}, nil},
		// PIN codes
		{"PINCodes.Generate", "POST", "/credentials/pin_codes", "", "pin_generate",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.PINCodes.Generate(ctx)
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "67203419", v) }},
		// Visitors
		{"Visitors.Create", "POST", "/visitors",
			`{"first_name":"H","last_name":"L","remarks":"Parking","mobile_phone":"+41791234567","email":"h@example.com","visitor_company":"UI",` +
				`"start_time":1688546460,"end_time":1688572799,"visit_reason":"Interview",` +
				`"resources":[{"id":"d1","type":"door"},{"id":"g1","type":"door_group"}],` +
				`"week_schedule":{"sunday":[],"monday":[{"start_time":"10:00:00","end_time":"17:00:59"}],"tuesday":[],"wednesday":[],"thursday":[],"friday":[],"saturday":[]}}`,
			"visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Create(ctx, &VisitorRequest{FirstName: "H", LastName: "L", Remarks: "Parking", MobilePhone: "+41791234567",
					Email: "h@example.com", VisitorCompany: "UI", StartTime: start.Add(500 * time.Millisecond),
					EndTime: time.Date(2023, 7, 5, 17, 59, 59, 0, time.FixedZone("CEST", 2*3600)), VisitReason: VisitReasonInterview,
					Resources: []Resource{VisitDoor("d1"), VisitDoorGroup("g1")},
					WeekSchedule: &WeekSchedule{Sunday: []TimeRange{}, Monday: []TimeRange{{"10:00:00", "17:00:59"}}, Tuesday: []TimeRange{},
						Wednesday: []TimeRange{}, Thursday: []TimeRange{}, Friday: []TimeRange{}, Saturday: []TimeRange{}}})
				return v, err
			}, func(t *testing.T, v any) {
				vis := v.(*Visitor)
				assert.Equal(t, "3566867c-fa04-4752-98f6-43cf9a342d4a", vis.ID)
				assert.Equal(t, "VISITED", vis.Status)
				require.Len(t, vis.LicensePlates, 2)
				assert.Nil(t, vis.Schedule.WeekSchedule, "weekly null: a one-time visit")
			}},
		{"Visitors.Create (minimal)", "POST", "/visitors",
			`{"first_name":"H","last_name":"L","start_time":1688546460,"end_time":1688550060,"visit_reason":"Others"}`, "visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Create(ctx, &VisitorRequest{FirstName: "H", LastName: "L", StartTime: start, EndTime: start.Add(time.Hour), VisitReason: VisitReasonOthers})
				return v, err
			}, nil},
		{"Visitors.Get", "GET", "/visitors/3566867c-fa04-4752-98f6-43cf9a342d4a", "", "visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Get(ctx, "3566867c-fa04-4752-98f6-43cf9a342d4a")
				return v, err
			}, func(t *testing.T, v any) {
				vis := v.(*Visitor)
				st, ok := vis.StatusCode()
				assert.True(t, ok)
				assert.Equal(t, VisitorStatusVisited, st)
				assert.Equal(t, []NFCCard{{ID: "100001", Token: "d27822fc682b478dc637c6db01813e465174df6e54ca515d8427db623cfda1d0", Type: "ua_card"}}, vis.NFCCards)
				assert.Equal(t, &PINCode{Token: "bc3e3135013e2dcae119390b7897166e8cec3bcf5becb6b05578ab67634559ed"}, vis.PINCode)
				assert.Equal(t, []Resource{{ID: "fd293ecb-98d2-425b-a020-cb9365ea48b3", Name: "visitor-1690337152955", Type: "door_group"}}, vis.Resources)
			}},
		{"Visitors.Update", "PUT", "/visitors/v1", `{"remarks":"","end_time":1688550060,"visit_reason":"Business","resources":[{"id":"d1","type":"door"}]}`, "visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Update(ctx, "v1", &VisitorUpdate{Remarks: Ptr(""), EndTime: Ptr(start.Add(time.Hour)), VisitReason: Ptr(VisitReasonBusiness),
					Resources: []Resource{VisitDoor("d1")}})
				return v, err
			}, nil},
		{"Visitors.Update (set every member)", "PUT", "/visitors/v1",
			`{"first_name":"Ada","last_name":"King","remarks":"r","mobile_phone":"+41791234567","email":"ada@example.com","visitor_company":"AE","start_time":1688546460,"end_time":1688550060,"visit_reason":"Interview","resources":[{"id":"g1","type":"door_group"}],"week_schedule":{"sunday":[],"monday":[{"start_time":"09:00:00","end_time":"12:00:59"}],"tuesday":[],"wednesday":[],"thursday":[],"friday":[],"saturday":[]}}`,
			"visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Update(ctx, "v1", &VisitorUpdate{FirstName: Ptr("Ada"), LastName: Ptr("King"), Remarks: Ptr("r"),
					MobilePhone: Ptr("+41791234567"), Email: Ptr("ada@example.com"), VisitorCompany: Ptr("AE"),
					StartTime: Ptr(start), EndTime: Ptr(start.Add(time.Hour)), VisitReason: Ptr(VisitReasonInterview),
					Resources:    []Resource{VisitDoorGroup("g1")},
					WeekSchedule: &WeekSchedule{Monday: []TimeRange{{StartTime: "09:00:00", EndTime: "12:00:59"}}}})
				return v, err
			}, nil},
		{"Visitors.Update (clear)", "PUT", "/visitors/v1",
			`{"remarks":"","mobile_phone":"","email":"","visitor_company":"","resources":[]}`, "visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Update(ctx, "v1", &VisitorUpdate{Remarks: Ptr(""), MobilePhone: Ptr(""), Email: Ptr(""),
					VisitorCompany: Ptr(""), Resources: []Resource{}})
				return v, err
			}, nil},
		{"Visitors.Update (keep everything)", "PUT", "/visitors/v1", `{}`, "visitor_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Visitors.Update(ctx, "v1", &VisitorUpdate{})
				return v, err
			}, nil},
		{"Visitors.Delete (cancel)", "DELETE", "/visitors/v1", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) { return none(c.Visitors.Delete(ctx, "v1", nil)) }, nil},
		{"Visitors.Delete (cancel, explicit)", "DELETE", "/visitors/v1", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.Delete(ctx, "v1", &VisitorDeleteOptions{Force: false}))
			}, nil},
		{"Visitors.Delete (force)", "DELETE", "/visitors/v1?is_force=true", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.Delete(ctx, "v1", &VisitorDeleteOptions{Force: true}))
			}, nil},
		{"Visitors.AssignNFCCard", "PUT", "/visitors/v1/nfc_cards", `{"token":"` + tok + `","force_add":true}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.AssignNFCCard(ctx, "v1", &NFCCardAssignment{Token: tok, ForceAdd: true}))
			}, nil},
		{"Visitors.UnassignNFCCard", "PUT", "/visitors/v1/nfc_cards/delete", `{"token":"` + tok + `"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.UnassignNFCCard(ctx, "v1", tok))
			}, nil},
		{"Visitors.AssignPINCode", "PUT", "/visitors/v1/pin_codes", `{"pin_code":"67203419"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.AssignPINCode(ctx, "v1", "67203419"))
			}, nil},
		{"Visitors.UnassignPINCode", "DELETE", "/visitors/v1/pin_codes", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return none(c.Visitors.UnassignPINCode(ctx, "v1")) }, nil},
		{"Visitors.AssignQRCode", "PUT", "/visitors/15a90692-6f3b-4e1c-9886-bcd15e9c3f2d/qr_codes", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.AssignQRCode(ctx, "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d"))
			}, nil},
		{"Visitors.UnassignQRCode", "DELETE", "/visitors/v1/qr_codes", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) { return none(c.Visitors.UnassignQRCode(ctx, "v1")) }, nil},
		{"Visitors.AssignLicensePlates", "PUT", "/visitors/v1/license_plates", `["jq178","bs279"]`, "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.AssignLicensePlates(ctx, "v1", []string{"jq178", "bs279"}))
			}, nil},
		{"Visitors.UnassignLicensePlate", "DELETE", "/visitors/v1/license_plates/p%2F1", "", "webhook_delete",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Visitors.UnassignLicensePlate(ctx, "v1", "p/1"))
			}, nil},
		// Touch passes
		{"TouchPasses.List", "GET", "/credentials/touch_passes?page_num=1&page_size=10&status=PENDING", "", "touch_pass_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, resp, err := c.TouchPasses.List(ctx, &TouchPassListOptions{Status: TouchPassPending, PageNum: 1, PageSize: 10})
				if err == nil {
					lastMessage.Store(resp.Message)
				}
				return v, err
			}, func(t *testing.T, v any) {
				tps := v.([]TouchPass)
				require.Len(t, tps, 1)
				assert.Equal(t, TouchPassPending, tps[0].Status)
				assert.False(t, tps[0].Activated())
				assert.Equal(t, "succ", lastMessage.Load(), "msg is kept, not compared")
			}},
		{"TouchPasses.ListAssignable", "GET", "/credentials/touch_passes/assignable", "", "touch_pass_search",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.TouchPasses.ListAssignable(ctx)
				return v, err
			}, func(t *testing.T, v any) { assert.Len(t, v, 1) }},
		{"TouchPasses.Get", "GET", "/credentials/touch_passes/c83b69ff-1992-4e7f-9287-1e6a161adeea", "", "touch_pass_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.TouchPasses.Get(ctx, "c83b69ff-1992-4e7f-9287-1e6a161adeea")
				return v, err
			}, func(t *testing.T, v any) {
				tp := v.(*TouchPass)
				assert.Equal(t, []TouchPassBundle{{BundleID: "caf6bd5b-6b8d-409a-b500-977a0f02b181", BundleStatus: BundleSuspended,
					DeviceID: "device-id-1", DeviceName: "Example Android", DeviceType: 20, Source: SourceGoogle}}, tp.Bundles)
				assert.JSONEq(t, `{}`, string(tp.ActivatedAt))
				assert.JSONEq(t, `{}`, string(tp.ExpiredAt))
				assert.False(t, tp.Activated())
				assert.False(t, tp.Expires())
				at, err := tp.LastActivity.Time()
				require.NoError(t, err)
				assert.Equal(t, time.Date(2025, 4, 9, 16, 46, 20, 0, time.UTC), at.UTC())
			}},
		{"TouchPasses.Update", "PUT", "/credentials/touch_passes/tp1",
			`{"card_name":"Ada's phone","status":"SUSPENDED","bundles":[{"bundle_id":"b1","bundle_status":"DISABLED"}]}`, "touch_pass_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.TouchPasses.Update(ctx, "tp1", &TouchPassUpdate{CardName: Ptr("Ada's phone"), Status: Ptr(TouchPassSuspended),
					Bundles: []BundleUpdate{{BundleID: "b1", BundleStatus: BundleDisabled}}})
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, TouchPassSuspended, v.(*TouchPass).Status) }},
		// Users' credentials
		{"Users.AssignNFCCard", "PUT", "/users/u1/nfc_cards", `{"token":"` + tok + `"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Users.AssignNFCCard(ctx, "u1", &NFCCardAssignment{Token: tok}))
			}, nil},
		{"Users.UnassignNFCCard", "PUT", "/users/u1/nfc_cards/delete", `{"token":"` + tok + `"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Users.UnassignNFCCard(ctx, "u1", tok))
			}, nil},
		{"Users.AssignPINCode", "PUT", "/users/u%2F1/pin_codes", `{"pin_code":"67203419"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return none(c.Users.AssignPINCode(ctx, "u/1", "67203419"))
			}, nil},
		{"Users.UnassignPINCode", "DELETE", "/users/u1/pin_codes", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return none(c.Users.UnassignPINCode(ctx, "u1")) }, nil},
		{"Users.AssignTouchPass", "PUT", "/users/u1/touch_passes/tp1", "", "touch_pass_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.AssignTouchPass(ctx, "u1", "tp1")
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "70A3-2FAD-181B-4CC9", v.(*TouchPass).CardID) }},
		{"Users.UnassignTouchPass", "DELETE", "/users/u1/touch_passes/tp1", "", "touch_pass_purchase",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.UnassignTouchPass(ctx, "u1", "tp1")
				return v, err
			}, func(t *testing.T, v any) {
				tp := v.(*TouchPass)
				assert.Equal(t, TouchPassInactive, tp.Status)
				assert.Empty(t, tp.UserID)
			}},
		{"Users.BatchAssignTouchPasses", "PUT", "/users/touch_passes/assign", `{"ids":["u1","u2"],"emails":{"u2":"b@example.com"}}`, "touch_pass_search",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.BatchAssignTouchPasses(ctx, &BatchTouchPassAssignment{UserIDs: []string{"u1", "u2"}, Emails: map[string]string{"u2": "b@example.com"}})
				return v, err
			}, func(t *testing.T, v any) {
				tps := v.([]TouchPass)
				require.Len(t, tps, 1)
				assert.Equal(t, TouchPassPending, tps[0].Status)
			}},
	}
}

func TestCredentialOperationsWire(t *testing.T) {
	t.Parallel()
	runWireCases(t, credWireCases())
}
