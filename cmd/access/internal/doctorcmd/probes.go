package doctorcmd

import (
	"context"
	"io"
	"time"

	"github.com/access-dev/access"
)

// probe is the outcome of one read-only operation, or why it was
// skipped.
type probe struct {
	op, perm string
	err      error
	raw      []exchange
	skipped  string // "no visitor to probe"
}

// probeAll runs the read-only operations: those without arguments, then
// those that take the id of a record the first ones returned.
func probeAll(ctx context.Context, c *access.Client, rec *recorder) []probe {
	var out []probe
	run := func(op, perm string, f func() error) {
		rec.reset()
		err := f()
		out = append(out, probe{op: op, perm: perm, err: err, raw: rec.take()})
	}
	var doorID, groupID, deviceID, userID, ugID, visitorID, policyID, scheduleID, holidayID, cardToken, passID string
	var passCardID, resourceID, avatarPath string
	run("Doors.List", "view:space", func() error {
		v, _, err := c.Doors.List(ctx)
		if len(v) > 0 {
			doorID = v[0].ID
		}
		return err
	})
	run("Doors.GetEmergency", "view:space", func() error { _, _, err := c.Doors.GetEmergency(ctx); return err })
	run("DoorGroups.List", "view:space", func() error {
		v, _, err := c.DoorGroups.List(ctx)
		if len(v) > 0 {
			groupID = v[0].ID
		}
		return err
	})
	run("DoorGroups.Topology", "view:space", func() error { _, _, err := c.DoorGroups.Topology(ctx); return err })
	run("Devices.List", "view:device", func() error {
		v, _, err := c.Devices.List(ctx, nil)
		for _, g := range v {
			if len(g) > 0 && deviceID == "" {
				deviceID = g[0].ID
			}
		}
		return err
	})
	run("Users.List", "view:user", func() error {
		v, _, err := c.Users.List(ctx, &access.UserListOptions{PageSize: 5})
		if len(v) > 0 {
			userID = v[0].ID
		}
		return err
	})
	run("Users.Search", "view:user", func() error {
		v, _, err := c.Users.Search(ctx, &access.UserSearchOptions{PageSize: 5})
		for _, u := range v {
			if u.AvatarRelativePath != "" && avatarPath == "" {
				avatarPath = u.AvatarRelativePath
			}
		}
		return err
	})
	run("UserGroups.List", "view:user", func() error {
		v, _, err := c.UserGroups.List(ctx)
		if len(v) > 0 {
			ugID = v[0].ID
		}
		return err
	})
	run("Identity.ListResources", "view:user", func() error { _, _, err := c.Identity.ListResources(ctx, nil); return err })
	run("Visitors.List", "view:visitor", func() error {
		v, _, err := c.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 5})
		if len(v) > 0 {
			visitorID = v[0].ID
		}
		return err
	})
	run("AccessPolicies.List", "view:policy", func() error {
		v, _, err := c.AccessPolicies.List(ctx)
		if len(v) > 0 {
			policyID = v[0].ID
		}
		return err
	})
	run("Schedules.List", "view:policy", func() error {
		v, _, err := c.Schedules.List(ctx)
		if len(v) > 0 {
			scheduleID = v[0].ID
		}
		return err
	})
	run("HolidayGroups.List", "view:policy", func() error {
		v, _, err := c.HolidayGroups.List(ctx)
		if len(v) > 0 {
			holidayID = v[0].ID
		}
		return err
	})
	run("NFCCards.List", "view:credential", func() error {
		v, _, err := c.NFCCards.List(ctx, &access.NFCCardListOptions{PageSize: 5})
		if len(v) > 0 {
			cardToken = v[0].Token
		}
		return err
	})
	run("TouchPasses.List", "view:credential", func() error {
		v, _, err := c.TouchPasses.List(ctx, &access.TouchPassListOptions{PageSize: 5})
		if len(v) > 0 {
			passID = v[0].ID
		}
		for _, p := range v {
			if p.CardID != "" && passCardID == "" {
				passCardID = p.CardID
			}
		}
		return err
	})
	run("TouchPasses.ListAssignable", "view:credential", func() error { _, _, err := c.TouchPasses.ListAssignable(ctx); return err })
	run("SystemLogs.List", "view:system_log", func() error {
		v, _, err := c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageSize: 5})
		for _, l := range v {
			for _, t := range l.Source.Target {
				if t.Type == "activities_resource" && t.ID != "" && resourceID == "" {
					resourceID = t.ID
				}
			}
		}
		return err
	})
	run("SystemLogs.Export", "view:system_log", func() error {
		now := time.Now()
		_, err := c.SystemLogs.Export(ctx, &access.SystemLogExportRequest{Topic: access.SystemLogTopicAll, Since: now.Add(-time.Hour), Until: now, Timezone: "UTC"}, io.Discard)
		return err
	})
	run("Webhooks.List", "view:webhook", func() error { _, _, err := c.Webhooks.List(ctx); return err })
	// withID probes an operation on a record an earlier listing gave,
	// or records that there was none.
	withID := func(id, what, op, perm string, f func() error) {
		if id == "" {
			out = append(out, probe{op: op, perm: perm, skipped: "no " + what + " to probe"})
			return
		}
		run(op, perm, f)
	}
	withID(doorID, "door", "Doors.Get", "view:space", func() error { _, _, err := c.Doors.Get(ctx, doorID); return err })
	withID(doorID, "door", "Doors.GetLockRule", "view:space", func() error { _, _, err := c.Doors.GetLockRule(ctx, doorID); return err })
	withID(groupID, "door group", "DoorGroups.Get", "view:space", func() error { _, _, err := c.DoorGroups.Get(ctx, groupID); return err })
	withID(deviceID, "device", "Devices.GetSettings", "view:device", func() error { _, _, err := c.Devices.GetSettings(ctx, deviceID); return err })
	withID(userID, "user", "Users.Get", "view:user", func() error { _, _, err := c.Users.Get(ctx, userID, nil); return err })
	withID(userID, "user", "Users.ListAccessPolicies", "view:user", func() error { _, _, err := c.Users.ListAccessPolicies(ctx, userID, nil); return err })
	withID(userID, "user", "Identity.ListForUser", "view:user", func() error { _, _, err := c.Identity.ListForUser(ctx, userID); return err })
	withID(ugID, "user group", "UserGroups.Get", "view:user", func() error { _, _, err := c.UserGroups.Get(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListUsers", "view:user", func() error { _, _, err := c.UserGroups.ListUsers(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListAllUsers", "view:user", func() error { _, _, err := c.UserGroups.ListAllUsers(ctx, ugID); return err })
	withID(ugID, "user group", "UserGroups.ListAccessPolicies", "view:user", func() error { _, _, err := c.UserGroups.ListAccessPolicies(ctx, ugID); return err })
	withID(ugID, "user group", "Identity.ListForUserGroup", "view:user", func() error { _, _, err := c.Identity.ListForUserGroup(ctx, ugID); return err })
	withID(visitorID, "visitor", "Visitors.Get", "view:visitor", func() error { _, _, err := c.Visitors.Get(ctx, visitorID); return err })
	withID(policyID, "access policy", "AccessPolicies.Get", "view:policy", func() error { _, _, err := c.AccessPolicies.Get(ctx, policyID); return err })
	withID(scheduleID, "schedule", "Schedules.Get", "view:policy", func() error { _, _, err := c.Schedules.Get(ctx, scheduleID); return err })
	withID(holidayID, "holiday group", "HolidayGroups.Get", "view:policy", func() error { _, _, err := c.HolidayGroups.Get(ctx, holidayID); return err })
	withID(cardToken, "NFC card", "NFCCards.Get", "view:credential", func() error { _, _, err := c.NFCCards.Get(ctx, cardToken); return err })
	withID(passID, "touch pass", "TouchPasses.Get", "view:credential", func() error { _, _, err := c.TouchPasses.Get(ctx, passID); return err })
	withID(passCardID, "touch pass card id", "TouchPasses.Search", "view:credential", func() error {
		_, _, err := c.TouchPasses.Search(ctx, passCardID)
		return err
	})
	withID(visitorID, "visitor", "QRCodes.Download", "view:credential", func() error {
		_, err := c.QRCodes.Download(ctx, visitorID, io.Discard)
		return err
	})
	// A log entry's media, then a static file: the entry's thumbnail (or
	// clip), else a user's avatar.
	staticPath := avatarPath
	withID(resourceID, "log entry with a resource", "SystemLogs.GetResource", "view:system_log", func() error {
		res, _, err := c.SystemLogs.GetResource(ctx, resourceID)
		if res != nil {
			staticPath = firstNonEmpty(res.VideoRecordThumbnail, res.VideoRecord, staticPath)
		}
		return err
	})
	withID(staticPath, "static file (a log resource or an avatar)", "SystemLogs.DownloadStatic", "view:system_log", func() error {
		_, err := c.SystemLogs.DownloadStatic(ctx, staticPath, io.Discard)
		return err
	})
	// An enrollment session is opened only by NFCCards.StartEnrollment, a
	// write, and no operation lists them.
	out = append(out, probe{op: "NFCCards.EnrollmentStatus", perm: "edit:credential",
		skipped: "no enrollment session to probe (only nfc-cards start-enrollment, a write, opens one)"})
	return out
}
