package accesstest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"

	"github.com/access-dev/access"
)

// OpQRCodesDownload is the QR code image download.
const OpQRCodesDownload Op = "QRCodes.Download"

// qrPNG draws a visitor's code as a PNG: the visitor id encoded as a QR
// code (see qrencode.go) with a four-module quiet zone, scale pixels a
// module.
func qrPNG(text string, scale int) []byte {
	m := qrMatrix(text)
	n := len(m)
	size := (n + 8) * scale
	img := image.NewGray(image.Rect(0, 0, size, size))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range n {
		for x := range n {
			if !m[y][x] {
				continue
			}
			for dy := range scale {
				for dx := range scale {
					img.SetGray((x+4)*scale+dx, (y+4)*scale+dy, color.Gray{})
				}
			}
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

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
	img := qrPNG(id, 4)
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	w.Header().Set("Content-Disposition", `attachment; filename="visitor_qr_code.png"`)
	_, _ = w.Write(img)
}
