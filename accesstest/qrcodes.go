package accesstest

import (
	"net/http"
	"strconv"

	"github.com/access-dev/access"
)

// OpQRCodesDownload is the QR code image download.
const OpQRCodesDownload Op = "QRCodes.Download"

// downloadQRCode answers the PNG of a visitor that holds a QR code (see
// Visitors.AssignQRCode); others answer CODE_RESOURCE_NOT_FOUND.
func (s *Server) downloadQRCode(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	ok := s.visitor(id) != nil && s.cr().qr[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The visitor has no QR code.")
		return
	}
	img, err := qrPNG(id, 4) // visitor ids are far shorter than the encoder's limit
	if err != nil {
		writeError(w, http.StatusInternalServerError, access.CodeSystemError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	w.Header().Set("Content-Disposition", `attachment; filename="visitor_qr_code.png"`)
	_, _ = w.Write(img)
}
