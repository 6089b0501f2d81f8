package access

import "context"

// UsersService fetches users. Get it from [Client.Users].
type UsersService service

// UserExpand names an object a user may embed (expand[]).
type UserExpand string

// UserExpandAccessPolicy embeds the user's access policies
// ([User.AccessPolicies]); it is the only value the API accepts.
const UserExpandAccessPolicy UserExpand = "access_policy"

// UserGetOptions selects what [UsersService.Get] embeds.
type UserGetOptions struct {
	// Expand embeds related objects (query "expand[]", repeated).
	Expand []UserExpand `url:"expand,brackets,omitempty"`
}

// Get fetches the user with the given id.
//
// API: GET /api/v1/developer/users/{id} (permission view:user)
func (s *UsersService) Get(ctx context.Context, id string, opts *UserGetOptions) (*User, *Response, error) {
	const op = "Users.Get"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if opts != nil {
		for _, e := range opts.Expand {
			if e == "" {
				return nil, nil, invalidArg(op, "Expand", "must not contain an empty value")
			}
		}
	}
	return call[User](ctx, s.client, "GET", "/users/"+pathSeg(id), opts, nil, true)
}
