package access

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
)

// APIServerService installs and removes the HTTPS certificate of the
// console's API server (port 12445). Get it from [Client.APIServer].
type APIServerService service

// CertificateUpload is a certificate and its private key, both PEM
// encoded, for [APIServerService.UploadCertificate]. Printing it with
// fmt never shows the key.
type CertificateUpload struct {
	// Key is the PEM private key (sent as the part "key").
	Key []byte
	// Cert is the PEM certificate, optionally followed by its chain (sent
	// as the part "cert").
	Cert []byte
}

// String describes the upload without its key.
func (c CertificateUpload) String() string {
	return fmt.Sprintf("access.CertificateUpload{Cert: %d bytes, Key: REDACTED}", len(c.Cert))
}

// GoString is String, so that %#v does not show the key either.
func (c CertificateUpload) GoString() string { return c.String() }

// Format writes String for every verb.
func (c CertificateUpload) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

func (c *CertificateUpload) validate(op string) error {
	if c == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	certBlock, _ := pem.Decode(c.Cert)
	if certBlock == nil || certBlock.Type != "CERTIFICATE" {
		return invalidArg(op, "Cert", "must be a PEM certificate")
	}
	keyBlock, _ := pem.Decode(c.Key)
	if keyBlock == nil || !strings.HasSuffix(keyBlock.Type, "PRIVATE KEY") {
		return invalidArg(op, "Key", "must be a PEM private key")
	}
	if keyMatches(certBlock, keyBlock) {
		return nil
	}
	// The decoded blocks did not show a match: tls.X509KeyPair, which
	// decodes and checks the pair the same way, says what is wrong (or
	// accepts a key block it finds further on).
	if _, err := tls.X509KeyPair(c.Cert, c.Key); err != nil {
		// The error names the mismatch, never the key's bytes.
		return invalidArg(op, "Key", "does not match the certificate: "+err.Error())
	}
	return nil
}

// keyMatches reports whether the key block is a private key that
// tls.X509KeyPair accepts for the certificate block: the check
// tls.X509KeyPair makes (the first certificate parsed, the key parsed as
// PKCS #1, PKCS #8 or SEC 1, public keys compared), on the blocks
// validate has already decoded, so that a valid pair is not decoded
// twice. It never accepts a pair tls.X509KeyPair refuses; when it
// reports false, tls.X509KeyPair decides.
func keyMatches(certBlock, keyBlock *pem.Block) bool {
	if keyBlock.Type != "PRIVATE KEY" && !strings.HasSuffix(keyBlock.Type, " PRIVATE KEY") {
		return false // tls.X509KeyPair skips this block: let it look further
	}
	leaf, err := x509.ParseCertificate(certBlock.Bytes)
	if err != nil {
		return false
	}
	var priv crypto.PrivateKey
	if k, err := x509.ParsePKCS1PrivateKey(keyBlock.Bytes); err == nil {
		priv = k
	} else if k, err := x509.ParsePKCS8PrivateKey(keyBlock.Bytes); err == nil {
		switch k.(type) {
		case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
			priv = k
		default:
			return false // a key type TLS does not use
		}
	} else if k, err := x509.ParseECPrivateKey(keyBlock.Bytes); err == nil {
		priv = k
	} else {
		return false
	}
	pub, ok := priv.(interface{ Public() crypto.PublicKey }).Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(leaf.PublicKey)
}

// UploadCertificate replaces the self-signed certificate of the API server
// with req's. The key must be the certificate's: a key that does not match
// (tls.X509KeyPair fails) or input that is not PEM is a
// [*ValidationError] before anything is sent. The body is multipart with
// the parts "key" and "cert"; the upload is never retried.
//
// The per-attempt timeout ([WithTimeout]) bounds the wait between two
// chunks sent and the wait for the answer, never the whole upload.
//
// The certificate applies only to the API server on port 12445, and only
// after Access has been restarted on the console.
//
// Access 2.2.10 or later.
//
// API: POST /api/v1/developer/api_server/certificates  (permission edit:api_server)
func (s *APIServerService) UploadCertificate(ctx context.Context, req *CertificateUpload) (*Response, error) {
	if err := req.validate("APIServer.UploadCertificate"); err != nil {
		return nil, err
	}
	body := multipartBody(
		formFile{field: "key", filename: "server.key", contentType: "application/x-pem-file", r: bytes.NewReader(req.Key)},
		formFile{field: "cert", filename: "server.crt", contentType: "application/x-pem-file", r: bytes.NewReader(req.Cert)},
	)
	_, resp, err := call[ignored](ctx, s.client, "POST", "/api_server/certificates", nil, body, false)
	return resp, err
}

// DeleteCertificate removes the uploaded certificate: the API server goes
// back to its self-signed one after Access has been restarted on the
// console. Like every delete, it is retried, and a retry that finds
// nothing to delete after a lost answer is a success.
//
// Access 2.2.10 or later.
//
// API: DELETE /api/v1/developer/api_server/certificates  (permission edit:api_server)
func (s *APIServerService) DeleteCertificate(ctx context.Context) (*Response, error) {
	return del(ctx, s.client, "/api_server/certificates", nil)
}
