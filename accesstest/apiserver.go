package accesstest

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/access-dev/access"
)

// EditAPIServer is the permission key of the API server's certificate
// operations.
const EditAPIServer Permission = "edit:api_server"

// The API server operations.
const (
	OpAPIServerUploadCertificate Op = "APIServer.UploadCertificate"
	OpAPIServerDeleteCertificate Op = "APIServer.DeleteCertificate"
)

// APICertificate is the certificate uploaded to the fake's API server. The
// fake keeps serving its own certificate: a console needs a restart of
// Access to switch.
type APICertificate struct {
	// KeyPEM and CertPEM are the uploaded parts "key" and "cert".
	KeyPEM, CertPEM []byte
	// Leaf is the parsed certificate.
	Leaf *x509.Certificate
	// UploadedAt is the fake's time of the upload.
	UploadedAt time.Time
}

// APICertificate returns the certificate uploaded with
// APIServer.UploadCertificate, and false when none is (never uploaded, or
// deleted since).
func (s *Server) APICertificate() (APICertificate, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logs.cert == nil {
		return APICertificate{}, false
	}
	c := *s.logs.cert
	c.KeyPEM, c.CertPEM = slices.Clone(c.KeyPEM), slices.Clone(c.CertPEM)
	return c, true
}

// formPart reads one file part of a parsed multipart form.
func formPart(r *http.Request, name string) ([]byte, bool) {
	fhs := r.MultipartForm.File[name]
	if len(fhs) != 1 {
		return nil, false
	}
	f, err := fhs[0].Open()
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, err == nil
}

func (s *Server) uploadCertificate(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(maxRequestBody); err != nil {
		badParams(w, "The body must be multipart/form-data with the files key and cert.")
		return
	}
	defer r.MultipartForm.RemoveAll()
	key, ok1 := formPart(r, "key")
	cert, ok2 := formPart(r, "cert")
	if !ok1 || !ok2 {
		badParams(w, "The files key and cert are required.")
		return
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		writeError(w, http.StatusBadRequest, access.CodeParamsInvalid, "parameter error")
		return
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		writeError(w, http.StatusBadRequest, access.CodeParamsInvalid, "parameter error")
		return
	}
	s.mu.Lock()
	s.logs.cert = &APICertificate{KeyPEM: key, CertPEM: cert, Leaf: leaf, UploadedAt: s.clockNow()}
	s.publish(change{Log: "API server certificate uploaded"})
	s.mu.Unlock()
	writeSuccess(w)
}

func (s *Server) deleteCertificate(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.logs.cert = nil
	s.publish(change{Log: "API server certificate deleted"})
	s.mu.Unlock()
	writeSuccess(w)
}
