package access

import (
	"context"
	"io"
)

// QRCodesService downloads visitors' QR codes (controller 3.3.10 or
// later). Give a visitor a QR code with [VisitorsService.AssignQRCode].
// Get it from [Client.QRCodes].
type QRCodesService service

// Download streams the QR code image of a visitor into w (a PNG on
// current consoles; resp.Header.Get("Content-Type") says which). The
// image is never held in memory. The call is retried only while no byte
// has reached w; once the image has started, a broken connection ends
// the call with a *[RequestError] and w holds a partial image. An error
// answer (an unknown visitor, a visitor without a QR code) is an
// *[APIError] and writes nothing to w.
//
// The per-attempt timeout ([WithTimeout], 30 s by default) bounds only the
// wait for the answer and each silence within it, never the whole transfer:
// a long download runs as long as bytes flow, bounded by ctx alone.
//
// The vendor's v3 reference calls the path id "ID of the QR Code"; v4
// and its sample use the visitor id, as here.
//
// API: GET /api/v1/developer/credentials/qr_codes/download/:visitor_id (permission view:credential)
func (s *QRCodesService) Download(ctx context.Context, visitorID string, w io.Writer) (*Response, error) {
	if err := checkID("QRCodes.Download", "visitorID", visitorID); err != nil {
		return nil, err
	}
	return download(ctx, s.client, "GET", "/credentials/qr_codes/download/"+pathSeg(visitorID), nil, nil, w)
}
