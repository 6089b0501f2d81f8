package access

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKeyPair makes a self-signed certificate and its key, in PEM.
func testKeyPair(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	certPEM, keyPEM, err := newKeyPair()
	require.NoError(t, err)
	return certPEM, keyPEM
}

func newKeyPair() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console.test"},
		DNSNames: []string{"console.test"}, NotBefore: time.Unix(1700000000, 0), NotAfter: time.Unix(1900000000, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), nil
}

// opCert and opKey are the pair the upload of allOps sends.
var opCert, opKey = func() ([]byte, []byte) {
	c, k, err := newKeyPair()
	if err != nil {
		panic(err)
	}
	return c, k
}()

func TestAPIServerUploadCertificateWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{MaxRetries: 3, RetryWrites: true, WaitMin: time.Millisecond, WaitMax: time.Millisecond}))
	cert, key := testKeyPair(t)
	var calls atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/api_server/certificates", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		require.NoError(t, err)
		assert.Equal(t, "multipart/form-data", mt)
		mr := multipart.NewReader(r.Body, params["boundary"])
		var parts []string
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			b, _ := io.ReadAll(p)
			parts = append(parts, p.FormName())
			switch p.FormName() {
			case "key":
				assert.Equal(t, key, b)
				assert.Equal(t, "server.key", p.FileName())
			case "cert":
				assert.Equal(t, cert, b)
				assert.Equal(t, "server.crt", p.FileName())
			}
			assert.Equal(t, "application/x-pem-file", p.Header.Get("Content-Type"))
		}
		assert.Equal(t, []string{"key", "cert"}, parts)
		if calls.Load() == 1 {
			writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":"success"}`)
	})
	_, err := c.APIServer.UploadCertificate(logCtx, &CertificateUpload{Key: key, Cert: cert})
	var ae *APIError
	require.ErrorAs(t, err, &ae, "an upload is never retried, even with RetryWrites")
	assert.Equal(t, int32(1), calls.Load())
	resp, err := c.APIServer.UploadCertificate(logCtx, &CertificateUpload{Key: key, Cert: cert})
	require.NoError(t, err)
	assert.Equal(t, CodeSuccess, resp.Code)
}

func TestAPIServerUploadCertificateValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request fails the test
	cert, key := testKeyPair(t)
	otherCert, otherKey := testKeyPair(t)
	for name, tc := range map[string]struct {
		req   *CertificateUpload
		field string
	}{
		"nil":              {nil, "req"},
		"empty":            {&CertificateUpload{}, "Cert"},
		"key not PEM":      {&CertificateUpload{Key: []byte("not a key"), Cert: cert}, "Key"},
		"cert not PEM":     {&CertificateUpload{Key: key, Cert: []byte("-----BEGIN NOTHING-----")}, "Cert"},
		"swapped":          {&CertificateUpload{Key: cert, Cert: key}, "Cert"},
		"key of another":   {&CertificateUpload{Key: otherKey, Cert: cert}, "Key"},
		"cert of another":  {&CertificateUpload{Key: key, Cert: otherCert}, "Key"},
		"key as cert type": {&CertificateUpload{Key: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), Cert: cert}, "Key"},
		"corrupt key": {&CertificateUpload{Key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: []byte("junk")}), Cert: cert},
			"Key"},
	} {
		resp, err := c.APIServer.UploadCertificate(logCtx, tc.req)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.Equal(t, tc.field, ve.Field, name)
		}
		assert.Nil(t, resp, name)
		if tc.req != nil && len(tc.req.Key) > 0 {
			assert.NotContains(t, err.Error(), strings.TrimSpace(string(tc.req.Key)), name)
		}
	}
}

func TestCertificateUploadNeverPrintsTheKey(t *testing.T) {
	t.Parallel()
	cert, key := testKeyPair(t)
	u := &CertificateUpload{Key: key, Cert: cert}
	for _, s := range []string{fmt.Sprint(u), fmt.Sprintf("%v %+v %#v %s %x %q", *u, u, u, u, u, u)} {
		assert.NotContains(t, s, "PRIVATE")
		assert.NotContains(t, s, fmt.Sprintf("%x", key[:20]))
		assert.Contains(t, s, "REDACTED")
	}
}

func TestAPIServerDeleteCertificateWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("DELETE /api/v1/developer/api_server/certificates", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Empty(t, r.URL.RawQuery)
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":"success"}`)
	})
	resp, err := c.APIServer.DeleteCertificate(logCtx)
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
}
