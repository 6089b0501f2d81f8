package access

import (
	"context"
	"strconv"
	"strings"
)

// The credential operations of visitors: NFC cards, PIN codes, QR codes
// and licence plates.

// AssignNFCCard gives a visitor an NFC card (a token from
// [NFCCardsService.Enroll] or the card list). A card another user or
// visitor holds is refused ([ErrConflict]) unless ForceAdd moves it.
//
// API: PUT /api/v1/developer/visitors/:id/nfc_cards (permission edit:visitor)
func (s *VisitorsService) AssignNFCCard(ctx context.Context, id string, req *NFCCardAssignment) (*Response, error) {
	const op = "Visitors.AssignNFCCard"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := req.validate(op); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/visitors/"+pathSeg(id)+"/nfc_cards", nil, req, false)
	return resp, err
}

// UnassignNFCCard takes an NFC card back from a visitor.
//
// API: PUT /api/v1/developer/visitors/:id/nfc_cards/delete (permission edit:visitor)
func (s *VisitorsService) UnassignNFCCard(ctx context.Context, id, token string) (*Response, error) {
	const op = "Visitors.UnassignNFCCard"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if strings.TrimSpace(token) == "" {
		return nil, invalidArg(op, "token", "must not be empty")
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/visitors/"+pathSeg(id)+"/nfc_cards/delete", nil, tokenBody{token}, false)
	return resp, err
}

// tokenBody is the body of the unassign-card calls.
type tokenBody struct {
	Token string `json:"token"`
}

// pinBody is the body of the assign-PIN calls.
type pinBody struct {
	PINCode string `json:"pin_code"`
}

// AssignPINCode gives a visitor a PIN (from [PINCodesService.Generate]),
// replacing any PIN they had. A PIN someone else uses is refused with
// CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST ([ErrConflict]).
//
// API: PUT /api/v1/developer/visitors/:id/pin_codes (permission edit:visitor)
func (s *VisitorsService) AssignPINCode(ctx context.Context, id, pin string) (*Response, error) {
	const op = "Visitors.AssignPINCode"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkPIN(op, pin); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/visitors/"+pathSeg(id)+"/pin_codes", nil, pinBody{pin}, false)
	return resp, err
}

// UnassignPINCode removes a visitor's PIN.
//
// API: DELETE /api/v1/developer/visitors/:id/pin_codes (permission edit:visitor)
func (s *VisitorsService) UnassignPINCode(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Visitors.UnassignPINCode", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/visitors/"+pathSeg(id)+"/pin_codes", nil)
}

// AssignQRCode gives a visitor a QR code (controller 3.3.10 or later);
// download its image with [QRCodesService.Download].
//
// API: PUT /api/v1/developer/visitors/:id/qr_codes (permission edit:visitor)
func (s *VisitorsService) AssignQRCode(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Visitors.AssignQRCode", "id", id); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/visitors/"+pathSeg(id)+"/qr_codes", nil, nil, false)
	return resp, err
}

// UnassignQRCode removes a visitor's QR code (controller 3.3.10 or later).
//
// API: DELETE /api/v1/developer/visitors/:id/qr_codes (permission edit:visitor)
func (s *VisitorsService) UnassignQRCode(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Visitors.UnassignQRCode", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/visitors/"+pathSeg(id)+"/qr_codes", nil)
}

func checkPlates(op string, plates []string) error {
	if len(plates) == 0 {
		return invalidArg(op, "plates", "must not be empty")
	}
	for i, p := range plates {
		if strings.TrimSpace(p) == "" {
			return invalidArg(op, "plates["+strconv.Itoa(i)+"]", "must not be empty")
		}
	}
	return nil
}

// AssignLicensePlates adds licence plates to a visitor (controller 3.3.10
// or later). The body is a bare JSON array of plate numbers.
//
// API: PUT /api/v1/developer/visitors/:id/license_plates (permission edit:visitor)
func (s *VisitorsService) AssignLicensePlates(ctx context.Context, id string, plates []string) (*Response, error) {
	const op = "Visitors.AssignLicensePlates"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkPlates(op, plates); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", "/visitors/"+pathSeg(id)+"/license_plates", nil, plates, false)
	return resp, err
}

// UnassignLicensePlate removes one licence plate (by its id, see
// [LicensePlate]) from a visitor (controller 3.3.10 or later).
//
// API: DELETE /api/v1/developer/visitors/:visitor_id/license_plates/:license_plate_id (permission edit:visitor)
func (s *VisitorsService) UnassignLicensePlate(ctx context.Context, visitorID, plateID string) (*Response, error) {
	const op = "Visitors.UnassignLicensePlate"
	if err := checkID(op, "visitorID", visitorID); err != nil {
		return nil, err
	}
	if err := checkID(op, "plateID", plateID); err != nil {
		return nil, err
	}
	return del(ctx, s.client, "/visitors/"+pathSeg(visitorID)+"/license_plates/"+pathSeg(plateID), nil)
}
