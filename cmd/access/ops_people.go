package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/access-dev/access"
)

// paged runs a paged list: every page streamed with --all, else one page.
func paged[T any](x *inv, all func(num, size int) stream, list func(num, size int) ([]T, *access.Response, error)) (any, error) {
	num, size := x.page()
	if x.b("all") {
		return all(num, size), nil
	}
	v, resp, err := list(num, size)
	if v == nil {
		v = []T{}
	}
	if err == nil && resp != nil && resp.Pagination != nil && resp.Pagination.Total > len(v) {
		x.a.info(fmt.Sprintf("page %d: %d of %d records (--all for every page)", max(num, 1), len(v), resp.Pagination.Total))
	}
	return v, err
}

var (
	userCols  = []string{"id", "full_name", "user_email", "employee_number", "status"}
	groupCols = []string{"id", "full_name", "up_id:PARENT"}
	polCols   = []string{"id", "name", "schedule_id:SCHEDULE", "resources"}
)

func userStatuses(ss []string) []access.UserStatus {
	out := make([]access.UserStatus, len(ss))
	for i, s := range ss {
		out[i] = access.UserStatus(strings.ToUpper(s))
	}
	return out
}

// peopleOps adds the operations of users and user groups to the registry.
func peopleOps(r *registry) {
	idArg := []argSpec{{name: "user", kind: "user"}}
	r.add(
		&opSpec{path: "users create", sdk: "Users.Create", perm: "edit:user", short: "Register a user", write: true, body: bodyOf[access.UserRequest](),
			flags: []flagSpec{{name: "first-name", usage: "first name (required)"}, {name: "last-name", usage: "last name (required)"},
				{name: "email", usage: "email address (Access 1.22.16 or later)"}, {name: "employee-number", usage: "employee number"},
				{name: "onboard-time", usage: "onboarding date (2006-01-02, RFC 3339 or a duration back)"}},
			cols: userCols, ex: "  access --fake users create --first-name Ada --last-name Lovelace --email ada@example.com",
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.UserRequest, error) {
					on, err := x.t("onboard-time")
					return access.UserRequest{FirstName: x.s("first-name"), LastName: x.s("last-name"), UserEmail: x.s("email"),
						EmployeeNumber: x.s("employee-number"), OnboardTime: on}, err
				})
				if err != nil {
					return nil, err
				}
				u, _, err := x.c.Users.Create(x.a.ctx, &req)
				if err != nil {
					return nil, err
				}
				// The console answers with the id, names and email only:
				// the user is read back, and should that fail, the answer
				// is completed with what was sent.
				x.a.sent.fillSent(u)
				got, _, err := x.c.Users.Get(x.a.ctx, u.ID, nil)
				if err != nil {
					fmt.Fprintf(x.a.stderr, "access: created user %s, but reading it back failed: %s\n", u.ID, oneLine(err.Error()))
					return u, nil
				}
				return got, nil
			}},
		&opSpec{path: "users update", ex: `  access --fake users update "Ada Lovelace" --employee-number E02000`, sdk: "Users.Update", perm: "edit:user", short: "Change a user's fields", write: true, body: bodyOf[access.UserUpdate](), args: idArg,
			flags: []flagSpec{{name: "first-name"}, {name: "last-name"}, {name: "email"}, {name: "employee-number"},
				{name: "onboard-time", usage: "onboarding date (\"\" clears it)"}, {name: "status", usage: "ACTIVE or DEACTIVATED", values: []string{"ACTIVE", "DEACTIVATED"}}},
			long: "A flag left out keeps the user's value; --email \"\", --employee-number \"\" and --onboard-time \"\" clear it.",
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.UserUpdate, error) {
					req := access.UserUpdate{FirstName: x.sp("first-name"), LastName: x.sp("last-name"), UserEmail: x.sp("email"),
						EmployeeNumber: x.sp("employee-number")}
					if x.set("onboard-time") {
						on, err := x.t("onboard-time")
						if err != nil {
							return req, err
						}
						req.OnboardTime = &on
					}
					if x.set("status") {
						req.Status = access.Ptr(access.UserStatus(strings.ToUpper(x.s("status"))))
					}
					return req, nil
				})
				if err != nil {
					return nil, err
				}
				_, err = x.c.Users.Update(x.a.ctx, x.arg(0), &req)
				return x.then("updated user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users get", ex: `  access --fake users get "Ada Lovelace"`, sdk: "Users.Get", perm: "view:user", short: "Fetch a user", args: idArg,
			flags: []flagSpec{{name: "expand-policies", kind: fBool, usage: "embed the access policies"}},
			run: func(x *inv) (any, error) {
				var opts *access.UserGetOptions
				if x.b("expand-policies") {
					opts = &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}}
				}
				u, _, err := x.c.Users.Get(x.a.ctx, x.arg(0), opts)
				return u, err
			}},
		&opSpec{path: "users list", sdk: "Users.List, Users.All", perm: "view:user", short: "List users", paged: true, cols: userCols,
			flags: []flagSpec{{name: "expand-policies", kind: fBool, usage: "embed the access policies"}},
			ex:    "  access --fake users list --all -o jsonl",
			run: func(x *inv) (any, error) {
				opts := func(num, size int) *access.UserListOptions {
					o := &access.UserListOptions{PageNum: num, PageSize: size}
					if x.b("expand-policies") {
						o.Expand = []access.UserExpand{access.UserExpandAccessPolicy}
					}
					return o
				}
				return paged(x, func(num, size int) stream { return seq(x.c.Users.All(x.a.ctx, opts(num, size))) },
					func(num, size int) ([]access.User, *access.Response, error) {
						return x.c.Users.List(x.a.ctx, opts(num, size))
					})
			}},
		&opSpec{path: "users search", ex: `  access --fake users search --keyword lovelace`, sdk: "Users.Search, Users.SearchAll", perm: "view:user", short: "Search users", paged: true, cols: userCols,
			flags: []flagSpec{{name: "keyword", usage: "search text"}, {name: "user-id", kind: fStrings, usage: "user ids"},
				{name: "only-admin", kind: fBool, usage: "administrators only"},
				{name: "status", kind: fStrings, usage: "ACTIVE, DEACTIVATED, PENDING", values: []string{"ACTIVE", "DEACTIVATED", "PENDING"}}},
			run: func(x *inv) (any, error) {
				opts := func(num, size int) *access.UserSearchOptions {
					return &access.UserSearchOptions{Keyword: x.s("keyword"), UserIDs: x.ss("user-id"), OnlyAdmin: x.b("only-admin"),
						Statuses: userStatuses(x.ss("status")), PageNum: num, PageSize: size}
				}
				return paged(x, func(num, size int) stream { return seq(x.c.Users.SearchAll(x.a.ctx, opts(num, size))) },
					func(num, size int) ([]access.User, *access.Response, error) {
						return x.c.Users.Search(x.a.ctx, opts(num, size))
					})
			}},
		&opSpec{path: "users delete", ex: `  access --fake users delete "Dmitri Xu"`, sdk: "Users.Delete", perm: "edit:user", short: "Delete a deactivated user", write: true, args: idArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Users.Delete(x.a.ctx, x.arg(0))
				return done{"deleted user " + x.arg(0)}, err
			}},
		&opSpec{path: "users set-policies", ex: `  access --fake users set-policies "Ada Lovelace" Staff Security`, sdk: "Users.SetAccessPolicies", perm: "edit:user", short: "Set a user's access policies (none: remove all)", write: true, body: bodyOf[[]string](), member: "access_policy_ids",
			args: []argSpec{{name: "user", kind: "user"}, {name: "policy", kind: "policy", variadic: true, optional: true, body: true}},
			run: func(x *inv) (any, error) {
				ids, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.Users.SetAccessPolicies(x.a.ctx, x.arg(0), orEmpty(ids))
				return x.then("set the access policies of user "+x.arg(0), err, reader(func() ([]access.AccessPolicy, *access.Response, error) {
					return x.c.Users.ListAccessPolicies(x.a.ctx, x.arg(0), nil)
				}), polCols...)
			}},
		&opSpec{path: "users policies", ex: `  access --fake users policies ada.lovelace@example.com`, sdk: "Users.ListAccessPolicies", perm: "view:user", short: "List a user's access policies", args: idArg, cols: polCols,
			flags: []flagSpec{{name: "only-user", kind: fBool, usage: "leave out the policies of the user's groups"}},
			run: func(x *inv) (any, error) {
				var opts *access.UserPoliciesOptions
				if x.set("only-user") {
					opts = &access.UserPoliciesOptions{OnlyUserPolicies: access.Ptr(x.b("only-user"))}
				}
				v, _, err := x.c.Users.ListAccessPolicies(x.a.ctx, x.arg(0), opts)
				return v, err
			}},
		&opSpec{path: "users assign-nfc-card", ex: `  access --fake users assign-nfc-card "Ada Lovelace" 4dde097b8012ba204bb95f379dd3a618185c603069e77915bc45649a9c4c3feb`, sdk: "Users.AssignNFCCard", perm: "edit:user", short: "Assign an NFC card to a user", write: true, body: bodyOf[access.NFCCardAssignment](),
			args:  []argSpec{{name: "user", kind: "user"}, {name: "token", body: true}},
			flags: []flagSpec{{name: "force", kind: fBool, usage: "take the card from its current holder"}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.NFCCardAssignment, error) {
					return access.NFCCardAssignment{Token: x.arg(1), ForceAdd: x.b("force")}, nil
				})
				_, err := x.c.Users.AssignNFCCard(x.a.ctx, x.arg(0), &req)
				return x.then("assigned the card to user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users unassign-nfc-card", ex: `  access --fake users unassign-nfc-card dmitri.umarov1@example.com 5ca691404212bd90319f767b22cdc07c5c6549102ffe034f938048bb3c9a10ef`, sdk: "Users.UnassignNFCCard", perm: "edit:user", short: "Take an NFC card from a user", write: true, body: bodyOf[string](), member: "token",
			args: []argSpec{{name: "user", kind: "user"}, {name: "token", body: true}},
			run: func(x *inv) (any, error) {
				token, _ := fromData(x, func() (string, error) { return x.arg(1), nil })
				_, err := x.c.Users.UnassignNFCCard(x.a.ctx, x.arg(0), token)
				return x.then("unassigned the card from user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users assign-pin", sdk: "Users.AssignPINCode", perm: "edit:user", short: "Assign a PIN code to a user (see pin-codes generate)", write: true, body: bodyOf[string](), member: "pin_code",
			long: pinHelp, ex: pinExample("users", demoUserID), flags: []flagSpec{pinFlag}, cols: []string{"id", "pin_code"},
			args: []argSpec{{name: "user", kind: "user"}, {name: "pin", body: true, optional: true}},
			run: func(x *inv) (any, error) {
				return assignPIN(x, "user", func(pin string) error {
					_, err := x.c.Users.AssignPINCode(x.a.ctx, x.arg(0), pin)
					return err
				})
			}},
		&opSpec{path: "users unassign-pin", ex: `  access --fake users unassign-pin "Ada Lovelace"`, sdk: "Users.UnassignPINCode", perm: "edit:user", short: "Remove a user's PIN code", write: true, args: idArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Users.UnassignPINCode(x.a.ctx, x.arg(0))
				return x.then("removed the PIN of user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users assign-touch-pass", ex: `  access --fake users assign-touch-pass rafael.moreau2@example.com 506fea0b-6425-4165-a78c-342e97f2177f`, sdk: "Users.AssignTouchPass", perm: "edit:user", short: "Assign a touch pass to a user", write: true,
			args: []argSpec{{name: "user", kind: "user"}, {name: "touch-pass"}}, cols: touchCols,
			run: func(x *inv) (any, error) {
				v, _, err := x.c.Users.AssignTouchPass(x.a.ctx, x.arg(0), x.arg(1))
				return v, err
			}},
		&opSpec{path: "users unassign-touch-pass", ex: `  access --fake users unassign-touch-pass "Ada Lovelace" c83b69ff-1992-4e7f-9287-1e6a161adeea`, sdk: "Users.UnassignTouchPass", perm: "edit:user", short: "Take a touch pass from a user", write: true,
			args: []argSpec{{name: "user", kind: "user"}, {name: "touch-pass"}}, cols: touchCols,
			run: func(x *inv) (any, error) {
				v, _, err := x.c.Users.UnassignTouchPass(x.a.ctx, x.arg(0), x.arg(1))
				return v, err
			}},
		&opSpec{path: "users batch-assign-touch-passes", ex: `  access --fake users batch-assign-touch-passes elena.eriksen3@example.com blake.castillo4@example.com`, sdk: "Users.BatchAssignTouchPasses", perm: "edit:user",
			short: "Assign unassigned touch passes to users", write: true, args: []argSpec{{name: "user", kind: "user", variadic: true, body: true}}, cols: touchCols,
			body:  bodyOf[access.BatchTouchPassAssignment](),
			flags: []flagSpec{{name: "email", kind: fStrings, usage: "USER=EMAIL to send a user's pass to that address (USER: a full name, email or id)"}},
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.BatchTouchPassAssignment, error) {
					req := access.BatchTouchPassAssignment{UserIDs: x.rest(0)}
					for _, kv := range x.ss("email") {
						k, v, okk := strings.Cut(kv, "=")
						if !okk {
							return req, usageErrorf("--email %q: want USER=EMAIL", kv)
						}
						k, err := x.resolve("user", k)
						if err != nil {
							return req, err
						}
						if req.Emails == nil {
							req.Emails = map[string]string{}
						}
						req.Emails[k] = v
					}
					return req, nil
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Users.BatchAssignTouchPasses(x.a.ctx, &req)
				return v, err
			}},
		&opSpec{path: "users assign-license-plates", ex: `  access --fake users assign-license-plates "Ada Lovelace" KX4521Q`, sdk: "Users.AssignLicensePlates", perm: "edit:user", short: "Add licence plate numbers to a user", write: true, body: bodyOf[[]string](),
			args: []argSpec{{name: "user", kind: "user"}, {name: "plate", variadic: true, body: true}},
			run: func(x *inv) (any, error) {
				plates, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.Users.AssignLicensePlates(x.a.ctx, x.arg(0), plates)
				return x.then("assigned the plates to user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users unassign-license-plate", ex: `  access --fake users unassign-license-plate "Ada Lovelace" 5cac1825-f5e9-410d-a32e-a1fb9fc83b92`, sdk: "Users.UnassignLicensePlate", perm: "edit:user", short: "Remove a licence plate from a user", write: true,
			args: []argSpec{{name: "user", kind: "user"}, {name: "plate-id"}},
			run: func(x *inv) (any, error) {
				_, err := x.c.Users.UnassignLicensePlate(x.a.ctx, x.arg(0), x.arg(1))
				return x.then("removed the plate from user "+x.arg(0), err, reader(func() (*access.User, *access.Response, error) { return x.c.Users.Get(x.a.ctx, x.arg(0), nil) }))
			}},
		&opSpec{path: "users upload-avatar", ex: `  access --fake users upload-avatar "Ada Lovelace" ada.png`, sdk: "Users.UploadAvatar", perm: "edit:user", short: "Upload a user's profile picture (local users only)", write: true,
			args: []argSpec{{name: "user", kind: "user"}, {name: "file"}},
			run: func(x *inv) (any, error) {
				f, err := os.Open(x.arg(1))
				if err != nil {
					return nil, usageErrorf("%v", err)
				}
				defer f.Close()
				v, _, err := x.c.Users.UploadAvatar(x.a.ctx, x.arg(0), &access.AvatarOptions{FileName: filepath.Base(x.arg(1))}, f)
				return v, err
			}},
	)

	gArg := []argSpec{{name: "group", kind: "user-group"}}
	r.add(
		&opSpec{path: "user-groups create", ex: `  access --fake user-groups create --name "Day shift" --parent Facilities`, sdk: "UserGroups.Create, UserGroups.CreateAndGet", perm: "edit:user", short: "Create a user group", write: true, body: bodyOf[access.UserGroupRequest](), cols: groupCols,
			flags: []flagSpec{{name: "name", usage: "group name (required)"}, {name: "parent", usage: "parent group (name or id)"}},
			run: func(x *inv) (any, error) {
				req, err := userGroupRequest(x)
				if err != nil {
					return nil, err
				}
				g, _, err := x.c.UserGroups.CreateAndGet(x.a.ctx, &req)
				return g, err
			}},
		&opSpec{path: "user-groups list", sdk: "UserGroups.List", perm: "view:user", short: "List user groups", cols: groupCols,
			ex:  "  access --fake user-groups list",
			run: func(x *inv) (any, error) { v, _, err := x.c.UserGroups.List(x.a.ctx); return v, err }},
		&opSpec{path: "user-groups get", ex: `  access --fake user-groups get "Facilities / Night shift"`, sdk: "UserGroups.Get", perm: "view:user", short: "Fetch a user group", args: gArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.UserGroups.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "user-groups update", ex: `  access --fake user-groups update "Night shift" --name "Late shift"`, sdk: "UserGroups.Update", perm: "edit:user", short: "Rename or move a user group", write: true, body: bodyOf[access.UserGroupUpdate](), args: gArg,
			long:  "--name left out keeps the name (the console requires one on every update: the current name is read and sent again); --parent left out keeps the parent.",
			flags: []flagSpec{{name: "name", usage: "group name (left out: kept)"}, {name: "parent", usage: "parent group (name or id; \"\" for the top level; left out keeps it)"}},
			run: func(x *inv) (any, error) {
				req, err := userGroupUpdate(x)
				if err != nil {
					return nil, err
				}
				_, err = x.c.UserGroups.Update(x.a.ctx, x.arg(0), &req)
				return x.then("updated user group "+x.arg(0), err, reader(func() (*access.UserGroup, *access.Response, error) { return x.c.UserGroups.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "user-groups delete", ex: `  access --fake user-groups delete "Temporary staff"`, sdk: "UserGroups.Delete", perm: "edit:user", short: "Delete an empty user group", write: true, args: gArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.UserGroups.Delete(x.a.ctx, x.arg(0))
				return done{"deleted user group " + x.arg(0)}, err
			}},
		&opSpec{path: "user-groups add-users", ex: `  access --fake user-groups add-users "Night shift" ada.lovelace@example.com mei.eriksen6@example.com`, sdk: "UserGroups.AddUsers", perm: "edit:user", short: "Add users to a group", write: true, body: bodyOf[[]string](),
			args: []argSpec{{name: "group", kind: "user-group"}, {name: "user", kind: "user", variadic: true, body: true}},
			run: func(x *inv) (any, error) {
				ids, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.UserGroups.AddUsers(x.a.ctx, x.arg(0), ids)
				return x.then("added the users to group "+x.arg(0), err, reader(func() ([]access.User, *access.Response, error) { return x.c.UserGroups.ListUsers(x.a.ctx, x.arg(0)) }), userCols...)
			}},
		&opSpec{path: "user-groups remove-users", ex: `  access --fake user-groups remove-users Facilities "Blake Castillo"`, sdk: "UserGroups.RemoveUsers", perm: "edit:user", short: "Remove users from a group", write: true, body: bodyOf[[]string](),
			args: []argSpec{{name: "group", kind: "user-group"}, {name: "user", kind: "user", variadic: true, body: true}},
			run: func(x *inv) (any, error) {
				ids, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.UserGroups.RemoveUsers(x.a.ctx, x.arg(0), ids)
				return x.then("removed the users from group "+x.arg(0), err, reader(func() ([]access.User, *access.Response, error) { return x.c.UserGroups.ListUsers(x.a.ctx, x.arg(0)) }), userCols...)
			}},
		&opSpec{path: "user-groups users", sdk: "UserGroups.ListUsers, UserGroups.ListAllUsers", perm: "view:user",
			short: "List a group's members", args: gArg, cols: userCols,
			flags: []flagSpec{{name: "subgroups", kind: fBool, usage: "include the members of subgroups"}},
			ex:    "  access --fake user-groups users Facilities --subgroups",
			run: func(x *inv) (any, error) {
				if x.b("subgroups") {
					v, _, err := x.c.UserGroups.ListAllUsers(x.a.ctx, x.arg(0))
					return v, err
				}
				v, _, err := x.c.UserGroups.ListUsers(x.a.ctx, x.arg(0))
				return v, err
			}},
		&opSpec{path: "user-groups set-policies", ex: `  access --fake user-groups set-policies Facilities Cleaning Staff`, sdk: "UserGroups.SetAccessPolicies", perm: "edit:user", short: "Set a group's access policies", write: true, body: bodyOf[[]string](), member: "access_policy_ids",
			args: []argSpec{{name: "group", kind: "user-group"}, {name: "policy", kind: "policy", variadic: true, optional: true, body: true}},
			run: func(x *inv) (any, error) {
				ids, _ := fromData(x, func() ([]string, error) { return x.rest(1), nil })
				_, err := x.c.UserGroups.SetAccessPolicies(x.a.ctx, x.arg(0), orEmpty(ids))
				return x.then("set the access policies of group "+x.arg(0), err, reader(func() ([]access.AccessPolicy, *access.Response, error) {
					return x.c.UserGroups.ListAccessPolicies(x.a.ctx, x.arg(0))
				}), polCols...)
			}},
		&opSpec{path: "user-groups policies", ex: `  access --fake user-groups policies Facilities -o json`, sdk: "UserGroups.ListAccessPolicies", perm: "view:user", short: "List a group's access policies", args: gArg, cols: polCols,
			run: func(x *inv) (any, error) {
				v, _, err := x.c.UserGroups.ListAccessPolicies(x.a.ctx, x.arg(0))
				return v, err
			}},
	)
}

// orEmpty turns nil into an empty slice (the API's "remove all").
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func userGroupRequest(x *inv) (access.UserGroupRequest, error) {
	return fromData(x, func() (access.UserGroupRequest, error) {
		req := access.UserGroupRequest{Name: x.s("name")}
		if p := x.s("parent"); p != "" {
			r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
			id, err := r.resolve("user-group", p)
			if err != nil {
				return req, err
			}
			req.UpID = id
		}
		return req, nil
	})
}

// userGroupUpdate reads --data or the flags: --parent left out keeps the
// parent, --parent "" asks for a top-level group.
func userGroupUpdate(x *inv) (access.UserGroupUpdate, error) {
	return fromData(x, func() (access.UserGroupUpdate, error) {
		req := access.UserGroupUpdate{Name: x.s("name")}
		if !x.set("name") { // the vendor requires the name on every update
			g, _, err := x.c.UserGroups.Get(x.a.ctx, x.arg(0))
			if err != nil {
				return req, err
			}
			req.Name = g.Name
		}
		if x.set("parent") {
			req.UpID = access.Ptr("")
			if p := x.s("parent"); p != "" {
				r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
				id, err := r.resolve("user-group", p)
				if err != nil {
					return req, err
				}
				req.UpID = &id
			}
		}
		return req, nil
	})
}
