package main

import (
	"errors"
	"strings"

	"github.com/access-dev/access"
)

// identityOps adds the operations of UniFi Identity (invitations and the
// resources of users and groups) to the registry.
func identityOps(r *registry) {
	gArg := []argSpec{{name: "group", kind: "user-group"}}
	idTypes := []string{"ev_station", "vpn", "wifi"}
	r.add(
		&opSpec{path: "identity invite", ex: `  access --fake identity invite "Ada Lovelace" --email "Ada Lovelace=ada@example.net" -o json`, sdk: "Identity.SendInvitations", perm: "edit:user", short: "Send UniFi Identity invitations", write: true, body: bodyOf[[]access.Invitation](),
			long:  "Prints a line per invitation: the user, the address given (none: the user's own) and invited or failed, with the console's reason; a failure makes the exit status 1, the others having been sent.",
			cols:  []string{"user_id", "email", "status", "error_code", "detail"},
			args:  []argSpec{{name: "user", kind: "user", variadic: true, optional: true, body: true}},
			flags: []flagSpec{{name: "email", kind: fStrings, usage: "USER=EMAIL to invite at (and set) that address (USER: a full name, email or id)"}},
			run: func(x *inv) (any, error) {
				invs, err := fromData(x, func() ([]access.Invitation, error) {
					var invs []access.Invitation
					emails := map[string]string{}
					for _, kv := range x.ss("email") {
						k, v, okk := strings.Cut(kv, "=")
						if !okk {
							return nil, usageErrorf("--email %q: want USER=EMAIL", kv)
						}
						k, err := x.resolve("user", k)
						if err != nil {
							return nil, err
						}
						emails[k] = v
					}
					for _, u := range x.rest(0) {
						invs = append(invs, access.Invitation{UserID: u, Email: emails[u]})
					}
					return invs, nil
				})
				if err != nil {
					return nil, err
				}
				failed, _, err := x.c.Identity.SendInvitations(x.a.ctx, invs)
				var partly *access.InvitationError
				if err != nil && !errors.As(err, &partly) {
					return nil, err
				}
				results := invitationResults(invs, failed)
				if partly != nil {
					// The others were sent: they are shown, and the failures
					// make the exit status.
					if err := x.a.emit(results, x.spec.cols); err != nil {
						return nil, err
					}
					return nil, err
				}
				return results, nil
			}},
		&opSpec{path: "identity resources", ex: `  access --fake identity resources --type wifi,vpn`, sdk: "Identity.ListResources", perm: "view:user", short: "List the Identity resources (EV stations, VPNs, Wi-Fi)",
			flags: []flagSpec{{name: "type", kind: fStrings, usage: "ev_station, vpn, wifi", values: idTypes}},
			run: func(x *inv) (any, error) {
				var opts *access.IdentityResourceOptions
				for _, t := range x.ss("type") {
					if opts == nil {
						opts = &access.IdentityResourceOptions{}
					}
					opts.Types = append(opts.Types, access.IdentityResourceType(t))
				}
				v, _, err := x.c.Identity.ListResources(x.a.ctx, opts)
				return v, err
			}},
		&opSpec{path: "identity assign-user", ex: `  access --fake identity assign-user "Ada Lovelace" 5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b --type ev_station`, sdk: "Identity.AssignToUser", perm: "edit:user", short: "Assign Identity resources to a user", write: true, body: bodyOf[access.IdentityAssignment](),
			args:  []argSpec{{name: "user", kind: "user"}, {name: "resource-id", variadic: true, body: true}},
			flags: []flagSpec{{name: "type", usage: "ev_station, vpn or wifi (required)", values: idTypes}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.IdentityAssignment, error) {
					return access.IdentityAssignment{ResourceType: access.IdentityResourceType(x.s("type")), ResourceIDs: x.rest(1)}, nil
				})
				_, err := x.c.Identity.AssignToUser(x.a.ctx, x.arg(0), &req)
				return x.then("assigned the resources to user "+x.arg(0), err, reader(func() (*access.IdentityResources, *access.Response, error) {
					return x.c.Identity.ListForUser(x.a.ctx, x.arg(0))
				}))
			}},
		&opSpec{path: "identity user-resources", ex: `  access --fake identity user-resources "Ada Lovelace"`, sdk: "Identity.ListForUser", perm: "view:user", short: "List a user's Identity resources",
			args: []argSpec{{name: "user", kind: "user"}},
			run:  func(x *inv) (any, error) { v, _, err := x.c.Identity.ListForUser(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "identity assign-group", ex: `  access --fake identity assign-group Facilities 6b2f3c4d-5e6f-4a71-9b8c-0d1e2f3a4b5c --type wifi`, sdk: "Identity.AssignToUserGroup", perm: "edit:user", short: "Assign Identity resources to a user group", write: true, body: bodyOf[access.IdentityAssignment](),
			args:  []argSpec{{name: "group", kind: "user-group"}, {name: "resource-id", variadic: true, body: true}},
			flags: []flagSpec{{name: "type", usage: "ev_station, vpn or wifi (required)", values: idTypes}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.IdentityAssignment, error) {
					return access.IdentityAssignment{ResourceType: access.IdentityResourceType(x.s("type")), ResourceIDs: x.rest(1)}, nil
				})
				_, err := x.c.Identity.AssignToUserGroup(x.a.ctx, x.arg(0), &req)
				return x.then("assigned the resources to group "+x.arg(0), err, reader(func() (*access.IdentityResources, *access.Response, error) {
					return x.c.Identity.ListForUserGroup(x.a.ctx, x.arg(0))
				}))
			}},
		&opSpec{path: "identity group-resources", ex: `  access --fake identity group-resources Facilities`, sdk: "Identity.ListForUserGroup", perm: "view:user", short: "List a user group's Identity resources",
			args: gArg,
			run: func(x *inv) (any, error) {
				v, _, err := x.c.Identity.ListForUserGroup(x.a.ctx, x.arg(0))
				return v, err
			}},
	)
}

// invitationResult is the outcome of one invitation of identity invite.
type invitationResult struct {
	UserID string `json:"user_id"`
	// Email is the address given (empty: the user's own).
	Email     string `json:"email,omitempty"`
	Status    string `json:"status"` // invited, failed
	ErrorCode string `json:"error_code,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

// invitationResults lists each invitation sent, in order, as invited or
// as failed with its failure (matched by user id, each failure once).
func invitationResults(invs []access.Invitation, failed []access.InvitationFailure) []invitationResult {
	out := make([]invitationResult, len(invs))
	used := make([]bool, len(failed))
	for i, in := range invs {
		out[i] = invitationResult{UserID: in.UserID, Email: in.Email, Status: "invited"}
		for j, f := range failed {
			if !used[j] && f.UserID == in.UserID {
				used[j] = true
				out[i].Status, out[i].ErrorCode, out[i].Detail = "failed", string(f.ErrorCode), f.ErrorMsg
				break
			}
		}
	}
	return out
}
