package access

import (
	"context"
	"strconv"
	"strings"
)

// The credential operations of users: NFC cards, PIN codes, touch passes
// and licence plates.

// AssignNFCCard gives a user an NFC card (a token from
// [NFCCardsService.Enroll] or the card list). A card another user or
// visitor holds is refused with CODE_CREDS_NFC_HAS_BIND_USER
// ([ErrConflict]) unless ForceAdd moves it.
//
// API: PUT /api/v1/developer/users/:id/nfc_cards (permission edit:user)
func (s *UsersService) AssignNFCCard(ctx context.Context, id string, req *NFCCardAssignment) (*Response, error) {
	const op = "Users.AssignNFCCard"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := req.validate(op); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/users/"+pathSeg(id)+"/nfc_cards", nil, req, false)
	return resp, err
}

// UnassignNFCCard takes an NFC card back from a user.
//
// API: PUT /api/v1/developer/users/:id/nfc_cards/delete (permission edit:user)
func (s *UsersService) UnassignNFCCard(ctx context.Context, id, token string) (*Response, error) {
	const op = "Users.UnassignNFCCard"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if strings.TrimSpace(token) == "" {
		return nil, invalidArg(op, "token", "must not be empty")
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/users/"+pathSeg(id)+"/nfc_cards/delete", nil, tokenBody{token}, false)
	return resp, err
}

// AssignPINCode gives a user a PIN (from [PINCodesService.Generate]),
// replacing any PIN they had. A PIN someone else uses is refused with
// CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST ([ErrConflict]).
//
// API: PUT /api/v1/developer/users/:id/pin_codes (permission edit:user)
func (s *UsersService) AssignPINCode(ctx context.Context, id, pin string) (*Response, error) {
	const op = "Users.AssignPINCode"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkPIN(op, pin); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/users/"+pathSeg(id)+"/pin_codes", nil, pinBody{pin}, false)
	return resp, err
}

// UnassignPINCode removes a user's PIN.
//
// API: DELETE /api/v1/developer/users/:id/pin_codes (permission edit:user)
func (s *UsersService) UnassignPINCode(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Users.UnassignPINCode", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/users/"+pathSeg(id)+"/pin_codes", nil)
}

// AssignTouchPass hands a touch pass (an assignable one, see
// [TouchPassesService.ListAssignable]) to a user (controller 3.2.20 or
// later). The pass comes back PENDING until the user adds it to a wallet.
//
// API: PUT /api/v1/developer/users/:user_id/touch_passes/:touch_pass_id (permission edit:user)
func (s *UsersService) AssignTouchPass(ctx context.Context, userID, touchPassID string) (*TouchPass, *Response, error) {
	const op = "Users.AssignTouchPass"
	if err := checkID(op, "userID", userID); err != nil {
		return nil, nil, err
	}
	if err := checkID(op, "touchPassID", touchPassID); err != nil {
		return nil, nil, err
	}
	return call[TouchPass](ctx, s.client, "PUT", "/users/"+pathSeg(userID)+"/touch_passes/"+pathSeg(touchPassID), nil, nil, true)
}

// UnassignTouchPass takes a touch pass back from a user (controller
// 3.2.20 or later). The pass comes back SUSPENDED (it was in a wallet) or
// INACTIVE, with empty user fields. Like every delete, when the answer to
// a first attempt was lost and the retry finds the pass no longer
// assigned, the call has succeeded: the pass is then nil and err is nil;
// read it with [TouchPassesService.Get].
//
// API: DELETE /api/v1/developer/users/:user_id/touch_passes/:touch_pass_id (permission edit:user)
func (s *UsersService) UnassignTouchPass(ctx context.Context, userID, touchPassID string) (*TouchPass, *Response, error) {
	const op = "Users.UnassignTouchPass"
	if err := checkID(op, "userID", userID); err != nil {
		return nil, nil, err
	}
	if err := checkID(op, "touchPassID", touchPassID); err != nil {
		return nil, nil, err
	}
	return delData[TouchPass](ctx, s.client, "/users/"+pathSeg(userID)+"/touch_passes/"+pathSeg(touchPassID), nil, true)
}

// BatchTouchPassAssignment is the body of
// [UsersService.BatchAssignTouchPasses].
type BatchTouchPassAssignment struct {
	// UserIDs are the users to give an assignable pass each (sent as ids).
	UserIDs []string `json:"ids"`
	// Emails maps a user id to the e-mail address the pass is sent to;
	// users without an entry get it at their own address.
	Emails map[string]string `json:"emails,omitempty"`
}

// BatchAssignTouchPasses gives each user an assignable touch pass
// (controller 3.2.20 or later) and returns the passes, PENDING.
//
// Although it is a PUT, each call hands out passes: a retry after a lost
// answer could give every user a second one. It is therefore sent once
// and never retried, not even with RetryPolicy.RetryWrites; after a
// failure, check with [TouchPassesService.List] before calling again.
//
// API: PUT /api/v1/developer/users/touch_passes/assign (permission edit:user)
func (s *UsersService) BatchAssignTouchPasses(ctx context.Context, req *BatchTouchPassAssignment) ([]TouchPass, *Response, error) {
	const op = "Users.BatchAssignTouchPasses"
	if req == nil {
		return nil, nil, invalidArg(op, "req", "must not be nil")
	}
	if len(req.UserIDs) == 0 {
		return nil, nil, invalidArg(op, "UserIDs", "must not be empty")
	}
	for i, id := range req.UserIDs {
		if strings.TrimSpace(id) == "" {
			return nil, nil, invalidArg(op, "UserIDs["+strconv.Itoa(i)+"]", "must not be empty")
		}
	}
	v, resp, err := call[TouchPasses](sendOnce(ctx), s.client, "PUT", "/users/touch_passes/assign", nil, req, false)
	if err != nil {
		return nil, resp, err
	}
	if v == nil || *v == nil {
		return []TouchPass{}, resp, nil
	}
	return *v, resp, nil
}

// AssignLicensePlates adds licence plates (their numbers, e.g. "JQ178")
// to a user. The body is a bare JSON array of the numbers. Requires
// controller 3.3.10 or later.
//
// API: PUT /api/v1/developer/users/{id}/license_plates (permission edit:user)
func (s *UsersService) AssignLicensePlates(ctx context.Context, id string, plates []string) (*Response, error) {
	const op = "Users.AssignLicensePlates"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkIDs(op, "plates", plates, false); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", userPath(id)+"/license_plates", nil, plates, false)
	return resp, err
}

// UnassignLicensePlate removes a licence plate from a user; plateID is
// the plate's [LicensePlate.ID], not its number. Requires controller
// 3.3.10 or later.
//
// API: DELETE /api/v1/developer/users/{user_id}/license_plates/{license_plate_id} (permission edit:user)
func (s *UsersService) UnassignLicensePlate(ctx context.Context, userID, plateID string) (*Response, error) {
	const op = "Users.UnassignLicensePlate"
	if err := checkID(op, "userID", userID); err != nil {
		return nil, err
	}
	if err := checkID(op, "plateID", plateID); err != nil {
		return nil, err
	}
	return del(ctx, s.client, userPath(userID)+"/license_plates/"+pathSeg(plateID), nil)
}
