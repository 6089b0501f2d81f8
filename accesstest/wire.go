package accesstest

import (
	"github.com/access-dev/access"
)

// The fake's own JSON views of its records: the keys and shapes a console
// sends (checked against the vendor's samples in testdata/samples), which
// the SDK's types, lenient on input, do not always write the same way.
// Fields of these views shadow the embedded record's fields of the same
// JSON name.

// userWire is a user as the user endpoints send it: nfc_cards,
// license_plates, access_policy_ids, alias and phone always present,
// access_policies too when expanded ([] for none), pin_code null when
// unset, touch_pass one object (absent when none).
type userWire struct {
	*access.User
	Alias          string                `json:"alias"`
	Phone          string                `json:"phone"`
	NFCCards       []access.NFCCard      `json:"nfc_cards"`
	LicensePlates  []access.LicensePlate `json:"license_plates"`
	PINCode        *access.PINCode       `json:"pin_code"`
	PolicyIDs      []string              `json:"access_policy_ids"`
	AccessPolicies *[]policyWire         `json:"access_policies,omitempty"`
	TouchPass      *access.TouchPass     `json:"touch_pass,omitempty"`
}

func userView(u *access.User) userWire {
	w := userWire{User: u, Alias: u.Alias, Phone: u.Phone, NFCCards: nonNilSlice(u.NFCCards),
		LicensePlates: nonNilSlice(u.LicensePlates), PINCode: u.PINCode, PolicyIDs: nonNilSlice(u.AccessPolicyIDs)}
	if u.AccessPolicies != nil { // expand[]=access_policy: [] when there are none
		ps := nonNilSlice(policyViews(u.AccessPolicies))
		w.AccessPolicies = &ps
	}
	if len(u.TouchPass) > 0 {
		tp := detailPass(&u.TouchPass[0])
		w.TouchPass = &tp
	}
	return w
}

// memberWire is a user as user-group member lists send it.
type memberWire struct {
	ID                 string            `json:"id"`
	FirstName          string            `json:"first_name"`
	LastName           string            `json:"last_name"`
	FullName           string            `json:"full_name"`
	Alias              string            `json:"alias"`
	Username           string            `json:"username"`
	Email              string            `json:"email"`
	UserEmail          string            `json:"user_email"`
	EmailStatus        string            `json:"email_status"`
	Phone              string            `json:"phone"`
	EmployeeNumber     string            `json:"employee_number"`
	OnboardTime        access.UnixTime   `json:"onboard_time"`
	Status             access.UserStatus `json:"status"`
	AvatarRelativePath string            `json:"avatar_relative_path"`
}

func memberView(u *access.User) memberWire {
	return memberWire{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, FullName: u.FullName, Alias: u.Alias,
		Username: u.Username, Email: u.Email, UserEmail: u.UserEmail, EmailStatus: u.EmailStatus, Phone: u.Phone,
		EmployeeNumber: u.EmployeeNumber, OnboardTime: u.OnboardTime, Status: u.Status, AvatarRelativePath: u.AvatarRelativePath}
}

// searchWire is a user as the user search sends it: a member with its
// cards and PIN.
type searchWire struct {
	memberWire
	NFCCards []access.NFCCard `json:"nfc_cards"`
	PINCode  *access.PINCode  `json:"pin_code"`
}

func searchView(u *access.User) searchWire {
	return searchWire{memberWire: memberView(u), NFCCards: nonNilSlice(u.NFCCards), PINCode: u.PINCode}
}

// policyWire is an access policy: its resources carry id and type only.
type policyWire struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Resources  []resourceWire `json:"resources"`
	ScheduleID string         `json:"schedule_id"`
}

type resourceWire struct {
	ID   string              `json:"id"`
	Type access.ResourceType `json:"type"`
}

func policyView(p *access.AccessPolicy) policyWire {
	w := policyWire{ID: p.ID, Name: p.Name, ScheduleID: p.ScheduleID, Resources: []resourceWire{}}
	for _, r := range p.Resources {
		w.Resources = append(w.Resources, resourceWire{ID: r.ID, Type: r.Type})
	}
	return w
}

func policyViews(ps []access.AccessPolicy) []policyWire {
	out := make([]policyWire, len(ps))
	for i := range ps {
		out[i] = policyView(&ps[i])
	}
	return out
}

// cardWire is an NFC card of the card list: alias and note always
// present, the holder with its avatar.
type cardWire struct {
	access.NFCCard
	Alias string     `json:"alias"`
	Note  string     `json:"note"`
	User  *ownerWire `json:"user,omitempty"`
}

type ownerWire struct {
	access.NFCCardOwner
	Avatar string `json:"avatar"`
}

func cardView(c access.NFCCard) cardWire {
	w := cardWire{NFCCard: c, Alias: c.Alias, Note: c.Note}
	if c.User != nil {
		w.User = &ownerWire{NFCCardOwner: *c.User, Avatar: c.User.Avatar}
	}
	return w
}

// targetWire is a system-log target with its alternate id and name
// always present.
type targetWire struct {
	access.SystemLogTarget
	AlternateID   string `json:"alternate_id"`
	AlternateName string `json:"alternate_name"`
}

func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// logWire is a system-log entry with its targets' alternate id and name
// always present.
type logWire struct {
	access.SystemLog
	Source sourceWire `json:"_source"`
}

type sourceWire struct {
	access.SystemLogSource
	Target []targetWire `json:"target"`
}

func logView(e access.SystemLog) logWire {
	w := logWire{SystemLog: e, Source: sourceWire{SystemLogSource: e.Source, Target: []targetWire{}}}
	for _, t := range e.Source.Target {
		w.Source.Target = append(w.Source.Target, targetWire{SystemLogTarget: t, AlternateID: t.AlternateID, AlternateName: t.AlternateName})
	}
	return w
}
